// SPDX-License-Identifier: GPL-2.0
/*
 * Forest plots, one figure per metric and comparison (issue 34, item 8):
 *
 * - METRIC-change: each config against the baseline A;
 * - METRIC-fraction: each config as a fraction of the reference (the
 *   in-kernel driver), when the report has one.
 *
 * A figure is small multiples: one panel per pair of configs, one row
 * per cell and a geomean row under them, the ratio of the medians as a
 * point and its Hodges-Lehmann interval as a bar, on one log2 axis that
 * every panel of the figure shares (plot_axis.c), the +-margin band
 * shaded around 1 and each row's verdict as the point's shape and
 * colour.  The verdict rule is visible: a bar wholly outside the band is
 * better or worse, wholly inside is equivalent, across its edge is
 * inconclusive, so plot and table cannot disagree.
 *
 * Why panels rather than one series per config on one axis: the old
 * plot interleaved seven configs in every row (900 x 5506 pixels), and
 * the in-kernel row at +641% set the scale for all.  The reference is
 * therefore not a panel of the change figure: the fraction figure is
 * its comparison.
 *
 * Size: at most MAX_COLS x MAX_PANEL_ROWS panels and MAX_CELLS cells a
 * page; a bigger figure is split into pages METRIC-change-2 ... (by
 * cells at a change of target where one is near), every page on the
 * same axis.
 *
 * Each page is STEM.dat (one block per panel: y ratio lo hi verdict
 * cell) and STEM.gp, which draws STEM.svg and STEM.png.
 */
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "errmsg.h"
#include "plot.h"
#include "report.h"

#define MAX_COLS	3
#define MAX_PANEL_ROWS	2
#define MAX_CELLS	32	/* rows of a panel, geomean apart */

/* Pixels (the svg and png terminals' sizes) */
#define ROW_PX		17	/* one cell */
#define PANEL_PX	250	/* a panel's plot area, wide */
#define GAP_PX		40	/* between panels: room for end labels */
#define RIGHT_PX	24
#define CHAR_PX		7	/* sans 10, a character of a cell label */
#define HEAD_PX		112	/* title, two subtitles, two rows of key */
#define PTITLE_PX	58	/* a panel's title: up to four lines */
#define TICS_PX		34	/* x tic labels under a panel */
#define FOOT_PX		30	/* the axis label */

/* The shapes and colours of the verdicts (Okabe-Ito: colour-blind safe) */
#define GP_STYLE_FUNCS \
"# verdict -> point type and colour: filled shapes are verdicts\n" \
"# (better, worse, equivalent), hollow ones are not (inconclusive, n\n" \
"# too small); colours are Okabe-Ito's, safe for colour-blind readers\n" \
"pt(v) = v eq \"better\" ? 7 : v eq \"worse\" ? 5 : " \
	"v eq \"equivalent\" ? 13 : \\\n" \
"\tv eq \"inconclusive\" ? 6 : v eq \"n_too_small\" ? 6 : " \
	"v eq \"value\" ? 2 : 15\n" \
"lc(v) = v eq \"better\" ? 0x0072B2 : v eq \"worse\" ? 0xD55E00 : \\\n" \
"\tv eq \"equivalent\" ? 0x7F7F7F : v eq \"n_too_small\" ? 0xA0A0A0 : " \
	"0x000000\n"

/* What a row is, in the .dat and to the style functions above. */
static const char *const verdict_word[REPORT_NR_VERDICTS] = {
	[REPORT_BETTER] = "better",
	[REPORT_WORSE] = "worse",
	[REPORT_EQUIVALENT] = "equivalent",
	[REPORT_INCONCLUSIVE] = "inconclusive",
	[REPORT_N_TOO_SMALL] = "n_too_small",
	[REPORT_VALUE] = "value",
};

/* The key's entries: the verdicts a figure has, then the geomean. */
static const struct {
	enum report_verdict v;
	const char *style, *title;
} key_entries[] = {
	{ REPORT_BETTER, "pt 7 lc rgb \"#0072B2\"", "better" },
	{ REPORT_WORSE, "pt 5 lc rgb \"#D55E00\"", "worse" },
	{ REPORT_EQUIVALENT, "pt 13 lc rgb \"#7F7F7F\"", "equivalent (=)" },
	{ REPORT_INCONCLUSIVE, "pt 6 lc rgb \"#000000\"", "inconclusive (~)" },
	{ REPORT_N_TOO_SMALL, "pt 6 lc rgb \"#A0A0A0\"",
	  "n too small (~*)" },
	{ REPORT_VALUE, "pt 2 lc rgb \"#000000\"", "value, not tested" },
};

