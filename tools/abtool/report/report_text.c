// SPDX-License-Identifier: GPL-2.0
/*
 * Plain text for a kernel cover letter: ASCII, no line over 72 columns.
 * A table per metric, one row per cell, one column group per config
 * ("median +-spread", then the delta for non-baseline configs).  When
 * full config names do not fit, the groups are headed by letters from
 * the legend; when even that is too wide (many configs, long cells), each
 * cell becomes a block with one line per config.
 */
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "report.h"

#define W	REPORT_TEXT_WIDTH
#define GAP	2		/* spaces between table columns */
#define INDENT	4		/* continuation lines of wrapped text */

static int imax(int a, int b)
{
	return a > b ? a : b;
}

/*
 * Where to end a line of at most @width of @text: at the last space that
 * fits, unless the word after it would not fit a continuation line
 * either (@next_width): then cut the word here rather than waste a line.
 */
static size_t line_break(const char *text, size_t width, size_t next_width)
{
	size_t brk, word;

	for (brk = width; brk > 0 && text[brk] != ' '; brk--)
		;
	if (!brk)
		return width;
	word = strcspn(text + brk + strspn(text + brk, " "), " ");
	if (word > next_width)
		return width;
	return brk;
}

/* Print @text, breaking at spaces so no line exceeds W. */
static void put_wrapped(FILE *out, const char *text, int indent)
{
	size_t width = W, next = W - (size_t)indent, len = strlen(text);
	size_t brk, end;

	while (len > width) {
		brk = line_break(text, width, next);
		for (end = brk; end > 0 && text[end - 1] == ' '; end--)
			;
		fprintf(out, "%.*s\n%*s", (int)end, text, indent, "");
		text += brk;
		len -= brk;
		while (*text == ' ') {
			text++;
			len--;
		}
		width = next;
	}
	fprintf(out, "%s\n", text);
}

static void putf(FILE *out, int indent, const char *fmt, ...)
{
	char buf[4096];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	put_wrapped(out, buf, indent);
}

/* "accel: tcg", or MIXED when --allow-mixed-env let several through. */
static void put_env(FILE *out, const char *key, const struct strlist *l)
{
	char list[256];

	report_join(l, ", ", list, sizeof(list));
	if (l->nr > 1)
		putf(out, INDENT, "%s: MIXED (%s): numbers across them are "
		     "not comparable", key, list);
	else
		putf(out, INDENT, "%s: %s", key, list);
}

static void put_clock(FILE *out, const struct report *r)
{
	char list[256];

	report_join(&r->env.clocks, ", ", list, sizeof(list));
	if (r->mixed_clock)
		putf(out, INDENT, "clock: MIXED (%s): numbers across clocks "
		     "are not comparable", list);
	else if (!strcmp(list, "icount"))
		putf(out, INDENT, "clock: icount (QEMU -icount shift=0,"
		     "sleep=off: time counts guest instructions)");
	else
		putf(out, INDENT, "clock: %s", list);
	put_env(out, "accel", &r->env.accels);
	if (r->env.cpus.nr)
		put_env(out, "vCPUs", &r->env.cpus);
	if (r->tcg) {
		fputs("*** accel=tcg: QEMU emulated the CPU in software. "
		      "These are NOT\n*** hardware numbers; compare the "
		      "configs with each other only.\n", out);
	}
}

/*
 * The runs and series commits: one of each per column, unless --pool let
 * more through (cmd/inputs.c refuses them otherwise); columns of
 * different series (a commit per variant) are not pooled.
 */
static void put_runs(FILE *out, const struct report *r)
{
	char list[1024];

	report_join(&r->env.runs, ", ", list, sizeof(list));
	if (report_column_pools(r, false))
		putf(out, INDENT, "runs: POOLED (--pool): %s", list);
	else if (r->env.runs.nr)
		putf(out, INDENT, "run%s: %s", r->env.runs.nr > 1 ? "s" : "",
		     list);
	report_join(&r->env.commits, ", ", list, sizeof(list));
	if (report_column_pools(r, true))
		putf(out, INDENT, "series commits: POOLED (--pool): %s", list);
	else if (r->env.commits.nr)
		putf(out, INDENT, "series commit%s: %s",
		     r->env.commits.nr > 1 ? "s" : "", list);
}

