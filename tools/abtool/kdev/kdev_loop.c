// SPDX-License-Identifier: GPL-2.0
/* loop: the kernel's loop driver with direct I/O over the one backing. */
#include "kdev.h"

#include <stdio.h>

static int loop_create(struct kdev *d, const struct kdev_config *c,
		       char *err, size_t errlen)
{
	int ret = kdev_loop_attach(c->backing[0], c->size, &d->loop_nr[0],
				   &d->loop_fd[0], err, errlen);

	d->nr_loops = 1;
	if (!ret)
		snprintf(d->dev, sizeof(d->dev), "/dev/loop%d", d->loop_nr[0]);
	return ret;
}

static void loop_destroy(struct kdev *d)
{
	kdev_loop_detach(d->loop_nr[0], d->loop_fd[0]);
	d->nr_loops = 0;
}

const struct kdev_ops kdev_loop = {
	.target = "loop",
	.driver = "loop-dio",
	.min_backing = 1,
	.max_backing = 1,
	.create = loop_create,
	.destroy = loop_destroy,
};