struct forest {
	const struct report *main;	/* the report: names the reference */
	const struct report *r;		/* the comparison: main or main->ref */
	const struct report_metric *m;	/* r's metric */
	bool fraction;
	size_t *panels;			/* columns of r, one a panel */
	size_t nr_panels;
	struct plot_axis axis;
	bool has[REPORT_NR_VERDICTS];	/* verdicts drawn: the key */
	size_t label_chars;		/* the longest row label */
};

struct page {
	const struct forest *fo;
	char stem[400];
	size_t no, of;
	size_t cell_lo, cell_hi;	/* cells [lo, hi) */
	size_t *panels, nr_panels;	/* a slice of fo->panels */
	size_t per_page;		/* panels a page has room for */
};

/* One row of a panel: the ratio, its interval and its verdict. */
struct row {
	double ratio, lo, hi;		/* NaN: not on a log axis */
	enum report_verdict verdict;
	const char *why;		/* why not, for a label; NULL */
};

static void cell_row(const struct forest *fo, size_t c, size_t i,
		     struct row *row)
{
	const struct report_entry *b = report_entry(fo->r, fo->m, i, 0);
	const struct report_entry *e = report_entry(fo->r, fo->m, i, c);

	row->ratio = row->lo = row->hi = NAN;
	row->verdict = e->verdict;
	row->why = NULL;
	if (e->verdict == REPORT_NO_DATA)
		return;
	if (!(b->sum.median > 0)) {
		row->why = "no ratio to a median of 0";
		return;
	}
	row->ratio = e->sum.median / b->sum.median;
	if (!(row->ratio > 0)) {
		row->ratio = NAN;
		row->why = "ratio 0";
		return;
	}
	if (isnan(e->ci_lo_pct) || isnan(e->ci_hi_pct)) {
		row->lo = row->hi = row->ratio;		/* a value */
		return;
	}
	row->lo = 1 + e->ci_lo_pct / 100;
	row->hi = 1 + e->ci_hi_pct / 100;
}

static void geomean_row(const struct forest *fo, size_t c, struct row *row)
{
	const struct report_pair *p = &fo->m->pairs[c];

	row->ratio = 1 + p->geomean_pct / 100;
	row->lo = 1 + p->geomean_lo_pct / 100;
	row->hi = 1 + p->geomean_hi_pct / 100;
	row->verdict = REPORT_BASELINE;		/* none: descriptive */
	row->why = NULL;
	if (!(row->ratio > 0) || !isfinite(row->ratio)) {
		row->ratio = row->lo = row->hi = NAN;
		row->why = p->geomean_why ? p->geomean_why : "no geomean";
	} else if (isnan(row->lo) || isnan(row->hi)) {
		row->lo = row->hi = row->ratio;
	}
}

static bool drawn(const struct row *row)
{
	return !isnan(row->ratio);
}

/*
 * Whether column @c has a row to draw among cells [lo, hi) or in its
 * geomean (else gnuplot warns of a plot without valid points), or
 * (@any) a row with data at all, drawn or said to be off the axis.
 */
static bool has_rows(const struct forest *fo, size_t c, size_t lo,
		     size_t hi, bool any)
{
	struct row row;
	size_t i;

	geomean_row(fo, c, &row);
	if (drawn(&row))
		return true;
	for (i = lo; i < hi; i++) {
		cell_row(fo, c, i, &row);
		if (drawn(&row) || (any && row.why))
			return true;
	}
	return false;
}

static void widen(double v, double *lo, double *hi)
{
	if (!(v > 0) || !isfinite(v))
		return;
	*lo = fmin(*lo, v);
	*hi = fmax(*hi, v);
}

