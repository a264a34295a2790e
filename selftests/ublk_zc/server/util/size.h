/* SPDX-License-Identifier: GPL-2.0 */
#ifndef UZC_SRV_SIZE_H
#define UZC_SRV_SIZE_H

#include <stdint.h>

/* "4096", "4k", "64K", "1M", "2g": bytes; -EINVAL on anything else. */
int parse_size(const char *s, uint64_t *bytes);

#endif
