// SPDX-License-Identifier: GPL-2.0
/*
 * `abtool replicate`'s table: each verdict of one run beside the
 * other's (report_replicate.h says what replicates).  Plain text in 72
 * columns, one block per metric and pair of configs: against the
 * baseline, then as fractions of the reference, as `abtool compare`
 * shows them.
 */
#include <errno.h>
#include <math.h>
#include <string.h>

#include "report_replicate.h"

static bool is_claim(enum report_verdict v)
{
	return v == REPORT_BETTER || v == REPORT_WORSE ||
	       v == REPORT_EQUIVALENT;
}

enum replication replication_of(enum report_verdict a, enum report_verdict b)
{
	bool ca = is_claim(a), cb = is_claim(b);

	if (ca && cb) {
		if (a == b)
			return REPL_SAME;
		if (a != REPORT_EQUIVALENT && b != REPORT_EQUIVALENT)
			return REPL_REVERSED;
		return REPL_NOT;
	}
	if (ca || cb)
		return REPL_NOT;
	if (a == REPORT_INCONCLUSIVE || a == REPORT_N_TOO_SMALL ||
	    b == REPORT_INCONCLUSIVE || b == REPORT_N_TOO_SMALL)
		return REPL_NO_CLAIM;
	return REPL_UNTESTED;
}

const char *replication_name(enum replication k)
{
	static const char *const names[] = {
		[REPL_SAME] = "replicates",
		[REPL_NOT] = "NOT",
		[REPL_REVERSED] = "REVERSED",
		[REPL_NO_CLAIM] = "no claim",
		[REPL_UNTESTED] = "untested",
	};

	return names[k];
}

/*
 * "+ +39.0%": the verdict's mark, then the change (@fraction: the ratio,
 * "- 0.58"); "-" without data
 */
static void fmt_verdict(const struct report_entry *e, bool fraction,
			char *buf, size_t len)
{
	static const char *const marks[] = {
		[REPORT_BETTER] = "+", [REPORT_WORSE] = "-",
		[REPORT_EQUIVALENT] = "=", [REPORT_INCONCLUSIVE] = "~",
		[REPORT_N_TOO_SMALL] = "~*", [REPORT_VALUE] = "v",
	};
	char pct[32];

	if (!e || e->verdict == REPORT_NO_DATA ||
	    e->verdict == REPORT_BASELINE) {
		snprintf(buf, len, "-");
		return;
	}
	if (fraction)
		snprintf(pct, sizeof(pct), "%.2f", 1 + e->delta_pct / 100);
	else
		report_fmt_pct(e->delta_pct, pct, sizeof(pct));
	snprintf(buf, len, "%s %s", marks[e->verdict], pct);
}

static ssize_t find_cell(const struct report *r, const struct trial_cell *k)
{
	size_t i;

	for (i = 0; i < r->nr_cells; i++)
		if (report_cell_equal(&r->cells[i].key, k))
			return (ssize_t)i;
	return -1;
}

static ssize_t find_column(const struct report *r, const char *label)
{
	size_t c;

	for (c = 0; c < r->nr_columns; c++)
		if (!strcmp(r->columns[c].label, label))
			return (ssize_t)c;
	return -1;
}

static ssize_t find_metric(const struct report *r, const char *name)
{
	size_t k;

	for (k = 0; k < r->nr_metrics; k++)
		if (!strcmp(r->metrics[k].info.name, name))
			return (ssize_t)k;
	return -1;
}

/* One pair of configs in one metric, in both runs (@b's parts: -1). */
struct pair_view {
	const struct report *a, *b;
	const struct report_metric *ma, *mb;	/* mb: NULL */
	size_t c;				/* the column in @a */
	ssize_t cb;				/* in @b, -1: none */
	bool fraction;				/* against the reference */
};

/* The entry of cell @k of the pair in report @r (@r's column @c). */
static const struct report_entry *
pair_entry(const struct report *r, const struct report_metric *m,
	   ssize_t c, const struct trial_cell *k)
{
	ssize_t i;

	if (!m || c < 0)
		return NULL;
	i = find_cell(r, k);
	return i < 0 ? NULL : report_entry(r, m, (size_t)i, (size_t)c);
}

static enum report_verdict verdict_of(const struct report_entry *e)
{
	return e ? e->verdict : REPORT_NO_DATA;
}

static int cell_width(const struct pair_view *v)
{
	size_t i, w = strlen("geomean");

	for (i = 0; i < v->a->nr_cells; i++)
		if (strlen(v->a->cells[i].label) > w)
			w = strlen(v->a->cells[i].label);
	for (i = 0; v->b && i < v->b->nr_cells; i++)
		if (strlen(v->b->cells[i].label) > w)
			w = strlen(v->b->cells[i].label);
	return (int)w;
}

