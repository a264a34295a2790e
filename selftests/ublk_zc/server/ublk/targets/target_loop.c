// SPDX-License-Identifier: GPL-2.0
/* loop: one backing file or block device, offsets map 1:1. */
#include "target.h"

static int loop_map(const struct ublk_tgt *t, bool write, uint64_t off,
		    uint32_t len, struct ublk_leg *legs)
{
	(void)t, (void)write;
	legs[0] = (struct ublk_leg){ .backing = 0, .off = off, .len = len };
	return 1;
}

const struct ublk_target_ops target_loop = {
	.name = "loop",
	.help = "one backing file or block device",
	.min_backing = 1,
	.max_backing = 1,
	.media = UBLK_MEDIA_FILE | UBLK_MEDIA_BDEV,
	.open = target_open_backings,
	.map = loop_map,
};