static void put_header(FILE *out, const struct report *r)
{
	char list[2048], n[96], letter[8];
	int label_w = 0;
	size_t c;

	putf(out, INDENT, "abtool compare: %zu trials, %zu cells, %zu configs "
	     "(by %s)", r->nr_trials, r->nr_cells, r->nr_columns,
	     report_by_name(r->by));
	if (r->command) {
		fputs("regenerate with:\n", out);
		report_put_command(out, r->command);
	}
	report_join(&r->files, ", ", list, sizeof(list));
	putf(out, INDENT, "inputs: %s", list);
	put_clock(out, r);
	report_join(&r->env.kernels, ", ", list, sizeof(list));
	putf(out, INDENT, "kernels: %s", *list ? list : "unknown");
	put_env(out, "flavor", &r->env.flavors);
	report_join(&r->env.hosts, ", ", list, sizeof(list));
	putf(out, INDENT, "host: %s", list);
	if (*r->env.date_first)
		putf(out, INDENT, "dates: %s .. %s", r->env.date_first,
		     r->env.date_last);
	fprintf(out, "configs (n = trials per cell = boots x trials per "
		"boot):\n");
	for (c = 0; c < r->nr_columns; c++)
		label_w = imax(label_w, (int)strlen(r->columns[c].label));
	if (label_w > 40)
		label_w = 0;	/* too long to align: wrap instead */
	for (c = 0; c < r->nr_columns; c++) {
		const struct report_column *col = &r->columns[c];

		report_column_letter(c, letter, sizeof(letter));
		report_fmt_n_boots(col, n, sizeof(n));
		putf(out, 8, "  %-2s %-*s  n=%s%s", letter, label_w,
		     col->label, n, c ? "" : "  (baseline)");
	}
	if (r->not_measured.nr)
		fputs("not measured (the config cannot serve the cell; its "
		      "entries show -):\n", out);
	for (c = 0; c < r->not_measured.nr; c++)
		putf(out, 8, "  %s", r->not_measured.v[c]);
	if (r->env.runs.nr || r->env.commits.nr)
		put_runs(out, r);
	putf(out, INDENT, "statistics: median +-spread (half the IQR, %% of "
	     "the median); each config against A, cell by cell: the "
	     "Hodges-Lehmann interval of the shift (%% of A's median) at "
	     "1 - %g/m, m the cells the pair is tested in (one family per "
	     "pair and metric, whatever else a table shows), lies beyond "
	     "+-margin: the change of the medians (better or worse); "
	     "within: =; else ~ (inconclusive); ~* n too small for that "
	     "level; (+x%%) a value the same in every trial, not tested; "
	     "geomean: of the ratios of the medians over the cells the pair "
	     "shares, with its cell count and a %.0f%% bootstrap interval"
	     "%s", r->alpha, (1 - r->alpha) * 100, r->show_ci ? "" :
	     "; -f markdown or --ci show each change's interval");
}

/* The strings of one entry, as printed. */
struct text_entry {
	char val[32], spr[48], delta[64];
};

/*
 * An entry with fewer values than its config has trials in the cell (a
 * record without the metric) says its own n: the header's n is not its.
 */
static void entry_text(const struct report *r, const struct report_metric *m,
		       size_t i, size_t c, struct text_entry *t)
{
	const struct report_entry *e = report_entry(r, m, i, c);
	char s[24], n[24] = "";

	if (!e->sum.n) {
		strcpy(t->val, "-");
		t->spr[0] = '\0';
	} else {
		if (e->sum.n != r->columns[c].n_max)
			snprintf(n, sizeof(n), " n=%zu", e->sum.n);
		report_fmt_value(e->sum.median, t->val, sizeof(t->val));
		report_fmt_spread(e->spread_pct, s, sizeof(s));
		snprintf(t->spr, sizeof(t->spr), "+-%s%s", s, n);
	}
	report_fmt_delta(e, t->delta, sizeof(t->delta));
	report_mark_unsteady(t->delta, sizeof(t->delta),
			     c && report_unsteady(r, m, i));
}

/* Do all configs' geomeans run over the same number of cells? */
static bool geomean_cells_uniform(const struct report *r,
				  const struct report_metric *m)
{
	size_t c;

	for (c = 2; c < r->nr_columns; c++)
		if (m->pairs[c].geomean_cells != m->pairs[1].geomean_cells)
			return false;
	return true;
}

/*
 * "geomean (24 cells)" when every config's geomean is over as many
 * cells; else plain "geomean", and each entry says its own count
 */
static void geomean_label(const struct report *r,
			  const struct report_metric *m, char *buf,
			  size_t len)
{
	if (r->nr_columns > 1 && geomean_cells_uniform(r, m))
		snprintf(buf, len, "geomean (%zu cell%s)",
			 m->pairs[1].geomean_cells,
			 m->pairs[1].geomean_cells == 1 ? "" : "s");
	else
		snprintf(buf, len, "geomean");
}