/* Is the denominator of @r's cell @k unsteady (report_steady.c)? */
static bool unsteady_in(const struct report *r, const struct report_metric *m,
			const struct trial_cell *k)
{
	ssize_t i = r && m ? find_cell(r, k) : -1;

	return i >= 0 && report_unsteady(r, m, (size_t)i);
}

static void put_row(FILE *out, const struct pair_view *v, int w,
		    const struct report_cell *cell,
		    const struct report_entry *ea,
		    const struct report_entry *eb, struct replicate_counts *k)
{
	enum replication rep = replication_of(verdict_of(ea), verdict_of(eb));
	bool ua = unsteady_in(v->a, v->ma, &cell->key);
	bool ub = unsteady_in(v->b, v->mb, &cell->key);
	char va[48], vb[48];

	fmt_verdict(ea, v->fraction, va, sizeof(va));
	fmt_verdict(eb, v->fraction, vb, sizeof(vb));
	report_mark_unsteady(va, sizeof(va), ua);
	report_mark_unsteady(vb, sizeof(vb), ub);
	k->n[rep]++;
	k->unsteady += ua || ub;
	fprintf(out, "%-*s  %-10s  %-10s  %s\n", w, cell->label, va, vb,
		replication_name(rep));
}

/* A pair's geomean in one run: "+31.2% (3)", "0.58 (3)", "-". */
static void fmt_geomean(const struct report_metric *m, ssize_t c,
			bool fraction, char *buf, size_t len)
{
	const struct report_pair *p;
	char g[32];

	if (!m || c < 1) {
		snprintf(buf, len, "-");
		return;
	}
	p = &m->pairs[c];
	if (isnan(p->geomean_pct))
		snprintf(g, sizeof(g), "-");
	else if (fraction)
		snprintf(g, sizeof(g), "%.2f", 1 + p->geomean_pct / 100);
	else
		report_fmt_pct(p->geomean_pct, g, sizeof(g));
	snprintf(buf, len, "%s (%zu)", g, p->geomean_cells);
}

static void put_title(FILE *out, const struct pair_view *v)
{
	const char *base = v->a->columns[0].label;
	const char *cfg = v->a->columns[v->c].label;
	char mb[32] = "-";

	if (v->mb)
		snprintf(mb, sizeof(mb), "+-%.1f%%", v->mb->margin_pct);
	fputc('\n', out);
	if (v->fraction)
		report_put_wrapped(out, "%s: %s as a fraction of %s; margin "
				   "+-%.1f%% in run A, %s in run B",
				   v->ma->info.name, cfg, base,
				   v->ma->margin_pct, mb);
	else
		report_put_wrapped(out, "%s: %s vs %s; margin +-%.1f%% in run "
				   "A, %s in run B", v->ma->info.name, cfg,
				   base, v->ma->margin_pct, mb);
}

static void put_pair_counts(FILE *out, const struct replicate_counts *k)
{
	report_put_wrapped(out, "  claims: %zu replicate, %zu NOT, %zu "
			   "REVERSED; %zu cells without a claim, %zu "
			   "untested", k->n[REPL_SAME], k->n[REPL_NOT],
			   k->n[REPL_REVERSED], k->n[REPL_NO_CLAIM],
			   k->n[REPL_UNTESTED]);
}

static void emit_pair(FILE *out, const struct pair_view *v,
		      struct replicate_counts *total)
{
	struct replicate_counts k = { { 0 }, 0 };
	int w = cell_width(v);
	char ga[48], gb[48];
	size_t i, j;

	put_title(out, v);
	fprintf(out, "%-*s  %-10s  %s\n", w, "cell", "run A", "run B");
	for (i = 0; i < v->a->nr_cells; i++) {
		const struct trial_cell *key = &v->a->cells[i].key;

		put_row(out, v, w, &v->a->cells[i],
			report_entry(v->a, v->ma, i, v->c),
			pair_entry(v->b, v->mb, v->cb, key), &k);
	}
	/* the cells only run B has: a claim there does not replicate */
	for (i = 0; v->b && i < v->b->nr_cells; i++) {
		if (find_cell(v->a, &v->b->cells[i].key) >= 0)
			continue;
		put_row(out, v, w, &v->b->cells[i], NULL,
			pair_entry(v->b, v->mb, v->cb, &v->b->cells[i].key),
			&k);
	}
	fmt_geomean(v->ma, (ssize_t)v->c, v->fraction, ga, sizeof(ga));
	fmt_geomean(v->mb, v->cb, v->fraction, gb, sizeof(gb));
	fprintf(out, "%-*s  %-10s  %s\n", w, "geomean", ga, gb);
	put_pair_counts(out, &k);
	for (j = 0; j < REPL_NR; j++)
		total->n[j] += k.n[j];
	total->unsteady += k.unsteady;
}

