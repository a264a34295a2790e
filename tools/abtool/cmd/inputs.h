/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The input files of `abtool compare` must be distinct: a file given
 * twice (the same path, another path to it, or a copy) would pool its
 * trials twice, doubling n and making every p-value smaller than the
 * data allow.
 */
#ifndef ABTOOL_INPUTS_H
#define ABTOOL_INPUTS_H

#include <stddef.h>

/*
 * 0, or -EINVAL with a one-line reason in @err when two of @paths are the
 * same file (device and inode), have the same content (size and a 64-bit
 * FNV-1a hash of the bytes), or "-" (stdin) appears twice.  Paths that
 * cannot be read are left for the reader to report.
 */
int inputs_check_distinct(char *const *paths, size_t n, char *err,
			  size_t errlen);

#endif
