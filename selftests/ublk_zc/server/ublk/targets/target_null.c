// SPDX-License-Identifier: GPL-2.0
/*
 * null: no storage. Every data path still moves each request's bytes once,
 * so that the paths do the same work here as on the other targets: a READ
 * is filled from a memfd of zeros, a WRITE is written to /dev/null, each
 * as the path does its I/O (copy and user_copy through the daemon's buffer,
 * the zero-copy paths on the request pages after their handoff).
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "target.h"

enum { NULL_SINK_WRITE, NULL_SINK_READ, NULL_NR_SINKS };

/*
 * Not /dev/zero: it stops after the page it is on when task work is
 * pending or, under io_uring's IOCB_NOWAIT, when the task should
 * reschedule, so a large READ came back short and took more SQEs on some
 * paths than on others (a path that re-installs its buffer per retry paid
 * most).  Nor a hole of a memfd: shmem fills a user buffer by copying the
 * zero page but a kernel one (the zero-copy paths' request pages) with
 * iov_iter_zero(), two different costs for the same job.  So the first
 * max-I/O bytes of a memfd hold real zero pages (every null READ reads
 * at 0): each path copies a page-cache page into its buffer, and shmem
 * never stops short.  O_NONBLOCK lets io_uring issue the read inline as
 * it did /dev/zero's (shmem is not FMODE_NOWAIT); it must be set before
 * the queue rings register the file.
 */
static int null_zero_source(uint64_t size)
{
	void *zeros = calloc(1, size);
	int fd, ret = 0;

	if (!zeros)
		return -ENOMEM;
	fd = memfd_create("ublk-null-zeros", MFD_CLOEXEC);
	if (fd < 0)
		ret = -errno;
	else if (pwrite(fd, zeros, size, 0) < 0 ||
		 fcntl(fd, F_SETFL, O_NONBLOCK) < 0)
		ret = -errno;
	free(zeros);
	if (ret < 0 && fd >= 0)
		close(fd);
	return ret < 0 ? ret : fd;
}

static int null_open(struct ublk_tgt *t, char *err, size_t errlen)
{
	int fd;

	if (!t->cfg.size) {
		snprintf(err, errlen, "target null needs --size");
		return -EINVAL;
	}
	t->dev_size = t->cfg.size & ~511ULL;
	fd = open("/dev/null", O_RDWR | O_CLOEXEC);
	if (fd < 0) {
		snprintf(err, errlen, "cannot open /dev/null: %s",
			 strerror(errno));
		return -errno;
	}
	t->fds[t->nr_fds++] = fd;
	fd = null_zero_source(t->max_io_bytes < t->dev_size ?
			      t->max_io_bytes : t->dev_size);
	if (fd < 0) {
		snprintf(err, errlen, "cannot make a memfd of zeros: %s",
			 strerror(-fd));
		return fd;
	}
	t->fds[t->nr_fds++] = fd;
	/* nothing to flush: nr_flush stays 0 */
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
	.help = "no storage: reads come from a memfd of zeros, writes go to /dev/null (needs --size)",
	.min_backing = 0,
	.max_backing = 0,
	.open = null_open,
	.map = null_map,
};
