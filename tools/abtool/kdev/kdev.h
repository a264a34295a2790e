/* SPDX-License-Identifier: GPL-2.0 */
/*
 * In-kernel block devices doing a ublk target's job: the baselines that
 * `abtool run` measures as the data path "kernel" next to the ublk
 * paths, on the same media, so each ublk number reads as a fraction of
 * the kernel's own driver.
 *
 *   null   -> null_blk (configfs; blk-mq, completes inline, moves no bytes)
 *   loop   -> loop with direct I/O over the backing
 *   mirror -> md raid1 built without a superblock or bitmap (what
 *             `mdadm --build --assume-clean` makes), one leg per backing
 *   stripe -> md raid0 built the same way, the ublk stripe's chunk
 *
 * md takes block devices only: a file backing (tmpfs) becomes a loop
 * device with direct I/O first, and the record's driver says so
 * ("md-raid1/loop-dio").  Everything is set up through the kernel's own
 * interfaces (configfs, loop and md ioctls), so no tool is needed in the
 * guest.  Adding a driver is one file plus one entry in kdev.c.
 */
#ifndef ABTOOL_KDEV_H
#define ABTOOL_KDEV_H

#include <stddef.h>
#include <stdint.h>

struct loop_config;

#define KDEV_MAX_BACKINGS	8
#define KDEV_NAME_MAX		64

struct kdev_config {
	const char *backing[KDEV_MAX_BACKINGS];
	unsigned int nr_backing;
	uint64_t size;		/* null_blk's bytes (whole MiB); loop's limit */
	unsigned int depth;	/* null: the hardware queue depth */
	uint32_t max_io_bytes;	/* null: largest request, the ublk device's */
	uint32_t chunk;		/* stripe: bytes per chunk; 0: 64K */
};

struct kdev {
	const struct kdev_ops *ops;
	char dev[KDEV_NAME_MAX];	/* the block device to measure */
	char driver[KDEV_NAME_MAX];	/* "md-raid1/loop-dio" */
	/* what destroy() undoes; -1 / "" when not set up */
	char nullb_dir[128];		/* null_blk's configfs directory */
	int loop_nr[KDEV_MAX_BACKINGS];
	int loop_fd[KDEV_MAX_BACKINGS];
	unsigned int nr_loops;
	int md_fd;
};

struct kdev_ops {
	const char *target;	/* the ublk target it stands for */
	const char *driver;	/* "null_blk", "loop-dio", "md-raid1", ... */
	unsigned int min_backing, max_backing;
	/* Set up @d from @c; 0 or -errno and a message (d half set up:
	 * the caller still calls destroy). */
	int (*create)(struct kdev *d, const struct kdev_config *c,
		      char *err, size_t errlen);
	void (*destroy)(struct kdev *d);
};

/* The driver for ublk target @target ("mirror"), or NULL. */
const struct kdev_ops *kdev_find(const char *target);
/*
 * Set up the in-kernel device for @target; 0 or -errno with a message
 * (-EOPNOTSUPP when this kernel lacks the driver).  Always pair with
 * kdev_destroy().
 */
int kdev_create(struct kdev *d, const char *target, const struct kdev_config *c,
		char *err, size_t errlen);
void kdev_destroy(struct kdev *d);

/* ---- shared by the drivers (kdev_util.c) ---- */

/* Write @val to the file @dir/@name; 0 or -errno. */
int kdev_write_attr(const char *dir, const char *name, const char *val);
/* Wait up to 2 s for block device node @dev; 0 or -ENOENT. */
int kdev_wait_node(const char *dev);
/*
 * What LOOP_CONFIGURE is told: direct I/O, 512-byte blocks, and at most
 * @size bytes of the backing (0: all of it).  The limit keeps the loop
 * on the bytes abtool filled and the ublk rows use: a whole ram disk
 * (1 GiB) is mostly pages brd has yet to allocate, and the row would
 * speed up trial by trial as writes allocate them.
 */
void kdev_loop_config(struct loop_config *lc, int backing_fd, uint64_t size);
/*
 * A loop device with direct I/O over the first @size bytes of @backing
 * (a file or a block device; 0: all of it); its number in *nr and its
 * open fd in *fd.  Fails when the kernel would not do direct I/O on it:
 * a buffered loop is not the baseline asked for.
 */
int kdev_loop_attach(const char *backing, uint64_t size, int *nr, int *fd,
		     char *err, size_t errlen);
void kdev_loop_detach(int nr, int fd);

#endif
