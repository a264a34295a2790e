// SPDX-License-Identifier: GPL-2.0
/*
 * mirror and stripe: md raid1 and raid0 over the same backings, built
 * the way `mdadm --build --assume-clean` builds them (SET_ARRAY_INFO of
 * a non-persistent clean array, ADD_NEW_DISK per leg, RUN_ARRAY): no
 * superblock, no write-intent bitmap, no resync, like the ublk targets,
 * which keep no metadata either.  md rather than dm-mirror because
 * dm-mirror always keeps a dirty-region log and sends every write
 * through its kmirrord thread, work the ublk mirror does not do; md
 * raid1 without a bitmap submits to the legs from the caller.  Done with
 * the ioctls so that the guest needs no mdadm (whose package pulls in
 * udev).  File backings go through a loop device with direct I/O first.
 */
#include <errno.h>
#include <fcntl.h>
#include <linux/fs.h>
#include <linux/major.h>
#include <linux/raid/md_p.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "kdev.h"
#include "kdev_md.h"

#define MD_DEFAULT_CHUNK	(64u << 10)	/* the ublk stripe's default */

int kdev_md_array_info(int level, unsigned int nr, uint64_t leg_bytes,
		       uint32_t chunk, int md_minor, mdu_array_info_t *a,
		       char *err, size_t errlen)
{
	uint64_t kib;

	if (level != 0 && level != 1) {
		snprintf(err, errlen, "md level %d: only raid0 and raid1", level);
		return -EINVAL;
	}
	if (nr < 2 || nr > 8) {
		snprintf(err, errlen, "md raid%d wants 2..8 legs, not %u", level, nr);
		return -EINVAL;
	}
	if (!chunk)
		chunk = MD_DEFAULT_CHUNK;
	if (level == 0 && (chunk % 4096 || chunk & (chunk - 1))) {
		snprintf(err, errlen, "md raid0 chunk %u is not a power of two "
			 ">= 4K", chunk);
		return -EINVAL;
	}
	/* whole chunks (raid0) or 4K blocks (raid1) of the smallest leg */
	kib = leg_bytes / (level == 0 ? chunk : 4096) * (level == 0 ? chunk : 4096) / 1024;
	if (!kib || kib > INT32_MAX) {
		snprintf(err, errlen, "md leg size %llu bytes is out of range",
			 (unsigned long long)leg_bytes);
		return -EINVAL;
	}
	memset(a, 0, sizeof(*a));
	a->level = level;
	a->size = (int)kib;
	a->nr_disks = a->raid_disks = (int)nr;
	a->active_disks = a->working_disks = (int)nr;
	a->md_minor = md_minor;
	a->not_persistent = 1;
	a->state = 1 << MD_SB_CLEAN;	/* --assume-clean: no resync */
	a->chunk_size = level == 0 ? (int)chunk : 0;
	return 0;
}

/* The first md minor with no device yet; its node made if missing. */
static int md_open_free(char *dev, size_t len, int *minor, char *err,
			size_t errlen)
{
	char sys[64];
	int n, fd, ret;

	for (n = 0; n < 256; n++) {
		snprintf(sys, sizeof(sys), "/sys/block/md%d", n);
		if (access(sys, F_OK))
			break;
	}
	if (n == 256) {
		snprintf(err, errlen, "no free md minor");
		return -EBUSY;
	}
	snprintf(dev, len, "/dev/md%d", n);
	/* opening the node creates the array (md's create-on-open) */
	if (mknod(dev, S_IFBLK | 0600, makedev(MD_MAJOR, n)) && errno != EEXIST) {
		ret = -errno;
		snprintf(err, errlen, "mknod %s: %s", dev, strerror(-ret));
		return ret;
	}
	fd = open(dev, O_RDWR | O_CLOEXEC);
	if (fd < 0) {
		ret = -errno;
		snprintf(err, errlen, "cannot open %s: %s (md driver: "
			 "CONFIG_BLK_DEV_MD, kconfig/perf.config)", dev,
			 strerror(-ret));
		return ret == -ENXIO || ret == -ENODEV ? -EOPNOTSUPP : ret;
	}
	*minor = n;
	return fd;
}

/* The block device of leg @i: the backing itself, or a loop over a file. */
static int md_leg(struct kdev *d, const char *backing, char *dev, size_t len,
		  char *err, size_t errlen)
{
	struct stat st;
	int ret;

	if (stat(backing, &st)) {
		ret = -errno;
		snprintf(err, errlen, "%s: %s", backing, strerror(-ret));
		return ret;
	}
	if (S_ISBLK(st.st_mode)) {
		snprintf(dev, len, "%s", backing);
		return 0;
	}
	/* a file of the legs' size: all of it */
	ret = kdev_loop_attach(backing, 0, &d->loop_nr[d->nr_loops],
			       &d->loop_fd[d->nr_loops], err, errlen);
	d->nr_loops++;
	if (ret)
		return ret;
	snprintf(dev, len, "/dev/loop%d", d->loop_nr[d->nr_loops - 1]);
	snprintf(d->driver, sizeof(d->driver), "%s/loop-dio", d->ops->driver);
	return 0;
}

