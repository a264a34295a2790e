// SPDX-License-Identifier: GPL-2.0
/* Markdown (GitHub flavour): the text report's content, with p-values. */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "report.h"

/* Backslash-escape what markdown would otherwise interpret. */
static void put_md(FILE *out, const char *s)
{
	for (; *s; s++) {
		if (strchr("\\`*_[]<>|#~", *s))
			fputc('\\', out);
		fputc(*s, out);
	}
}

static void put_item(FILE *out, const char *key, const struct strlist *l)
{
	size_t i;

	fprintf(out, "- **%s:** ", key);
	for (i = 0; i < l->nr; i++) {
		fputs(i ? ", " : "", out);
		put_md(out, l->v[i]);
	}
	fputs(l->nr ? "\n" : "unknown\n", out);
}

/* The cells configs could not serve (report_note_skipped()), if any. */
static void put_not_measured(FILE *out, const struct strlist *l)
{
	size_t i;

	if (!l->nr)
		return;
	fputs("- **not measured** (the config cannot serve the cell; its "
	      "entries show -): ", out);
	for (i = 0; i < l->nr; i++) {
		fputs(i ? "; " : "", out);
		put_md(out, l->v[i]);
	}
	fputs("\n", out);
}

static void put_header(FILE *out, const struct report *r)
{
	fprintf(out, "# abtool compare\n\n");
	if (r->command)
		fprintf(out, "Regenerate with:\n\n```sh\n%s\n```\n\n",
			r->command);
	fprintf(out, "- **trials:** %zu; %zu cells; %zu configs by %s\n",
		r->nr_trials, r->nr_cells, r->nr_columns,
		report_by_name(r->by));
	put_item(out, "inputs", &r->files);
	put_item(out, "clock", &r->env.clocks);
	if (r->mixed_clock)
		fprintf(out, "- **MIXED CLOCKS:** numbers across clocks are "
			"not comparable\n");
	else if (r->env.clocks.nr == 1 && !strcmp(r->env.clocks.v[0], "icount"))
		fprintf(out, "  (QEMU `-icount shift=0,sleep=off`: time counts "
			"guest instructions)\n");
	put_item(out, "accel", &r->env.accels);
	if (r->env.cpus.nr)
		put_item(out, "vCPUs", &r->env.cpus);
	if (r->mixed_env)
		fprintf(out, "- **MIXED ACCELS, FLAVORS OR vCPUs:** numbers across "
			"them are not comparable\n");
	put_item(out, "kernels", &r->env.kernels);
	put_item(out, "flavor", &r->env.flavors);
	put_item(out, "host", &r->env.hosts);
	if (*r->env.date_first)
		fprintf(out, "- **dates:** %s .. %s\n", r->env.date_first,
			r->env.date_last);
	put_not_measured(out, &r->not_measured);
	fprintf(out, "- **statistics:** median ± spread (half the IQR, %% of "
		"the median) and n (trials) per cell; each config against the "
		"baseline A, cell by cell\n");
	fprintf(out, "- **verdict:** the Hodges-Lehmann interval of the "
		"shift (%% of A's median; exact, rank-based) at level 1 - %g/m, "
		"m the cells the pair of configs is tested in for the metric "
		"(one family per pair and metric, fixed by the matrix, whatever "
		"the other columns: Bonferroni), against the margin: "
		"**better**/**worse** (the change of the medians, in bold) when "
		"the whole interval lies beyond ±margin, = equivalent when "
		"within, \\~ inconclusive otherwise; \\~\\* n too small "
		"where no interval at these n reaches that level; (+x%%) a "
		"value the same in every trial on both sides, not tested\n",
		r->alpha);
	fprintf(out, "- **p:** the two-sided Mann-Whitney U test of no "
		"change (exact permutation distribution, ties at mid-ranks, "
		"wherever it is cheap to count); p adj. = min(1, m p)\n");
	fprintf(out, "- **geomean:** geometric mean of each config's median / "
		"A's over the cells the pair shares, with its cell count and a "
		"%.0f%% bootstrap interval (each cell's trials resampled, %d "
		"times, splitmix64 seed %d)\n", (1 - r->alpha) * 100,
		REPORT_BOOT_REPS, REPORT_BOOT_SEED);
	if (r->tcg)
		fprintf(out, "\n> **accel=tcg: QEMU emulated the CPU in "
			"software. These are NOT hardware numbers; compare "
			"the configs with each other only.**\n");
}