/* One axis for every panel and page; the key from every verdict. */
static void fit(struct forest *fo)
{
	double lo = 1 - fo->m->margin_pct / 100, hi = 1 + fo->m->margin_pct / 100;
	struct row row;
	size_t p, i;

	for (p = 0; p < fo->nr_panels; p++) {
		for (i = 0; i <= fo->r->nr_cells; i++) {
			if (i < fo->r->nr_cells)
				cell_row(fo, fo->panels[p], i, &row);
			else
				geomean_row(fo, fo->panels[p], &row);
			if (!drawn(&row))
				continue;
			widen(row.ratio, &lo, &hi);
			widen(row.lo, &lo, &hi);
			widen(row.hi, &lo, &hi);
			if (i < fo->r->nr_cells)
				fo->has[row.verdict] = true;
		}
	}
	plot_axis_fit(&fo->axis, lo, hi);
	fo->label_chars = strlen("geomean");
	for (i = 0; i < fo->r->nr_cells; i++)
		if (strlen(fo->r->cells[i].label) > fo->label_chars)
			fo->label_chars = strlen(fo->r->cells[i].label);
	if (fo->m->unsteady_cells)	/* " !" after an unsteady cell */
		fo->label_chars += 2;
}

/* An end of a bar on the axis: beyond it, at its end (gnuplot clips). */
static double clamp(const struct forest *fo, double v)
{
	if (!(v > fo->axis.lo))
		return fo->axis.lo;
	return fmin(v, fo->axis.hi);
}

static void put_row(FILE *f, const struct forest *fo, double y,
		    const struct row *row, const char *label)
{
	fprintf(f, "%g", y);
	if (drawn(row))
		fprintf(f, " %.6g %.6g %.6g", row->ratio,
			clamp(fo, row->lo), clamp(fo, row->hi));
	else
		fputs(" - - -", f);
	fprintf(f, " %s ", row->verdict == REPORT_BASELINE ? "geomean" :
		verdict_word[row->verdict]);
	plot_put_quoted(f, label, true);
	fputc('\n', f);
}

static void put_dat(FILE *f, const void *arg)
{
	const struct page *pg = arg;
	const struct forest *fo = pg->fo;
	const char *base = fo->r->columns[0].label;
	size_t rows = pg->cell_hi - pg->cell_lo, p, i;
	struct row row;

	fprintf(f, "# abtool compare --plot: %s, %s, cells %zu-%zu of %zu\n"
		"# one block per panel: y ratio lo hi verdict cell\n"
		"# ratio: the config's median / %s's, lo..hi its "
		"Hodges-Lehmann interval\n# (geomean: its bootstrap "
		"interval); - where a ratio is not on a log axis\n",
		fo->m->info.name, fo->fraction ? "fraction of the reference" :
		"change vs the baseline", pg->cell_lo + 1, pg->cell_hi,
		fo->r->nr_cells, base);
	for (p = 0; p < pg->nr_panels; p++) {
		size_t c = pg->panels[p];

		fprintf(f, "%s# %s vs %s\n", p ? "\n\n" : "",
			fo->r->columns[c].label, base);
		for (i = pg->cell_lo; i < pg->cell_hi; i++) {
			cell_row(fo, c, i, &row);
			if (row.verdict != REPORT_NO_DATA)
				put_row(f, fo, (double)(rows - (i - pg->cell_lo)),
					&row, fo->r->cells[i].label);
		}
		geomean_row(fo, c, &row);
		put_row(f, fo, 0, &row, "geomean");
	}
}

