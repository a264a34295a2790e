/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The program's name, which its messages start with: the server's files
 * are built into abtool and into the selftests' ublk_zc_srv, and each
 * says its own name ("ublk_zc_srv serve: ...").  glibc's, from argv[0]:
 * a library function can print it without being handed it.
 */
#ifndef UZC_SRV_PROG_H
#define UZC_SRV_PROG_H

#include <errno.h>

static inline const char *prog_name(void)
{
	return program_invocation_short_name;
}

#endif
