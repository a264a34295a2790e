// SPDX-License-Identifier: GPL-2.0
/* Markdown (GitHub flavour): the text report's content, with p-values. */
#include <errno.h>
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

static void put_header(FILE *out, const struct report *r)
{
	fprintf(out, "# abtool compare\n\n");
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
	put_item(out, "kernels", &r->env.kernels);
	put_item(out, "flavor", &r->env.flavors);
	put_item(out, "host", &r->env.hosts);
	if (*r->env.date_first)
		fprintf(out, "- **dates:** %s .. %s\n", r->env.date_first,
			r->env.date_last);
	fprintf(out, "- **statistics:** median ± spread (half the IQR, %% of "
		"the median); delta of the medians vs the baseline where a "
		"two-sided Mann-Whitney U test gives p < %g, else ~\n",
		r->alpha);
	if (r->tcg)
		fprintf(out, "\n> **accel=tcg: QEMU emulated the CPU in "
			"software. These are NOT hardware numbers; compare "
			"the configs with each other only.**\n");
}

static void put_configs(FILE *out, const struct report *r)
{
	char letter[8], n[48];
	size_t c;

	fprintf(out, "\n| | config | n (trials per cell) | |\n"
		"|---|---|--:|---|\n");
	for (c = 0; c < r->nr_columns; c++) {
		report_column_letter(c, letter, sizeof(letter));
		report_fmt_n(r->columns[c].n_min, r->columns[c].n_max, n,
			     sizeof(n));
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
	fprintf(out, " | %s ± %s", val, spr);
}

static void put_verdict(FILE *out, const struct report_entry *e)
{
	char delta[32];

	report_fmt_delta(e, delta, sizeof(delta));
	switch (e->verdict) {
	case REPORT_SIGNIFICANT:
		fprintf(out, " | **%s** (p=%.3g)", delta, e->mwu.p);
		break;
	case REPORT_NOT_SIGNIFICANT:
		fprintf(out, " | \\~ (p=%.3g)", e->mwu.p);
		break;
	case REPORT_N_TOO_SMALL:
		fprintf(out, " | \\~ (n too small)");
		break;
	default:
		fputs(" | -", out);
	}
}

static void put_table(FILE *out, const struct report *r,
		      const struct report_metric *m)
{
	const struct metric_info *mi = &m->info;
	char letter[8];
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
			fprintf(out, " | %s vs A", letter);
	}
	fputs(" |\n|:---", out);
	for (c = 0; c < r->nr_columns; c++)
		fputs(c ? " | ---: | ---:" : " | ---:", out);
	fputs(" |\n", out);
	for (i = 0; i < r->nr_cells; i++) {
		fputs("| ", out);
		put_md(out, r->cells[i].label);
		for (c = 0; c < r->nr_columns; c++) {
			put_entry(out, report_entry(r, m, i, c));
			if (c)
				put_verdict(out, report_entry(r, m, i, c));
		}
		fputs(" |\n", out);
	}
	if (m->any_n_too_small)
		fprintf(out, "\nn too small: so few trials cannot reach "
			"p < %g even when every trial of one config beats "
			"every trial of the other; run at least %zu per "
			"config.\n", r->alpha, report_min_trials(r->alpha));
}

static int md_emit(FILE *out, const struct report *r)
{
	size_t i;

	put_header(out, r);
	put_configs(out, r);
	for (i = 0; i < r->nr_metrics; i++)
		put_table(out, r, &r->metrics[i]);
	return ferror(out) ? -EIO : 0;
}

const struct report_format report_md = {
	.name = "markdown",
	.file = "report.md",
	.emit = md_emit,
};
