// SPDX-License-Identifier: GPL-2.0
/*
 * -f summary: the one screen `make ab` ends with (issue 34, item 10).
 * The run used to end on ~1,600 lines of per-cell blocks and a 26 x 10
 * table of nothing but "-" (server CPU as a fraction of the in-kernel
 * row, which has no server).  This is what a reviewer pastes instead:
 * per headline metric, each config as a fraction of the in-kernel
 * driver and against the baseline, each with the geomean over its cells
 * and how many cells the margin rule calls better, worse, equivalent
 * or inconclusive; then where the full report and the plots are.
 *
 * Rows and columns with nothing in them are left out, and so is a
 * metric with nothing to say; every number comes from the report the
 * other formats print, so the full report backs each one.
 */
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "report.h"

#define W		REPORT_TEXT_WIDTH
#define MAX_SHOWN	3	/* metrics on the screen */

static int imax(int a, int b)
{
	return a > b ? a : b;
}

/* A line being built of padded fields. */
struct line {
	char s[1024];
	size_t n;
};

static void lprintf(struct line *l, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static void lprintf(struct line *l, const char *fmt, ...)
{
	va_list ap;
	int got;

	if (l->n >= sizeof(l->s))
		return;
	va_start(ap, fmt);
	got = vsnprintf(l->s + l->n, sizeof(l->s) - l->n, fmt, ap);
	va_end(ap);
	if (got > 0)
		l->n += (size_t)got;
	if (l->n >= sizeof(l->s))
		l->n = sizeof(l->s) - 1;
}

/* Print @l without its trailing blanks, and empty it. */
static void lput(FILE *out, struct line *l)
{
	while (l->n && l->s[l->n - 1] == ' ')
		l->n--;
	fprintf(out, "%.*s\n", (int)l->n, l->s);
	l->n = 0;
}

/* The metrics shown: the default ones the report has, else its first. */
static size_t pick_metrics(const struct report *r, size_t *shown)
{
	size_t i, k, n = 0;

	for (k = 0; k < metric_defaults_len; k++)
		for (i = 0; i < r->nr_metrics && n < MAX_SHOWN; i++)
			if (!strcmp(r->metrics[i].info.name,
				    metric_defaults[k]))
				shown[n++] = i;
	for (i = 0; !n && i < r->nr_metrics && i < MAX_SHOWN; i++)
		shown[n++] = i;
	return n;
}

/* One side of a row: a pair's geomean and its verdict counts. */
struct side {
	const struct report_pair *p;	/* NULL: nothing to show */
	bool fraction;
};

/*
 * The count columns: verdicts, then (REPORT_NR_VERDICTS) the geomean's
 * cells whose denominator is unsteady (report_steady.c), shown where
 * there are any.
 */
static const enum report_verdict shown_verdicts[] = {
	REPORT_BETTER, REPORT_WORSE, REPORT_EQUIVALENT, REPORT_INCONCLUSIVE,
	REPORT_N_TOO_SMALL, REPORT_VALUE, REPORT_NR_VERDICTS,
};
static const char *const verdict_heads[] = {
	"+", "-", "=", "~", "~*", "v", REPORT_UNSTEADY_MARK,
};
#define NR_SHOWN	(sizeof(shown_verdicts) / sizeof(shown_verdicts[0]))
#define UNSTEADY_COL	(NR_SHOWN - 1)

static size_t side_count(const struct report_pair *p, size_t k)
{
	if (shown_verdicts[k] == REPORT_NR_VERDICTS)
		return p->unsteady_cells;
	return p->counts.n[shown_verdicts[k]];
}

static void fmt_side_geomean(const struct side *s, char *buf, size_t len)
{
	double pct;

	if (!s->p) {
		buf[0] = '\0';
		return;
	}
	pct = s->p->geomean_pct;
	if (isnan(pct))
		snprintf(buf, len, "-");
	else if (s->fraction)
		snprintf(buf, len, "%.*f", 1 + pct / 100 < 0.0995 ? 3 : 2,
			 1 + pct / 100);
	else
		snprintf(buf, len, "%+.*f%%", fabs(pct) < 1000 ? 1 : 0, pct);
}

/* A pair with anything to say: cells in common. */
static bool has_cells(const struct report_pair *p)
{
	return p && p->geomean_cells;
}

/* Column widths and which count columns a block needs. */
struct layout {
	int label, geo[2], count[2][NR_SHOWN];
	bool show[2][NR_SHOWN], side[2], cells_col;
	size_t cells;			/* when the same for every row */
};

struct row {
	const char *label;
	struct side s[2];		/* [0] vs the reference, [1] vs A */
};

static void plan(const struct row *rows, size_t nr, struct layout *l)
{
	char buf[64];
	size_t i, j, k;
	bool first = true;

	memset(l, 0, sizeof(*l));
	for (i = 0; i < nr; i++) {
		l->label = imax(l->label, (int)strlen(rows[i].label));
		for (j = 0; j < 2; j++) {
			const struct report_pair *p = rows[i].s[j].p;

			if (!has_cells(p))
				continue;
			l->side[j] = true;
			fmt_side_geomean(&rows[i].s[j], buf, sizeof(buf));
			l->geo[j] = imax(imax(l->geo[j], (int)strlen(buf)),
					 (int)strlen("geomean"));
			for (k = 0; k < NR_SHOWN; k++) {
				size_t n = side_count(p, k);

				l->show[j][k] |= k < 4 || n;
				snprintf(buf, sizeof(buf), "%zu", n);
				/* at least 2: "24" lines up */
				l->count[j][k] = imax(l->count[j][k],
						      imax((int)strlen(buf),
						      2));
			}
			if (first)
				l->cells = p->geomean_cells;
			l->cells_col |= p->geomean_cells != l->cells;
			first = false;
		}
	}
}

static void put_side_head(struct line *out, const struct layout *l,
			  size_t j, const char *what)
{
	size_t k;
	int w = l->geo[j] + 1;

	for (k = 0; k < NR_SHOWN; k++)
		if (l->show[j][k])
			w += 1 + l->count[j][k];
	lprintf(out, "  %*s", w, what);
}

static void put_side(struct line *out, const struct layout *l, size_t j,
		     const struct side *s)
{
	char buf[64];
	size_t k;

	fmt_side_geomean(s, buf, sizeof(buf));
	lprintf(out, "  %*s ", l->geo[j], has_cells(s->p) ? buf : "");
	for (k = 0; k < NR_SHOWN; k++) {
		if (!l->show[j][k])
			continue;
		if (has_cells(s->p))
			lprintf(out, " %*zu", l->count[j][k],
				side_count(s->p, k));
		else
			lprintf(out, " %*s", l->count[j][k], "");
	}
}

static void put_count_heads(struct line *out, const struct layout *l,
			    size_t j)
{
	size_t k;

	lprintf(out, "  %*s ", l->geo[j], "geomean");
	for (k = 0; k < NR_SHOWN; k++)
		if (l->show[j][k])
			lprintf(out, " %*s", l->count[j][k], verdict_heads[k]);
}

/* Width of side @j's columns: "  geomean " and the counts. */
static int side_width(const struct layout *l, size_t j)
{
	int w = 2 + l->geo[j] + 1;
	size_t k;

	if (!l->side[j])
		return 0;
	for (k = 0; k < NR_SHOWN; k++)
		if (l->show[j][k])
			w += 1 + l->count[j][k];
	return w;
}

/* The heading lines and a line per row, with the sides asked for. */
static void put_rows(FILE *out, const struct report *r, const struct row *rows,
		     size_t nr, const struct layout *l, bool side0, bool side1)
{
	const bool want[2] = { side0, side1 };
	struct line line = { .n = 0 };
	char what[160];
	size_t c, j;

	if (!side0 && !side1)
		return;
	/* what each side is, then its columns */
	lprintf(&line, "%-*s", l->label, "");
	if (side0) {
		snprintf(what, sizeof(what), "fraction of %s",
			 r->columns[r->ref_column].label);
		put_side_head(&line, l, 0, what);
	}
	if (side1) {
		snprintf(what, sizeof(what), "vs %s", r->columns[0].label);
		put_side_head(&line, l, 1, what);
	}
	lput(out, &line);
	lprintf(&line, "%-*s", l->label, "");
	for (j = 0; j < 2; j++)
		if (want[j])
			put_count_heads(&line, l, j);
	if (l->cells_col)
		lprintf(&line, "  cells");
	lput(out, &line);
	for (c = 0; c < nr; c++) {
		const struct side *s = &rows[c].s[side1 ? 1 : 0];

		/* stacked, a row with nothing on this side is left out */
		if (!(side0 && side1) && !has_cells(s->p))
			continue;
		lprintf(&line, "%-*s", l->label, rows[c].label);
		for (j = 0; j < 2; j++)
			if (want[j])
				put_side(&line, l, j, &rows[c].s[j]);
		if (l->cells_col)
			lprintf(&line, "  %5zu", has_cells(rows[c].s[1].p) ?
				rows[c].s[1].p->geomean_cells :
				rows[c].s[0].p->geomean_cells);
		lput(out, &line);
	}
}

/*
 * Under a block whose geomeans have cells with an unsteady denominator
 * (the "!" column): which cells, for each side that has any.
 */
static int put_unsteady(FILE *out, const struct report *r, size_t k,
			const struct layout *l)
{
	char *note;

	if (l->show[0][UNSTEADY_COL]) {
		note = report_unsteady_note(r, r->ref_column, r->ref,
					    &r->ref->metrics[k]);
		if (!note)
			return -ENOMEM;
		report_put_wrapped(out, "%s", note);
		free(note);
	}
	if (l->show[1][UNSTEADY_COL]) {
		note = report_unsteady_note(r, 0, r, &r->metrics[k]);
		if (!note)
			return -ENOMEM;
		report_put_wrapped(out, "%s", note);
		free(note);
	}
	return 0;
}

static int put_block(FILE *out, const struct report *r, size_t k)
{
	const struct report_metric *m = &r->metrics[k];
	const struct report_metric *rm = r->ref ? &r->ref->metrics[k] : NULL;
	struct row *rows = calloc(r->nr_columns, sizeof(*rows));
	char margin[512], what[160];
	size_t c, nr = 0;
	struct layout l;

	if (!rows)
		return -ENOMEM;
	for (c = 0; c < r->nr_columns; c++) {
		struct row *row = &rows[nr];

		row->label = r->columns[c].label;
		if (rm && c != r->ref_column)
			row->s[0] = (struct side){ &rm->pairs[r->ref_map[c]],
						   true };
		if (c)
			row->s[1] = (struct side){ &m->pairs[c], false };
		/* a row with nothing on either side says nothing */
		if (has_cells(row->s[0].p) || has_cells(row->s[1].p))
			nr++;
	}
	plan(rows, nr, &l);
	if (!l.side[0] && !l.side[1]) {		/* nothing at all: no block */
		free(rows);
		return 0;
	}
	report_fmt_margin(r, m, margin, sizeof(margin));
	fputc('\n', out);
	report_put_wrapped(out, "%s (%s is better); margin %s", m->info.name,
		    m->info.higher_is_better ? "higher" : "lower", margin);
	/* both sides side by side where they fit, else one after the other */
	if (side_width(&l, 0) + side_width(&l, 1) + l.label <= W) {
		put_rows(out, r, rows, nr, &l, l.side[0], l.side[1]);
	} else {
		put_rows(out, r, rows, nr, &l, l.side[0], false);
		put_rows(out, r, rows, nr, &l, false, l.side[1]);
	}
	if (l.cells_col)
		snprintf(what, sizeof(what), "the cells each pair shares");
	else
		snprintf(what, sizeof(what), "%zu cells each", l.cells);
	report_put_wrapped(out, "geomean over %s; cells: + better, - worse, = equivalent, "
	     "~ inconclusive%s%s%s", what, l.show[0][4] || l.show[1][4] ?
	     ", ~* n too small" : "", l.show[0][5] || l.show[1][5] ?
	     ", v values (not tested)" : "",
	     l.show[0][UNSTEADY_COL] || l.show[1][UNSTEADY_COL] ?
	     "; " REPORT_UNSTEADY_MARK " the geomean's cells with an "
	     "unsteady denominator (kept in it, listed below)" : "");
	free(rows);
	return put_unsteady(out, r, k, &l);
}

static void put_head(FILE *out, const struct report *r)
{
	char n[96], list[512];
	size_t c, lo = SIZE_MAX, hi = 0;
	const struct report_column *col = NULL;

	/* n over the configs: one figure when all agree */
	for (c = 0; c < r->nr_columns; c++) {
		if (r->columns[c].n_min < lo) {
			lo = r->columns[c].n_min;
			col = &r->columns[c];
		}
		if (r->columns[c].n_max > hi)
			hi = r->columns[c].n_max;
	}
	report_fmt_n_boots(col, n, sizeof(n));
	if (lo != hi)
		report_fmt_n(lo, hi, n, sizeof(n));
	report_put_wrapped(out, "abtool compare: %zu configs, %zu cells, n = %s per cell "
	     "and config", r->nr_columns, r->nr_cells, n);
	report_join(&r->env.runs, ", ", list, sizeof(list));
	if (r->env.runs.nr)
		report_put_wrapped(out, "run%s: %s%s", r->env.runs.nr > 1 ? "s" : "", list,
		     report_column_pools(r, false) ? " (POOLED)" : "");
	report_join(&r->env.commits, ", ", list, sizeof(list));
	if (r->env.commits.nr)
		report_put_wrapped(out, "series commit%s: %s%s",
		     r->env.commits.nr > 1 ? "s" : "", list,
		     report_column_pools(r, true) ? " (POOLED)" : "");
	report_join(&r->env.clocks, ", ", list, sizeof(list));
	report_put_wrapped(out, "clock: %s%s", list, r->tcg ? "; accel=tcg: NOT hardware "
	     "numbers, compare the configs with each other only" : "");
	report_put_wrapped(out, "verdicts: the Hodges-Lehmann interval of a cell's change "
	     "at 1 - %g/m (m: the cells of the pair, per metric) beyond "
	     "+-margin: better or worse; within: equivalent; else "
	     "inconclusive", r->alpha);
}

static void put_where(FILE *out, const struct report *r)
{
	fputc('\n', out);
	if (r->outdir)
		report_put_wrapped(out, "full report: %s/report.{txt,md,csv,json}",
		     r->outdir);
	else
		report_put_wrapped(out, "full report: the same command with -f text, "
		     "markdown, csv or json");
	if (r->plotdir)
		report_put_wrapped(out, "plots: %s/", r->plotdir);
	if (r->command) {
		fputs("regenerate with:\n", out);
		report_put_command(out, r->command);
	}
}

static int summary_emit(FILE *out, const struct report *r)
{
	size_t shown[MAX_SHOWN], n, i;

	put_head(out, r);
	n = pick_metrics(r, shown);
	for (i = 0; i < n; i++)
		if (put_block(out, r, shown[i]))
			return -ENOMEM;
	put_where(out, r);
	return ferror(out) ? -EIO : 0;
}

const struct report_format report_summary = {
	.name = "summary",
	.file = NULL,		/* scripts/ab keeps it as summary.txt */
	.emit = summary_emit,
};