/* A config's geomean: "+42.5%", "+42.5% (6)", "-" with no value. */
static void fmt_geomean(const struct report *r, const struct report_metric *m,
			size_t c, char *buf, size_t len)
{
	const struct report_pair *p = &m->pairs[c];
	char pct[24];

	report_fmt_pct(p->geomean_pct, pct, sizeof(pct));
	report_mark_unsteady(pct, sizeof(pct), p->unsteady_cells);
	if (geomean_cells_uniform(r, m))
		snprintf(buf, len, "%s", pct);
	else
		snprintf(buf, len, "%s (%zu)", pct, p->geomean_cells);
}

/* The geomean row's strings: only a change, in the delta field. */
static void geomean_text(const struct report *r, const struct report_metric *m,
			 size_t c, struct text_entry *t)
{
	t->val[0] = t->spr[0] = '\0';
	if (c)
		fmt_geomean(r, m, c, t->delta, sizeof(t->delta));
	else
		t->delta[0] = '\0';
}

/* Widths of the fields of one config's group. */
struct group {
	char head[256];
	int val, spr, delta, width;
};

static void measure(const struct report *r, const struct report_metric *m,
		    struct group *g, int *cell_w)
{
	struct text_entry t;
	char geomean[64];
	size_t i, c;

	*cell_w = (int)strlen("cell");
	geomean_label(r, m, geomean, sizeof(geomean));
	for (c = 0; c < r->nr_columns; c++)
		g[c].val = g[c].spr = g[c].delta = 0;
	for (i = 0; i <= r->nr_cells; i++) {
		const char *label = i < r->nr_cells ? r->cells[i].label :
				    geomean;

		*cell_w = imax(*cell_w, (int)strlen(label));
		for (c = 0; c < r->nr_columns; c++) {
			if (i < r->nr_cells)
				entry_text(r, m, i, c, &t);
			else
				geomean_text(r, m, c, &t);
			g[c].val = imax(g[c].val, (int)strlen(t.val));
			g[c].spr = imax(g[c].spr, (int)strlen(t.spr));
			g[c].delta = imax(g[c].delta, (int)strlen(t.delta));
		}
	}
}

/* How a table's config groups are drawn, widest first. */
enum grid_style {
	GRID_LABELS,	/* full config labels over "median +-spread  delta" */
	GRID_LETTERS,	/* letters from the legend instead */
	GRID_DELTAS,	/* letters; non-baseline configs show the delta only */
};

static bool delta_only(enum grid_style style, size_t c)
{
	return style == GRID_DELTAS && c;
}

/* Head and size the groups for @style; returns the table width. */
static int fit_groups(const struct report *r, struct group *g, int cell_w,
		      enum grid_style style)
{
	int total = cell_w;
	size_t c;

	for (c = 0; c < r->nr_columns; c++) {
		if (style == GRID_LABELS)
			snprintf(g[c].head, sizeof(g[c].head), "%s",
				 r->columns[c].label);
		else
			report_column_letter(c, g[c].head, sizeof(g[c].head));
		if (delta_only(style, c))
			g[c].width = g[c].delta;
		else if (c)
			g[c].width = g[c].val + 1 + g[c].spr + GAP + g[c].delta;
		else
			g[c].width = g[c].val + 1 + g[c].spr;
		g[c].width = imax(g[c].width, (int)strlen(g[c].head));
		total += GAP + g[c].width;
	}
	return total;
}

static void grid_field(const struct group *g, const struct text_entry *t,
		       size_t c, enum grid_style style, char *buf, size_t len)
{
	if (delta_only(style, c))
		snprintf(buf, len, "%s", t->delta);
	else if (c)
		snprintf(buf, len, "%*s %*s%*s%*s", g->val, t->val, g->spr,
			 t->spr, GAP, "", g->delta, t->delta);
	else
		snprintf(buf, len, "%*s %*s", g->val, t->val, g->spr, t->spr);
}

static void put_grid(FILE *out, const struct report *r,
		     const struct report_metric *m, const struct group *g,
		     int cell_w, enum grid_style style)
{
	struct text_entry t;
	char field[128], geomean[64];
	size_t i, c;

	geomean_label(r, m, geomean, sizeof(geomean));
	fprintf(out, "%-*s", cell_w, "cell");
	for (c = 0; c < r->nr_columns; c++)
		fprintf(out, "%*s%*s", GAP, "", g[c].width, g[c].head);
	fputc('\n', out);
	for (i = 0; i <= r->nr_cells; i++) {
		if (i == r->nr_cells && r->nr_columns < 2)
			break;	/* no ratios without a second config */
		fprintf(out, "%-*s", cell_w,
			i < r->nr_cells ? r->cells[i].label : geomean);
		for (c = 0; c < r->nr_columns; c++) {
			if (i < r->nr_cells)
				entry_text(r, m, i, c, &t);
			else
				geomean_text(r, m, c, &t);
			grid_field(&g[c], &t, c, style, field, sizeof(field));
			fprintf(out, "%*s%*s", GAP, "", g[c].width, field);
		}
		fputc('\n', out);
	}
	if (style == GRID_DELTAS) {
		report_column_letter(r->nr_columns - 1, field, sizeof(field));
		putf(out, INDENT, "B%s%s: only the delta vs A fits here; "
		     "-f markdown, csv or json show their medians",
		     r->nr_columns > 3 ? "-" : r->nr_columns > 2 ? ", " : "",
		     r->nr_columns > 2 ? field : "");
	}
}

