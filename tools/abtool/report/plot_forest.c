// SPDX-License-Identifier: GPL-2.0
/*
 * Forest plots: per metric, the change of each config against the
 * baseline, one row per cell, a dot at the Hodges-Lehmann shift and a bar
 * over its confidence interval, one series per config, a line at zero.
 *
 * Why not only the bar charts: a table's cells differ by orders of
 * magnitude (120k IOPS at 4K, 700 at 512K), so on one linear axis the
 * small cells vanish, and bars of medians hide the uncertainty a reviewer
 * needs.  Changes in percent share one scale, and an interval that
 * crosses the zero line is visibly "no evidence".
 */
#include <math.h>
#include <string.h>

#include "plot.h"
#include "report.h"

#define ROW_PX		22	/* per cell and config */
#define BASE_PX		160	/* title, axis, key */

static void put_num(FILE *f, double v)
{
	char buf[40];

	report_fmt_number(v, buf, sizeof(buf));
	fprintf(f, " %s", *buf ? buf : "-");
}

/* Row of cell @i, the first cell at the top; the geomean row below all. */
static double row_y(const struct report *r, size_t i, size_t c)
{
	double slot = 0.7 / (double)(r->nr_columns - 1);

	/* configs spread over 70% of a row, centred on it */
	return (double)(r->nr_cells - i) +
	       ((double)(r->nr_columns - 1) / 2 - (double)c + 0.5) * slot;
}

/*
 * Whether any config has a change to draw: a metric whose baseline is 0
 * in every cell (page faults of a 4K-only matrix) has no change in
 * percent anywhere, and gnuplot refuses a plot with no point at all.
 */
bool plot_forest_has_points(const struct report *r,
			    const struct report_metric *m)
{
	size_t i, c;

	for (c = 1; c < r->nr_columns; c++) {
		if (isfinite(m->pairs[c].geomean_pct))
			return true;
		for (i = 0; i < r->nr_cells; i++)
			if (isfinite(report_entry(r, m, i, c)->shift_pct))
				return true;
	}
	return false;
}

void plot_forest_dat(FILE *f, const struct report *r,
		     const struct report_metric *m, const char *stem)
{
	size_t i, c;

	(void)stem;
	fprintf(f, "# abtool compare: %s, change vs %s, %% of its median\n"
		"# one block per config: y shift ci_lo ci_hi\n",
		m->info.name, r->columns[0].label);
	for (c = 1; c < r->nr_columns; c++) {
		fprintf(f, "# %s\n", r->columns[c].label);
		for (i = 0; i < r->nr_cells; i++) {
			const struct report_entry *e = report_entry(r, m, i, c);

			put_num(f, row_y(r, i, c));
			put_num(f, e->shift_pct);
			put_num(f, e->ci_lo_pct);
			put_num(f, e->ci_hi_pct);
			fputc('\n', f);
		}
		/* the geomean row: its bootstrap interval */
		put_num(f, row_y(r, r->nr_cells, c));
		put_num(f, m->pairs[c].geomean_pct);
		put_num(f, isnan(m->pairs[c].geomean_lo_pct) ?
			m->pairs[c].geomean_pct : m->pairs[c].geomean_lo_pct);
		put_num(f, isnan(m->pairs[c].geomean_hi_pct) ?
			m->pairs[c].geomean_pct : m->pairs[c].geomean_hi_pct);
		fputs("\n\n\n", f);	/* gnuplot: next index */
	}
}

static void widen(double v, double *lo, double *hi)
{
	if (!isfinite(v))
		return;
	*lo = fmin(*lo, v);
	*hi = fmax(*hi, v);
}

/*
 * The x range: every point and interval, and zero always on the axis,
 * with 5% to spare.  Set here rather than autoscaled: with one point,
 * or all at one x, gnuplot's autoscale warns of an empty range.
 */
static void put_xrange(FILE *f, const struct report *r,
		       const struct report_metric *m)
{
	double lo = 0, hi = 0, pad;
	char a[40], b[40];
	size_t i, c;

	for (c = 1; c < r->nr_columns; c++) {
		widen(m->pairs[c].geomean_pct, &lo, &hi);
		widen(m->pairs[c].geomean_lo_pct, &lo, &hi);
		widen(m->pairs[c].geomean_hi_pct, &lo, &hi);
		for (i = 0; i < r->nr_cells; i++) {
			const struct report_entry *e = report_entry(r, m, i, c);

			widen(e->shift_pct, &lo, &hi);
			widen(e->ci_lo_pct, &lo, &hi);
			widen(e->ci_hi_pct, &lo, &hi);
		}
	}
	pad = hi > lo ? (hi - lo) * 0.05 : 1;
	report_fmt_number(lo - pad, a, sizeof(a));
	report_fmt_number(hi + pad, b, sizeof(b));
	fprintf(f, "set xrange [%s:%s]\n", a, b);
}

