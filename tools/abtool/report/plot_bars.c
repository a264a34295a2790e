// SPDX-License-Identifier: GPL-2.0
/*
 * The absolute numbers of a metric as small multiples (issue 34, item
 * 8): one panel per cell, each on its own linear scale from 0, one
 * horizontal bar per config at its median with a whisker from the first
 * to the third quartile, the configs in the same rows and colours in
 * every panel and named left of each row of panels.
 *
 * Why: the clustered bar chart before put 250k IOPS (null_blk at 4K) and
 * 300 (a 2M write) on one linear axis, where the small cells were bars of
 * no height, and ran 3000 pixels wide.  The changes themselves are the
 * forest plots' (plot_forest.c); this chart answers "how much, in the
 * metric's own unit".
 *
 * A page is at most MAX_COLS panels wide and as many rows tall as fit
 * MAX_HEIGHT pixels; more cells make more pages, METRIC-2 ... .  Each
 * page is STEM.dat (one block per cell: y median q1 q3 colour config)
 * and STEM.gp, which draws STEM.svg and STEM.png.
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "errmsg.h"
#include "plot.h"
#include "report.h"

#define MAX_COLS	4
#define MAX_HEIGHT	1500

/* Pixels */
#define BAR_PX		14	/* one config */
#define PANEL_PX	200	/* a panel's plot area, wide */
#define GAP_PX		44	/* between panels: room for the last tic */
#define CHAR_PX		7	/* sans 10 */
#define HEAD_PX		56	/* title, subtitle */
#define PTITLE_PX	26	/* a panel's title: the cell */
#define TICS_PX		28	/* x tic labels */
#define FOOT_PX		12
#define RIGHT_PX	24

struct bars {
	const struct report *r;
	const struct report_metric *m;
	size_t *configs, nr_configs;	/* columns with the metric */
	size_t label_chars;
	int cols, rows;			/* of panels, a page */
	char stem[400];
	size_t no, of;			/* page */
	size_t cell_lo, cell_hi;	/* cells [lo, hi) */
};

/* Whether config @c has a value of the metric in any cell. */
static bool column_has_data(const struct report *r,
			    const struct report_metric *m, size_t c)
{
	size_t i;

	for (i = 0; i < r->nr_cells; i++)
		if (report_entry(r, m, i, c)->sum.n)
			return true;
	return false;
}

static void put_num(FILE *f, double v)
{
	if (isfinite(v))
		fprintf(f, " %.6g", v);
	else
		fputs(" -", f);
}

static void put_dat(FILE *f, const void *arg)
{
	const struct bars *b = arg;
	size_t i, k;

	fprintf(f, "# abtool compare --plot: %s [%s], cells %zu-%zu of %zu\n"
		"# one block per cell: y median q1 q3 colour config\n",
		b->m->info.name, b->m->info.unit, b->cell_lo + 1, b->cell_hi,
		b->r->nr_cells);
	for (i = b->cell_lo; i < b->cell_hi; i++) {
		fprintf(f, "%s# %s\n", i > b->cell_lo ? "\n\n" : "",
			b->r->cells[i].label);
		for (k = 0; k < b->nr_configs; k++) {
			const struct report_entry *e =
				report_entry(b->r, b->m, i, b->configs[k]);

			fprintf(f, "%zu", b->nr_configs - k);
			put_num(f, e->sum.n ? e->sum.median : NAN);
			put_num(f, e->sum.n ? e->sum.q1 : NAN);
			put_num(f, e->sum.n ? e->sum.q3 : NAN);
			fprintf(f, " %zu ", k + 1);
			plot_put_quoted(f, b->r->columns[b->configs[k]].label,
					true);
			fputc('\n', f);
		}
	}
}

/* The largest median or third quartile of cell @i; 0 without data. */
static double cell_max(const struct bars *b, size_t i)
{
	double max = 0;
	size_t k;

	for (k = 0; k < b->nr_configs; k++) {
		const struct report_entry *e =
			report_entry(b->r, b->m, i, b->configs[k]);

		if (e->sum.n)
			max = fmax(max, fmax(e->sum.median, e->sum.q3));
	}
	return max;
}

/* "250k", "1.5M", "300", "0.25": a tic of a round value. */
static void tic_label(double v, char *buf, size_t len)
{
	if (v >= 1e6)
		snprintf(buf, len, "%gM", v / 1e6);
	else if (v >= 1e4)
		snprintf(buf, len, "%gk", v / 1e3);
	else
		snprintf(buf, len, "%g", v);
}

/*
 * The x axis of a cell: 0 to a round multiple of a 1, 2 or 5 step, about
 * three steps, so that every panel has a few round tics of its own.
 */
