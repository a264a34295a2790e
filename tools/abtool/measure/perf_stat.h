/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Optional `perf stat` of the ublk server during a trial's measured
 * window (abtool run --perf-stat FILE): perf's own counters and event
 * names, beside abtool's built-in ones, for a reviewer who trusts perf.
 */
#ifndef ABTOOL_PERF_STAT_H
#define ABTOOL_PERF_STAT_H

#include <sys/types.h>

struct perf_stat;

/* Attach `perf stat -x, -p PID` (EVENTS: perf -e list, or NULL for
 * perf's default set).  NULL with a message in err on failure. */
struct perf_stat *perf_stat_start(pid_t pid, const char *events,
				  char *err, size_t errlen);

/* Stop perf and append its CSV to out, after a "# HEADER" line.
 * 0, or -1 with a message in err; the handle is freed either way. */
int perf_stat_finish(struct perf_stat *ps, const char *out, const char *header,
		     char *err, size_t errlen);

#endif
