// SPDX-License-Identifier: GPL-2.0
/*
 * The measured null: how far apart two configs that run the same
 * user-space code on two kernels land (base/user_copy and
 * splice-rsrc/user_copy: 0.6 to 2.0% at 4K in the Dec 6 audit).  A
 * difference smaller than that between two designs is not evidence of
 * either, whatever a test says, so the practical margin is at least
 * this (report_opts.null_a/null_b, --null).
 *
 * It is measured over every input trial, not the configs a table
 * shows: the margin, like the family, must not change with --configs.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "report.h"

#define LABEL_MAX	(2 * TRIAL_STR_MAX + 2)

static bool is_config(const struct trial *t, enum report_by by,
		      const char *label)
{
	char buf[LABEL_MAX];

	if (*t->skipped)
		return false;
	report_config_label(t, by, buf, sizeof(buf));
	return !strcmp(buf, label);
}

/* The median of @metric over the trials of config @label in @cell. */
static double cell_median(const struct trial_set *set, enum report_by by,
			  const char *label, const struct trial_cell *cell,
			  const char *metric, double *buf)
{
	const struct trial *t;
	size_t n = 0;
	double v;

	trial_set_for_each(set, t)
		if (is_config(t, by, label) &&
		    report_cell_equal(&t->cell, cell) &&
		    trial_get_metric(t, metric, &v))
			buf[n++] = v;
	return stats_median(buf, n);
}

double report_null_pct(const struct trial_set *set, enum report_by by,
		       const char *a, const char *b, const char *metric,
		       size_t *cells)
{
	double *buf = malloc((set->nr ? set->nr : 1) * sizeof(*buf));
	double worst = NAN, ma, mb, d;
	const struct trial *t, *u;

	*cells = 0;
	if (!buf)
		return NAN;
	trial_set_for_each(set, t) {
		if (!is_config(t, by, a))
			continue;
		/* each cell once: at its first trial of @a */
		for (u = set->trials; u < t; u++)
			if (is_config(u, by, a) &&
			    report_cell_equal(&u->cell, &t->cell))
				break;
		if (u < t)
			continue;
		ma = cell_median(set, by, a, &t->cell, metric, buf);
		mb = cell_median(set, by, b, &t->cell, metric, buf);
		if (isnan(ma) || isnan(mb) || ma == 0)
			continue;
		d = fabs(mb - ma) / fabs(ma) * 100;
		++*cells;
		if (isnan(worst) || d > worst)
			worst = d;
	}
	free(buf);
	return worst;
}
