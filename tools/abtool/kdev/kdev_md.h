/* SPDX-License-Identifier: GPL-2.0 */
/* md arrays without superblocks, apart so that tests can check them. */
#ifndef ABTOOL_KDEV_MD_H
#define ABTOOL_KDEV_MD_H

#include <linux/raid/md_u.h>
#include <stddef.h>
#include <stdint.h>

/*
 * SET_ARRAY_INFO for a legacy array (no superblock, no bitmap) of
 * @level (0 or 1) over @nr legs of @leg_bytes each, as
 * `mdadm --build --assume-clean` fills it: not persistent, clean (no
 * resync), every leg active; raid0 with @chunk bytes (0: 64K).  0, or
 * -EINVAL and a message.
 */
int kdev_md_array_info(int level, unsigned int nr, uint64_t leg_bytes,
		       uint32_t chunk, int md_minor, mdu_array_info_t *a,
		       char *err, size_t errlen);

#endif