static void put_ytics(FILE *f, const struct report *r)
{
	size_t i;

	fputs("set ytics (", f);
	for (i = 0; i < r->nr_cells; i++) {
		plot_put_quoted(f, r->cells[i].label, false);
		fprintf(f, " %zu, ", r->nr_cells - i);
	}
	fputs("\"geomean\" 0) nomirror noenhanced\n", f);
}

static void put_titles(FILE *f, const struct report *r,
		       const struct report_metric *m)
{
	const struct metric_info *mi = &m->info;
	char text[512], levels[32];

	report_fmt_levels(m, levels, sizeof(levels));
	snprintf(text, sizeof(text), "%s: change vs %s (%s is better)",
		 mi->name, r->columns[0].label,
		 mi->higher_is_better ? "higher" : "lower");
	fputs("set title ", f);
	plot_put_quoted(f, text, false);
	snprintf(text, sizeof(text), "%% of %s's median: Hodges-Lehmann "
		 "shift, bars: %s confidence interval", r->columns[0].label,
		 levels);
	fputs(" noenhanced\nset xlabel ", f);
	plot_put_quoted(f, text, false);
	fputs(" noenhanced\n", f);
}

/* Whether config @c has a change to draw (else gnuplot warns). */
static bool column_has_points(const struct report *r,
			      const struct report_metric *m, size_t c)
{
	size_t i;

	if (isfinite(m->pairs[c].geomean_pct))
		return true;
	for (i = 0; i < r->nr_cells; i++)
		if (isfinite(report_entry(r, m, i, c)->shift_pct))
			return true;
	return false;
}

static void put_plot_cmd(FILE *f, const struct report *r,
			 const struct report_metric *m, const char *stem)
{
	char letter[8], title[256];
	bool first = true;
	size_t c;

	fprintf(f, "plot ");
	for (c = 1; c < r->nr_columns; c++) {
		if (!column_has_points(r, m, c))
			continue;
		report_column_letter(c, letter, sizeof(letter));
		snprintf(title, sizeof(title), "%s: %s", letter,
			 r->columns[c].label);
		fprintf(f, "%s\"%s-change.dat\" index %zu using 2:1:3:4 "
			"with xerrorbars pt 7 ps 0.8 lw 1.5 title ",
			first ? "" : ", \\\n     ", stem, c - 1);
		first = false;
		plot_put_quoted(f, title, false);
	}
	fputc('\n', f);
}

void plot_forest_gp(FILE *f, const struct report *r,
		    const struct report_metric *m, const char *stem)
{
	size_t height = BASE_PX + (r->nr_cells + 1) *
			(r->nr_columns - 1) * ROW_PX;

	fprintf(f, "# abtool compare: %s, change vs the baseline.  Redraw: "
		"gnuplot %s-change.gp\n", m->info.name, stem);
	fprintf(f, "set datafile missing \"-\"\n"
		"set termoption noenhanced\n"
		"set key below horizontal noenhanced\n"
		"set grid xtics\n"
		"set yrange [-0.6:%zu.6]\n"
		"set arrow 1 from 0, graph 0 to 0, graph 1 nohead lw 1.5 "
		"lc rgb \"black\"\n"
		"set format x \"%%+g%%%%\"\n", r->nr_cells);
	put_xrange(f, r, m);
	put_ytics(f, r);
	put_titles(f, r, m);
	fprintf(f, "\nset terminal svg size 900,%zu dynamic noenhanced "
		"font \"sans,10\"\nset output \"%s-change.svg\"\n", height,
		stem);
	put_plot_cmd(f, r, m, stem);
	fprintf(f, "\nif (strstrt(GPVAL_TERMINALS, \"pngcairo\") > 0) {\n"
		"\tset terminal pngcairo size 900,%zu noenhanced "
		"font \"sans,10\"\n} else {\n"
		"\tset terminal png size 900,%zu\n}\n"
		"set output \"%s-change.png\"\nreplot\nunset output\n",
		height, height, stem);
}
