/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Small-sample statistics for A/B trials: quantiles, a five-number
 * summary and the two-sided Mann-Whitney U test.
 *
 * Quantiles interpolate linearly between order statistics (Hyndman-Fan
 * type 7, numpy.percentile's default), so numbers match what a reviewer
 * gets from numpy on the same data.
 *
 * Mann-Whitney U: exact null distribution when both samples have at most
 * STATS_MWU_EXACT_MAX_N values and no value is tied; otherwise the
 * normal approximation with tie correction and continuity correction.
 * The p-value is scipy.stats.mannwhitneyu's (two-sided, U = max(U1, U2)).
 */
#ifndef ABTOOL_STATS_H
#define ABTOOL_STATS_H

#include <stdbool.h>
#include <stddef.h>

#define STATS_MWU_EXACT_MAX_N	20

/* q in [0, 1]; @sorted ascending, n >= 1. */
double stats_quantile_sorted(const double *sorted, size_t n, double q);
/* Same on unsorted data (sorts a copy); NaN when n == 0. */
double stats_quantile(const double *x, size_t n, double q);
double stats_median(const double *x, size_t n);

struct stats_summary {
	size_t n;
	double min, q1, median, q3, max;
	double mean;
};

/* Fill @s from @x (any order); all NaN when n == 0. */
void stats_summarize(const double *x, size_t n, struct stats_summary *s);

/*
 * Half the interquartile range as a percentage of |median|: 0 when the
 * IQR is 0, NaN when only the median is 0.
 */
double stats_spread_pct(const struct stats_summary *s);

enum stats_mwu_method {
	STATS_MWU_AUTO,		/* exact when allowed, else asymptotic */
	STATS_MWU_EXACT,	/* -EINVAL with ties or n too large */
	STATS_MWU_ASYMPTOTIC,
};

struct stats_mwu {
	double u1;	/* pairs (x_i, y_j) with x_i > y_j; a tie counts 1/2 */
	double u2;	/* nx * ny - u1 */
	double z;	/* normal score (asymptotic only, else NaN) */
	double p;	/* two-sided p-value */
	bool exact;	/* p from the exact distribution */
	bool ties;	/* some value occurs more than once (pooled) */
};

/*
 * Two-sided Mann-Whitney U test of @x against @y.  Returns 0, or
 * -EINVAL for an empty sample, a non-finite value, or an exact test
 * that cannot be done (ties, or a sample larger than the limit).
 */
int stats_mann_whitney(const double *x, size_t nx, const double *y, size_t ny,
		       enum stats_mwu_method method, struct stats_mwu *r);

/*
 * The smallest two-sided p-value the exact test can give for these
 * sample sizes: 2 / C(nx + ny, nx).  When it exceeds alpha, no data can
 * be significant, and a report should say "n too small", not "~".
 */
double stats_mwu_min_p(size_t nx, size_t ny);

#endif
