// SPDX-License-Identifier: GPL-2.0
/*
 * CSV (RFC 4180 quoting, LF line ends): one row per metric x cell x
 * config, every row complete (what ran, the summary, the test) so a
 * spreadsheet needs no header block to interpret it; then per metric one
 * "geomean" row per non-baseline config (cell "geomean", verdict
 * "geomean", the change in delta_pct, its cells in geomean_cells and
 * bootstrap interval in geomean_ci_*).  Columns added later go last so
 * readers that index columns keep working.
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
	"q_value", "p_adjust", "hl_shift_pct", "ci_lo_pct", "ci_hi_pct",
	"ci_level", "boots", "trials_per_boot", "command",
	"ref_config", "ref_fraction", "ref_verdict", "ref_p_value",
	"ref_q_value", "ref_ci_lo", "ref_ci_hi", "backing",
	"margin_pct", "family", "family_level", "geomean_cells",
	"geomean_ci_lo_pct", "geomean_ci_hi_pct",
	"boot_spread_pct", "baseline_unsteady", "ref_unsteady", "steady_pct",
	"geomean_unsteady_cells", "ref_geomean_unsteady_cells",
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
	bool tested = col && report_tested(e);

	put_uint(out, e->sum.n);
	put_num(out, e->sum.median);
	put_num(out, e->sum.q1);
	put_num(out, e->sum.q3);
	put_num(out, e->sum.min);
	put_num(out, e->sum.max);
	put_num(out, e->sum.mean);
	put_num(out, e->spread_pct);
	put_num(out, compared ? e->delta_pct : NAN);
	put_num(out, tested ? e->mwu.p : NAN);
	put_num(out, tested ? e->mwu.u1 : NAN);
	put_field(out, !tested ? "" : e->mwu.exact ?
		  "mann-whitney-u exact" : "mann-whitney-u normal", false);
	put_field(out, report_verdict_name(e->verdict), false);
}

/* Empty fields, one per column from @from to @to (exclusive). */
static void put_empty(FILE *out, size_t from, size_t to)
{
	for (; from < to; from++)
		put_field(out, "", false);
}

/* The columns added after date_last. */
static void put_extra(FILE *out, const struct report *r,
		      const struct report_entry *e, size_t c)
{
	const struct report_column *col = &r->columns[c];
	bool compared = e && c && report_tested(e);
	char n[48];

	put_num(out, compared ? e->q : NAN);
	put_field(out, compared ? "bonferroni over the family" : "", false);
	put_num(out, compared ? e->shift_pct : NAN);
	put_num(out, compared ? e->ci_lo_pct : NAN);
	put_num(out, compared ? e->ci_hi_pct : NAN);
	put_num(out, compared ? e->hl.level : NAN);
	report_fmt_n(col->boots_min, col->boots_max, n, sizeof(n));
	put_field(out, col->boots_known ? n : "", false);
	report_fmt_n(col->per_boot_min, col->per_boot_max, n, sizeof(n));
	put_field(out, col->boots_known ? n : "", false);
	put_field(out, r->command ? r->command : "", false);
}

/*
 * The columns against the reference config (the in-kernel driver):
 * median / its median, the test against it, the CI as fractions.  Cell
 * @i == nr_cells is the geomean row.  Empty without a reference.
 */
static void put_ref(FILE *out, const struct report *r, size_t k, size_t i,
		    size_t c)
{
	const struct report_entry *e, *ref;
	double f, lo, hi;
	bool compared;

	if (!r->ref) {
		put_empty(out, 0, 7);
		return;
	}
	put_field(out, r->columns[r->ref_column].label, false);
	if (i == r->nr_cells) {
		double pct = r->ref->metrics[k].pairs[r->ref_map[c]].geomean_pct;

		put_num(out, c == r->ref_column ? NAN : 1 + pct / 100);
		put_field(out, c == r->ref_column ? "" : "geomean", false);
		put_empty(out, 0, 4);
		return;
	}
	e = report_ref_entry(r, k, i, c);
	ref = report_ref_entry(r, k, i, r->ref_column);
	report_fraction(e, ref->sum.median, &f, &lo, &hi);
	compared = c != r->ref_column && report_tested(e);
	put_num(out, f);
	put_field(out, report_verdict_name(e->verdict), false);
	put_num(out, compared ? e->mwu.p : NAN);
	put_num(out, compared ? e->q : NAN);
	put_num(out, lo);
	put_num(out, hi);
}

