// SPDX-License-Identifier: GPL-2.0
/* Backing media: tmpfs files and brd ram disks (backing.h). */
#include <errno.h>
#include <fcntl.h>
#include <linux/fs.h>
#include <linux/magic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <sys/vfs.h>
#include <unistd.h>

#include "backing.h"
#include "ublk.h"

struct backing_kind {
	const char *name;
	unsigned int media;	/* UBLK_MEDIA_*: what its backings are */
	/* path of backing @i into @buf; 0 or -errno and a message */
	int (*open)(unsigned int i, uint64_t size, const char *workdir,
		    char *buf, size_t len, int *fd, char *err, size_t errlen);
	bool remove;		/* unlink the paths on release */
};

#define FILL_CHUNK	(1u << 20)

/* Files on a tmpfs: the page cache is the medium. */
static int tmpfs_open(unsigned int i, uint64_t size, const char *workdir,
		      char *buf, size_t len, int *fd, char *err, size_t errlen)
{
	struct statfs sf;

	(void)size;
	if (statfs(workdir, &sf)) {
		snprintf(err, errlen, "--workdir %s: %s", workdir, strerror(errno));
		return -errno;
	}
	/* the record says "tmpfs": make sure it is */
	if (sf.f_type != TMPFS_MAGIC) {
		snprintf(err, errlen, "--workdir %s is not on a tmpfs (backing="
			 "tmpfs); give a tmpfs directory such as /dev/shm",
			 workdir);
		return -EINVAL;
	}
	snprintf(buf, len, "%s/abtool-backing-%u", workdir, i);
	*fd = open(buf, O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
	if (*fd < 0) {
		snprintf(err, errlen, "cannot create %s: %s", buf, strerror(errno));
		return -errno;
	}
	return 0;
}

/* brd: /dev/ramI, sized at boot (brd.rd_size=KiB, CONFIG_BLK_DEV_RAM_SIZE). */
static int brd_open(unsigned int i, uint64_t size, const char *workdir,
		    char *buf, size_t len, int *fd, char *err, size_t errlen)
{
	uint64_t have = 0;
	struct stat st;

	(void)workdir;
	snprintf(buf, len, "/dev/ram%u", i);
	if (stat(buf, &st) || !S_ISBLK(st.st_mode)) {
		snprintf(err, errlen, "no ram disk %s (backing=brd): build brd "
			 "in (CONFIG_BLK_DEV_RAM) or modprobe brd rd_nr=%u "
			 "rd_size=%llu", buf, BACKING_MAX,
			 (unsigned long long)(size >> 10));
		return -ENOENT;
	}
	/* O_DIRECT: the bytes go straight into brd's pages */
	*fd = open(buf, O_RDWR | O_CLOEXEC | O_DIRECT);
	if (*fd < 0) {
		snprintf(err, errlen, "cannot open %s: %s", buf, strerror(errno));
		return -errno;
	}
	if (ioctl(*fd, BLKGETSIZE64, &have) || have < size) {
		snprintf(err, errlen, "%s holds %llu bytes, --size wants %llu: "
			 "boot with brd.rd_size=%llu (KiB) or raise "
			 "CONFIG_BLK_DEV_RAM_SIZE (kconfig/perf.config)", buf,
			 (unsigned long long)have, (unsigned long long)size,
			 (unsigned long long)(size >> 10));
		close(*fd);
		return -ENOSPC;
	}
	return 0;
}

static const struct backing_kind kinds[] = {
	{ "tmpfs", UBLK_MEDIA_FILE, tmpfs_open, true },
	{ "brd", UBLK_MEDIA_BDEV, brd_open, false },
};

const struct backing_kind *backing_find(const char *name)
{
	size_t i;

	for (i = 0; i < sizeof(kinds) / sizeof(kinds[0]); i++)
		if (!strcmp(kinds[i].name, name))
			return &kinds[i];
	return NULL;
}

const char *backing_name(const struct backing_kind *k)
{
	return k->name;
}

unsigned int backing_media(const struct backing_kind *k)
{
	return k->media;
}

int backing_prepare(struct backing_set *s, const struct backing_kind *kind,
		    unsigned int nr, uint64_t size, const char *workdir,
		    char *err, size_t errlen)
{
	unsigned char *chunk = NULL;
	uint64_t off;
	int fd, ret = 0;

	s->kind = kind;
	s->nr = 0;
	if (nr > BACKING_MAX || size % FILL_CHUNK) {
		snprintf(err, errlen, "%u backings of %llu bytes: at most %d, "
			 "whole MiB", nr, (unsigned long long)size, BACKING_MAX);
		return -EINVAL;
	}
	/* aligned for O_DIRECT; a constant byte, as the targets expect */
	if (posix_memalign((void **)&chunk, 4096, FILL_CHUNK))
		return -ENOMEM;
	memset(chunk, 0x5a, FILL_CHUNK);
	while (s->nr < nr && !ret) {
		char *path = s->path[s->nr];

		ret = kind->open(s->nr, size, workdir, path, sizeof(s->path[0]),
				 &fd, err, errlen);
		if (ret)
			break;
		s->nr++;
		for (off = 0; off < size && !ret; off += FILL_CHUNK)
			if (pwrite(fd, chunk, FILL_CHUNK, off) != FILL_CHUNK) {
				ret = -(errno ? errno : EIO);
				snprintf(err, errlen, "cannot fill %s: %s", path,
					 strerror(-ret));
			}
		if (!ret && fsync(fd)) {
			ret = -errno;
			snprintf(err, errlen, "fsync %s: %s", path, strerror(-ret));
		}
		close(fd);
	}
	free(chunk);
	return ret;
}

void backing_release(struct backing_set *s)
{
	while (s->nr) {
		s->nr--;
		if (s->kind->remove)
			unlink(s->path[s->nr]);
	}
}
