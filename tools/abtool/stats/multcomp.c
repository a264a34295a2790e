// SPDX-License-Identifier: GPL-2.0
/* Benjamini-Hochberg adjusted p-values; see multcomp.h. */
#include <errno.h>
#include <math.h>
#include <stdlib.h>

#include "multcomp.h"

struct indexed {
	double p;
	size_t i;
};

static int cmp_indexed(const void *a, const void *b)
{
	const struct indexed *x = a, *y = b;

	if (x->p != y->p)
		return x->p < y->p ? -1 : 1;
	return (x->i > y->i) - (x->i < y->i);	/* stable: same q anyway */
}

int stats_bh_adjust(const double *p, size_t m, double *q)
{
	struct indexed *s;
	double run = 1;
	size_t j;

	if (!m)
		return 0;
	s = malloc(m * sizeof(*s));
	if (!s)
		return -ENOMEM;
	for (j = 0; j < m; j++) {
		s[j].p = p[j];
		s[j].i = j;
	}
	qsort(s, m, sizeof(*s), cmp_indexed);
	/* step up from the largest p: the running minimum keeps q monotone */
	for (j = m; j-- > 0;) {
		run = fmin(run, s[j].p * (double)m / (double)(j + 1));
		q[s[j].i] = fmin(1, run);
	}
	free(s);
	return 0;
}
