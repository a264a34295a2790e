// SPDX-License-Identifier: GPL-2.0
/*
 * --configs: which configs a report shows, and in what order.  A README
 * table shows a few configs of a run that measured more; selecting them
 * here, not by editing trial files, keeps the table regenerable by the
 * command printed in its header.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "errmsg.h"
#include "report.h"

#define LABEL_MAX	(2 * TRIAL_STR_MAX + 2)

bool report_config_selected(const struct report_opts *opts, const char *label)
{
	size_t i;

	if (!opts->nr_configs)
		return true;
	for (i = 0; i < opts->nr_configs; i++)
		if (!strcmp(opts->configs[i], label))
			return true;
	return false;
}

static bool has_config(const struct trial_set *set, enum report_by by,
		       const char *name)
{
	char label[LABEL_MAX];
	const struct trial *t;

	trial_set_for_each(set, t) {
		report_config_label(t, by, label, sizeof(label));
		if (!strcmp(label, name))
			return true;
	}
	return false;
}

/* "a, b, c": every config of @set, first seen first. */
static void known_configs(const struct trial_set *set, enum report_by by,
			  char *buf, size_t len)
{
	char label[LABEL_MAX];
	const struct trial *t, *u;
	size_t used = 0;

	buf[0] = '\0';
	trial_set_for_each(set, t) {
		report_config_label(t, by, label, sizeof(label));
		for (u = set->trials; u < t; u++) {
			char seen[LABEL_MAX];

			report_config_label(u, by, seen, sizeof(seen));
			if (!strcmp(seen, label))
				break;
		}
		if (u < t || used >= len)
			continue;
		used += (size_t)snprintf(buf + used, len - used, "%s%s",
					 used ? ", " : "", label);
	}
}

static int check_list(const struct trial_set *set,
		      const struct report_opts *opts, char *err, size_t errlen)
{
	char known[1024];
	size_t i, j;

	for (i = 0; i < opts->nr_configs; i++) {
		for (j = 0; j < i; j++)
			if (!strcmp(opts->configs[i], opts->configs[j]))
				return set_err(err, errlen, -EINVAL,
					    "config '%s' is listed twice",
					    opts->configs[i]);
		if (has_config(set, opts->by, opts->configs[i]))
			continue;
		known_configs(set, opts->by, known, sizeof(known));
		return set_err(err, errlen, -EINVAL,
			    "unknown config '%s' (configs: %s)",
			    opts->configs[i], *known ? known : "none");
	}
	return 0;
}

int report_select_configs(const struct trial_set *set,
			  const struct report_opts *opts,
			  struct trial_set *view, char *err, size_t errlen)
{
	char label[LABEL_MAX];
	const struct trial *t;
	int ret;

	trial_set_init(view);
	ret = check_list(set, opts, err, errlen);
	if (ret)
		return ret;
	view->trials = malloc((set->nr ? set->nr : 1) * sizeof(*view->trials));
	if (!view->trials)
		return set_err(err, errlen, -ENOMEM, "out of memory");
	view->cap = set->nr;
	trial_set_for_each(set, t) {
		/* a cell the config could not measure is a note, not data
		 * (report_note_skipped()) */
		if (*t->skipped)
			continue;
		report_config_label(t, opts->by, label, sizeof(label));
		if (report_config_selected(opts, label))
			view->trials[view->nr++] = *t;	/* shares metrics */
	}
	/* the inputs are the inputs, selected from or not */
	view->files = set->files;
	view->nr_files = set->nr_files;
	return 0;
}

void report_release_view(struct trial_set *view)
{
	free(view->trials);
	trial_set_init(view);
}