static void put_xaxis(FILE *f, double max)
{
	double step, mag, end, v;
	char label[32];
	bool first = true;

	if (!(max > 0) || !isfinite(max))
		max = 1;
	mag = pow(10, floor(log10(max / 3)));
	step = max / 3 / mag <= 1 ? mag : max / 3 / mag <= 2 ? 2 * mag :
	       max / 3 / mag <= 5 ? 5 * mag : 10 * mag;
	end = step * ceil(max * 1.02 / step - 1e-9);
	fprintf(f, "\tset xrange [0:%.6g]\n\tset xtics (", end);
	for (v = 0; v <= end * (1 + 1e-9); v += step) {
		tic_label(v, label, sizeof(label));
		fprintf(f, "%s\"%s\" %.6g", first ? "" : ", ", label, v);
		first = false;
	}
	fputs(")\n", f);
}

static void put_panel(FILE *f, const struct bars *b, int width, int height,
		      size_t i)
{
	size_t p = i - b->cell_lo, k;
	int col = (int)(p % (size_t)b->cols), row = (int)(p / (size_t)b->cols);
	int label_px = (int)b->label_chars * CHAR_PX + 16;
	int panel_h = (int)b->nr_configs * BAR_PX + 8;
	int left = label_px + col * (PANEL_PX + GAP_PX);
	int top = HEAD_PX + row * (PTITLE_PX + panel_h + TICS_PX) + PTITLE_PX;

	fprintf(f, "\n\t# %s\n\tset title ", b->r->cells[i].label);
	plot_put_quoted(f, b->r->cells[i].label, false);
	fprintf(f, " font \",9\"\n\tset lmargin at screen %.4f\n"
		"\tset rmargin at screen %.4f\n"
		"\tset tmargin at screen %.4f\n"
		"\tset bmargin at screen %.4f\n",
		(double)left / width, (double)(left + PANEL_PX) / width,
		1 - (double)top / height, 1 - (double)(top + panel_h) / height);
	put_xaxis(f, cell_max(b, i));
	if (col == 0) {		/* the configs' names left of each row */
		fputs("\tset ytics (", f);
		for (k = 0; k < b->nr_configs; k++) {
			plot_put_quoted(f, b->r->columns[b->configs[k]].label,
					false);
			fprintf(f, " %zu%s", b->nr_configs - k,
				k + 1 < b->nr_configs ? ", " : ")\n");
		}
	} else if (col == 1) {
		fprintf(f, "\tset ytics 1, 1, %zu format \"\"\n",
			b->nr_configs);
	}
	for (k = 0; k < b->nr_configs; k++)
		if (report_entry(b->r, b->m, i, b->configs[k])->sum.n)
			break;
	if (k == b->nr_configs) {
		/* no config has the metric here: an empty frame */
		fputs("\tplot -1 notitle\n", f);
		return;
	}
	fprintf(f, "\tplot \"%s.dat\" index %zu using (0):1:(0):2:($1-0.35):"
		"($1+0.35):5 \\\n\t\twith boxxyerror fs solid 0.7 noborder "
		"lc variable notitle, \\\n"
		"\t     \"\" index %zu using 2:1:3:4 with xerrorbars pt -1 "
		"lc rgb \"#000000\" notitle\n", b->stem, p, p);
}

