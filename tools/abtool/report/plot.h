/* SPDX-License-Identifier: GPL-2.0 */
/*
 * gnuplot charts of a report, per metric:
 *
 * - DIR/<metric>-change.svg and .png: a forest plot of each config's
 *   change vs the baseline with its confidence interval, one row per
 *   cell (plot_forest.c): the chart to read;
 * - DIR/<metric>.svg and .png: clustered bars (cells on x, one bar per
 *   config at its median, error bars from the first to the third
 *   quartile), for the absolute numbers.
 *
 * The .dat and .gp files stay next to them: `cd DIR && gnuplot X.gp`
 * redraws a chart.
 */
#ifndef ABTOOL_PLOT_H
#define ABTOOL_PLOT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

struct report;
struct report_metric;

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

/* A gnuplot double-quoted string; '"' becomes '\'' in data files. */
void plot_put_quoted(FILE *f, const char *s, bool data);

/* The forest plot's data and script (plot_forest.c), if it has a point. */
bool plot_forest_has_points(const struct report *r,
			    const struct report_metric *m);
void plot_forest_dat(FILE *f, const struct report *r,
		     const struct report_metric *m, const char *stem);
void plot_forest_gp(FILE *f, const struct report *r,
		    const struct report_metric *m, const char *stem);

#endif
