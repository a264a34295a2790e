/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A percentile bootstrap interval for the geomean over cells of the
 * ratio of two medians (a config's and the baseline's): the summary row
 * of every report table.
 *
 * Why a bootstrap here when the cells use the exact Hodges-Lehmann
 * interval: a geomean of ratios of medians over many cells has no
 * rank-based interval, and the issue it answers (issue 34, item 9) asks
 * how sure the summary number is.  The cells are fixed (the geomean is
 * over these cells, not a sample of possible ones); within each cell
 * both samples are resampled with replacement, the medians and their
 * ratio recomputed, and the geomean over the cells taken, @reps times.
 * With 8 trials a side a bootstrap of medians undercovers somewhat; the
 * interval is a description of the summary, the verdicts come from the
 * cells.
 *
 * Deterministic: the draws come from splitmix64 seeded with @seed (the
 * reports use REPORT_BOOT_SEED for every pair), so a report regenerates
 * byte for byte and one pair's interval does not depend on any other.
 */
#ifndef ABTOOL_BOOTSTRAP_H
#define ABTOOL_BOOTSTRAP_H

#include <stddef.h>
#include <stdint.h>

/* One cell: the baseline's values @x and the config's @y. */
struct stats_boot_cell {
	const double *x, *y;
	size_t nx, ny;
};

/*
 * The central @level interval (type 7 quantiles of the replicates) of
 * exp(mean over cells of log(median(y) / median(x))).  Returns 0;
 * -EINVAL for no cells, an empty sample, or level outside (0, 1);
 * -EDOM when a replicate's ratio is not positive and finite (a median
 * of 0 in a resample); -ENOMEM.
 */
int stats_boot_geomean_ratio(const struct stats_boot_cell *cells,
			     size_t nr_cells, size_t reps, uint64_t seed,
			     double level, double *lo, double *hi);

/* splitmix64 (Steele, Lea, Flood 2014): the next 64 random bits. */
uint64_t stats_splitmix64(uint64_t *state);

#endif