/*
 * Is the denominator steady (report_steady.c)?  A cell row: the entry's
 * own within-boot spread, whether the baseline's and the reference's
 * exceed steady_pct in this cell; a geomean row (@i == nr_cells): how
 * many of the geomean's cells are so.
 */
static void put_steady(FILE *out, const struct report *r, size_t k,
		       size_t i, size_t c)
{
	const struct report_metric *m = &r->metrics[k];
	const struct report_metric *rm = r->ref ? &r->ref->metrics[k] : NULL;

	if (i < r->nr_cells) {
		put_num(out, report_entry(r, m, i, c)->boot_spread_pct);
		put_field(out, report_unsteady(r, m, i) ? "1" : "0", false);
		put_field(out, !rm ? "" : report_unsteady(r->ref, rm, i) ?
			  "1" : "0", false);
		put_num(out, r->steady_pct);
		put_empty(out, 0, 2);
		return;
	}
	put_empty(out, 0, 3);
	put_num(out, r->steady_pct);
	put_uint(out, m->pairs[c].unsteady_cells);
	if (rm && c != r->ref_column)
		put_uint(out, rm->pairs[r->ref_map[c]].unsteady_cells);
	else
		put_field(out, "", false);
}

/* The margin, and column @c's family size and interval level. */
static void put_family(FILE *out, const struct report_metric *m, size_t c)
{
	put_num(out, m->margin_pct);
	if (!c) {
		put_empty(out, 0, 2);
		return;
	}
	put_uint(out, m->pairs[c].family);
	put_num(out, m->pairs[c].level);
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
	put_extra(out, r, report_entry(r, m, i, c), c);
	put_ref(out, r, (size_t)(m - r->metrics), i, c);
	put_field(out, k->backing, false);
	put_family(out, m, c);
	put_empty(out, 0, 3);		/* geomean_* */
	put_steady(out, r, (size_t)(m - r->metrics), i, c);
	fputs("\n", out);
}

static void put_geomean_row(FILE *out, const struct report *r,
			    const struct report_metric *m, size_t c)
{
	const struct report_column *col = &r->columns[c];

	put_field(out, m->info.name, true);
	put_field(out, m->info.unit, false);
	put_field(out, m->info.higher_is_better ? "1" : "0", false);
	put_field(out, "geomean", false);
	put_empty(out, 4, 10);		/* target .. jobs */
	put_field(out, col->label, false);
	put_field(out, "0", false);
	put_empty(out, 12, 20);		/* n .. spread_pct */
	put_num(out, m->pairs[c].geomean_pct);
	put_empty(out, 21, 24);		/* p_value .. test */
	put_field(out, "geomean", false);
	put_num(out, r->alpha);
	put_list(out, &col->env.clocks);
	put_list(out, &col->env.accels);
	put_list(out, &col->env.kernels);
	put_list(out, &col->env.flavors);
	put_list(out, &col->env.hosts);
	put_field(out, col->env.date_first, false);
	put_field(out, col->env.date_last, false);
	put_extra(out, r, NULL, c);
	put_ref(out, r, (size_t)(m - r->metrics), r->nr_cells, c);
	put_field(out, "", false);	/* backing */
	put_family(out, m, c);
	put_uint(out, m->pairs[c].geomean_cells);
	put_num(out, m->pairs[c].geomean_lo_pct);
	put_num(out, m->pairs[c].geomean_hi_pct);
	put_steady(out, r, (size_t)(m - r->metrics), r->nr_cells, c);
	fputs("\n", out);
}

static int csv_emit(FILE *out, const struct report *r)
{
	size_t i, k, c;

	for (i = 0; i < sizeof(columns) / sizeof(columns[0]); i++)
		put_field(out, columns[i], !i);
	fputs("\n", out);
	for (k = 0; k < r->nr_metrics; k++) {
		for (i = 0; i < r->nr_cells; i++)
			for (c = 0; c < r->nr_columns; c++)
				put_row(out, r, &r->metrics[k], i, c);
		for (c = 1; c < r->nr_columns; c++)
			put_geomean_row(out, r, &r->metrics[k], c);
	}
	return ferror(out) ? -EIO : 0;
}

const struct report_format report_csv = {
	.name = "csv",
	.file = "report.csv",
	.emit = csv_emit,
};