static void put_configs(FILE *out, const struct report *r)
{
	char letter[8], n[96];
	size_t c;

	fprintf(out, "\n| | config | n (trials per cell: boots x trials) | |\n"
		"|---|---|--:|---|\n");
	for (c = 0; c < r->nr_columns; c++) {
		report_column_letter(c, letter, sizeof(letter));
		report_fmt_n_boots(&r->columns[c], n, sizeof(n));
		fprintf(out, "| %s | ", letter);
		put_md(out, r->columns[c].label);
		fprintf(out, " | %s | %s |\n", n, c ? "" : "baseline");
	}
}

static void put_entry(FILE *out, const struct report_entry *e)
{
	char val[32], spr[32];

	if (!e->sum.n) {
		fputs(" | -", out);
		return;
	}
	/* every entry says its n here: a missing metric shows */
	report_fmt_value(e->sum.median, val, sizeof(val));
	report_fmt_spread(e->spread_pct, spr, sizeof(spr));
	fprintf(out, " | %s ± %s, n=%zu", val, spr, e->sum.n);
}

/* After a ratio whose denominator is unsteady: the mark. */
static void put_mark(FILE *out, const struct report_entry *e, bool unsteady)
{
	if (unsteady && e->verdict != REPORT_NO_DATA)
		fputs(" " REPORT_UNSTEADY_MARK, out);
}

static void put_verdict(FILE *out, const struct report_entry *e)
{
	char delta[32], pct[32];

	report_fmt_delta(e, delta, sizeof(delta));
	report_fmt_pct(e->delta_pct, pct, sizeof(pct));
	switch (e->verdict) {
	case REPORT_BETTER:
	case REPORT_WORSE:
		fprintf(out, " | **%s** %s (p=%.3g, p adj.=%.3g)", delta,
			report_verdict_name(e->verdict), e->mwu.p, e->q);
		break;
	case REPORT_EQUIVALENT:
	case REPORT_INCONCLUSIVE:
		fprintf(out, " | %s %s, %s (p=%.3g, p adj.=%.3g)",
			e->verdict == REPORT_EQUIVALENT ? "=" : "\\~",
			report_verdict_name(e->verdict), pct, e->mwu.p, e->q);
		break;
	case REPORT_N_TOO_SMALL:
		fprintf(out, " | \\~\\* n too small, %s (p=%.3g)", pct,
			e->mwu.p);
		break;
	case REPORT_VALUE:
		fprintf(out, " | %s value, not tested", delta);
		break;
	default:
		fputs(" | -", out);
	}
}

static void put_ci(FILE *out, const struct report_entry *e)
{
	char ci[64];

	report_fmt_ci(e, ci, sizeof(ci));
	fprintf(out, strcmp(ci, "-") ? " | %s%%" : " | %s", ci);
}

/* "+42.5% (+42.1..+42.9%), 24 cells" or as fractions */
static void fmt_geomean(const struct report_pair *p, bool fraction,
			char *buf, size_t len)
{
	double k = fraction ? 100 : 1, o = fraction ? 1 : 0;

	if (isnan(p->geomean_pct))
		snprintf(buf, len, "- (%s)", p->geomean_why ? p->geomean_why :
			 "none");
	else if (isnan(p->geomean_lo_pct))
		snprintf(buf, len, fraction ? "%.3g, %zu cells" :
			 "%+.1f%%, %zu cells", o + p->geomean_pct / k,
			 p->geomean_cells);
	else if (fraction)
		snprintf(buf, len, "%.3g (%.3g..%.3g), %zu cells",
			 o + p->geomean_pct / k, o + p->geomean_lo_pct / k,
			 o + p->geomean_hi_pct / k, p->geomean_cells);
	else
		snprintf(buf, len, "%+.1f%% (%+.1f..%+.1f%%), %zu cells",
			 p->geomean_pct, p->geomean_lo_pct, p->geomean_hi_pct,
			 p->geomean_cells);
	if (p->unsteady_cells && !isnan(p->geomean_pct)) {
		size_t used = strlen(buf);

		snprintf(buf + used, len - used, ", %zu of them %s",
			 p->unsteady_cells, REPORT_UNSTEADY_MARK);
	}
}

