// SPDX-License-Identifier: GPL-2.0
/* Quantiles and the Mann-Whitney U test; see stats.h for the choices. */
#include <errno.h>
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

struct ranked {
	double v;
	bool from_x;
};

static int cmp_ranked(const void *a, const void *b)
{
	return cmp_double(&((const struct ranked *)a)->v,
			  &((const struct ranked *)b)->v);
}

/*
 * Rank the pooled sample with midranks for ties.  Returns the rank sum of
 * x and stores sum(t^3 - t) over tie groups in @tie_term.
 */
static double rank_sum_x(struct ranked *all, size_t n, double *tie_term)
{
	double rsum = 0, mid;
	size_t i, j, k;

	qsort(all, n, sizeof(*all), cmp_ranked);
	*tie_term = 0;
	for (i = 0; i < n; i = j) {
		for (j = i + 1; j < n && all[j].v == all[i].v; j++)
			;
		/* ranks i+1 .. j share their mean */
		mid = (double)(i + 1 + j) / 2;
		for (k = i; k < j; k++)
			if (all[k].from_x)
				rsum += mid;
		*tie_term += pow((double)(j - i), 3) - (double)(j - i);
	}
	return rsum;
}

/*
 * P(U >= u) under H0 without ties.  The count of arrangements with
 * statistic k is the coefficient of q^k in the Gaussian binomial
 * [m+n choose m]_q, built with f(i, j) = q^j f(i-1, j) + f(i, j-1),
 * rolling over j so only one row of polynomials is live.
 */
static double exact_sf(size_t m, size_t n, double u)
{
	size_t umax = m * n, i, j, k, width = umax + 1;
	double *f, total = 0, tail = 0;

	f = calloc((m + 1) * width, sizeof(*f));
	if (!f)
		return NAN;
	/* j = 0: f(i, 0) = 1 (only U = 0) */
	for (i = 0; i <= m; i++)
		f[i * width] = 1;
	for (j = 1; j <= n; j++) {
		/* f(0, j) = 1 stays; f(i, j) = q^j f(i-1, j) + f(i, j-1) */
		for (i = 1; i <= m; i++) {
			double *cur = f + i * width;
			const double *prev = f + (i - 1) * width;

			for (k = umax + 1; k-- > j;)
				cur[k] += prev[k - j];
		}
	}
	for (k = 0; k <= umax; k++) {
		total += f[m * width + k];
		if ((double)k >= u)
			tail += f[m * width + k];
	}
	free(f);
	return tail / total;
}

/* Upper tail of the standard normal. */
static double normal_sf(double z)
{
	return 0.5 * erfc(z / M_SQRT2);
}

static void mwu_asymptotic(size_t nx, size_t ny, double tie_term,
			   struct stats_mwu *r)
{
	double n = (double)(nx + ny), mu = (double)nx * (double)ny / 2;
	double var, u = fmax(r->u1, r->u2);

	var = (double)nx * (double)ny / 12 *
	      ((n + 1) - tie_term / (n * (n - 1)));
	r->exact = false;
	if (var <= 0) {
		/* every value equal: no evidence of any shift */
		r->z = 0;
		r->p = 1;
		return;
	}
	r->z = (u - mu - 0.5) / sqrt(var);
	r->p = fmin(1, 2 * normal_sf(r->z));
}

static bool exact_allowed(size_t nx, size_t ny, bool ties)
{
	return !ties && nx <= STATS_MWU_EXACT_MAX_N &&
	       ny <= STATS_MWU_EXACT_MAX_N;
}

int stats_mann_whitney(const double *x, size_t nx, const double *y, size_t ny,
		       enum stats_mwu_method method, struct stats_mwu *r)
{
	struct ranked *all;
	double tie_term, rsum;
	size_t i;

	if (!nx || !ny)
		return -EINVAL;
	all = malloc((nx + ny) * sizeof(*all));
	if (!all)
		return -ENOMEM;
	for (i = 0; i < nx + ny; i++) {
		all[i].from_x = i < nx;
		all[i].v = i < nx ? x[i] : y[i - nx];
		if (!isfinite(all[i].v)) {
			free(all);
			return -EINVAL;
		}
	}
	rsum = rank_sum_x(all, nx + ny, &tie_term);
	free(all);

	r->u1 = rsum - (double)nx * (double)(nx + 1) / 2;
	r->u2 = (double)nx * (double)ny - r->u1;
	r->ties = tie_term > 0;
	r->z = NAN;

	if (method == STATS_MWU_EXACT && !exact_allowed(nx, ny, r->ties))
		return -EINVAL;
	if (method == STATS_MWU_ASYMPTOTIC ||
	    !exact_allowed(nx, ny, r->ties)) {
		mwu_asymptotic(nx, ny, tie_term, r);
		return 0;
	}
	r->exact = true;
	r->p = fmin(1, 2 * exact_sf(nx, ny, fmax(r->u1, r->u2)));
	return isnan(r->p) ? -ENOMEM : 0;
}

double stats_mwu_min_p(size_t nx, size_t ny)
{
	double c = 1;
	size_t i;

	if (!nx || !ny)
		return 1;
	/* C(nx + ny, nx), built so every partial product is an integer */
	for (i = 1; i <= nx; i++)
		c = c * (double)(ny + i) / (double)i;
	return fmin(1, 2 / c);
}