/* A tested entry's interval, "[+1.2..+3.4]"; "" otherwise. */
static void fmt_interval(const struct report_entry *e, char *buf, size_t len)
{
	char ci[64];

	report_fmt_ci(e, ci, sizeof(ci));
	if (report_tested(e) && strcmp(ci, "-"))
		snprintf(buf, len, "[%s]", ci);
	else
		buf[0] = '\0';
}

/* One block per cell, one line per config: fits any number of configs. */
static void put_blocks(FILE *out, const struct report *r,
		       const struct report_metric *m, const struct group *g)
{
	int let_w = 1, lab_w = 0, val_w = 0, spr_w = 0, delta_w = 0, width;
	char letter[8], p[80];
	struct text_entry t;
	bool labels;
	size_t i, c;

	for (c = 0; c < r->nr_columns; c++) {
		report_column_letter(c, letter, sizeof(letter));
		let_w = imax(let_w, (int)strlen(letter));
		lab_w = imax(lab_w, (int)strlen(r->columns[c].label));
		val_w = imax(val_w, g[c].val);
		spr_w = imax(spr_w, g[c].spr);
		delta_w = imax(delta_w, g[c].delta);
	}
	/* "  B  label  value +-s  delta  [+1.2..+3.4]" */
	width = 2 + let_w + GAP + val_w + 1 + spr_w + GAP + delta_w + GAP + 14;
	labels = width + lab_w + GAP <= W;
	for (i = 0; i < r->nr_cells; i++) {
		put_wrapped(out, r->cells[i].label, INDENT);
		for (c = 0; c < r->nr_columns; c++) {
			const struct report_entry *e = report_entry(r, m, i, c);

			report_column_letter(c, letter, sizeof(letter));
			entry_text(r, m, i, c, &t);
			fmt_interval(e, p, sizeof(p));
			fprintf(out, "  %-*s%*s", let_w, letter, GAP, "");
			if (labels)
				fprintf(out, "%-*s%*s", lab_w,
					r->columns[c].label, GAP, "");
			/* trim the padding when the line ends early */
			if (c)
				fprintf(out, "%*s %*s%*s%*s%s%s\n", val_w,
					t.val, spr_w, t.spr, GAP, "", delta_w,
					t.delta, *p ? "  " : "", p);
			else
				fprintf(out, "%*s %*s\n", val_w, t.val, spr_w,
					t.spr);
		}
	}
}

static void put_title(FILE *out, const struct report_metric *m)
{
	const struct metric_info *mi = &m->info;

	if (mi->known)
		putf(out, INDENT, "%s: %s [%s], %s is better", mi->name,
		     mi->label, mi->unit,
		     mi->higher_is_better ? "higher" : "lower");
	else
		putf(out, INDENT, "%s: unknown metric, lower is better",
		     mi->name);
}

/* Widest CI text of column @c (c >= 1), at least its letter's. */
static int ci_width(const struct report *r, const struct report_metric *m,
		    size_t c)
{
	char buf[64];
	int w;
	size_t i;

	report_column_letter(c, buf, sizeof(buf));
	w = (int)strlen(buf);
	for (i = 0; i < r->nr_cells; i++) {
		report_fmt_ci(report_entry(r, m, i, c), buf, sizeof(buf));
		w = imax(w, (int)strlen(buf));
	}
	return w;
}

static void put_ci_grid(FILE *out, const struct report *r,
			const struct report_metric *m, const int *w, int cell_w)
{
	char buf[64];
	size_t i, c;

	fprintf(out, "%-*s", cell_w, "cell");
	for (c = 1; c < r->nr_columns; c++) {
		report_column_letter(c, buf, sizeof(buf));
		fprintf(out, "%*s%*s", GAP, "", w[c], buf);
	}
	fputc('\n', out);
	for (i = 0; i < r->nr_cells; i++) {
		fprintf(out, "%-*s", cell_w, r->cells[i].label);
		for (c = 1; c < r->nr_columns; c++) {
			report_fmt_ci(report_entry(r, m, i, c), buf,
				      sizeof(buf));
			fprintf(out, "%*s%*s", GAP, "", w[c], buf);
		}
		fputc('\n', out);
	}
}

