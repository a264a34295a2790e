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
 * The command, broken at spaces with shell continuations, so it can be
 * pasted back from a 72-column cover letter and still run.
 */
static void put_command(FILE *out, const char *cmd)
{
	size_t width = W - 2, len = strlen(cmd), brk;
	const char *lead = "";

	while (len > width) {
		for (brk = width; brk > 0 && cmd[brk] != ' '; brk--)
			;
		if (!brk)	/* one word longer than a line: let it be */
			brk = strcspn(cmd, " ");
		if (brk >= len)
			break;
		fprintf(out, "%s%.*s \\\n", lead, (int)brk, cmd);
		cmd += brk + 1;
		len -= brk + 1;
		lead = "    ";
		width = W - 2 - 4;
	}
	fprintf(out, "%s%s\n", lead, cmd);
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
		put_command(out, r->command);
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
	putf(out, INDENT, "statistics: median +-spread (half the IQR, %% of "
	     "the median); delta of the medians vs A where a two-sided "
	     "Mann-Whitney U test (exact, ties at mid-ranks) gives p < %g "
	     "after a Benjamini-Hochberg adjustment over the comparisons of "
	     "the table (false discovery rate %g), else ~; geomean: "
	     "geometric mean over the cells of the ratios of the medians to "
	     "A's%s", r->alpha, r->alpha, r->show_ci ? "" :
	     "; -f markdown or --ci show each change's confidence interval");
}

/* The strings of one entry, as printed. */
struct text_entry {
	char val[32], spr[32], delta[32];
};

static void entry_text(const struct report_entry *e, struct text_entry *t)
{
	char s[24];

	if (!e->sum.n) {
		strcpy(t->val, "-");
		t->spr[0] = '\0';
	} else {
		report_fmt_value(e->sum.median, t->val, sizeof(t->val));
		report_fmt_spread(e->spread_pct, s, sizeof(s));
		snprintf(t->spr, sizeof(t->spr), "+-%s", s);
	}
	report_fmt_delta(e, t->delta, sizeof(t->delta));
}

#define GEOMEAN	"geomean"

/* The geomean row's strings: only a change, in the delta field. */
static void geomean_text(const struct report_metric *m, size_t c,
			 struct text_entry *t)
{
	t->val[0] = t->spr[0] = '\0';
	if (c)
		report_fmt_pct(m->geomean_pct[c], t->delta, sizeof(t->delta));
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
	size_t i, c;

