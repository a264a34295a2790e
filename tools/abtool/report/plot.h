/* SPDX-License-Identifier: GPL-2.0 */
/*
 * gnuplot charts of a report, per metric:
 *
 * - DIR/<metric>-change.svg and .png: a forest plot of each config
 *   against the baseline, one panel per pair, one row per cell, ratios
 *   on a log axis with their intervals, the margin and the verdicts
 *   (plot_forest.c): the chart to read;
 * - DIR/<metric>-fraction.svg and .png: the same for each config as a
 *   fraction of the reference (the in-kernel driver), when there is one;
 * - DIR/<metric>.svg and .png: the absolute numbers, one small panel
 *   per cell on its own scale, a bar per config at its median with a
 *   whisker from the first to the third quartile (plot_bars.c).
 *
 * A figure too big for one image is split into pages, <stem>-2 ... .
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

/*
 * A gnuplot double-quoted string; '"' becomes '\'' in data files, a
 * newline "\n" in scripts.
 */
void plot_put_quoted(FILE *f, const char *s, bool data);

/*
 * Open a gnuplot loop drawing the figure twice, SVG and PNG, each
 * @width x @height, into STEM.svg and STEM.png, and start a multiplot
 * without a key; the caller closes it with "unset multiplot\n}".
 */
void plot_put_outputs(FILE *f, int width, int height, const char *stem);

/* Write DIR/NAME with @fn(f, @arg); 0 or a negative errno and @err. */
int plot_write_file(const char *dir, const char *name,
		    void (*fn)(FILE *f, const void *arg), const void *arg,
		    char *err, size_t errlen);
/* Run "gnuplot SCRIPT" in @dir; 0 or -EIO and @err. */
int plot_run_gnuplot(const char *dir, const char *script,
		     char *err, size_t errlen);

/* The bar charts of metric @k (plot_bars.c): DIR/STEM.* */
int plot_bars(const struct report *r, size_t k, const char *dir,
	      const char *stem, bool gnuplot, char *err, size_t errlen);

/*
 * The forest plots of metric @k (plot_forest.c): DIR/STEM-change.* and,
 * with a reference, DIR/STEM-fraction.*; images when @gnuplot.
 */
int plot_forests(const struct report *r, size_t k, const char *dir,
		 const char *stem, bool gnuplot, char *err, size_t errlen);

/* The log2 ratio axis of the forest plots (plot_axis.c). */
struct plot_axis {
	double lo, hi;
};

/* Ends from the fixed stops, around every ratio in [@min, @max]. */
void plot_axis_fit(struct plot_axis *a, double min, double max);
/* "set xtics (...)": the round ratios that fit @panel_px, labelled. */
void plot_axis_put_tics(FILE *f, const struct plot_axis *a, int panel_px);

#endif