static void put_ci_blocks(FILE *out, const struct report *r,
			  const struct report_metric *m)
{
	char letter[8], buf[64];
	size_t i, c;

	for (i = 0; i < r->nr_cells; i++) {
		put_wrapped(out, r->cells[i].label, INDENT);
		for (c = 1; c < r->nr_columns; c++) {
			report_column_letter(c, letter, sizeof(letter));
			report_fmt_ci(report_entry(r, m, i, c), buf,
				      sizeof(buf));
			fprintf(out, "  %-2s%*s%s\n", letter, GAP, "", buf);
		}
	}
}

/*
 * --ci: under a table, the confidence interval of each change.  Opt-in:
 * a cover letter quotes the table, and the interval matters for the
 * cells a claim rests on; markdown, CSV and JSON always carry it.
 */
static int put_ci_table(FILE *out, const struct report *r,
			const struct report_metric *m)
{
	int *w = calloc(r->nr_columns, sizeof(*w)), cell_w, total;
	char levels[32];
	size_t i, c;

	if (!w)
		return -ENOMEM;
	report_fmt_levels(m, levels, sizeof(levels));
	fputc('\n', out);
	putf(out, INDENT, "%s: change vs A, the Hodges-Lehmann shift's "
	     "interval (level reached: %s), %% of A's median", m->info.name,
	     levels);
	cell_w = (int)strlen("cell");
	for (i = 0; i < r->nr_cells; i++)
		cell_w = imax(cell_w, (int)strlen(r->cells[i].label));
	total = cell_w;
	for (c = 1; c < r->nr_columns; c++) {
		w[c] = ci_width(r, m, c);
		total += GAP + w[c];
	}
	if (total <= W)
		put_ci_grid(out, r, m, w, cell_w);
	else
		put_ci_blocks(out, r, m);
	free(w);
	return 0;
}

/* One config's line in a table's verdict footer. */
struct verdict_row {
	char letter[8];
	const struct report_pair *p;
};

static void put_verdict_rows(FILE *out, const struct verdict_row *rows,
			     size_t nr, bool fraction);

/* The geomean as a change ("+42.5%") or, @fraction, as a ratio ("0.58"). */
static void fmt_ratio(double pct, bool fraction, char *buf, size_t len)
{
	if (isnan(pct))
		snprintf(buf, len, "-");
	else if (fraction)
		snprintf(buf, len, "%.*f", 1 + pct / 100 < 0.0995 ? 3 : 2,
			 1 + pct / 100);
	else
		report_fmt_pct(pct, buf, len);
}

static void fmt_geomean_ci(const struct report_pair *p, bool fraction,
			   char *buf, size_t len)
{
	char g[32], lo[32], hi[32];

	fmt_ratio(p->geomean_pct, fraction, g, sizeof(g));
	report_mark_unsteady(g, sizeof(g), p->unsteady_cells);
	if (isnan(p->geomean_pct)) {
		snprintf(buf, len, "- (%s)", p->geomean_why ?
			 p->geomean_why : "none");
		return;
	}
	if (isnan(p->geomean_lo_pct)) {
		snprintf(buf, len, "%s", g);
		return;
	}
	fmt_ratio(p->geomean_lo_pct, fraction, lo, sizeof(lo));
	fmt_ratio(p->geomean_hi_pct, fraction, hi, sizeof(hi));
	if (!fraction) {	/* "+42.1%..+42.9%" reads as "+42.1..+42.9%" */
		lo[strlen(lo) - 1] = '\0';
		hi[strlen(hi) - 1] = '\0';
	}
	snprintf(buf, len, "%s (%s..%s%s)", g, lo, hi, fraction ? "" : "%");
}

/* The count columns of the footer: those of the table's verdicts. */
static const struct {
	enum report_verdict v;
	const char *head;
	bool always;
} count_cols[] = {
	{ REPORT_BETTER, "better", true },
	{ REPORT_WORSE, "worse", true },
	{ REPORT_EQUIVALENT, "=", true },
	{ REPORT_INCONCLUSIVE, "~", true },
	{ REPORT_N_TOO_SMALL, "~*", false },
	{ REPORT_VALUE, "value", false },
};

/*
 * Under a table: per config, how many of its cells are better, worse,
 * equivalent or inconclusive under the margin rule, and its geomean
 * with the bootstrap interval and the cells it is over.  The counts a
 * README or a cover letter quotes come from here.
 */
static void put_verdicts(FILE *out, struct verdict_row *rows, size_t nr,
			 bool fraction)
{
	size_t i, shown = 0;

	/* a config with no cell in common with A has nothing to count */
	for (i = 0; i < nr; i++)
		if (rows[i].p->geomean_cells)
			rows[shown++] = rows[i];
	if (shown)
		put_verdict_rows(out, rows, shown, fraction);
}

