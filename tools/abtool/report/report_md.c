// SPDX-License-Identifier: GPL-2.0
/* Markdown (GitHub flavour): the text report's content, with p-values. */
#include <errno.h>
#include <math.h>
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
		"the median) and n (trials) per cell; delta of the medians vs "
		"the baseline, in bold where the two-sided Mann-Whitney U test "
		"(exact permutation test up to 25 trials a side, ties at "
		"mid-ranks) gives q < %g, else ~\n", r->alpha);
	fprintf(out, "- **p, q:** p is the test's; q is p adjusted by "
		"Benjamini-Hochberg over every comparison of the same table, "
		"so among the deltas a table shows in bold, the expected share "
		"of false ones is at most %g (Holm would need p < %g / "
		"comparisons, out of reach at 4 trials a side)\n", r->alpha,
		r->alpha);
	fprintf(out, "- **CI:** Hodges-Lehmann shift of the config vs the "
		"baseline (median of all pairwise differences) with its exact "
		"rank-based confidence interval, as %% of the baseline's "
		"median; small samples cannot reach every level, so each "
		"table states the one reached: the lowest at or above %g%% "
		"(97.1%% at 4 vs 4), else the widest interval (90%% at 3 vs "
		"3)\n", (1 - r->alpha) * 100);
	fprintf(out, "- **geomean:** geometric mean over the table's cells "
		"of each config's median / the baseline's median, as a "
		"change\n");
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
	report_fmt_value(e->sum.median, val, sizeof(val));
	report_fmt_spread(e->spread_pct, spr, sizeof(spr));
	fprintf(out, " | %s ± %s, n=%zu", val, spr, e->sum.n);
}

static void put_verdict(FILE *out, const struct report_entry *e)
{
	char delta[32];

	report_fmt_delta(e, delta, sizeof(delta));
	switch (e->verdict) {
	case REPORT_SIGNIFICANT:
		fprintf(out, " | **%s** (p=%.3g, q=%.3g)", delta, e->mwu.p,
			e->q);
		break;
	case REPORT_NOT_SIGNIFICANT:
		fprintf(out, " | \\~ (p=%.3g, q=%.3g)", e->mwu.p, e->q);
		break;
	case REPORT_N_TOO_SMALL:
		fprintf(out, " | \\~ (n too small, p=%.3g)", e->mwu.p);
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

static void put_geomean_row(FILE *out, const struct report *r,
			    const struct report_metric *m)
{
	char pct[32];
	size_t c;

	/* the cell, A's empty entry, then each config's change only */
	fputs("| *geomean* | |", out);
	for (c = 1; c < r->nr_columns; c++) {
		report_fmt_pct(m->geomean_pct[c], pct, sizeof(pct));
		fprintf(out, " | %s (%zu cells) | |", pct,
			m->geomean_cells[c]);
	}
	fputs("\n", out);
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
				put_ci(out, report_entry(r, m, i, c));
			}
		}
		fputs(" |\n", out);
	}
	if (r->nr_columns > 1)
		put_geomean_row(out, r, m);
	report_fmt_levels(m, levels, sizeof(levels));
	fprintf(out, "\nq: Benjamini-Hochberg over the %zu comparisons of "
		"this table.  CI: %s, Hodges-Lehmann, %% of A's median.\n",
		m->nr_tests, levels);
	if (m->any_n_too_small)
		fprintf(out, "\nn too small: so few trials cannot reach "
			"p < %g even when every trial of one config beats "
			"every trial of the other; run at least %zu per "
			"config.\n", r->alpha, report_min_trials(r->alpha));
}

/* A fraction and its CI as fractions: "0.412 (0.398..0.431)" */
static void put_fraction(FILE *out, const struct report_entry *e,
			 double ref_median)
{
	double f, lo, hi;
	char frac[32];

	report_fraction(e, ref_median, &f, &lo, &hi);
	report_fmt_fraction(e, ref_median, frac, sizeof(frac));
	if (e->verdict == REPORT_SIGNIFICANT)
		fprintf(out, " | **%.3g**", f);
	else
		fprintf(out, " | %s", strcmp(frac, "-") ? frac : "-");
	if (!isnan(lo))
		fprintf(out, " (%.3g..%.3g; p=%.3g, q=%.3g)", lo, hi,
			e->mwu.p, e->q);
}

/*
 * With a reference config (the in-kernel driver): the same table as
 * fractions of the reference's median, tested against the reference.
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
			if (c != r->ref_column)
				put_fraction(out, report_ref_entry(r, k, i, c),
					     ref->sum.median);
		fputs(" |\n", out);
	}
	fputs("| *geomean* |", out);
	for (c = 0; c < r->nr_columns; c++) {
		double pct = m->geomean_pct[r->ref_map[c]];

		if (c == r->ref_column)
			continue;
		if (isnan(pct))
			fputs(" | -", out);
		else
			fprintf(out, " | %.3g (%zu cells)", 1 + pct / 100,
				m->geomean_cells[r->ref_map[c]]);
	}
	report_column_letter(r->ref_column, letter, sizeof(letter));
	report_fmt_levels(m, levels, sizeof(levels));
	fprintf(out, " |\n\nEach entry: median / %s's median, in bold where "
		"the two-sided Mann-Whitney U test against %s gives q < %g "
		"(Benjamini-Hochberg over the %zu comparisons of this table), "
		"\\~ otherwise; in brackets the %s Hodges-Lehmann CI of the "
		"shift as fractions of %s's median, p and q.\n", letter, letter,
		r->alpha, m->nr_tests, levels, letter);
}

static int md_emit(FILE *out, const struct report *r)
{
	size_t i;

	put_header(out, r);
	put_configs(out, r);
	for (i = 0; i < r->nr_metrics; i++) {
		put_table(out, r, &r->metrics[i]);
		if (r->ref)
			put_fraction_table(out, r, i);
	}
	return ferror(out) ? -EIO : 0;
}

const struct report_format report_md = {
	.name = "markdown",
	.file = "report.md",
	.emit = md_emit,
};
