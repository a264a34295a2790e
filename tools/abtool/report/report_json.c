// SPDX-License-Identifier: GPL-2.0
/* JSON (schema "abtool-compare-1") through json-c, raw values included. */
#include <errno.h>
#include <math.h>

#include <json-c/json.h>

#include "report.h"

#define COMPARE_SCHEMA	"abtool-compare-1"

static struct json_object *str(const char *s)
{
	return json_object_new_string(s);
}

static struct json_object *num(double v)
{
	return results_json_number(v);
}

static struct json_object *strlist_json(const struct strlist *l)
{
	struct json_object *a = json_object_new_array();
	size_t i;

	for (i = 0; i < l->nr; i++)
		json_object_array_add(a, str(l->v[i]));
	return a;
}

static struct json_object *env_json(const struct report_env *env)
{
	struct json_object *o = json_object_new_object();

	json_object_object_add(o, "kernels", strlist_json(&env->kernels));
	json_object_object_add(o, "clocks", strlist_json(&env->clocks));
	json_object_object_add(o, "accels", strlist_json(&env->accels));
	json_object_object_add(o, "flavors", strlist_json(&env->flavors));
	json_object_object_add(o, "hosts", strlist_json(&env->hosts));
	json_object_object_add(o, "cpus", strlist_json(&env->cpus));
	json_object_object_add(o, "date_first",
			       *env->date_first ? str(env->date_first) : NULL);
	json_object_object_add(o, "date_last",
			       *env->date_last ? str(env->date_last) : NULL);
	return o;
}

static struct json_object *header_json(const struct report *r)
{
	struct json_object *o = json_object_new_object();
	char test[256];

	json_object_object_add(o, "trials", json_object_new_int64(
				       (int64_t)r->nr_trials));
	json_object_object_add(o, "inputs", strlist_json(&r->files));
	json_object_object_add(o, "by", str(report_by_name(r->by)));
	json_object_object_add(o, "baseline", str(r->columns[0].label));
	json_object_object_add(o, "reference", r->ref ?
			       str(r->columns[r->ref_column].label) : NULL);
	json_object_object_add(o, "alpha", num(r->alpha));
	json_object_object_add(o, "env", env_json(&r->env));
	json_object_object_add(o, "not_measured",
			       strlist_json(&r->not_measured));
	json_object_object_add(o, "mixed_clock",
			       json_object_new_boolean(r->mixed_clock));
	json_object_object_add(o, "mixed_env",
			       json_object_new_boolean(r->mixed_env));
	json_object_object_add(o, "tcg", json_object_new_boolean(r->tcg));
	if (r->tcg)
		json_object_object_add(o, "warning", str(
			"accel=tcg: QEMU emulated the CPU in software; these "
			"are not hardware numbers"));
	json_object_object_add(o, "spread",
			       str("half the interquartile range, percent of "
				   "the median"));
	snprintf(test, sizeof(test), "two-sided Mann-Whitney U: exact "
		 "permutation distribution (ties at mid-ranks) where it costs "
		 "at most %lu additions (every n up to 37 a side), else "
		 "normal approximation with tie and continuity correction",
		 (unsigned long)STATS_MWU_EXACT_MAX_OPS);
	json_object_object_add(o, "test", str(test));
	json_object_object_add(o, "p_adjust", str(
		"bonferroni over the family: the cells a pair of configs is "
		"tested in, per metric (q_value = min(1, family * p_value))"));
	json_object_object_add(o, "ci", str(
		"hodges-lehmann shift vs the baseline with its exact rank-based "
		"interval at 1 - alpha/family (ci_level: reached), percent of "
		"the baseline median"));
	json_object_object_add(o, "verdict", str(
		"better or worse: the interval beyond +-margin_pct; "
		"equivalent: within it; inconclusive: neither; n too small: "
		"the family's level is out of reach; value: every trial the "
		"same on both sides, not tested"));
	json_object_object_add(o, "margin_pct", num(r->margin_pct));
	json_object_object_add(o, "steady_pct", num(r->steady_pct));
	json_object_object_add(o, "steady", str(
		"boot_spread_pct: the largest over an entry's boots of (max - "
		"min) / median of the boot's trials, percent; a cell where the "
		"baseline's (reference's) exceeds steady_pct is "
		"baseline_unsteady (reference_unsteady): its ratios rest on an "
		"unsteady median; unsteady_cells: how many of a geomean's "
		"cells are so"));
	json_object_object_add(o, "geomean_bootstrap", str(
		"percentile interval at 1 - alpha, each cell's trials "
		"resampled, splitmix64 seed " "1" ", 2000 replicates"));
	json_object_object_add(o, "command",
			       r->command ? str(r->command) : NULL);
	return o;
}