static void put_verdict_rows(FILE *out, const struct verdict_row *rows,
			     size_t nr, bool fraction)
{
	bool show[sizeof(count_cols) / sizeof(count_cols[0])];
	int w[sizeof(count_cols) / sizeof(count_cols[0])], gw = 7;
	char buf[160];
	size_t i, k;

	for (k = 0; k < sizeof(count_cols) / sizeof(count_cols[0]); k++) {
		show[k] = count_cols[k].always;
		w[k] = (int)strlen(count_cols[k].head);
		for (i = 0; i < nr; i++) {
			size_t n = rows[i].p->counts.n[count_cols[k].v];

			show[k] |= n > 0;
			snprintf(buf, sizeof(buf), "%zu", n);
			w[k] = imax(w[k], (int)strlen(buf));
		}
	}
	for (i = 0; i < nr; i++) {
		fmt_geomean_ci(rows[i].p, fraction, buf, sizeof(buf));
		gw = imax(gw, (int)strlen(buf));
	}
	fprintf(out, "   ");
	for (k = 0; k < sizeof(count_cols) / sizeof(count_cols[0]); k++)
		if (show[k])
			fprintf(out, " %*s", w[k], count_cols[k].head);
	fprintf(out, "  %-*s  cells\n", gw, "geomean");
	for (i = 0; i < nr; i++) {
		fprintf(out, "  %-2s", rows[i].letter);
		for (k = 0; k < sizeof(count_cols) / sizeof(count_cols[0]);
		     k++)
			if (show[k])
				fprintf(out, " %*zu", w[k],
					rows[i].p->counts.n[count_cols[k].v]);
		fmt_geomean_ci(rows[i].p, fraction, buf, sizeof(buf));
		fprintf(out, "  %-*s  %5zu\n", gw, buf,
			rows[i].p->geomean_cells);
	}
}

/* "99.79% (1 - 0.05/24)", or the range when the families differ. */
static void fmt_family_levels(const struct report *r,
			      const struct report_metric *m, char *buf,
			      size_t len)
{
	size_t c, lo = 0, hi = 0;
	char a[16], b[16];

	for (c = 1; c < r->nr_columns; c++) {
		size_t f = m->pairs[c].family;

		if (!f)
			continue;
		if (!lo || f < lo)
			lo = f;
		if (f > hi)
			hi = f;
	}
	if (!hi) {
		snprintf(buf, len, "none: nothing tested");
		return;
	}
	report_fmt_level(1 - r->alpha / (double)lo, a, sizeof(a));
	report_fmt_level(1 - r->alpha / (double)hi, b, sizeof(b));
	if (lo == hi)
		snprintf(buf, len, "%s (1 - %g/%zu)", a, r->alpha, lo);
	else
		snprintf(buf, len, "%s..%s (1 - %g/m, m = %zu..%zu)", a, b,
			 r->alpha, lo, hi);
}

/* The footer of the main table of metric @m. */
static int put_main_verdicts(FILE *out, const struct report *r,
			     const struct report_metric *m)
{
	struct verdict_row *rows = calloc(r->nr_columns, sizeof(*rows));
	char margin[512], levels[96];
	size_t c;

	if (!rows)
		return -ENOMEM;
	for (c = 1; c < r->nr_columns; c++) {
		report_column_letter(c, rows[c - 1].letter,
				     sizeof(rows[c - 1].letter));
		rows[c - 1].p = &m->pairs[c];
	}
	report_fmt_margin(r, m, margin, sizeof(margin));
	fmt_family_levels(r, m, levels, sizeof(levels));
	putf(out, INDENT, "vs A: margin %s; intervals at %s; geomean with "
	     "its %.0f%% bootstrap interval", margin, levels,
	     (1 - r->alpha) * 100);
	put_verdicts(out, rows, r->nr_columns - 1, false);
	free(rows);
	return 0;
}

static void put_n_too_small(FILE *out, const struct report *r,
			    const struct report_metric *m)
{
	size_t f = report_max_family(r, m);
	char level[16];

	report_fmt_level(1 - r->alpha / (double)(f ? f : 1), level,
			 sizeof(level));
	putf(out, INDENT, "~* n too small: with so few trials no exact "
	     "interval reaches %s (1 - %g/%zu), whatever the data; run at "
	     "least %zu per config", level, r->alpha, f,
	     report_min_trials(r->alpha, f));
}

/*
 * Under a table whose denominator, column @c of @r's (@m of @rr: the
 * report whose column 0 it is), is unsteady in some cell: which cells,
 * by how much (issue 34, item 7); nothing when it is steady throughout.
 */
