/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Small-sample statistics for A/B trials: quantiles, a five-number
 * summary.
 *
 * Quantiles interpolate linearly between order statistics (Hyndman-Fan
 * type 7, numpy.percentile's default), so numbers match what a reviewer
 * gets from numpy on the same data.
 *
 * The Mann-Whitney U test lives in mwu.h (included here for the callers
 * that want both).
 */
#ifndef ABTOOL_STATS_H
#define ABTOOL_STATS_H

#include <stdbool.h>
#include <stddef.h>

#include "mwu.h"

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

/*
 * Geometric mean of the positive values in @x (others skipped: a ratio
 * of 0 or below has no logarithm); NaN when none.  For the mean of
 * per-cell ratios, where an arithmetic mean would let +100% and -50%
 * (the same factor of 2 either way) average to +25%.
 */
double stats_geomean(const double *x, size_t n, size_t *used);

#endif