static struct json_object *count(size_t n)
{
	return json_object_new_int64((int64_t)n);
}

/* How n splits into boots x trials; null when not recorded. */
static void add_boots(struct json_object *o, const struct report_column *col)
{
	bool k = col->boots_known && col->n_max;

	json_object_object_add(o, "boots_min", k ? count(col->boots_min) : NULL);
	json_object_object_add(o, "boots_max", k ? count(col->boots_max) : NULL);
	json_object_object_add(o, "trials_per_boot_min",
			       k ? count(col->per_boot_min) : NULL);
	json_object_object_add(o, "trials_per_boot_max",
			       k ? count(col->per_boot_max) : NULL);
}

static struct json_object *columns_json(const struct report *r)
{
	struct json_object *a = json_object_new_array(), *o;
	char letter[8];
	size_t c;

	for (c = 0; c < r->nr_columns; c++) {
		const struct report_column *col = &r->columns[c];

		o = json_object_new_object();
		report_column_letter(c, letter, sizeof(letter));
		json_object_object_add(o, "label", str(col->label));
		json_object_object_add(o, "letter", str(letter));
		json_object_object_add(o, "baseline",
				       json_object_new_boolean(!c));
		json_object_object_add(o, "n_min",
				json_object_new_int64((int64_t)col->n_min));
		json_object_object_add(o, "n_max",
				json_object_new_int64((int64_t)col->n_max));
		add_boots(o, col);
		json_object_object_add(o, "env", env_json(&col->env));
		json_object_array_add(a, o);
	}
	return a;
}

static struct json_object *cell_json(const struct report_cell *cell)
{
	struct json_object *o = json_object_new_object();
	const struct trial_cell *k = &cell->key;

	json_object_object_add(o, "label", str(cell->label));
	json_object_object_add(o, "target", str(k->target));
	json_object_object_add(o, "legs", json_object_new_int64(k->legs));
	json_object_object_add(o, "backing", *k->backing ? str(k->backing) : NULL);
	json_object_object_add(o, "rw", str(k->rw));
	json_object_object_add(o, "bs", json_object_new_int64((int64_t)k->bs));
	json_object_object_add(o, "iodepth", json_object_new_int64(k->iodepth));
	json_object_object_add(o, "jobs", json_object_new_int64(k->jobs));
	return o;
}

static struct json_object *cells_json(const struct report *r)
{
	struct json_object *a = json_object_new_array();
	size_t i;

	for (i = 0; i < r->nr_cells; i++)
		json_object_array_add(a, cell_json(&r->cells[i]));
	return a;
}

static void add_test(struct json_object *o, const struct report_entry *e)
{
	bool compared = report_tested(e);

	json_object_object_add(o, "delta_pct",
			       compared || e->verdict == REPORT_VALUE ?
			       num(e->delta_pct) : NULL);
	json_object_object_add(o, "p_value", compared ? num(e->mwu.p) : NULL);
	json_object_object_add(o, "u_statistic",
			       compared ? num(e->mwu.u1) : NULL);
	json_object_object_add(o, "exact", compared ?
			       json_object_new_boolean(e->mwu.exact) : NULL);
	json_object_object_add(o, "q_value", compared ? num(e->q) : NULL);
	json_object_object_add(o, "hl_shift_pct",
			       compared ? num(e->shift_pct) : NULL);
	json_object_object_add(o, "ci_lo_pct",
			       compared ? num(e->ci_lo_pct) : NULL);
	json_object_object_add(o, "ci_hi_pct",
			       compared ? num(e->ci_hi_pct) : NULL);
	json_object_object_add(o, "ci_level",
			       compared ? num(e->hl.level) : NULL);
}

/*
 * Against the reference config (the in-kernel driver): median / its
 * median, the test against it, the CI as fractions.  NULL without one.
 */