static void put_geomean_row(FILE *out, const struct report *r,
			    const struct report_metric *m)
{
	char g[96];
	size_t c;

	/* the cell, A's empty entry, then each config's change only */
	fputs("| *geomean* | |", out);
	for (c = 1; c < r->nr_columns; c++) {
		fmt_geomean(&m->pairs[c], false, g, sizeof(g));
		fprintf(out, " | %s | |", g);
	}
	fputs("\n", out);
}

/* Per config: the verdict counts of the table and the pair's geomean. */
static void put_counts(FILE *out, const struct report *r, const size_t *cols,
		       const struct report_pair *const *pairs, size_t nr,
		       bool fraction)
{
	char letter[8], level[16], g[96];
	size_t i;

	fputs("\n| config | better | worse | equivalent | inconclusive | "
	      "n too small | values | m (tested) | level | geomean |\n"
	      "|:---|--:|--:|--:|--:|--:|--:|--:|--:|---:|\n", out);
	for (i = 0; i < nr; i++) {
		const struct report_counts *k = &pairs[i]->counts;

		report_column_letter(cols[i], letter, sizeof(letter));
		report_fmt_level(pairs[i]->level, level, sizeof(level));
		fmt_geomean(pairs[i], fraction, g, sizeof(g));
		fprintf(out, "| %s: ", letter);
		put_md(out, r->columns[cols[i]].label);
		fprintf(out, " | %zu | %zu | %zu | %zu | %zu | %zu | %zu | %s | "
			"%s |\n", k->n[REPORT_BETTER], k->n[REPORT_WORSE],
			k->n[REPORT_EQUIVALENT], k->n[REPORT_INCONCLUSIVE],
			k->n[REPORT_N_TOO_SMALL], k->n[REPORT_VALUE],
			pairs[i]->family, level, g);
	}
}

static void put_margin(FILE *out, const struct report *r,
		       const struct report_metric *m)
{
	char margin[512];

	report_fmt_margin(r, m, margin, sizeof(margin));
	fputs("\nMargin: ", out);
	put_md(out, margin);
	fputs(".", out);
}

static void put_main_counts(FILE *out, const struct report *r,
			    const struct report_metric *m)
{
	size_t *cols = calloc(r->nr_columns, sizeof(*cols)), c;
	const struct report_pair **pairs = calloc(r->nr_columns,
						  sizeof(*pairs));

	if (cols && pairs) {
		for (c = 1; c < r->nr_columns; c++) {
			cols[c - 1] = c;
			pairs[c - 1] = &m->pairs[c];
		}
		put_counts(out, r, cols, pairs, r->nr_columns - 1, false);
	}
	free(cols);
	free(pairs);
}

static void put_n_too_small(FILE *out, const struct report *r,
			    const struct report_metric *m)
{
	size_t f = report_max_family(r, m);

	fprintf(out, "\nn too small: with so few trials no exact interval "
		"reaches 1 - %g/%zu, whatever the data; run at least %zu per "
		"config.\n", r->alpha, f, report_min_trials(r->alpha, f));
}

/*
 * The footnote of a table whose denominator, column @c of @r (column 0
 * of @rr, whose metric @m is), is unsteady or not known to be steady.
 */
static void put_unsteady(FILE *out, const struct report *r, size_t c,
			 const struct report *rr,
			 const struct report_metric *m)
{
	char *note = report_unsteady_note(r, c, rr, m);

	if (!note)
		return;
	fputs("\n", out);
	put_md(out, note);
	fputs(".\n", out);
	free(note);
}

