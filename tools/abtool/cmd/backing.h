/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The media under the cells of targets with backings (loop, mirror,
 * stripe; matrix key "backing"):
 * files on a tmpfs, or ram disks (brd).  One set per medium serves every
 * cell of a run, the ublk servers and the in-kernel rows alike, so both
 * measure the same media.
 */
#ifndef ABTOOL_BACKING_H
#define ABTOOL_BACKING_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define BACKING_MAX	8

struct backing_set {
	const struct backing_kind *kind;
	char path[BACKING_MAX][256];
	unsigned int nr;
};

/* "tmpfs" or "brd"; NULL for anything else. */
const struct backing_kind *backing_find(const char *name);
const char *backing_name(const struct backing_kind *k);
/* What its backings are to a target: UBLK_MEDIA_FILE or _BDEV (ublk.h) */
unsigned int backing_media(const struct backing_kind *k);

/*
 * @nr backings of @size bytes on medium @kind, every byte written (so
 * reads touch real pages): tmpfs files WORKDIR/abtool-backing-I, which
 * must be on a tmpfs; /dev/ramI, which must hold @size.  0 or -errno
 * with a message that says what to change.
 */
int backing_prepare(struct backing_set *s, const struct backing_kind *kind,
		    unsigned int nr, uint64_t size, const char *workdir,
		    char *err, size_t errlen);
/* Remove what prepare made (tmpfs files; ram disks stay). */
void backing_release(struct backing_set *s);

#endif
