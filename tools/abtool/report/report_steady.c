// SPDX-License-Identifier: GPL-2.0
/*
 * Is a denominator steady?  Issue 34, item 7: the in-kernel loop@brd
 * randwrite 64K row had trial 1 12.7% above trial 0 in both boots
 * (6493/7316, 6474/7290); its median fell between two modes and was the
 * denominator of the published "1.46-1.52x the kernel".  A column used
 * as the baseline of ratios (the main table's A, the reference of the
 * fractions) must show, cell by cell, that its trials agree within a
 * boot before its median divides anything.
 *
 * The within-boot spread of an entry: for each boot (variant, boot id)
 * with two or more trials, (max - min) / |median| of that boot's values;
 * the largest over the boots.  Trials without a boot id count as one
 * boot (the spread over all of them, which is never smaller).  NaN when
 * no boot has two trials: nothing shows the cell steady or not.
 *
 * A cell whose baseline spread exceeds the threshold (--steady, default
 * REPORT_STEADY_PCT) is unsteady: every format marks its ratios with
 * REPORT_UNSTEADY_MARK and says under the table how many cells are so;
 * the geomean keeps them and says how many it has
 * (docs/statistics.md, "A steady denominator").
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "report.h"

static bool same_boot(const struct trial *a, const struct trial *b)
{
	return a->boot == b->boot && !strcmp(a->variant, b->variant);
}

/* The spread of the boot of trials[first]; -1 when it has one value. */
static double one_boot(const struct trial *const *trials,
		       const double *values, size_t n, size_t first,
		       double *buf)
{
	struct stats_summary s;
	size_t k, m = 0;

	for (k = 0; k < n; k++)
		if (same_boot(trials[k], trials[first]))
			buf[m++] = values[k];
	if (m < 2)
		return -1;
	stats_summarize(buf, m, &s);
	if (s.max == s.min)
		return 0;
	if (s.median == 0)
		return INFINITY;
	return (s.max - s.min) / fabs(s.median) * 100;
}

double report_boot_spread(const struct trial *const *trials,
			  const double *values, size_t n)
{
	double worst = NAN, d, *buf = malloc((n ? n : 1) * sizeof(*buf));
	size_t k, j;

	if (!buf)
		return NAN;
	for (k = 0; k < n; k++) {
		/* each boot once: at its first trial */
		for (j = 0; j < k && !same_boot(trials[j], trials[k]); j++)
			;
		if (j < k)
			continue;
		d = one_boot(trials, values, n, k, buf);
		if (d >= 0 && (isnan(worst) || d > worst))
			worst = d;
	}
	free(buf);
	return worst;
}

bool report_unsteady(const struct report *r, const struct report_metric *m,
		     size_t cell)
{
	return report_entry(r, m, cell, 0)->boot_spread_pct > r->steady_pct;
}

void report_steady_metric(const struct report *r, struct report_metric *m)
{
	size_t i;

	m->unsteady_cells = m->unknown_spread_cells = 0;
	for (i = 0; i < r->nr_cells; i++) {
		const struct report_entry *b = report_entry(r, m, i, 0);

		if (!b->sum.n)
			continue;
		if (isnan(b->boot_spread_pct))
			m->unknown_spread_cells++;
		m->unsteady_cells += report_unsteady(r, m, i);
	}
}

void report_fmt_boot_spread(double pct, char *buf, size_t len)
{
	if (isnan(pct))
		snprintf(buf, len, "-");
	else if (isinf(pct))
		snprintf(buf, len, "inf (median 0)");
	else	/* 1.04% is over 1%: two decimals where one would say 1.0% */
		snprintf(buf, len, "%.*f%%", pct < 9.995 ? 2 : 1, pct);
}

/* "loop@brd randwrite 64K 12.7%, ..." : the unsteady cells of @m */
static void list_unsteady(const struct report *r,
			  const struct report_metric *m, FILE *f)
{
	char spread[32];
	size_t i, n = 0;

	for (i = 0; i < r->nr_cells; i++) {
		if (!report_unsteady(r, m, i))
			continue;
		report_fmt_boot_spread(report_entry(r, m, i, 0)->boot_spread_pct,
				       spread, sizeof(spread));
		fprintf(f, "%s%s %s", n++ ? ", " : "", r->cells[i].label,
			spread);
	}
}

char *report_unsteady_note(const struct report *main, size_t c,
			   const struct report *r,
			   const struct report_metric *m)
{
	char *buf = NULL, who[160], letter[8];
	size_t len = 0;
	FILE *f;

	if (!m->unsteady_cells && !m->unknown_spread_cells)
		return NULL;
	f = open_memstream(&buf, &len);
	if (!f)
		return NULL;
	report_column_letter(c, letter, sizeof(letter));
	snprintf(who, sizeof(who), "%s (%s)", letter, main->columns[c].label);
	if (m->unsteady_cells) {
		fprintf(f, "%s %zu of %zu cells with an unsteady denominator: "
			"%s varies by more than %.1f%% within a boot (max - "
			"min over the median of a boot's trials; --steady): ",
			REPORT_UNSTEADY_MARK, m->unsteady_cells, r->nr_cells,
			who, r->steady_pct);
		list_unsteady(r, m, f);
		fprintf(f, "; their ratios, marked %s, and every geomean over "
			"them are kept, but rest on that median",
			REPORT_UNSTEADY_MARK);
	}
	if (m->unknown_spread_cells)
		fprintf(f, "%s%zu of %zu cells where %s's within-boot spread "
			"is not known (no boot has two trials)",
			m->unsteady_cells ? "; " : "", m->unknown_spread_cells,
			r->nr_cells, who);
	if (fclose(f)) {
		free(buf);
		return NULL;
	}
	return buf;
}

void report_mark_unsteady(char *buf, size_t len, bool unsteady)
{
	size_t used = strlen(buf);

	if (!unsteady || !*buf || !strcmp(buf, "-"))
		return;
	snprintf(buf + used, len - used, "%s", REPORT_UNSTEADY_MARK);
}
