/* SPDX-License-Identifier: GPL-2.0 */
/*
 * gnuplot bar charts of a report: per metric, clustered bars (cells on
 * x, one bar per config at its median, error bars from the first to the
 * third quartile), as DIR/<metric>.svg and .png.  The .dat and .gp files
 * stay next to them: `cd DIR && gnuplot <metric>.gp` redraws a chart.
 */
#ifndef ABTOOL_PLOT_H
#define ABTOOL_PLOT_H

#include <stdbool.h>
#include <stddef.h>

struct report;

#define PLOT_NO_GNUPLOT	1	/* scripts written, images skipped */

/* Is a gnuplot executable on $PATH? */
bool plot_have_gnuplot(void);

/*
 * Write the charts of @r into @dir (created if needed).  Returns 0,
 * PLOT_NO_GNUPLOT when gnuplot is not installed (the .dat and .gp files
 * are still written), or a negative errno with a reason in @err.
 */
int plot_write(const struct report *r, const char *dir,
	       char *err, size_t errlen);

#endif