/* A double-quoted gnuplot string of printf(@fmt, ...). */
static void put_str(FILE *f, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
static void put_str(FILE *f, const char *fmt, ...)
{
	char text[1024];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(text, sizeof(text), fmt, ap);
	va_end(ap);
	plot_put_quoted(f, text, false);
}

/* The lines of text of a figure: title, two subtitles, axis label. */
struct figure_text {
	char line[4][512];
};

static void figure_text(const struct page *pg, struct figure_text *t)
{
	const struct forest *fo = pg->fo;
	const struct metric_info *mi = &fo->m->info;
	const char *base = fo->r->columns[0].label;
	char margin[400], drivers[256] = "", pages[32] = "";

	report_fmt_margin(fo->r, fo->m, margin, sizeof(margin));
	if (pg->of > 1)
		snprintf(pages, sizeof(pages), " (%zu/%zu)", pg->no, pg->of);
	snprintf(t->line[0], sizeof(t->line[0]), "%s (%s is better): each "
		 "config %s %s%s", mi->name,
		 mi->higher_is_better ? "higher" : "lower",
		 fo->fraction ? "as a fraction of" : "vs", base, pages);
	snprintf(t->line[1], sizeof(t->line[1]), "point: the ratio of the "
		 "medians; bar: its interval (geomean: 95%% bootstrap)%s",
		 fo->m->unsteady_cells ? "; " REPORT_UNSTEADY_MARK ": the "
		 "denominator varies by more than --steady within a boot" : "");
	snprintf(t->line[2], sizeof(t->line[2]), "shaded: the margin %s",
		 margin);
	if (fo->fraction)
		report_join(&fo->main->columns[fo->main->ref_column].env.drivers,
			    ", ", drivers, sizeof(drivers));
	snprintf(t->line[3], sizeof(t->line[3]), "ratio to %s's median%s%s%s, "
		 "log scale (1: the same)", base, *drivers ? " (" : "",
		 drivers, *drivers ? ")" : "");
}

struct geometry {
	int width, height;
	int cols, label_px, panel_h;
	int x0;			/* the grid's left edge: centred */
};

/*
 * Every page of a figure in the same grid (4 panels are 2 x 2), and wide
 * enough for its lines of text.
 */
static void layout(const struct page *pg, struct geometry *g)
{
	size_t rows = pg->per_page, i;
	struct figure_text t;
	int text_px;

	g->cols = rows <= MAX_COLS ? (int)rows : rows == 4 ? 2 : MAX_COLS;
	rows = (pg->nr_panels + (size_t)g->cols - 1) / (size_t)g->cols;
	g->label_px = (int)pg->fo->label_chars * CHAR_PX + 16;
	/* the cells, the geomean and 0.6 of a row above and below */
	g->panel_h = (int)((double)(pg->cell_hi - pg->cell_lo + 2.2) * ROW_PX);
	g->width = g->label_px + g->cols * PANEL_PX + (g->cols - 1) * GAP_PX +
		   RIGHT_PX;
	g->x0 = g->width;	/* the grid's width, for now */
	figure_text(pg, &t);
	for (i = 0; i < 4; i++) {
		/* the title's font is a third larger */
		text_px = (int)strlen(t.line[i]) * CHAR_PX * (i ? 3 : 4) / 3 +
			  40;
		if (text_px > g->width)
			g->width = text_px;
	}
	g->x0 = (g->width - g->x0) / 2;
	g->height = HEAD_PX + (int)rows * (PTITLE_PX + g->panel_h + TICS_PX) +
		    FOOT_PX;
}

/*
 * The figure's title, subtitles, key and axis label, drawn by a last
 * plot of the page's width with nothing in it but the key: a key drawn
 * by a panel would be laid out within that panel's width.
 */
static void put_figure_text(FILE *f, const struct page *pg,
			    const struct geometry *g)
{
	static const int y[3] = { 18, 38, 54 };	/* px from the top */
	struct figure_text t;
	size_t i;

	figure_text(pg, &t);
	fputs("\n\t# the figure: title, key, axis label\n"
	      "\tunset label\n\tunset title\n\tunset border\n\tunset tics\n"
	      "\tunset grid\n\tunset object 1\n\tunset arrow\n", f);
	for (i = 0; i < 3; i++) {
		fprintf(f, "\tset label %zu ", i + 1);
		plot_put_quoted(f, t.line[i], false);
		fprintf(f, " at screen 0.5, screen %.4f center%s\n",
			1 - (double)y[i] / g->height, i ? "" : " font \",13\"");
	}
	fputs("\tset label 4 ", f);
	plot_put_quoted(f, t.line[3], false);
	fprintf(f, " at screen 0.5, screen %.4f center\n"
		"\tset lmargin at screen 0\n\tset rmargin at screen 1\n"
		"\tset tmargin at screen 1\n\tset bmargin at screen %.4f\n"
		"\tset key at screen 0.5, screen %.4f center top horizontal "
		"reverse Left \\\n\t\tsamplen 1 width 2 noenhanced\n"
		/* a line below the plot's y range: nothing, and no warning */
		"\tplot -1 notitle", 12.0 / g->height,
		1 - (double)HEAD_PX / g->height, 1 - 64.0 / g->height);
	for (i = 0; i < sizeof(key_entries) / sizeof(key_entries[0]); i++) {
		if (!pg->fo->has[key_entries[i].v])
			continue;
		fprintf(f, ", \\\n\t     keyentry with points %s ps 1.2 title ",
			key_entries[i].style);
		plot_put_quoted(f, key_entries[i].title, false);
	}
	fputs(", \\\n\t     keyentry with points pt 15 lc rgb \"#000000\" "
	      "ps 1.4 title \"geomean\", \\\n"
	      "\t     keyentry with boxes fs solid noborder fc rgb "
	      "\"#D9D9D9\" title \"margin\"\n", f);
}

/* The pair, its n and level, and its verdict counts: a panel's title. */
static void put_panel_title(FILE *f, const struct forest *fo, size_t c)
{
	const struct report_pair *p = &fo->m->pairs[c];
	const struct report_column *a = &fo->r->columns[0];
	const struct report_column *b = &fo->r->columns[c];
	const size_t *n = p->counts.n;
	char na[32], nb[32], level[16], extra[64] = "";
	size_t len = strlen(a->label) + strlen(b->label) + 4;

	report_fmt_n(a->n_min, a->n_max, na, sizeof(na));
	report_fmt_n(b->n_min, b->n_max, nb, sizeof(nb));
	report_fmt_level(p->level, level, sizeof(level));
	if (n[REPORT_N_TOO_SMALL])
		snprintf(extra, sizeof(extra), ", %zu ~*",
			 n[REPORT_N_TOO_SMALL]);
	if (n[REPORT_VALUE])
		snprintf(extra + strlen(extra), sizeof(extra) - strlen(extra),
			 ", %zu value%s", n[REPORT_VALUE],
			 n[REPORT_VALUE] == 1 ? "" : "s");
	fputs("\tset title ", f);
	/* the pair on one line where it fits the panel */
	put_str(f, "%s%svs %s\nn=%s v %s, %s%s\n"
		"%zu better, %zu worse, %zu =, %zu ~%s", b->label,
		len * CHAR_PX <= PANEL_PX + GAP_PX ? " " : "\n", a->label, nb,
		na, p->family ? "intervals at " : "not tested",
		p->family ? level : "", n[REPORT_BETTER],
		n[REPORT_WORSE], n[REPORT_EQUIVALENT], n[REPORT_INCONCLUSIVE],
		extra);
	fputc('\n', f);
}

/*
 * Rows not on the axis (a median of 0) say so where the point would be;
 * the geomean row says how many cells it is over.
 */
static void put_row_notes(FILE *f, const struct page *pg, size_t c)
{
	size_t rows = pg->cell_hi - pg->cell_lo, i, id = 10;
	struct row row;

	fprintf(f, "\tset label %zu \"%zu cells\" at graph 0.98, first 0 "
		"right font \",9\" \\\n\t\ttc rgb \"#555555\"\n", id++,
		pg->fo->m->pairs[c].geomean_cells);

	for (i = pg->cell_lo; i <= pg->cell_hi; i++) {
		if (i < pg->cell_hi)
			cell_row(pg->fo, c, i, &row);
		else
			geomean_row(pg->fo, c, &row);
		if (!row.why)
			continue;
		fprintf(f, "\tset label %zu ", id++);
		put_str(f, "%s: not on a log axis", row.why);
		fprintf(f, " at graph 0.03, first %zu left font \",9\" "
			"tc rgb \"#555555\"\n",
			i < pg->cell_hi ? rows - (i - pg->cell_lo) : 0);
	}
}

static void put_ytics(FILE *f, const struct page *pg, bool labels)
{
	size_t rows = pg->cell_hi - pg->cell_lo, i;

	if (!labels) {
		fprintf(f, "\tset ytics 0, 1, %zu format \"\"\n", rows);
		return;
	}
	fputs("\tset ytics (", f);
	for (i = pg->cell_lo; i < pg->cell_hi; i++) {
		char label[300];

		/* an unsteady denominator, as every format marks it */
		snprintf(label, sizeof(label), "%s%s",
			 pg->fo->r->cells[i].label,
			 report_unsteady(pg->fo->r, pg->fo->m, i) ?
			 " " REPORT_UNSTEADY_MARK : "");
		plot_put_quoted(f, label, false);
		fprintf(f, " %zu, ", rows - (i - pg->cell_lo));
	}
	fputs("\"geomean\" 0)\n", f);
}

static void put_panel(FILE *f, const struct page *pg,
		      const struct geometry *g, size_t p)
{
	int col = (int)p % g->cols, row = (int)p / g->cols;
	int left = g->x0 + g->label_px + col * (PANEL_PX + GAP_PX);
	int top = HEAD_PX + row * (PTITLE_PX + g->panel_h + TICS_PX) +
		  PTITLE_PX;
	size_t c = pg->panels[p];

	fprintf(f, "\n\t# %s vs %s\n\tunset label\n",
		pg->fo->r->columns[c].label, pg->fo->r->columns[0].label);
	put_row_notes(f, pg, c);
	fprintf(f, "\tset lmargin at screen %.4f\n"
		"\tset rmargin at screen %.4f\n"
		"\tset tmargin at screen %.4f\n"
		"\tset bmargin at screen %.4f\n",
		(double)left / g->width,
		(double)(left + PANEL_PX) / g->width,
		1 - (double)top / g->height,
		1 - (double)(top + g->panel_h) / g->height);
	put_panel_title(f, pg->fo, c);
	if (col <= 1)	/* the cells' names left of each row of panels */
		put_ytics(f, pg, col == 0);
	if (!has_rows(pg->fo, c, pg->cell_lo, pg->cell_hi, false)) {
		/* only notes: a line below the y range draws the frame */
		fputs("\tplot -1 notitle\n", f);
		return;
	}
	fprintf(f, "\tplot \"%s.dat\" index %zu using 2:1:3:4:(lc(strcol(5))) "
		"with xerrorbars pt -1 lw 1.5 lc rgb variable notitle, \\\n"
		"\t     \"\" index %zu using 2:1:(pt(strcol(5))):"
		"(lc(strcol(5))) with points pt variable ps 1.2 \\\n"
		"\t\tlc rgb variable notitle\n", pg->stem, p, p);
}

static void put_gp(FILE *f, const void *arg)
{
	const struct page *pg = arg;
	const struct forest *fo = pg->fo;
	struct geometry g;
	size_t p;

	layout(pg, &g);
	fprintf(f, "# abtool compare --plot: %s, %s.\n"
		"# Redraw: gnuplot %s.gp (reads %s.dat, writes %s.svg and "
		"%s.png)\n", fo->m->info.name, fo->fraction ?
		"each config as a fraction of the reference" :
		"each config vs the baseline", pg->stem, pg->stem, pg->stem,
		pg->stem);
	fputs("set datafile missing \"-\"\n"
	      "set termoption noenhanced\n"
	      GP_STYLE_FUNCS
	      "set logscale x 2\n", f);
	/* a hair wider than the stops, so that their tics are drawn */
	fprintf(f, "set xrange [%.6g:%.6g]\n", fo->axis.lo * 0.9999,
		fo->axis.hi * 1.0001);
	fprintf(f, "set yrange [-0.6:%zu.6]\n", pg->cell_hi - pg->cell_lo);
	plot_put_outputs(f, g.width, g.height, pg->stem);
	fputs("\tset border\n", f);
	fputs("\t", f);
	plot_axis_put_tics(f, &fo->axis, PANEL_PX);
	fprintf(f, "\tset ytics scale 0\n"
		"\tset grid xtics ytics lc rgb \"#E6E6E6\"\n"
		"\t# the margin: inside, equivalent; beyond, better or worse\n"
		"\tset object 1 rect from %.6g, graph 0 to %.6g, graph 1 "
		"behind \\\n\t\tfc rgb \"#D9D9D9\" fs solid noborder\n"
		"\tset arrow 1 from 1, graph 0 to 1, graph 1 nohead "
		"lc rgb \"#404040\"\n"
		"\t# the geomean row under the cells\n"
		"\tset arrow 2 from graph 0, first 0.5 to graph 1, first 0.5 "
		"nohead dt 2 \\\n\t\tlc rgb \"#808080\"\n",
		clamp(fo, 1 - fo->m->margin_pct / 100),
		clamp(fo, 1 + fo->m->margin_pct / 100));
	for (p = 0; p < pg->nr_panels; p++)
		put_panel(f, pg, &g, p);
	put_figure_text(f, pg, &g);
	fputs("\tunset multiplot\n\tunset output\n}\n", f);
}

/*
 * The cells of a page: at most MAX_CELLS, in equal parts, each part
 * ending where the target changes when that is within a quarter of it.
 */
static size_t chunk_end(const struct report *r, size_t lo, size_t left)
{
	size_t parts = (left + MAX_CELLS - 1) / MAX_CELLS;
	size_t want = (left + parts - 1) / parts, d;

	if (parts <= 1)
		return lo + left;
	for (d = 0; d <= want / 4; d++) {
		size_t at[2] = { lo + want - d, lo + want + d }, k;

		for (k = 0; k < 2; k++)
			if (at[k] > lo && at[k] - lo <= MAX_CELLS &&
			    at[k] < lo + left &&
			    strcmp(r->cells[at[k]].key.target,
				   r->cells[at[k] - 1].key.target))
				return at[k];
	}
	return lo + want;
}

static int write_pages(struct forest *fo, const char *dir, const char *stem,
		       bool gnuplot, char *err, size_t errlen)
{
	size_t per_page = MAX_COLS * MAX_PANEL_ROWS, groups, chunks = 0;
	size_t lo, g, hi, from, n;
	struct page pg = { .fo = fo };
	char name[420];
	int ret;

	groups = (fo->nr_panels + per_page - 1) / per_page;
	for (lo = 0; lo < fo->r->nr_cells; chunks++)
		lo = chunk_end(fo->r, lo, fo->r->nr_cells - lo);
	/* panels in equal groups: 7 is 4 + 3, not 6 + 1 */
	per_page = (fo->nr_panels + groups - 1) / groups;
	pg.per_page = per_page;
	pg.of = chunks * groups;
	pg.panels = calloc(per_page, sizeof(*pg.panels));
	if (!pg.panels)
		return set_err(err, errlen, -ENOMEM, "out of memory");
	for (lo = 0; lo < fo->r->nr_cells; lo = hi) {
		hi = chunk_end(fo->r, lo, fo->r->nr_cells - lo);
		for (g = 0; g < groups; g++) {
			pg.cell_lo = lo;
			pg.cell_hi = hi;
			pg.nr_panels = 0;
			from = g * per_page;
			for (n = from; n < fo->nr_panels && n < from + per_page;
			     n++)
				if (has_rows(fo, fo->panels[n], lo, hi, true))
					pg.panels[pg.nr_panels++] =
						fo->panels[n];
			pg.no++;
			if (pg.of > 1)
				snprintf(pg.stem, sizeof(pg.stem), "%s-%zu",
					 stem, pg.no);
			else
				snprintf(pg.stem, sizeof(pg.stem), "%s", stem);
			if (!pg.nr_panels)
				continue;
			snprintf(name, sizeof(name), "%s.dat", pg.stem);
			ret = plot_write_file(dir, name, put_dat, &pg, err,
					      errlen);
			snprintf(name, sizeof(name), "%s.gp", pg.stem);
			if (!ret)
				ret = plot_write_file(dir, name, put_gp, &pg,
						      err, errlen);
			if (!ret && gnuplot)
				ret = plot_run_gnuplot(dir, name, err, errlen);
			if (ret) {
				free(pg.panels);
				return ret;
			}
		}
	}
	free(pg.panels);
	return 0;
}

/* Both figures of metric @k: METRIC-change, METRIC-fraction. */
int plot_forests(const struct report *r, size_t k, const char *dir,
		 const char *stem, bool gnuplot, char *err, size_t errlen)
{
	char name[300];
	size_t c, pass;
	int ret = 0;

	for (pass = 0; pass < 2 && !ret; pass++) {
		struct forest fo = { .main = r, .r = r, .fraction = pass };
		bool points = false;

		if (fo.fraction && !r->ref)
			break;
		if (fo.fraction)
			fo.r = r->ref;
		fo.m = &fo.r->metrics[k];
		fo.panels = calloc(fo.r->nr_columns, sizeof(*fo.panels));
		if (!fo.panels)
			return set_err(err, errlen, -ENOMEM, "out of memory");
		for (c = 1; c < fo.r->nr_columns; c++) {
			/* the reference's comparison is the fraction figure */
			if (!fo.fraction && r->ref && c == r->ref_column)
				continue;
			if (has_rows(&fo, c, 0, fo.r->nr_cells, true))
				fo.panels[fo.nr_panels++] = c;
			if (has_rows(&fo, c, 0, fo.r->nr_cells, false))
				points = true;
		}
		/* not a figure of notes only (a baseline of 0 everywhere) */
		if (points) {
			fit(&fo);
			snprintf(name, sizeof(name), "%s-%s", stem,
				 fo.fraction ? "fraction" : "change");
			ret = write_pages(&fo, dir, name, gnuplot, err, errlen);
		}
		free(fo.panels);
	}
	return ret;
}
