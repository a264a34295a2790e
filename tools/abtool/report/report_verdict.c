// SPDX-License-Identifier: GPL-2.0
/*
 * The verdict of each entry against the baseline: the rule of issue 34
 * (items 2 and 3), in one place.
 *
 * The family.  Each pair (baseline, config) and metric is one family:
 * the m cells where both have trials and the values vary.  The matrix
 * fixes it before the run; the other columns of a table do not touch
 * it, so a cell reads the same in a table of two configs as in one of
 * ten.  Until Dec 2026 Benjamini-Hochberg ran over every comparison of
 * the table, and at 4 trials a side (every separation at p = 2/70) a
 * column added or removed flipped 9 of 24 cells.
 *
 * The interval.  Each entry's Hodges-Lehmann interval of the shift is at
 * level 1 - alpha/m (Bonferroni): with probability 1 - alpha every
 * interval of the family covers its true shift, so every verdict of the
 * family holds at once, and each stands on its own data and m alone.
 * Where no exact interval at these n reaches that level (2 / C(m+n, n)
 * > alpha/m: 4 trials a side never do for m > 1) the entry is "n too
 * small": there is no verdict to give.
 *
 * The margin.  A change smaller than what moves between two runs, or
 * between two kernels running the same user-space code, is no finding
 * however sure the test: better or worse needs the whole interval
 * beyond +-margin, equivalent the whole interval within it, and
 * anything else is inconclusive.
 *
 * Values.  A cell whose every trial has the same value on both sides (a
 * counter: SQEs per I/O) has no sampling error to test: it is reported
 * as the values' change and counted apart.
 */
#include <errno.h>
#include <math.h>

#include "report.h"

bool report_tested(const struct report_entry *e)
{
	switch (e->verdict) {
	case REPORT_BETTER:
	case REPORT_WORSE:
	case REPORT_EQUIVALENT:
	case REPORT_INCONCLUSIVE:
	case REPORT_N_TOO_SMALL:
		return true;
	default:
		return false;
	}
}

static void clear(struct report_entry *e)
{
	e->delta_pct = e->q = NAN;
	e->shift_pct = e->ci_lo_pct = e->ci_hi_pct = NAN;
	e->hl.level = NAN;
}

/* Before the family is known: no data, a value, or to be tested. */
static bool classify(const struct report_entry *b, struct report_entry *e)
{
	double bm = b->sum.median, em = e->sum.median;

	clear(e);
	if (!b->sum.n || !e->sum.n) {
		e->verdict = REPORT_NO_DATA;
		return false;
	}
	if (bm != 0)
		e->delta_pct = (em - bm) / fabs(bm) * 100;
	else if (em == 0)
		e->delta_pct = 0;
	if (b->sum.min == b->sum.max && e->sum.min == e->sum.max) {
		e->verdict = REPORT_VALUE;
		return false;
	}
	e->verdict = REPORT_INCONCLUSIVE;	/* provisional */
	return true;
}

/* Where the interval lies against +-margin; higher is better or not. */
static enum report_verdict by_margin(const struct report_entry *e,
				     double margin, bool higher_is_better)
{
	if (e->ci_lo_pct > margin)
		return higher_is_better ? REPORT_BETTER : REPORT_WORSE;
	if (e->ci_hi_pct < -margin)
		return higher_is_better ? REPORT_WORSE : REPORT_BETTER;
	if (e->ci_lo_pct >= -margin && e->ci_hi_pct <= margin)
		return REPORT_EQUIVALENT;
	return REPORT_INCONCLUSIVE;
}

/* Test one entry of a family of @family at level 1 - alpha/family. */
static int judge(const struct report *r, const struct report_metric *m,
		 const struct report_entry *b, struct report_entry *e,
		 size_t family)
{
	double a = r->alpha / (double)family, bm = fabs(b->sum.median);
	size_t nx = b->sum.n, ny = e->sum.n;
	int ret;

	ret = stats_mann_whitney(b->values, nx, e->values, ny, STATS_MWU_AUTO,
				 &e->mwu);
	if (!ret)
		ret = stats_hodges_lehmann(b->values, nx, e->values, ny, a,
					   &e->hl);
	if (ret) {
		e->hl.level = NAN;
		return ret;
	}
	e->q = fmin(1, e->mwu.p * (double)family);
	if (bm != 0) {
		e->shift_pct = e->hl.shift / bm * 100;
		e->ci_lo_pct = e->hl.lo / bm * 100;
		e->ci_hi_pct = e->hl.hi / bm * 100;
	}
	/* the level reached is exact up to rounding; a tie is "reached" */
	if (nx < REPORT_MIN_N || ny < REPORT_MIN_N ||
	    e->hl.level < 1 - a - 1e-12)
		e->verdict = REPORT_N_TOO_SMALL;
	else if (bm == 0)
		e->verdict = REPORT_INCONCLUSIVE;	/* no % scale */
	else
		e->verdict = by_margin(e, m->margin_pct,
				       m->info.higher_is_better);
	return 0;
}

static void widen_level(struct report_metric *m, double l)
{
	if (isnan(l))
		return;
	if (isnan(m->ci_level_min) || l < m->ci_level_min)
		m->ci_level_min = l;
	if (isnan(m->ci_level_max) || l > m->ci_level_max)
		m->ci_level_max = l;
}

int report_judge_metric(const struct report *r, struct report_metric *m)
{
	size_t i, c, nc = r->nr_columns;
	int ret;

	m->ci_level_min = m->ci_level_max = NAN;
	for (c = 1; c < nc; c++) {
		struct report_pair *p = &m->pairs[c];

		p->family = 0;
		for (i = 0; i < r->nr_cells; i++)
			p->family += classify(&m->entries[i * nc],
					      &m->entries[i * nc + c]);
		p->level = p->family ? 1 - r->alpha / (double)p->family : NAN;
		for (i = 0; i < r->nr_cells; i++) {
			struct report_entry *e = &m->entries[i * nc + c];

			if (e->verdict == REPORT_INCONCLUSIVE) {
				ret = judge(r, m, &m->entries[i * nc], e,
					    p->family);
				if (ret == -ENOMEM)
					return ret;
				if (ret)
					e->verdict = REPORT_NO_DATA;
			}
			if (e->verdict == REPORT_N_TOO_SMALL)
				m->any_n_too_small = true;
			if (report_tested(e))
				widen_level(m, e->hl.level);
			p->counts.n[e->verdict]++;
		}
	}
	return 0;
}
