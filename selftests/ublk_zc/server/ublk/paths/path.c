// SPDX-License-Identifier: GPL-2.0
/* The table of data paths: one entry per path_*.c file. */
#include <string.h>

#include "ublk.h"

extern const struct ublk_path_ops path_copy, path_user_copy, path_splice,
	path_fused, path_regbuf, path_autobuf, path_autolend, path_bpf,
	path_batch;

const struct ublk_path_ops *const ublk_paths[] = {
	&path_copy,
	&path_user_copy,
	&path_splice,
	&path_fused,
	&path_regbuf,
	&path_autobuf,
	&path_autolend,
	&path_bpf,
	&path_batch,
};
const unsigned int ublk_nr_paths = sizeof(ublk_paths) / sizeof(ublk_paths[0]);
/* abtool run holds every path plus its in-kernel row */
_Static_assert(sizeof(ublk_paths) / sizeof(ublk_paths[0]) < UBLK_MAX_PATHS,
	       "a run could not hold every data path: raise UBLK_MAX_PATHS");

const struct ublk_path_ops *ublk_path_find(const char *name)
{
	unsigned int i;

	for (i = 0; i < ublk_nr_paths; i++)
		if (!strcmp(ublk_paths[i]->name, name))
			return ublk_paths[i];
	return NULL;
}

void ublk_path_list(FILE *f)
{
	unsigned int i;

	for (i = 0; i < ublk_nr_paths; i++)
		fprintf(f, "  %-10s %s\n", ublk_paths[i]->name,
			ublk_paths[i]->help);
}