	*cell_w = (int)strlen("cell");
	for (c = 0; c < r->nr_columns; c++)
		g[c].val = g[c].spr = g[c].delta = 0;
	for (i = 0; i <= r->nr_cells; i++) {
		const char *label = i < r->nr_cells ? r->cells[i].label :
				    GEOMEAN;

		*cell_w = imax(*cell_w, (int)strlen(label));
		for (c = 0; c < r->nr_columns; c++) {
			if (i < r->nr_cells)
				entry_text(report_entry(r, m, i, c), &t);
			else
				geomean_text(m, c, &t);
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
	char field[128];
	size_t i, c;

	fprintf(out, "%-*s", cell_w, "cell");
	for (c = 0; c < r->nr_columns; c++)
		fprintf(out, "%*s%*s", GAP, "", g[c].width, g[c].head);
	fputc('\n', out);
	for (i = 0; i <= r->nr_cells; i++) {
		if (i == r->nr_cells && r->nr_columns < 2)
			break;	/* no ratios without a second config */
		fprintf(out, "%-*s", cell_w,
			i < r->nr_cells ? r->cells[i].label : GEOMEAN);
		for (c = 0; c < r->nr_columns; c++) {
			if (i < r->nr_cells)
				entry_text(report_entry(r, m, i, c), &t);
			else
				geomean_text(m, c, &t);
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

static void fmt_p(const struct report_entry *e, char *buf, size_t len)
{
	if (e->verdict == REPORT_BASELINE || e->verdict == REPORT_NO_DATA)
		buf[0] = '\0';
	else if (e->q < 0.001)
		snprintf(buf, len, "q<0.001");
	else
		snprintf(buf, len, "q=%.3f", e->q);
}

/* The geomean row as a block: one line per non-baseline config. */
static void put_geomean_block(FILE *out, const struct report *r,
			      const struct report_metric *m, int let_w)
{
	char letter[8], pct[32];
	size_t c;

	if (r->nr_columns < 2)
		return;
	fprintf(out, "%s (change vs A)\n", GEOMEAN);
	for (c = 1; c < r->nr_columns; c++) {
		report_column_letter(c, letter, sizeof(letter));
		report_fmt_pct(m->geomean_pct[c], pct, sizeof(pct));
		fprintf(out, "  %-*s%*s%s\n", let_w, letter, GAP, "", pct);
	}
}

/* One block per cell, one line per config: fits any number of configs. */
static void put_blocks(FILE *out, const struct report *r,
		       const struct report_metric *m, const struct group *g)
{
	int let_w = 1, lab_w = 0, val_w = 0, spr_w = 0, delta_w = 0, width;
	char letter[8], p[16];
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
	/* "  B  label  value +-s  delta  p=0.000" */
	width = 2 + let_w + GAP + val_w + 1 + spr_w + GAP + delta_w + GAP + 7;
	labels = width + lab_w + GAP <= W;
	for (i = 0; i < r->nr_cells; i++) {
		put_wrapped(out, r->cells[i].label, INDENT);
		for (c = 0; c < r->nr_columns; c++) {
			const struct report_entry *e = report_entry(r, m, i, c);

			report_column_letter(c, letter, sizeof(letter));
			entry_text(e, &t);
			fmt_p(e, p, sizeof(p));
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
	put_geomean_block(out, r, m, let_w);
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
	putf(out, INDENT, "%s: change vs A, %s confidence interval of the "
	     "Hodges-Lehmann shift, %% of A's median", m->info.name, levels);
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

/* Column @c's text in the fraction table of metric @k, cell @i. */
static void fraction_text(const struct report *r, size_t k, size_t i,
			  size_t c, char *buf, size_t len)
{
	const struct report_entry *e = report_ref_entry(r, k, i, c);
	const struct report_entry *ref = report_ref_entry(r, k, i,
							  r->ref_column);

	if (i == r->nr_cells) {		/* geomean */
		double pct = r->ref->metrics[k].geomean_pct[r->ref_map[c]];

		if (isnan(pct))
			snprintf(buf, len, "-");
		else
			snprintf(buf, len, "%.2f", 1 + pct / 100);
	} else if (c == r->ref_column) {
		report_fmt_value(ref->sum.n ? ref->sum.median : NAN, buf, len);
	} else {
		report_fmt_fraction(e, ref->sum.median, buf, len);
	}
}

/*
 * Under each table, with a reference config (the in-kernel driver):
 * the reference's median, then every other config's median as a
 * fraction of it, tested against it.  Columns keep the letters of the
 * legend; the reference comes first.
 */
static int put_fraction_table(FILE *out, const struct report *r, size_t k)
{
	size_t i, j, c, nc = r->nr_columns;
	int *w = calloc(nc, sizeof(*w)), cell_w, total;
	size_t *order = calloc(nc, sizeof(*order));
	char buf[64], letter[8], drivers[256];

	if (!w || !order) {
		free(w);
		free(order);
		return -ENOMEM;
	}
	order[0] = r->ref_column;
	for (j = 1, c = 0; c < nc; c++)
		if (c != r->ref_column)
			order[j++] = c;
	report_column_letter(r->ref_column, letter, sizeof(letter));
	report_join(&r->columns[r->ref_column].env.drivers, ", ", drivers,
		    sizeof(drivers));
	fputc('\n', out);
	putf(out, INDENT, "%s as a fraction of %s (%s%s%s): median / %s's "
	     "median; ~ where a two-sided Mann-Whitney U test against %s "
	     "gives q >= %g (Benjamini-Hochberg over this table), ~* too "
	     "few trials to tell", r->metrics[k].info.name, letter,
	     r->columns[r->ref_column].label, *drivers ? ": " : "", drivers,
	     letter, letter, r->alpha);
	cell_w = (int)strlen("cell");
	for (i = 0; i < r->nr_cells; i++)
		cell_w = imax(cell_w, (int)strlen(r->cells[i].label));
	cell_w = imax(cell_w, (int)strlen(GEOMEAN));
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
				r->cells[i].label : GEOMEAN);
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
				    GEOMEAN, INDENT);
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
	return 0;
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
	if (m->any_n_too_small)
		putf(out, INDENT, "~* n too small: so few trials cannot reach "
		     "p < %g even when every trial of one config beats every "
		     "trial of the other; run at least %zu per config",
		     r->alpha, report_min_trials(r->alpha));
	free(g);
	if (r->show_ci && r->nr_columns > 1)
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
