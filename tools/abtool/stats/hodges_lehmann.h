/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The Hodges-Lehmann estimate of the shift between two samples and its
 * exact rank-based confidence interval (Lehmann 1975; R's wilcox.test
 * with conf.int=TRUE).
 *
 * Why this and not a bootstrap CI of the ratio of medians: with the 4 to
 * 8 trials per config a run affords, a bootstrap of a median resamples
 * among a handful of distinct values and its percentile interval
 * undercovers badly; this interval's coverage is exact under the shift
 * model at any n, it needs no random seed, and it is the interval that
 * inverts the Mann-Whitney test the report already uses, so a CI that
 * excludes 0 and a significant raw p agree (up to ties).
 *
 * The shift is the median of the n_x * n_y differences y_j - x_i; the
 * interval runs from the k-th smallest to the k-th largest difference,
 * k from the exact null distribution of U (where it is cheap to count,
 * stats_mwu_exact_feasible(), else its normal approximation).  Discreteness means the reachable level is not
 * 1 - alpha: the smallest k whose tails reach alpha/2 is used (as R
 * does), and the level it actually has is returned (97.1% for 4 vs 4 at
 * alpha 0.05; 90% for 3 vs 3, where no 95% interval exists).  With ties
 * the level is approximate.
 */
#ifndef ABTOOL_HODGES_LEHMANN_H
#define ABTOOL_HODGES_LEHMANN_H

#include <stdbool.h>
#include <stddef.h>

struct stats_hl {
	double shift;	/* median of y_j - x_i */
	double lo, hi;	/* confidence interval of the shift */
	double level;	/* its confidence level, in (0, 1) */
	bool exact;	/* level from the exact distribution */
};

/*
 * Shift of @y relative to @x at nominal level 1 - @alpha.  Returns 0,
 * -EINVAL for an empty sample, a non-finite value or alpha outside
 * (0, 1); -ENOMEM.
 */
int stats_hodges_lehmann(const double *x, size_t nx, const double *y,
			 size_t ny, double alpha, struct stats_hl *r);

#endif
