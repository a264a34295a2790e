/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The two-sided Mann-Whitney U (Wilcoxon rank-sum) test.
 *
 * Exact whenever the permutation distribution is cheap to count
 * (stats_mwu_exact_feasible(): every size up to 37 a side, and far
 * more on one side when the other is small, as 174 against 3), ties or
 * not: the p-value comes from the permutation distribution of the rank
 * sum over all C(nx + ny, nx) ways to split the pooled values, tied
 * values carrying their mid-ranks, so a tie can never make p smaller
 * than the data allow.  Beyond that: the normal approximation with tie
 * correction and continuity correction (scipy.stats.mannwhitneyu's
 * "asymptotic").  benchstat stops at 25 a side; so did abtool until
 * the Dec 6 audit found [1]*26 against [2]*3 at p = 1.75e-7 by the
 * normal approximation, where the exact p is 2/3654 = 5.5e-4: with few
 * distinct values the normal curve is no model of U at any n.
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

/*
 * The exact distribution costs (nx + ny) * min(nx, ny) * (nx + ny)^2
 * additions; up to this many it is counted (~10 ms).
 */
#define STATS_MWU_EXACT_MAX_OPS	(1UL << 24)

enum stats_mwu_method {
	STATS_MWU_AUTO,		/* exact when allowed, else asymptotic */
	STATS_MWU_EXACT,	/* -EINVAL when not feasible */
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
 * an empty sample, a non-finite value, or an exact test that is not
 * feasible; -ENOMEM.
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
 * Whether the exact distribution of U for these sample sizes costs at
 * most STATS_MWU_EXACT_MAX_OPS (the rank-sum and Hodges-Lehmann code
 * both count it the same way).
 */
bool stats_mwu_exact_feasible(size_t nx, size_t ny);

/*
 * The permutation distribution of a rank sum: @score2[0..n) are twice
 * the (mid-)ranks of the pooled values (integers), @k of them are drawn.
 * Returns counts[s] = number of draws whose doubled rank sum is s, for
 * s in 0..*len-1 (NULL on ENOMEM).  The counts are doubles: exact
 * integers while C(n, k) < 2^53 (every n up to 55), beyond that within
 * a relative 1e-15, far below anything a p-value is read for.
 */
double *stats_rank_sum_dist(const long *score2, size_t n, size_t k,
			    size_t *len);

#endif
