// SPDX-License-Identifier: GPL-2.0
/*
 * null: null_blk through configfs.  blk-mq with one hardware queue of the
 * ublk device's depth, 512-byte blocks, completions inline (irqmode 0)
 * and no memory behind it: the block layer's floor.  Requests as large
 * as the ublk device's (null_blk's own limit, 127 KiB, would split a
 * 512K I/O into five requests where ublk serves one).  The ublk null
 * target moves each request's bytes once on every path; null_blk moves
 * none, so a fraction of it includes that copy.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <unistd.h>

#include "kdev.h"
#include "kdev_null_blk.h"

#define NULLB_ROOT	"/sys/kernel/config/nullb"

int kdev_null_blk_attrs(const struct kdev_config *c, struct kdev_attr *a,
			size_t max, char *err, size_t errlen)
{
	const struct { const char *name; unsigned long long val; } v[] = {
		{ "size", (unsigned long long)(c->size >> 20) },	/* MiB */
		{ "blocksize", 512 },
		{ "queue_mode", 2 },		/* blk-mq, as ublk */
		{ "submit_queues", 1 },		/* abtool run serves one queue */
		{ "hw_queue_depth", c->depth },
		{ "irqmode", 0 },		/* complete in the submitter */
		{ "completion_nsec", 0 },
		{ "memory_backed", 0 },
		{ "max_sectors", c->max_io_bytes >> 9 },
	};
	size_t i;

	if (c->size < (1u << 20) || c->size % (1u << 20)) {
		snprintf(err, errlen, "null_blk size must be whole MiB, not %llu "
			 "bytes", (unsigned long long)c->size);
		return -EINVAL;
	}
	if (!c->depth || c->depth > 4096) {
		snprintf(err, errlen, "null_blk queue depth %u is not in 1..4096",
			 c->depth);
		return -EINVAL;
	}
	if (!c->max_io_bytes || c->max_io_bytes % 4096) {
		snprintf(err, errlen, "null_blk largest request must be whole "
			 "pages, not %u bytes", c->max_io_bytes);
		return -EINVAL;
	}
	if (max < sizeof(v) / sizeof(v[0]))
		return -ENOSPC;
	for (i = 0; i < sizeof(v) / sizeof(v[0]); i++) {
		a[i].name = v[i].name;
		snprintf(a[i].val, sizeof(a[i].val), "%llu", v[i].val);
	}
	return (int)i;
}

static int null_create(struct kdev *d, const struct kdev_config *c,
		       char *err, size_t errlen)
{
	struct kdev_attr a[16];
	int n, i, ret;

	n = kdev_null_blk_attrs(c, a, 16, err, errlen);
	if (n < 0)
		return n;
	/* a guest mounts no configfs; a host usually has it */
	if (access(NULLB_ROOT, F_OK))
		mount("configfs", "/sys/kernel/config", "configfs", 0, NULL);
	if (access(NULLB_ROOT, F_OK)) {
		snprintf(err, errlen, "no %s: null_blk is not built in or loaded "
			 "(CONFIG_BLK_DEV_NULL_BLK; modprobe null_blk), or "
			 "configfs is not mounted", NULLB_ROOT);
		return -EOPNOTSUPP;
	}
	/* the configfs name becomes the disk's name: /dev/abtoolnullN */
	for (i = 0; i < 1000; i++) {
		snprintf(d->nullb_dir, sizeof(d->nullb_dir),
			 NULLB_ROOT "/abtoolnull%d", i);
		if (!mkdir(d->nullb_dir, 0755))
			break;
		if (errno != EEXIST) {
			ret = -errno;
			snprintf(err, errlen, "mkdir %s: %s", d->nullb_dir,
				 strerror(-ret));
			d->nullb_dir[0] = '\0';
			return ret;
		}
	}
	for (ret = 0, i = 0; i < n && !ret; i++)
		ret = kdev_write_attr(d->nullb_dir, a[i].name, a[i].val);
	if (!ret)
		ret = kdev_write_attr(d->nullb_dir, "power", "1");
	if (ret) {
		snprintf(err, errlen, "null_blk %s: %s", i < n ? a[i - 1].name :
			 "power", strerror(-ret));
		return ret;
	}
	snprintf(d->dev, sizeof(d->dev), "/dev/%s", strrchr(d->nullb_dir, '/') + 1);
	if (kdev_wait_node(d->dev)) {
		snprintf(err, errlen, "%s did not appear", d->dev);
		return -ENOENT;
	}
	return 0;
}

static void null_destroy(struct kdev *d)
{
	if (!*d->nullb_dir)
		return;
	kdev_write_attr(d->nullb_dir, "power", "0");
	rmdir(d->nullb_dir);
	d->nullb_dir[0] = '\0';
}

const struct kdev_ops kdev_null_blk = {
	.target = "null",
	.driver = "null_blk",
	.min_backing = 0,
	.max_backing = 0,
	.create = null_create,
	.destroy = null_destroy,
};