static struct json_object *ref_json(const struct report *r, size_t k,
				    size_t i, size_t c)
{
	const struct report_entry *e, *ref;
	struct json_object *o;
	double f, lo, hi;
	bool compared;

	if (!r->ref)
		return NULL;
	e = report_ref_entry(r, k, i, c);
	ref = report_ref_entry(r, k, i, r->ref_column);
	report_fraction(e, ref->sum.median, &f, &lo, &hi);
	compared = c != r->ref_column && report_tested(e);
	o = json_object_new_object();
	json_object_object_add(o, "config",
			       str(r->columns[r->ref_column].label));
	json_object_object_add(o, "fraction", num(f));
	json_object_object_add(o, "verdict",
			       str(report_verdict_name(e->verdict)));
	json_object_object_add(o, "p_value", compared ? num(e->mwu.p) : NULL);
	json_object_object_add(o, "q_value", compared ? num(e->q) : NULL);
	json_object_object_add(o, "ci_lo", num(lo));
	json_object_object_add(o, "ci_hi", num(hi));
	json_object_object_add(o, "ci_level",
			       compared ? num(e->hl.level) : NULL);
	json_object_object_add(o, "reference_unsteady",
			       json_object_new_boolean(report_unsteady(
				       r->ref, &r->ref->metrics[k], i)));
	return o;
}

static struct json_object *entry_json(const struct report *r,
				      const struct report_entry *e, size_t c)
{
	struct json_object *o = json_object_new_object();
	struct json_object *values = json_object_new_array();
	size_t k;

	json_object_object_add(o, "config", str(r->columns[c].label));
	json_object_object_add(o, "n", json_object_new_int64(
				       (int64_t)e->sum.n));
	json_object_object_add(o, "median", num(e->sum.median));
	json_object_object_add(o, "q1", num(e->sum.q1));
	json_object_object_add(o, "q3", num(e->sum.q3));
	json_object_object_add(o, "min", num(e->sum.min));
	json_object_object_add(o, "max", num(e->sum.max));
	json_object_object_add(o, "mean", num(e->sum.mean));
	json_object_object_add(o, "spread_pct", num(e->spread_pct));
	json_object_object_add(o, "boot_spread_pct",
			       num(e->boot_spread_pct));
	add_test(o, e);
	json_object_object_add(o, "verdict",
			       str(report_verdict_name(e->verdict)));
	for (k = 0; k < e->sum.n; k++)
		json_object_array_add(values, num(e->values[k]));
	json_object_object_add(o, "values", values);
	return o;
}

static struct json_object *counts_json(const struct report_counts *k)
{
	struct json_object *o = json_object_new_object();
	enum report_verdict v;

	for (v = REPORT_BETTER; v < REPORT_NR_VERDICTS; v++)
		json_object_object_add(o, report_verdict_name(v),
				       count(k->n[v]));
	return o;
}

/* A pair as a whole: family, counts, geomean with cells and interval. */
static void add_pair(struct json_object *o, const struct report_pair *p,
		     bool fraction)
{
	double scale = fraction ? 100 : 1, shift = fraction ? 1 : 0;

	json_object_object_add(o, "family", count(p->family));
	json_object_object_add(o, "level", num(p->level));
	json_object_object_add(o, "verdicts", counts_json(&p->counts));
	json_object_object_add(o, fraction ? "geomean_fraction" : "delta_pct",
			       num(shift + p->geomean_pct / scale));
	json_object_object_add(o, "ci_lo", num(shift + p->geomean_lo_pct /
					       scale));
	json_object_object_add(o, "ci_hi", num(shift + p->geomean_hi_pct /
					       scale));
	json_object_object_add(o, "cells", count(p->geomean_cells));
	json_object_object_add(o, "unsteady_cells", count(p->unsteady_cells));
	json_object_object_add(o, "why_none", p->geomean_why ?
			       str(p->geomean_why) : NULL);
}

/*
 * Per non-baseline config: its pair with the baseline (and, with a
 * reference, with the reference) as a whole; the baseline too when there
 * is a reference, with its pair with the reference only.
 */
