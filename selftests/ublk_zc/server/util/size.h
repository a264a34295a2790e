/* SPDX-License-Identifier: GPL-2.0 */
#ifndef ABTOOL_SIZE_H
#define ABTOOL_SIZE_H

#include <stdint.h>

/* "4096", "4k", "64K", "1M", "2g": bytes; -EINVAL on anything else. */
int parse_size(const char *s, uint64_t *bytes);

#endif
