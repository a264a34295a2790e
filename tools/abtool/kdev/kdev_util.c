// SPDX-License-Identifier: GPL-2.0
/* What the in-kernel drivers share: sysfs/configfs writes, loop devices. */
#include <errno.h>
#include <fcntl.h>
#include <linux/loop.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <unistd.h>

#include "kdev.h"

int kdev_write_attr(const char *dir, const char *name, const char *val)
{
	char path[256];
	ssize_t n;
	int fd, ret = 0;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	fd = open(path, O_WRONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	n = write(fd, val, strlen(val));
	if (n < 0)
		ret = -errno;
	else if ((size_t)n != strlen(val))
		ret = -EIO;
	close(fd);
	return ret;
}

int kdev_wait_node(const char *dev)
{
	struct stat st;
	int i;

	/* devtmpfs creates the node when the disk is added: soon, not now */
	for (i = 0; i < 200; i++) {
		if (stat(dev, &st) == 0 && S_ISBLK(st.st_mode))
			return 0;
		usleep(10000);
	}
	return -ENOENT;
}

/* "1" in /sys/block/loopN/loop/dio: the kernel really does direct I/O */
static int loop_dio_on(int nr)
{
	char path[64], buf[8] = "";
	ssize_t n;
	int fd;

	snprintf(path, sizeof(path), "/sys/block/loop%d/loop/dio", nr);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	return n > 0 && buf[0] == '1';
}

void kdev_loop_config(struct loop_config *lc, int backing_fd, uint64_t size)
{
	memset(lc, 0, sizeof(*lc));
	lc->fd = backing_fd;
	lc->block_size = 512;	/* ublk devices have 512-byte sectors too */
	lc->info.lo_flags = LO_FLAGS_DIRECT_IO;
	lc->info.lo_sizelimit = size;
}

int kdev_loop_attach(const char *backing, uint64_t size, int *nr, int *fd,
		     char *err, size_t errlen)
{
	struct loop_config lc;
	char dev[32];
	int ctl, bfd, ret;

	*nr = *fd = -1;
	ctl = open("/dev/loop-control", O_RDWR | O_CLOEXEC);
	if (ctl < 0) {
		ret = -errno;
		snprintf(err, errlen, "/dev/loop-control: %s (loop driver: "
			 "CONFIG_BLK_DEV_LOOP)", strerror(-ret));
		return ret == -ENOENT ? -EOPNOTSUPP : ret;
	}
	*nr = ioctl(ctl, LOOP_CTL_GET_FREE);
	ret = *nr < 0 ? -errno : 0;
	close(ctl);
	if (ret) {
		snprintf(err, errlen, "LOOP_CTL_GET_FREE: %s", strerror(-ret));
		return ret;
	}
	snprintf(dev, sizeof(dev), "/dev/loop%d", *nr);
	if (kdev_wait_node(dev)) {
		snprintf(err, errlen, "%s did not appear", dev);
		return -ENOENT;
	}
	/* O_DIRECT here too: the loop then starts in direct I/O mode */
	bfd = open(backing, O_RDWR | O_CLOEXEC | O_DIRECT);
	if (bfd < 0) {
		ret = -errno;
		snprintf(err, errlen, "cannot open %s with O_DIRECT: %s",
			 backing, strerror(-ret));
		return ret;
	}
	*fd = open(dev, O_RDWR | O_CLOEXEC);
	if (*fd < 0) {
		ret = -errno;
		close(bfd);
		snprintf(err, errlen, "cannot open %s: %s", dev, strerror(-ret));
		return ret;
	}
	kdev_loop_config(&lc, bfd, size);
	ret = ioctl(*fd, LOOP_CONFIGURE, &lc) ? -errno : 0;
	close(bfd);
	if (ret) {
		snprintf(err, errlen, "LOOP_CONFIGURE %s on %s: %s", dev,
			 backing, strerror(-ret));
		return ret;
	}
	if (loop_dio_on(*nr) != 1) {
		snprintf(err, errlen, "%s over %s runs buffered, not with "
			 "direct I/O: not the baseline asked for", dev, backing);
		return -EOPNOTSUPP;
	}
	return 0;
}

void kdev_loop_detach(int nr, int fd)
{
	int ctl;

	if (fd >= 0) {
		ioctl(fd, LOOP_CLR_FD);
		close(fd);
	}
	if (nr < 0)
		return;
	/* the device goes too, so that runs do not pile up loop devices */
	ctl = open("/dev/loop-control", O_RDWR | O_CLOEXEC);
	if (ctl >= 0) {
		ioctl(ctl, LOOP_CTL_REMOVE, nr);
		close(ctl);
	}
}
