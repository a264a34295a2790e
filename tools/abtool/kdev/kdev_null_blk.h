/* SPDX-License-Identifier: GPL-2.0 */
/* null_blk's configfs attributes, apart so that tests can check them. */
#ifndef ABTOOL_KDEV_NULL_BLK_H
#define ABTOOL_KDEV_NULL_BLK_H

#include <stddef.h>

#include "kdev.h"

struct kdev_attr {
	const char *name;
	char val[24];
};

/*
 * The attributes written before "power" = 1, in order; their number,
 * or -EINVAL with a message for a size not in whole MiB (null_blk's
 * unit) or a depth out of range.
 */
int kdev_null_blk_attrs(const struct kdev_config *c, struct kdev_attr *a,
			size_t max, char *err, size_t errlen);

#endif