static void put_table(FILE *out, const struct report *r,
		      const struct report_metric *m)
{
	const struct metric_info *mi = &m->info;
	char letter[8], levels[32];
	size_t i, c;

	fprintf(out, "\n## ");
	put_md(out, mi->name);
	if (mi->known)
		fprintf(out, ": %s [%s], %s is better\n\n", mi->label,
			mi->unit, mi->higher_is_better ? "higher" : "lower");
	else
		fprintf(out, ": unknown metric, lower is better\n\n");
	fputs("| cell", out);
	for (c = 0; c < r->nr_columns; c++) {
		report_column_letter(c, letter, sizeof(letter));
		fprintf(out, " | %s: ", letter);
		put_md(out, r->columns[c].label);
		if (c)
			fprintf(out, " | %s vs A | %s CI", letter, letter);
	}
	fputs(" |\n|:---", out);
	for (c = 0; c < r->nr_columns; c++)
		fputs(c ? " | ---: | ---: | ---:" : " | ---:", out);
	fputs(" |\n", out);
	for (i = 0; i < r->nr_cells; i++) {
		fputs("| ", out);
		put_md(out, r->cells[i].label);
		for (c = 0; c < r->nr_columns; c++) {
			put_entry(out, report_entry(r, m, i, c));
			if (c) {
				put_verdict(out, report_entry(r, m, i, c));
				put_mark(out, report_entry(r, m, i, c),
					 report_unsteady(r, m, i));
				put_ci(out, report_entry(r, m, i, c));
			}
		}
		fputs(" |\n", out);
	}
	if (r->nr_columns > 1)
		put_geomean_row(out, r, m);
	report_fmt_levels(m, levels, sizeof(levels));
	put_margin(out, r, m);
	fprintf(out, "  CI: Hodges-Lehmann, %% of A's median, at 1 - "
		"%g/m (levels reached: %s).\n", r->alpha, levels);
	if (r->nr_columns > 1)
		put_main_counts(out, r, m);
	if (m->any_n_too_small)
		put_n_too_small(out, r, m);
	put_unsteady(out, r, 0, r, m);
}

/* A fraction and its CI as fractions: "0.412 (0.398..0.431)" */
static void put_fraction(FILE *out, const struct report_entry *e,
			 double ref_median)
{
	double f, lo, hi;
	char frac[32];

	report_fraction(e, ref_median, &f, &lo, &hi);
	report_fmt_fraction(e, ref_median, frac, sizeof(frac));
	if (e->verdict == REPORT_BETTER || e->verdict == REPORT_WORSE)
		fprintf(out, " | **%.3g** %s", f,
			report_verdict_name(e->verdict));
	else if (e->verdict == REPORT_NO_DATA)
		fputs(" | -", out);
	else {
		fputs(" | ", out);
		put_md(out, frac);
	}
	if (!isnan(lo) && report_tested(e))
		fprintf(out, " (%.3g..%.3g; p=%.3g, p adj.=%.3g)", lo, hi,
			e->mwu.p, e->q);
}

static void put_fraction_counts(FILE *out, const struct report *r, size_t k)
{
	size_t *cols = calloc(r->nr_columns, sizeof(*cols)), c, n = 0;
	const struct report_pair **pairs = calloc(r->nr_columns,
						  sizeof(*pairs));

	if (cols && pairs) {
		for (c = 0; c < r->nr_columns; c++) {
			if (c == r->ref_column)
				continue;
			cols[n] = c;
			pairs[n++] = &r->ref->metrics[k].pairs[r->ref_map[c]];
		}
		put_counts(out, r, cols, pairs, n, true);
	}
	free(cols);
	free(pairs);
}