static void put_gp(FILE *f, const void *arg)
{
	const struct bars *b = arg;
	const struct metric_info *mi = &b->m->info;
	size_t cells = b->cell_hi - b->cell_lo, i;
	int rows = (int)((cells + (size_t)b->cols - 1) / (size_t)b->cols);
	int label_px = (int)b->label_chars * CHAR_PX + 16;
	int panel_h = (int)b->nr_configs * BAR_PX + 8;
	int width = label_px + b->cols * (PANEL_PX + GAP_PX) - GAP_PX +
		    RIGHT_PX;
	int height = HEAD_PX + rows * (PTITLE_PX + panel_h + TICS_PX) +
		     FOOT_PX;
	char title[512], pages[32] = "";

	if (b->of > 1)
		snprintf(pages, sizeof(pages), " (%zu/%zu)", b->no, b->of);
	if (width < 640)
		width = 640;
	fprintf(f, "# abtool compare --plot: %s, the medians of each cell.\n"
		"# Redraw: gnuplot %s.gp (reads %s.dat, writes %s.svg and "
		"%s.png)\n"
		"set datafile missing \"-\"\n"
		"set termoption noenhanced\n"
		"set yrange [0.4:%zu.6]\n", mi->name, b->stem, b->stem, b->stem,
		b->stem, b->nr_configs);
	plot_put_outputs(f, width, height, b->stem);
	fputs("\tset border 3\n"
	      "\tset xtics nomirror\n"
	      "\tset ytics scale 0 nomirror\n"
	      "\tset grid xtics lc rgb \"#E6E6E6\"\n"
	      "\tunset label\n", f);
	/* a config's colour, the same in every panel (Okabe-Ito) */
	fputs("\tset linetype 1 lc rgb \"#0072B2\"\n"
	      "\tset linetype 2 lc rgb \"#D55E00\"\n"
	      "\tset linetype 3 lc rgb \"#009E73\"\n"
	      "\tset linetype 4 lc rgb \"#E69F00\"\n"
	      "\tset linetype 5 lc rgb \"#56B4E9\"\n"
	      "\tset linetype 6 lc rgb \"#CC79A7\"\n"
	      "\tset linetype 7 lc rgb \"#F0E442\"\n"
	      "\tset linetype 8 lc rgb \"#7F7F7F\"\n"
	      "\tset linetype cycle 8\n", f);
	snprintf(title, sizeof(title), "%s%s%s (%s is better): the median of "
		 "each cell%s", mi->known ? mi->label : mi->name,
		 *mi->unit ? ", " : "", mi->unit,
		 mi->higher_is_better ? "higher" : "lower", pages);
	fputs("\tset label 1 ", f);
	plot_put_quoted(f, title, false);
	fprintf(f, " at screen 0.5, screen %.4f center font \",13\"\n"
		"\tset label 2 \"bar: the median; whisker: first to third "
		"quartile; each cell on its own scale from 0\" \\\n"
		"\t\tat screen 0.5, screen %.4f center\n",
		1 - 18.0 / height, 1 - 38.0 / height);
	for (i = b->cell_lo; i < b->cell_hi; i++) {
		put_panel(f, b, width, height, i);
		if (i == b->cell_lo)
			fputs("\tunset label\n", f);
	}
	fputs("\tunset multiplot\n\tunset output\n}\n", f);
}

/* DIR/STEM.{dat,gp}, or STEM-1, -2 ... when the cells need pages. */
int plot_bars(const struct report *r, size_t k, const char *dir,
	      const char *stem, bool gnuplot, char *err, size_t errlen)
{
	struct bars b = { .r = r, .m = &r->metrics[k] };
	size_t c, per_page, pages, lo;
	char name[420];
	int ret = 0, block;

	b.configs = calloc(r->nr_columns, sizeof(*b.configs));
	if (!b.configs)
		return set_err(err, errlen, -ENOMEM, "out of memory");
	/* a config without the metric (the kernel's server CPU): no row */
	for (c = 0; c < r->nr_columns; c++)
		if (column_has_data(r, b.m, c))
			b.configs[b.nr_configs++] = c;
	if (!b.nr_configs || !r->nr_cells) {
		free(b.configs);
		return 0;
	}
	for (c = 0; c < b.nr_configs; c++)
		if (strlen(r->columns[b.configs[c]].label) > b.label_chars)
			b.label_chars = strlen(r->columns[b.configs[c]].label);
	b.cols = r->nr_cells < MAX_COLS ? (int)r->nr_cells : MAX_COLS;
	block = PTITLE_PX + (int)b.nr_configs * BAR_PX + 8 + TICS_PX;
	b.rows = (MAX_HEIGHT - HEAD_PX - FOOT_PX) / block;
	if (b.rows < 1)
		b.rows = 1;
	per_page = (size_t)(b.cols * b.rows);
	pages = (r->nr_cells + per_page - 1) / per_page;
	/* equal pages, whole rows: 26 cells in 2 are 16 + 10, not 24 + 2 */
	per_page = (r->nr_cells + pages - 1) / pages;
	per_page = (per_page + (size_t)b.cols - 1) / (size_t)b.cols *
		   (size_t)b.cols;
	b.of = pages;
	for (lo = 0; lo < r->nr_cells && !ret; lo += per_page) {
		b.no++;
		b.cell_lo = lo;
		b.cell_hi = lo + per_page < r->nr_cells ? lo + per_page :
			    r->nr_cells;
		if (pages > 1)
			snprintf(b.stem, sizeof(b.stem), "%s-%zu", stem, b.no);
		else
			snprintf(b.stem, sizeof(b.stem), "%s", stem);
		snprintf(name, sizeof(name), "%s.dat", b.stem);
		ret = plot_write_file(dir, name, put_dat, &b, err, errlen);
		snprintf(name, sizeof(name), "%s.gp", b.stem);
		if (!ret)
			ret = plot_write_file(dir, name, put_gp, &b, err,
					      errlen);
		if (!ret && gnuplot)
			ret = plot_run_gnuplot(dir, name, err, errlen);
	}
	free(b.configs);
	return ret;
}
