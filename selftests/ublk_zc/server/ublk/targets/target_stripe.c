// SPDX-License-Identifier: GPL-2.0
/*
 * stripe: RAID-0 over N backings in chunks; a request that crosses chunk
 * boundaries becomes one leg per chunk piece, each at its offset inside
 * the request's data.
 */
#include <errno.h>
#include <stdio.h>

#include "target.h"

#define STRIPE_DEFAULT_CHUNK	(64u << 10)

static int stripe_open(struct ublk_tgt *t, char *err, size_t errlen)
{
	if (!t->cfg.chunk)
		t->cfg.chunk = STRIPE_DEFAULT_CHUNK;
	if (t->cfg.chunk % 4096 || t->cfg.chunk & (t->cfg.chunk - 1)) {
		snprintf(err, errlen, "stripe chunk must be a power of two >= 4K");
		return -EINVAL;
	}
	return target_open_backings(t, err, errlen);
}

static int stripe_map(const struct ublk_tgt *t, bool write, uint64_t off,
		      uint32_t len, struct ublk_leg *legs)
{
	uint64_t chunk = t->cfg.chunk;
	uint32_t done = 0;
	int n = 0;

	(void)write;
	while (done < len) {
		uint64_t pos = off + done;
		uint64_t nr = pos / chunk;
		uint32_t in_chunk = pos % chunk;
		uint32_t piece = chunk - in_chunk;

		if (piece > len - done)
			piece = len - done;
		if (n == UBLK_MAX_LEGS)
			return -E2BIG;
		legs[n++] = (struct ublk_leg){
			.backing = nr % t->nr_fds,
			.off = nr / t->nr_fds * chunk + in_chunk,
			.len = piece,
			.buf_off = done,
		};
		done += piece;
	}
	return n;
}

const struct ublk_target_ops target_stripe = {
	.name = "stripe",
	.help = "RAID-0 over N backings (2..8) in --chunk pieces",
	.min_backing = 2,
	.max_backing = UBLK_MAX_BACKINGS,
	.media = UBLK_MEDIA_FILE | UBLK_MEDIA_BDEV,
	.size_spans_backings = true,
	.open = stripe_open,
	.map = stripe_map,
};
