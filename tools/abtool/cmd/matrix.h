/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A run matrix: lines of "key=v1,v2,... key=..." where each line stands
 * for the cartesian product of its values.  Keys: target (null, loop,
 * mirror-N, stripe-N: a name of the targets' table, ublk/targets/, with
 * -N for the backings where its entry lets their number vary), backing
 * (tmpfs, brd: the media under the backings, those the target's entry
 * takes), rw, bs, iodepth, jobs.  '#' starts a comment.  A null cell
 * has no backing, so "target=null backing=tmpfs,brd" is one cell: the
 * product keeps each distinct cell once.
 *
 *   target=null,loop,mirror-2 rw=randread,randwrite bs=4k,64k iodepth=16
 *   target=loop backing=tmpfs,brd rw=randwrite bs=64k
 */
#ifndef ABTOOL_MATRIX_H
#define ABTOOL_MATRIX_H

#include <stddef.h>
#include <stdint.h>

#include "rw_mode.h"

#define MATRIX_MAX_CELLS	512

struct matrix_cell {
	char target[16];	/* null, loop, mirror, stripe */
	unsigned int legs;	/* backings: 0 for null, 1 for loop, N */
	char backing[8];	/* "tmpfs" (default) or "brd"; "" for null */
	enum wl_rw rw;
	uint32_t bs;
	unsigned int iodepth;
	unsigned int jobs;
};

struct matrix {
	struct matrix_cell cells[MATRIX_MAX_CELLS];
	size_t nr;
};

/* The matrices make ab runs when given none. */
extern const char matrix_default[];
extern const char matrix_quick[];

/* Parse text into m (appending); 0 or -EINVAL with "line N: what" in err. */
int matrix_parse(struct matrix *m, const char *text, char *err, size_t errlen);
int matrix_parse_file(struct matrix *m, const char *path, char *err,
		      size_t errlen);
/* "mirror-2 randwrite 64K qd16", "loop@brd randread 4K qd16" */
void matrix_cell_name(const struct matrix_cell *c, char *buf, size_t len);

#endif
