// SPDX-License-Identifier: GPL-2.0
/* Mann-Whitney U, exact with ties for small samples; see mwu.h. */
#include <errno.h>
#include <math.h>
#include <stdlib.h>

#include "mwu.h"
#include "normal.h"

struct ranked {
	double v;
	bool from_x;
};

static int cmp_ranked(const void *a, const void *b)
{
	double x = ((const struct ranked *)a)->v;
	double y = ((const struct ranked *)b)->v;

	return (x > y) - (x < y);
}

/*
 * Sort the pooled sample and give each value twice its mid-rank in
 * @score2: ranks i+1..j tie, so twice their mean is i+1+j, an integer,
 * which keeps every rank sum exact.  Stores sum(t^3 - t) over the tie
 * groups in @tie_term for the normal approximation's variance.
 */
static void doubled_ranks(struct ranked *all, size_t n, long *score2,
			  double *tie_term)
{
	size_t i, j, k;

	qsort(all, n, sizeof(*all), cmp_ranked);
	*tie_term = 0;
	for (i = 0; i < n; i = j) {
		for (j = i + 1; j < n && all[j].v == all[i].v; j++)
			;
		for (k = i; k < j; k++)
			score2[k] = (long)(i + 1 + j);
		*tie_term += pow((double)(j - i), 3) - (double)(j - i);
	}
}

double *stats_rank_sum_dist(const long *score2, size_t n, size_t k,
			    size_t *len)
{
	size_t width = 1, i, j, s;
	double *f;

	for (i = 0; i < n; i++)
		width += (size_t)score2[i];
	/*
	 * f[j][s]: ways to draw j of the values seen so far with doubled
	 * rank sum s.  Adding a value either skips it or draws it; j runs
	 * down so each value is drawn at most once (0/1 knapsack).  Tied
	 * values are distinct items here, which is what the permutation
	 * test counts: every split of the pooled trials is equally likely.
	 */
	f = calloc((k + 1) * width, sizeof(*f));
	if (!f)
		return NULL;
	f[0] = 1;
	for (i = 0; i < n; i++) {
		size_t sc = (size_t)score2[i];

		for (j = (i + 1 < k ? i + 1 : k); j >= 1; j--) {
			double *cur = f + j * width;
			const double *prev = f + (j - 1) * width;

			for (s = width; s-- > sc;)
				cur[s] += prev[s - sc];
		}
	}
	/* keep only row k */
	for (s = 0; s < width; s++)
		f[s] = f[k * width + s];
	*len = width;
	return f;
}

/*
 * Two-sided exact p for the observed doubled rank sum @obs of the @k
 * values drawn (the smaller sample: the cost grows with k, and the two
 * samples' rank sums add up to a constant, so either has the same tails).
 */
static double exact_p(const long *score2, size_t n, size_t k, long obs)
{
	double total = 0, le = 0, ge = 0, *cnt;
	size_t len, s;

	cnt = stats_rank_sum_dist(score2, n, k, &len);
	if (!cnt)
		return NAN;
	for (s = 0; s < len; s++) {
		total += cnt[s];
		if ((long)s <= obs)
			le += cnt[s];
		if ((long)s >= obs)
			ge += cnt[s];
	}
	free(cnt);
	/* U = rank sum - k(k+1)/2, a shift: its tails are the sum's */
	return fmin(1, 2 * fmin(le, ge) / total);
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
	r->p = fmin(1, 2 * stats_normal_sf(r->z));
}

bool stats_mwu_exact_feasible(size_t nx, size_t ny)
{
	double n = (double)(nx + ny), k = (double)(nx < ny ? nx : ny);

	/* stats_rank_sum_dist(): n values, k rows, n(n+1) + 1 sums */
	return n * k * (n * (n + 1) + 1) <= (double)STATS_MWU_EXACT_MAX_OPS;
}

/* Pool x and y; -EINVAL on a non-finite value. */
static int pool(const double *x, size_t nx, const double *y, size_t ny,
		struct ranked *all)
{
	size_t i;

	for (i = 0; i < nx + ny; i++) {
		all[i].from_x = i < nx;
		all[i].v = i < nx ? x[i] : y[i - nx];
		if (!isfinite(all[i].v))
			return -EINVAL;
	}
	return 0;
}

int stats_mann_whitney(const double *x, size_t nx, const double *y, size_t ny,
		       enum stats_mwu_method method, struct stats_mwu *r)
{
	size_t i, n = nx + ny;
	struct ranked *all;
	double tie_term;
	long *score2, sum2 = 0, small2 = 0;
	int ret;

	if (!nx || !ny)
		return -EINVAL;
	if (method == STATS_MWU_EXACT && !stats_mwu_exact_feasible(nx, ny))
		return -EINVAL;
	all = malloc(n * sizeof(*all));
	score2 = malloc(n * sizeof(*score2));
	ret = all && score2 ? pool(x, nx, y, ny, all) : -ENOMEM;
	if (ret)
		goto out;
	doubled_ranks(all, n, score2, &tie_term);
	for (i = 0; i < n; i++) {
		if (all[i].from_x)
			sum2 += score2[i];
		if (all[i].from_x == (nx <= ny))
			small2 += score2[i];
	}
	r->u1 = (double)sum2 / 2 - (double)nx * (double)(nx + 1) / 2;
	r->u2 = (double)nx * (double)ny - r->u1;
	r->ties = tie_term > 0;
	r->z = NAN;
	if (method == STATS_MWU_ASYMPTOTIC || !stats_mwu_exact_feasible(nx, ny)) {
		mwu_asymptotic(nx, ny, tie_term, r);
		goto out;
	}
	r->exact = true;
	r->p = exact_p(score2, n, nx <= ny ? nx : ny, small2);
	if (isnan(r->p))
		ret = -ENOMEM;
out:
	free(all);
	free(score2);
	return ret;
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