static int put_unsteady(FILE *out, const struct report *r, size_t c,
			const struct report *rr, const struct report_metric *m)
{
	char *note;

	if (!m->unsteady_cells && !m->unknown_spread_cells)
		return 0;
	note = report_unsteady_note(r, c, rr, m);
	if (!note)
		return -ENOMEM;
	putf(out, INDENT, "%s", note);
	free(note);
	return 0;
}

/* Column @c's text in the fraction table of metric @k, cell @i. */
static void fraction_text(const struct report *r, size_t k, size_t i,
			  size_t c, char *buf, size_t len)
{
	const struct report_entry *e = report_ref_entry(r, k, i, c);
	const struct report_entry *ref = report_ref_entry(r, k, i,
							  r->ref_column);

	if (i == r->nr_cells) {		/* geomean */
		const struct report_pair *p =
			&r->ref->metrics[k].pairs[r->ref_map[c]];

		if (isnan(p->geomean_pct))
			snprintf(buf, len, "-");
		else
			snprintf(buf, len, "%.2f", 1 + p->geomean_pct / 100);
		report_mark_unsteady(buf, len, p->unsteady_cells);
	} else if (c == r->ref_column) {
		report_fmt_value(ref->sum.n ? ref->sum.median : NAN, buf, len);
	} else {
		report_fmt_fraction(e, ref->sum.median, buf, len);
		report_mark_unsteady(buf, len, report_unsteady(r->ref,
					&r->ref->metrics[k], i));
	}
}

/*
 * Whether any config has a fraction of the reference in metric @k: the
 * in-kernel driver has no ublk server, so its server CPU is empty, and
 * a table of nothing but "-" says nothing (issue 34, item 10).
 */
static bool any_fraction(const struct report *r, size_t k)
{
	char buf[64];
	size_t i, c;

	for (i = 0; i < r->nr_cells; i++)
		for (c = 0; c < r->nr_columns; c++) {
			if (c == r->ref_column)
				continue;
			fraction_text(r, k, i, c, buf, sizeof(buf));
			if (strcmp(buf, "-"))
				return true;
		}
	return false;
}

/* "geomean (24 cells)" when every fraction's geomean is over as many */
static void fraction_geomean_label(const struct report *r, size_t k,
				   char *buf, size_t len)
{
	const struct report_metric *m = &r->ref->metrics[k];
	size_t c, cells = SIZE_MAX;
	bool same = true;

	for (c = 0; c < r->nr_columns; c++) {
		size_t n;

		if (c == r->ref_column)
			continue;
		n = m->pairs[r->ref_map[c]].geomean_cells;
		same &= cells == SIZE_MAX || n == cells;
		cells = n;
	}
	if (same && cells != SIZE_MAX)
		snprintf(buf, len, "geomean (%zu cell%s)", cells,
			 cells == 1 ? "" : "s");
	else
		snprintf(buf, len, "geomean");
}

static int put_fraction_verdicts(FILE *out, const struct report *r, size_t k)
{
	const struct report_metric *m = &r->ref->metrics[k];
	struct verdict_row *rows = calloc(r->nr_columns, sizeof(*rows));
	char margin[512], levels[96], letter[8];
	size_t c, n = 0;

	if (!rows)
		return -ENOMEM;
	for (c = 0; c < r->nr_columns; c++) {
		if (c == r->ref_column)
			continue;
		report_column_letter(c, rows[n].letter, sizeof(rows[n].letter));
		rows[n++].p = &m->pairs[r->ref_map[c]];
	}
	report_column_letter(r->ref_column, letter, sizeof(letter));
	report_fmt_margin(r->ref, m, margin, sizeof(margin));
	fmt_family_levels(r->ref, m, levels, sizeof(levels));
	putf(out, INDENT, "vs %s: margin %s; intervals at %s; geomean of the "
	     "fractions with its %.0f%% bootstrap interval", letter, margin,
	     levels, (1 - r->alpha) * 100);
	put_verdicts(out, rows, n, true);
	free(rows);
	return 0;
}

/*
 * Under each table, with a reference config (the in-kernel driver):
 * the reference's median, then every other config's median as a
 * fraction of it, judged against it by the rule of the main table.
 * Columns keep the letters of the legend; the reference comes first.
 */
