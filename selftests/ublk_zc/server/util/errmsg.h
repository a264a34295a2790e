/* SPDX-License-Identifier: GPL-2.0 */
#ifndef UZC_SRV_ERRMSG_H
#define UZC_SRV_ERRMSG_H

#include <stddef.h>

/* Format a message into err (when given) and return ret: one-line error paths. */
int set_err(char *err, size_t errlen, int ret, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));

#endif
