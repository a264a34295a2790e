/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The two-sided Mann-Whitney U (Wilcoxon rank-sum) test.
 *
 * Exact when both samples have at most STATS_MWU_EXACT_MAX_N values,
 * ties or not (benchstat's limit): the p-value comes from the permutation
 * distribution of the rank sum over all C(nx + ny, nx) ways to split the
 * pooled values, tied values carrying their mid-ranks, so a tie can never
 * make p smaller than the data allow.  Above the limit: the normal
 * approximation with tie correction and continuity correction
 * (scipy.stats.mannwhitneyu's "asymptotic").
 *
 * Two-sided p = min(1, 2 * min(P(U <= u), P(U >= u))): the smaller tail
 * doubled, as R's wilcox.test and benchstat do.  With ties the null
 * distribution need not be symmetric, and this convention stays valid
 * (conservative) where "both tails at |u - mean|" would need a choice.
 */
#ifndef ABTOOL_MWU_H
#define ABTOOL_MWU_H

#include <stdbool.h>
#include <stddef.h>

#define STATS_MWU_EXACT_MAX_N	25

enum stats_mwu_method {
	STATS_MWU_AUTO,		/* exact when allowed, else asymptotic */
	STATS_MWU_EXACT,	/* -EINVAL when a sample is too large */
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
 * Two-sided Mann-Whitney U test of @x against @y.  Returns 0, -EINVAL for
 * an empty sample, a non-finite value, or an exact test of a sample
 * larger than the limit; -ENOMEM.
 */
int stats_mann_whitney(const double *x, size_t nx, const double *y, size_t ny,
		       enum stats_mwu_method method, struct stats_mwu *r);

/*
 * The smallest two-sided p-value the exact test can give for these
 * sample sizes: 2 / C(nx + ny, nx).  When it exceeds alpha, no data can
 * be significant, and a report should say "n too small", not "~".
 */
double stats_mwu_min_p(size_t nx, size_t ny);

/*
 * The permutation distribution of a rank sum: @score2[0..n) are twice
 * the (mid-)ranks of the pooled values (integers), @k of them are drawn.
 * Returns counts[s] = number of draws whose doubled rank sum is s, for
 * s in 0..*len-1 (NULL on ENOMEM); counts are exact integers below 2^53
 * for n <= 2 * STATS_MWU_EXACT_MAX_N.
 */
double *stats_rank_sum_dist(const long *score2, size_t n, size_t k,
			    size_t *len);

#endif