static int put_fraction_table(FILE *out, const struct report *r, size_t k)
{
	size_t i, j, c, nc = r->nr_columns;
	int *w, cell_w, total;
	size_t *order;
	char buf[64], letter[8], drivers[256], geomean[64];

	report_column_letter(r->ref_column, letter, sizeof(letter));
	if (!any_fraction(r, k)) {
		fputc('\n', out);
		putf(out, INDENT, "%s as a fraction of %s (%s): no config has "
		     "both values in any cell, no table", r->metrics[k].info.name,
		     letter, r->columns[r->ref_column].label);
		return 0;
	}
	w = calloc(nc, sizeof(*w));
	order = calloc(nc, sizeof(*order));
	if (!w || !order) {
		free(w);
		free(order);
		return -ENOMEM;
	}
	order[0] = r->ref_column;
	for (j = 1, c = 0; c < nc; c++)
		if (c != r->ref_column)
			order[j++] = c;
	report_join(&r->columns[r->ref_column].env.drivers, ", ", drivers,
		    sizeof(drivers));
	fraction_geomean_label(r, k, geomean, sizeof(geomean));
	fputc('\n', out);
	putf(out, INDENT, "%s as a fraction of %s (%s%s%s): median / %s's "
	     "median, judged against %s as above: a fraction alone when "
	     "better or worse, = equivalent, ~ inconclusive, ~* n too small, "
	     "(0.50) a value", r->metrics[k].info.name, letter,
	     r->columns[r->ref_column].label, *drivers ? ": " : "", drivers,
	     letter, letter);
	cell_w = (int)strlen("cell");
	for (i = 0; i < r->nr_cells; i++)
		cell_w = imax(cell_w, (int)strlen(r->cells[i].label));
	cell_w = imax(cell_w, (int)strlen(geomean));
	total = cell_w;
	for (j = 0; j < nc; j++) {
		report_column_letter(order[j], buf, sizeof(buf));
		w[j] = (int)strlen(buf);
		for (i = 0; i <= r->nr_cells; i++) {
			fraction_text(r, k, i, order[j], buf, sizeof(buf));
			w[j] = imax(w[j], (int)strlen(buf));
		}
		total += GAP + w[j];
	}
	if (total <= W) {
		fprintf(out, "%-*s", cell_w, "cell");
		for (j = 0; j < nc; j++) {
			report_column_letter(order[j], buf, sizeof(buf));
			fprintf(out, "%*s%*s", GAP, "", w[j], buf);
		}
		fputc('\n', out);
		for (i = 0; i <= r->nr_cells; i++) {
			fprintf(out, "%-*s", cell_w, i < r->nr_cells ?
				r->cells[i].label : geomean);
			for (j = 0; j < nc; j++) {
				if (i == r->nr_cells && !j)
					buf[0] = '\0';
				else
					fraction_text(r, k, i, order[j], buf,
						      sizeof(buf));
				fprintf(out, "%*s%*s", GAP, "", w[j], buf);
			}
			fputc('\n', out);
		}
	} else {
		/* one block per cell, a line per config */
		for (i = 0; i <= r->nr_cells; i++) {
			put_wrapped(out, i < r->nr_cells ? r->cells[i].label :
				    geomean, INDENT);
			for (j = i < r->nr_cells ? 0 : 1; j < nc; j++) {
				report_column_letter(order[j], letter,
						     sizeof(letter));
				fraction_text(r, k, i, order[j], buf,
					      sizeof(buf));
				fprintf(out, "  %-2s%*s%s\n", letter, GAP, "",
					buf);
			}
		}
	}
	free(w);
	free(order);
	if (put_fraction_verdicts(out, r, k))
		return -ENOMEM;
	if (r->ref->metrics[k].any_n_too_small)
		put_n_too_small(out, r->ref, &r->ref->metrics[k]);
	return put_unsteady(out, r, r->ref_column, r->ref,
			    &r->ref->metrics[k]);
}

static int put_table(FILE *out, const struct report *r,
		     const struct report_metric *m)
{
	struct group *g = calloc(r->nr_columns, sizeof(*g));
	enum grid_style style;
	int cell_w;

	if (!g)
		return -ENOMEM;
	fputc('\n', out);
	put_title(out, m);
	measure(r, m, g, &cell_w);
	for (style = GRID_LABELS; style <= GRID_DELTAS; style++)
		if (fit_groups(r, g, cell_w, style) <= W)
			break;
	if (style <= GRID_DELTAS)
		put_grid(out, r, m, g, cell_w, style);
	else
		put_blocks(out, r, m, g);
	free(g);
	if (r->nr_columns < 2)
		return 0;
	if (put_main_verdicts(out, r, m))
		return -ENOMEM;
	if (m->any_n_too_small)
		put_n_too_small(out, r, m);
	if (put_unsteady(out, r, 0, r, m))
		return -ENOMEM;
	if (r->show_ci)
		return put_ci_table(out, r, m);
	return 0;
}

static int text_emit(FILE *out, const struct report *r)
{
	size_t i;

	put_header(out, r);
	for (i = 0; i < r->nr_metrics; i++) {
		if (put_table(out, r, &r->metrics[i]))
			return -ENOMEM;
		if (r->ref && put_fraction_table(out, r, i))
			return -ENOMEM;
	}
	return 0;
}

const struct report_format report_text = {
	.name = "text",
	.file = "report.txt",
	.emit = text_emit,
};
