// SPDX-License-Identifier: GPL-2.0
/* The table of in-kernel drivers: one entry per kdev_*.c file. */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "kdev.h"

extern const struct kdev_ops kdev_null_blk, kdev_loop, kdev_md_raid1,
	kdev_md_raid0;

static const struct kdev_ops *const kdevs[] = {
	&kdev_null_blk,
	&kdev_loop,
	&kdev_md_raid1,
	&kdev_md_raid0,
};

const struct kdev_ops *kdev_find(const char *target)
{
	size_t i;

	for (i = 0; i < sizeof(kdevs) / sizeof(kdevs[0]); i++)
		if (!strcmp(kdevs[i]->target, target))
			return kdevs[i];
	return NULL;
}

int kdev_create(struct kdev *d, const char *target, const struct kdev_config *c,
		char *err, size_t errlen)
{
	const struct kdev_ops *ops = kdev_find(target);
	unsigned int i;

	memset(d, 0, sizeof(*d));
	d->md_fd = -1;
	for (i = 0; i < KDEV_MAX_BACKINGS; i++)
		d->loop_nr[i] = d->loop_fd[i] = -1;
	if (!ops) {
		snprintf(err, errlen, "no in-kernel driver for target '%s'",
			 target);
		return -EINVAL;
	}
	if (c->nr_backing < ops->min_backing || c->nr_backing > ops->max_backing) {
		snprintf(err, errlen, "%s takes %u..%u backings, not %u",
			 ops->driver, ops->min_backing, ops->max_backing,
			 c->nr_backing);
		return -EINVAL;
	}
	d->ops = ops;
	snprintf(d->driver, sizeof(d->driver), "%s", ops->driver);
	return ops->create(d, c, err, errlen);
}

void kdev_destroy(struct kdev *d)
{
	if (d->ops)
		d->ops->destroy(d);
	d->ops = NULL;
}