/* Is there any fraction to show in metric @k (see report_text.c)? */
static bool any_fraction(const struct report *r, size_t k)
{
	size_t i, c;

	for (i = 0; i < r->nr_cells; i++) {
		const struct report_entry *ref =
			report_ref_entry(r, k, i, r->ref_column);

		for (c = 0; c < r->nr_columns; c++) {
			double f, lo, hi;

			if (c == r->ref_column)
				continue;
			report_fraction(report_ref_entry(r, k, i, c),
					ref->sum.median, &f, &lo, &hi);
			if (!isnan(f))
				return true;
		}
	}
	return false;
}

/*
 * With a reference config (the in-kernel driver): the same table as
 * fractions of the reference's median, judged against the reference.
 */
static void put_fraction_table(FILE *out, const struct report *r, size_t k)
{
	const struct report_metric *m = &r->ref->metrics[k];
	const struct report_column *refcol = &r->columns[r->ref_column];
	char letter[8], drivers[256], levels[32];
	size_t i, c;

	report_column_letter(r->ref_column, letter, sizeof(letter));
	report_join(&refcol->env.drivers, ", ", drivers, sizeof(drivers));
	fprintf(out, "\n### ");
	put_md(out, m->info.name);
	fprintf(out, " as a fraction of %s: ", letter);
	put_md(out, refcol->label);
	if (*drivers) {
		fputs(" (", out);
		put_md(out, drivers);
		fputs(")", out);
	}
	fputs("\n\n| cell | ", out);
	fprintf(out, "%s: ", letter);
	put_md(out, refcol->label);
	for (c = 0; c < r->nr_columns; c++) {
		if (c == r->ref_column)
			continue;
		report_column_letter(c, letter, sizeof(letter));
		fprintf(out, " | %s: ", letter);
		put_md(out, r->columns[c].label);
	}
	fputs(" |\n|:---", out);
	for (c = 0; c < r->nr_columns; c++)
		fputs(" | ---:", out);
	fputs(" |\n", out);
	for (i = 0; i < r->nr_cells; i++) {
		const struct report_entry *ref =
			report_ref_entry(r, k, i, r->ref_column);

		fputs("| ", out);
		put_md(out, r->cells[i].label);
		put_entry(out, ref);
		for (c = 0; c < r->nr_columns; c++)
			if (c != r->ref_column) {
				put_fraction(out, report_ref_entry(r, k, i, c),
					     ref->sum.median);
				put_mark(out, report_ref_entry(r, k, i, c),
					 report_unsteady(r->ref, m, i));
			}
		fputs(" |\n", out);
	}
	fputs("| *geomean* |", out);
	for (c = 0; c < r->nr_columns; c++) {
		char g[96];

		if (c == r->ref_column)
			continue;
		fmt_geomean(&m->pairs[r->ref_map[c]], true, g, sizeof(g));
		fprintf(out, " | %s", g);
	}
	report_column_letter(r->ref_column, letter, sizeof(letter));
	report_fmt_levels(m, levels, sizeof(levels));
	fprintf(out, " |\n\nEach entry: median / %s's median, judged against "
		"%s by the rule of the main table: in bold where better or "
		"worse, = equivalent, \\~ inconclusive, \\~\\* n too "
		"small, (0.50) a value; in brackets the Hodges-Lehmann "
		"interval of the shift as fractions of %s's median (levels "
		"reached: %s), p and p adj.", letter, letter, letter, levels);
	put_margin(out, r->ref, m);
	fputs("\n", out);
	put_fraction_counts(out, r, k);
	if (m->any_n_too_small)
		put_n_too_small(out, r->ref, m);
	put_unsteady(out, r, r->ref_column, r->ref, m);
}

static int md_emit(FILE *out, const struct report *r)
{
	size_t i;

	put_header(out, r);
	put_configs(out, r);
	for (i = 0; i < r->nr_metrics; i++) {
		put_table(out, r, &r->metrics[i]);
		/* never a table of nothing but "-" */
		if (r->ref && any_fraction(r, i))
			put_fraction_table(out, r, i);
	}
	return ferror(out) ? -EIO : 0;
}

const struct report_format report_md = {
	.name = "markdown",
	.file = "report.md",
	.emit = md_emit,
};
