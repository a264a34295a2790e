// SPDX-License-Identifier: GPL-2.0
/* Quantiles and a five-number summary; see stats.h for the choices. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "stats.h"

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

static double *sorted_copy(const double *x, size_t n)
{
	double *s = malloc(n * sizeof(*s));

	if (!s)
		return NULL;
	memcpy(s, x, n * sizeof(*s));
	qsort(s, n, sizeof(*s), cmp_double);
	return s;
}

double stats_quantile_sorted(const double *sorted, size_t n, double q)
{
	double pos, frac;
	size_t lo;

	if (!n)
		return NAN;
	if (q <= 0)
		return sorted[0];
	if (q >= 1)
		return sorted[n - 1];
	pos = q * (double)(n - 1);
	lo = (size_t)pos;
	frac = pos - (double)lo;
	if (lo + 1 >= n)
		return sorted[n - 1];
	/* numpy's form: exact at both ends of the interval */
	return sorted[lo] + frac * (sorted[lo + 1] - sorted[lo]);
}

double stats_quantile(const double *x, size_t n, double q)
{
	double *s, v;

	if (!n)
		return NAN;
	s = sorted_copy(x, n);
	if (!s)
		return NAN;
	v = stats_quantile_sorted(s, n, q);
	free(s);
	return v;
}

double stats_median(const double *x, size_t n)
{
	return stats_quantile(x, n, 0.5);
}

void stats_summarize(const double *x, size_t n, struct stats_summary *s)
{
	double *v, sum = 0;
	size_t i;

	s->n = n;
	s->min = s->q1 = s->median = s->q3 = s->max = s->mean = NAN;
	if (!n)
		return;
	v = sorted_copy(x, n);
	if (!v)
		return;
	for (i = 0; i < n; i++)
		sum += v[i];
	s->min = v[0];
	s->q1 = stats_quantile_sorted(v, n, 0.25);
	s->median = stats_quantile_sorted(v, n, 0.5);
	s->q3 = stats_quantile_sorted(v, n, 0.75);
	s->max = v[n - 1];
	s->mean = sum / (double)n;
	free(v);
}

double stats_spread_pct(const struct stats_summary *s)
{
	if (!s->n)
		return NAN;
	if (s->q3 == s->q1)
		return 0;
	if (s->median == 0)
		return NAN;
	return (s->q3 - s->q1) / 2 / fabs(s->median) * 100;
}

double stats_geomean(const double *x, size_t n, size_t *used)
{
	double logs = 0;
	size_t i, k = 0;

	for (i = 0; i < n; i++) {
		if (!(x[i] > 0) || !isfinite(x[i]))
			continue;
		logs += log(x[i]);
		k++;
	}
	if (used)
		*used = k;
	return k ? exp(logs / (double)k) : NAN;
}
