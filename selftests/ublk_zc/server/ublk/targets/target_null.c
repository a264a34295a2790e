// SPDX-License-Identifier: GPL-2.0
/*
 * null: no storage. Every data path still moves each request's bytes once,
 * so that the paths do the same work here as on the other targets: a READ
 * is filled from /dev/zero, a WRITE is written to /dev/null, each as the
 * path does its I/O (copy and user_copy through the daemon's buffer, the
 * zero-copy paths on the request pages after their handoff).
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>

#include "target.h"

enum { NULL_SINK_WRITE, NULL_SINK_READ, NULL_NR_SINKS };

static int null_open(struct ublk_tgt *t, char *err, size_t errlen)
{
	static const char *const sink[NULL_NR_SINKS] = {
		[NULL_SINK_WRITE] = "/dev/null",
		[NULL_SINK_READ] = "/dev/zero",
	};
	int i, fd;

	if (!t->cfg.size) {
		snprintf(err, errlen, "target null needs --size");
		return -EINVAL;
	}
	for (i = 0; i < NULL_NR_SINKS; i++) {
		fd = open(sink[i], O_RDWR | O_CLOEXEC);
		if (fd < 0) {
			snprintf(err, errlen, "cannot open %s: %s", sink[i],
				 strerror(errno));
			return -errno;
		}
		t->fds[t->nr_fds++] = fd;
	}
	/* nothing to flush: nr_flush stays 0 */
	t->dev_size = t->cfg.size & ~511ULL;
	return 0;
}

static int null_map(const struct ublk_tgt *t, bool write, uint64_t off,
		    uint32_t len, struct ublk_leg *legs)
{
	(void)t, (void)off;
	legs[0] = (struct ublk_leg){
		.backing = write ? NULL_SINK_WRITE : NULL_SINK_READ,
		.off = 0,
		.len = len,
		.buf_off = 0,
	};
	return 1;
}

const struct ublk_target_ops target_null = {
	.name = "null",
	.help = "no storage: reads come from /dev/zero, writes go to /dev/null (needs --size)",
	.min_backing = 0,
	.max_backing = 0,
	.open = null_open,
	.map = null_map,
};