static int md_create(struct kdev *d, const struct kdev_config *c, int level,
		     char *err, size_t errlen)
{
	char legs[KDEV_MAX_BACKINGS][KDEV_NAME_MAX];
	uint64_t smallest = UINT64_MAX;
	mdu_array_info_t info;
	mdu_param_t param;
	struct stat st;
	unsigned int i;
	int md_minor = -1, ret;

	for (i = 0; i < c->nr_backing; i++) {
		uint64_t bytes;
		int fd;

		ret = md_leg(d, c->backing[i], legs[i], sizeof(legs[i]), err,
			     errlen);
		if (ret)
			return ret;
		fd = open(legs[i], O_RDONLY | O_CLOEXEC);
		if (fd < 0 || ioctl(fd, BLKGETSIZE64, &bytes)) {
			ret = -errno;
			if (fd >= 0)
				close(fd);
			snprintf(err, errlen, "cannot size %s: %s", legs[i],
				 strerror(-ret));
			return ret;
		}
		close(fd);
		if (bytes < smallest)
			smallest = bytes;
	}
	d->md_fd = md_open_free(d->dev, sizeof(d->dev), &md_minor, err, errlen);
	if (d->md_fd < 0)
		return d->md_fd;
	ret = kdev_md_array_info(level, c->nr_backing, smallest, c->chunk,
				 md_minor, &info, err, errlen);
	if (ret)
		return ret;
	if (ioctl(d->md_fd, SET_ARRAY_INFO, &info)) {
		ret = -errno;
		snprintf(err, errlen, "%s: SET_ARRAY_INFO: %s", d->dev,
			 strerror(-ret));
		return ret;
	}
	for (i = 0; i < c->nr_backing; i++) {
		mdu_disk_info_t disk = {
			.number = (int)i, .raid_disk = (int)i,
			.state = (1 << MD_DISK_SYNC) | (1 << MD_DISK_ACTIVE),
		};

		if (stat(legs[i], &st)) {
			ret = -errno;
			snprintf(err, errlen, "%s: %s", legs[i], strerror(-ret));
			return ret;
		}
		disk.major = (int)major(st.st_rdev);
		disk.minor = (int)minor(st.st_rdev);
		if (ioctl(d->md_fd, ADD_NEW_DISK, &disk)) {
			ret = -errno;
			snprintf(err, errlen, "%s: ADD_NEW_DISK %s: %s", d->dev,
				 legs[i], strerror(-ret));
			return ret;
		}
	}
	memset(&param, 0, sizeof(param));
	if (ioctl(d->md_fd, RUN_ARRAY, &param)) {
		ret = -errno;
		snprintf(err, errlen, "%s: RUN_ARRAY: %s (raid%d personality: "
			 "CONFIG_MD_RAID%d, kconfig/perf.config)", d->dev,
			 strerror(-ret), level, level);
		return ret == -EINVAL ? -EOPNOTSUPP : ret;
	}
	return kdev_wait_node(d->dev) ? -ENOENT : 0;
}

static int raid1_create(struct kdev *d, const struct kdev_config *c,
			char *err, size_t errlen)
{
	return md_create(d, c, 1, err, errlen);
}

static int raid0_create(struct kdev *d, const struct kdev_config *c,
			char *err, size_t errlen)
{
	return md_create(d, c, 0, err, errlen);
}

static void md_destroy(struct kdev *d)
{
	if (d->md_fd >= 0) {
		/* stops a running array, clears a half-built one */
		ioctl(d->md_fd, STOP_ARRAY, NULL);
		close(d->md_fd);
		d->md_fd = -1;
	}
	while (d->nr_loops > 0) {
		d->nr_loops--;
		kdev_loop_detach(d->loop_nr[d->nr_loops], d->loop_fd[d->nr_loops]);
	}
}

const struct kdev_ops kdev_md_raid1 = {
	.target = "mirror",
	.driver = "md-raid1",
	.min_backing = 2,
	.max_backing = 8,
	.create = raid1_create,
	.destroy = md_destroy,
};

const struct kdev_ops kdev_md_raid0 = {
	.target = "stripe",
	.driver = "md-raid0",
	.min_backing = 2,
	.max_backing = 8,
	.create = raid0_create,
	.destroy = md_destroy,
};
