/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Parsing of workload option values: I/O modes (fio's names), durations,
 * numbers and booleans.  Sizes ("4k", "64K", "1M", "2G") are parse_size()
 * in size.h.  All return 0 or -EINVAL and never print.
 */
#ifndef UZC_SRV_RW_MODE_H
#define UZC_SRV_RW_MODE_H

#include <stdbool.h>
#include <stdint.h>

enum wl_rw {
	WL_RW_READ,		/* sequential reads */
	WL_RW_WRITE,		/* sequential writes */
	WL_RW_RANDREAD,
	WL_RW_RANDWRITE,
	WL_RW_RW,		/* sequential, reads and writes mixed */
	WL_RW_RANDRW,		/* random, reads and writes mixed */
	WL_RW_NR,
};

/* "read", "write", "randread", "randwrite", "rw"/"readwrite", "randrw". */
int wl_rw_parse(const char *s, enum wl_rw *rw);
const char *wl_rw_name(enum wl_rw rw);

bool wl_rw_is_random(enum wl_rw rw);
bool wl_rw_is_mixed(enum wl_rw rw);
bool wl_rw_does_read(enum wl_rw rw);
bool wl_rw_does_write(enum wl_rw rw);

/*
 * Durations as fio writes them: a bare number is seconds; suffixes
 * "us", "ms", "s", "m", "h".  Result in milliseconds; "1500us" is
 * rejected (not a whole number of ms) rather than silently rounded.
 */
int wl_parse_duration_ms(const char *s, uint64_t *ms);

/* A decimal integer in [min, max]. */
int wl_parse_uint(const char *s, uint64_t min, uint64_t max, uint64_t *v);

/* 1/0, yes/no, true/false, on/off; NULL (a bare --flag) means true. */
int wl_parse_bool(const char *s, bool *b);

#endif
