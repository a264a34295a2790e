// SPDX-License-Identifier: GPL-2.0
/*
 * The cells a config did not measure.  abtool run writes a "skipped"
 * record where a config cannot express a cell (kublk has no mirror
 * target), so that every config of a run still has a record per cell
 * and a missing trial still means a failure.  The report pools none of
 * them: it says per config and reason how many cells were left out, and
 * their entries stay empty.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "report.h"

#define LABEL_MAX	(2 * TRIAL_STR_MAX + 2)

static bool same_note(const struct trial *a, const struct trial *b,
		      enum report_by by)
{
	char la[LABEL_MAX], lb[LABEL_MAX];

	if (!*a->skipped || strcmp(a->skipped, b->skipped))
		return false;
	report_config_label(a, by, la, sizeof(la));
	report_config_label(b, by, lb, sizeof(lb));
	return !strcmp(la, lb);
}

/* Distinct cells of the records from @first on that share its note. */
static size_t count_cells(const struct trial_set *set,
			  const struct trial *first, enum report_by by)
{
	const struct trial *t, *u;
	size_t n = 0;

	for (t = first; t < set->trials + set->nr; t++) {
		if (!same_note(t, first, by))
			continue;
		for (u = first; u < t; u++)
			if (same_note(u, first, by) &&
			    report_cell_equal(&u->cell, &t->cell))
				break;
		n += u == t;
	}
	return n;
}

int report_note_skipped(const struct trial_set *set,
			const struct report_opts *opts, struct strlist *notes)
{
	char label[LABEL_MAX], line[LABEL_MAX + TRIAL_STR_MAX + 32];
	const struct trial *t, *u;
	size_t n;

	trial_set_for_each(set, t) {
		if (!*t->skipped)
			continue;
		report_config_label(t, opts->by, label, sizeof(label));
		if (!report_config_selected(opts, label))
			continue;
		for (u = set->trials; u < t; u++)
			if (same_note(u, t, opts->by))
				break;
		if (u < t)
			continue;	/* noted at its first record */
		n = count_cells(set, t, opts->by);
		snprintf(line, sizeof(line), "%s: %zu cell%s: %s", label, n,
			 n == 1 ? "" : "s", t->skipped);
		if (report_strlist_add(notes, line) < 0)
			return -ENOMEM;
	}
	return 0;
}