static struct json_object *geomean_json(const struct report *r,
					const struct report_metric *m)
{
	struct json_object *a = json_object_new_array(), *o, *ref;
	size_t c;

	for (c = 0; c < r->nr_columns; c++) {
		/* A has no pair with itself, only one with the reference */
		if (!c && (!r->ref || !r->ref_column))
			continue;
		o = json_object_new_object();
		json_object_object_add(o, "config", str(r->columns[c].label));
		if (c)
			add_pair(o, &m->pairs[c], false);
		if (r->ref) {
			size_t k = (size_t)(m - r->metrics);

			const struct report_pair *rp =
				&r->ref->metrics[k].pairs[r->ref_map[c]];

			ref = NULL;
			if (c != r->ref_column) {
				ref = json_object_new_object();
				add_pair(ref, rp, true);
			}
			json_object_object_add(o, "vs_reference", ref);
			/* the field of abtool-compare-1 before the pairs */
			json_object_object_add(o, "fraction_of_reference",
				c == r->ref_column ? NULL :
				num(1 + rp->geomean_pct / 100));
		}
		json_object_array_add(a, o);
	}
	return a;
}

static struct json_object *metric_json(const struct report *r,
				       const struct report_metric *m)
{
	struct json_object *o = json_object_new_object();
	struct json_object *rows = json_object_new_array(), *row, *entries, *en;
	size_t i, c;

	json_object_object_add(o, "name", str(m->info.name));
	json_object_object_add(o, "unit", str(m->info.unit));
	json_object_object_add(o, "label", str(m->info.label));
	json_object_object_add(o, "higher_is_better",
			json_object_new_boolean(m->info.higher_is_better));
	json_object_object_add(o, "known",
			       json_object_new_boolean(m->info.known));
	for (i = 0; i < r->nr_cells; i++) {
		row = json_object_new_object();
		entries = json_object_new_array();
		json_object_object_add(row, "cell", str(r->cells[i].label));
		json_object_object_add(row, "baseline_unsteady",
				       json_object_new_boolean(
					       report_unsteady(r, m, i)));
		for (c = 0; c < r->nr_columns; c++) {
			en = entry_json(r, report_entry(r, m, i, c), c);
			json_object_object_add(en, "vs_reference",
					ref_json(r, (size_t)(m - r->metrics),
						 i, c));
			json_object_array_add(entries, en);
		}
		json_object_object_add(row, "configs", entries);
		json_object_array_add(rows, row);
	}
	json_object_object_add(o, "rows", rows);
	json_object_object_add(o, "margin_pct", num(m->margin_pct));
	json_object_object_add(o, "unsteady_cells", count(m->unsteady_cells));
	json_object_object_add(o, "unknown_spread_cells",
			       count(m->unknown_spread_cells));
	json_object_object_add(o, "null_pct", num(m->null_pct));
	if (isnan(m->null_pct)) {
		json_object_object_add(o, "null_pair", NULL);
	} else {
		struct json_object *pair = json_object_new_array();

		json_object_array_add(pair, str(r->null_a[m->null_pair]));
		json_object_array_add(pair, str(r->null_b[m->null_pair]));
		json_object_object_add(o, "null_pair", pair);
	}
	json_object_object_add(o, "null_cells", isnan(m->null_pct) ? NULL :
			       count(m->null_cells));
	json_object_object_add(o, "geomean", geomean_json(r, m));
	return o;
}

static int json_emit(FILE *out, const struct report *r)
{
	struct json_object *root = json_object_new_object(), *metrics;
	const char *s;
	size_t i;
	int ret = 0;

	if (!root)
		return -ENOMEM;
	json_object_object_add(root, "schema", str(COMPARE_SCHEMA));
	json_object_object_add(root, "header", header_json(r));
	json_object_object_add(root, "configs", columns_json(r));
	json_object_object_add(root, "cells", cells_json(r));
	metrics = json_object_new_array();
	for (i = 0; i < r->nr_metrics; i++)
		json_object_array_add(metrics, metric_json(r, &r->metrics[i]));
	json_object_object_add(root, "metrics", metrics);
	s = json_object_to_json_string_ext(root, JSON_C_TO_STRING_PRETTY |
					   JSON_C_TO_STRING_SPACED |
					   JSON_C_TO_STRING_NOSLASHESCAPE);
	if (!s)
		ret = -ENOMEM;
	else if (fprintf(out, "%s\n", s) < 0)
		ret = -EIO;
	json_object_put(root);
	return ret;
}

const struct report_format report_json = {
	.name = "json",
	.file = "report.json",
	.emit = json_emit,
};
