// SPDX-License-Identifier: GPL-2.0
/* The table of targets and what they share: opening backing files. */
#include <errno.h>
#include <fcntl.h>
#include <linux/fs.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <unistd.h>

#include "target.h"

extern const struct ublk_target_ops target_null, target_loop, target_mirror,
	target_stripe;

static const struct ublk_target_ops *const targets[] = {
	&target_null,
	&target_loop,
	&target_mirror,
	&target_stripe,
};

const struct ublk_target_ops *ublk_target_find(const char *name)
{
	unsigned int i;

	for (i = 0; i < sizeof(targets) / sizeof(targets[0]); i++)
		if (!strcmp(targets[i]->name, name))
			return targets[i];
	return NULL;
}

unsigned int ublk_target_share(const struct ublk_target_ops *t,
			       unsigned int nr_backing)
{
	return t->size_spans_backings ? nr_backing : 1;
}

void ublk_target_list(FILE *f)
{
	unsigned int i;

	for (i = 0; i < sizeof(targets) / sizeof(targets[0]); i++)
		fprintf(f, "  %-10s %s\n", targets[i]->name, targets[i]->help);
}

/* The bytes of backing @fd and what it is: UBLK_MEDIA_*, 0 for neither */
static int backing_size(int fd, uint64_t *size, unsigned int *media)
{
	struct stat st;

	if (fstat(fd, &st))
		return -errno;
	if (S_ISBLK(st.st_mode)) {
		*media = UBLK_MEDIA_BDEV;
		return ioctl(fd, BLKGETSIZE64, size) ? -errno : 0;
	}
	*media = S_ISREG(st.st_mode) ? UBLK_MEDIA_FILE : 0;
	*size = st.st_size;
	return 0;
}

/*
 * Open every backing (O_DIRECT unless buffered was asked for or the file
 * system refuses it) and set dev_size to the configured size, or to the
 * smallest backing times the target's share (ublk_target_share()).
 */
int target_open_backings(struct ublk_tgt *t, char *err, size_t errlen)
{
	unsigned int nr_share = ublk_target_share(t->ops, t->cfg.nr_backing);
	uint64_t smallest = UINT64_MAX;
	int i;

	for (i = 0; i < t->cfg.nr_backing; i++) {
		const char *path = t->cfg.backing[i];
		int flags = O_RDWR | O_CLOEXEC;
		unsigned int media = 0;
		uint64_t size;
		int fd = -1, ret;

		if (!t->cfg.buffered)
			fd = open(path, flags | O_DIRECT);
		if (fd < 0)
			fd = open(path, flags);
		if (fd < 0) {
			snprintf(err, errlen, "cannot open backing %s: %s",
				 path, strerror(errno));
			return -errno;
		}
		t->fds[t->nr_fds++] = fd;
		ret = backing_size(fd, &size, &media);
		if (ret < 0) {
			snprintf(err, errlen, "cannot size backing %s: %s",
				 path, strerror(-ret));
			return ret;
		}
		if (media && !(t->ops->media & media)) {
			snprintf(err, errlen, "target %s takes no %s: %s",
				 t->ops->name, media == UBLK_MEDIA_BDEV ?
				 "block device" : "regular file", path);
			return -EINVAL;
		}
		if (size < smallest)
			smallest = size;
	}
	if (t->cfg.size) {
		if (t->cfg.nr_backing && t->cfg.size > smallest * nr_share) {
			snprintf(err, errlen, "size %llu exceeds the backing capacity %llu",
				 (unsigned long long)t->cfg.size,
				 (unsigned long long)(smallest * nr_share));
			return -EINVAL;
		}
		t->dev_size = t->cfg.size;
	} else {
		t->dev_size = smallest * nr_share;
	}
	t->nr_flush = t->nr_fds;
	t->dev_size &= ~511ULL;
	if (!t->dev_size) {
		snprintf(err, errlen, "device size is 0: give --size or non-empty backings");
		return -EINVAL;
	}
	return 0;
}

void target_close_backings(struct ublk_tgt *t)
{
	while (t->nr_fds > 0)
		close(t->fds[--t->nr_fds]);
	t->nr_flush = 0;
}