/* Every pair of metric @ka of @a (a report, or a reference report). */
static void emit_pairs(FILE *out, const struct report *a,
		       const struct report *b, size_t ka, bool fraction,
		       struct replicate_counts *total)
{
	struct pair_view v = { .a = a, .b = b, .fraction = fraction };
	ssize_t kb = b ? find_metric(b, a->metrics[ka].info.name) : -1;

	v.ma = &a->metrics[ka];
	v.mb = kb < 0 ? NULL : &b->metrics[kb];
	for (v.c = 1; v.c < a->nr_columns; v.c++) {
		v.cb = b ? find_column(b, a->columns[v.c].label) : -1;
		emit_pair(out, &v, total);
	}
}

/* The configs of @b that @a has not: their claims are not compared. */
static void put_only_in(FILE *out, const struct report *a,
			const struct report *b, const char *which)
{
	size_t c;

	for (c = 0; c < b->nr_columns; c++)
		if (find_column(a, b->columns[c].label) < 0)
			report_put_wrapped(out, "only in run %s, not compared: "
					   "%s", which, b->columns[c].label);
}

static void put_run(FILE *out, const char *which,
		    const struct replicate_run *run)
{
	const struct report_env *env = &run->r->env;

	report_put_wrapped(out, "run %s: %s (run %s, series commit %s, %zu "
			   "trials; seeds %s)", which, run->name,
			   env->runs.nr ? env->runs.v[0] : "not recorded",
			   env->commits.nr ? env->commits.v[0] :
			   "not recorded", run->r->nr_trials, run->seeds);
}

static void put_header(FILE *out, const struct replicate_run *a,
		       const struct replicate_run *b, const char *command)
{
	report_put_wrapped(out, "abtool replicate: the verdicts of two runs, "
			   "cell by cell");
	if (command) {
		fputs("regenerate with:\n", out);
		report_put_command(out, command);
	}
	put_run(out, "A", a);
	put_run(out, "B", b);
	put_only_in(out, b->r, a->r, "A");
	put_only_in(out, a->r, b->r, "B");
	report_put_wrapped(out, "rule: each run judged on its own as abtool "
			   "compare does (the Hodges-Lehmann interval at 1 - "
			   "%g/m, m the cells of the pair in that run, "
			   "against +-margin); a claim (+ better, - worse, = "
			   "equivalent) replicates when the other run makes "
			   "the same one; better against worse is REVERSED; "
			   "~ inconclusive, ~* n too small, v a value, - no "
			   "data are no claim", a->r->alpha);
}

static void put_totals(FILE *out, const struct replicate_counts *t,
		       double a_steady_pct)
{
	fputc('\n', out);
	report_put_wrapped(out, "in all: %zu claims replicate, %zu do NOT, "
			   "%zu REVERSED; %zu cells without a claim in either "
			   "run, %zu untested", t->n[REPL_SAME],
			   t->n[REPL_NOT], t->n[REPL_REVERSED],
			   t->n[REPL_NO_CLAIM], t->n[REPL_UNTESTED]);
	if (t->unsteady)
		report_put_wrapped(out, "%s: in %zu row%s a run's denominator "
				   "(the baseline's or the reference's median) "
				   "varies by more than %.1f%% within a boot "
				   "(--steady): abtool compare on that run names "
				   "the cells", REPORT_UNSTEADY_MARK, t->unsteady,
				   t->unsteady == 1 ? "" : "s", a_steady_pct);
	if (t->n[REPL_REVERSED])
		report_put_wrapped(out, "REVERSED: a verdict of one run is the "
				   "opposite in the other (exit status 5)");
}

int replicate_emit(FILE *out, const struct replicate_run *a,
		   const struct replicate_run *b, const char *command,
		   struct replicate_counts *total)
{
	const struct report *ra = a->r, *rb = b->r;
	size_t k;

	memset(total, 0, sizeof(*total));
	put_header(out, a, b, command);
	for (k = 0; k < ra->nr_metrics; k++) {
		emit_pairs(out, ra, rb, k, false, total);
		if (ra->ref)
			emit_pairs(out, ra->ref, rb->ref, k, true, total);
	}
	put_totals(out, total, ra->steady_pct);
	return ferror(out) ? -EIO : 0;
}
