// SPDX-License-Identifier: GPL-2.0
/* mirror: N backings with the same content; writes go to all, reads to one. */
#include "target.h"

static int mirror_map(const struct ublk_tgt *t, bool write, uint64_t off,
		      uint32_t len, struct ublk_leg *legs)
{
	int i;

	if (!write) {
		legs[0] = (struct ublk_leg){
			.backing = t->read_leg, .off = off, .len = len };
		return 1;
	}
	for (i = 0; i < t->nr_fds; i++)
		legs[i] = (struct ublk_leg){ .backing = i, .off = off,
					     .len = len };
	return t->nr_fds;
}

const struct ublk_target_ops target_mirror = {
	.name = "mirror",
	.help = "N backings (2..8); writes go to every leg, reads to one",
	.min_backing = 2,
	.max_backing = UBLK_MAX_BACKINGS,
	.media = UBLK_MEDIA_FILE | UBLK_MEDIA_BDEV,
	.open = target_open_backings,
	.map = mirror_map,
};
