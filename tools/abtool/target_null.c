// SPDX-License-Identifier: GPL-2.0
/* null: no backing, every request succeeds without I/O. */
#include <errno.h>
#include <stdio.h>

#include "target.h"

static int null_open(struct ublk_tgt *t, char *err, size_t errlen)
{
	if (!t->cfg.size) {
		snprintf(err, errlen, "target null needs --size");
		return -EINVAL;
	}
	t->dev_size = t->cfg.size & ~511ULL;
	return 0;
}

static int null_map(const struct ublk_tgt *t, bool write, uint64_t off,
		    uint32_t len, struct ublk_leg *legs)
{
	(void)t, (void)write, (void)off, (void)len, (void)legs;
	return 0;
}

const struct ublk_target_ops target_null = {
	.name = "null",
	.help = "no backing; requests complete without I/O (needs --size)",
	.min_backing = 0,
	.max_backing = 0,
	.open = null_open,
	.map = null_map,
};
