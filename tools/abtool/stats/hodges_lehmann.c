// SPDX-License-Identifier: GPL-2.0
/* Hodges-Lehmann shift and its exact rank-based CI; see hodges_lehmann.h. */
#include <errno.h>
#include <math.h>
#include <stdlib.h>

#include "hodges_lehmann.h"
#include "mwu.h"
#include "normal.h"

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

/* Sorted y_j - x_i, or NULL (-EINVAL in @err for a non-finite value). */
static double *differences(const double *x, size_t nx, const double *y,
			   size_t ny, int *err)
{
	double *d = malloc(nx * ny * sizeof(*d));
	size_t i, j;

	*err = -ENOMEM;
	if (!d)
		return NULL;
	for (i = 0; i < nx; i++) {
		for (j = 0; j < ny; j++) {
			d[i * ny + j] = y[j] - x[i];
			if (!isfinite(d[i * ny + j])) {
				free(d);
				*err = -EINVAL;
				return NULL;
			}
		}
	}
	qsort(d, nx * ny, sizeof(*d), cmp_double);
	return d;
}

/*
 * Exact k (1-based) and level: the smallest q with P(U <= q) >= alpha/2,
 * at least 1; the level is 1 - 2 P(U <= k - 1).  U's null distribution
 * without ties is the rank sum of m values from ranks 1..m+n, shifted;
 * it is the same for (m, n) and (n, m), so the smaller side is drawn.
 */
static int exact_k(size_t nx, size_t ny, double alpha, size_t *k,
		   double *level)
{
	size_t m = nx < ny ? nx : ny, n = nx + ny - m;
	size_t len, s, i, base = m * (m + 1);
	double total = 0, cum = 0, below = 0, *cnt;
	long *score2 = malloc((m + n) * sizeof(*score2));

	if (!score2)
		return -ENOMEM;
	for (i = 0; i < m + n; i++)
		score2[i] = 2 * (long)(i + 1);
	cnt = stats_rank_sum_dist(score2, m + n, m, &len);
	free(score2);
	if (!cnt)
		return -ENOMEM;
	for (s = 0; s < len; s++)
		total += cnt[s];
	/* doubled rank sums are even here; U = (s - m(m+1)) / 2 */
	for (*k = 0, s = base; s < len; s += 2) {
		cum += cnt[s];
		if (cum / total >= alpha / 2)
			break;
		below = cum;
		++*k;
	}
	if (!*k) {
		/* even U = 0 is too likely: the widest interval, as R */
		*k = 1;
		below = cnt[base];
	}
	*level = 1 - 2 * below / total;
	free(cnt);
	return 0;
}

/* Large samples: k from the normal approximation, nominal level. */
static void normal_k(size_t m, size_t n, double alpha, size_t *k,
		     double *level)
{
	double mn = (double)m * (double)n;
	double sd = sqrt(mn * (double)(m + n + 1) / 12);
	double c = floor(mn / 2 - stats_normal_isf(alpha / 2) * sd + 0.5);

	*k = c < 1 ? 1 : (size_t)c;
	*level = 1 - alpha;
}

int stats_hodges_lehmann(const double *x, size_t nx, const double *y,
			 size_t ny, double alpha, struct stats_hl *r)
{
	size_t mn = nx * ny, k;
	double *d;
	int ret;

	if (!nx || !ny || !(alpha > 0 && alpha < 1))
		return -EINVAL;
	d = differences(x, nx, y, ny, &ret);
	if (!d)
		return ret;
	r->shift = (d[(mn - 1) / 2] + d[mn / 2]) / 2;
	r->exact = stats_mwu_exact_feasible(nx, ny);
	ret = 0;
	if (r->exact)
		ret = exact_k(nx, ny, alpha, &k, &r->level);
	else
		normal_k(nx, ny, alpha, &k, &r->level);
	if (!ret) {
		if (k > (mn + 1) / 2)
			k = (mn + 1) / 2;
		r->lo = d[k - 1];
		r->hi = d[mn - k];
	}
	free(d);
	return ret;
}
