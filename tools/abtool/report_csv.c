// SPDX-License-Identifier: GPL-2.0
/*
 * CSV (RFC 4180 quoting, LF line ends): one row per metric x cell x
 * config, every row complete (what ran, the summary, the test) so a
 * spreadsheet needs no header block to interpret it.
 */
#include <errno.h>
#include <math.h>
#include <string.h>

#include "report.h"

static const char *const columns[] = {
	"metric", "unit", "higher_is_better", "cell", "target", "legs", "rw",
	"bs", "iodepth", "jobs", "config", "baseline", "n", "median", "q1",
	"q3", "min", "max", "mean", "spread_pct", "delta_pct", "p_value",
	"u_statistic", "test", "verdict", "alpha", "clock", "accel",
	"kernels", "flavor", "host", "date_first", "date_last",
};

/* Quote when needed, doubling quotes. */
static void put_field(FILE *out, const char *s, bool first)
{
	if (!first)
		fputc(',', out);
	if (!s[strcspn(s, ",\"\n")]) {
		fputs(s, out);
		return;
	}
	fputc('"', out);
	for (; *s; s++) {
		if (*s == '"')
			fputc('"', out);
		fputc(*s, out);
	}
	fputc('"', out);
}

static void put_num(FILE *out, double v)
{
	char buf[40];

	report_fmt_number(v, buf, sizeof(buf));
	put_field(out, buf, false);
}

static void put_uint(FILE *out, unsigned long long v)
{
	char buf[24];

	snprintf(buf, sizeof(buf), "%llu", v);
	put_field(out, buf, false);
}

static void put_list(FILE *out, const struct strlist *l)
{
	char buf[2048];

	report_join(l, "; ", buf, sizeof(buf));
	put_field(out, buf, false);
}

static void put_stats(FILE *out, const struct report_entry *e, size_t col)
{
	bool compared = col && e->verdict != REPORT_NO_DATA;

	put_uint(out, e->sum.n);
	put_num(out, e->sum.median);
	put_num(out, e->sum.q1);
	put_num(out, e->sum.q3);
	put_num(out, e->sum.min);
	put_num(out, e->sum.max);
	put_num(out, e->sum.mean);
	put_num(out, e->spread_pct);
	put_num(out, compared ? e->delta_pct : NAN);
	put_num(out, compared ? e->mwu.p : NAN);
	put_num(out, compared ? e->mwu.u1 : NAN);
	put_field(out, !compared ? "" : e->mwu.exact ?
		  "mann-whitney-u exact" : "mann-whitney-u normal", false);
	put_field(out, report_verdict_name(e->verdict), false);
}

static void put_row(FILE *out, const struct report *r,
		    const struct report_metric *m, size_t i, size_t c)
{
	const struct trial_cell *k = &r->cells[i].key;
	const struct report_column *col = &r->columns[c];

	put_field(out, m->info.name, true);
	put_field(out, m->info.unit, false);
	put_field(out, m->info.higher_is_better ? "1" : "0", false);
	put_field(out, r->cells[i].label, false);
	put_field(out, k->target, false);
	put_uint(out, k->legs);
	put_field(out, k->rw, false);
	put_uint(out, k->bs);
	put_uint(out, k->iodepth);
	put_uint(out, k->jobs);
	put_field(out, col->label, false);
	put_field(out, c ? "0" : "1", false);
	put_stats(out, report_entry(r, m, i, c), c);
	put_num(out, r->alpha);
	put_list(out, &col->env.clocks);
	put_list(out, &col->env.accels);
	put_list(out, &col->env.kernels);
	put_list(out, &col->env.flavors);
	put_list(out, &col->env.hosts);
	put_field(out, col->env.date_first, false);
	put_field(out, col->env.date_last, false);
	fputs("\n", out);
}

static int csv_emit(FILE *out, const struct report *r)
{
	size_t i, k, c;

	for (i = 0; i < sizeof(columns) / sizeof(columns[0]); i++)
		put_field(out, columns[i], !i);
	fputs("\n", out);
	for (k = 0; k < r->nr_metrics; k++)
		for (i = 0; i < r->nr_cells; i++)
			for (c = 0; c < r->nr_columns; c++)
				put_row(out, r, &r->metrics[k], i, c);
	return ferror(out) ? -EIO : 0;
}

const struct report_format report_csv = {
	.name = "csv",
	.file = "report.csv",
	.emit = csv_emit,
};
