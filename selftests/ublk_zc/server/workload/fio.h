/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Run fio instead of the engine, and read its JSON output into the same
 * struct wl_result.  What fio does not report stays empty: no histogram
 * (has_hist false; the percentiles are fio's clat percentiles), no
 * io_uring_enter/SQE counts (has_uring_counts false).  fio stops a job at
 * its first verify failure (error EILSEQ), so verify_errors is then 1 per
 * failed job, not a count of bad blocks.
 */
#ifndef UZC_SRV_FIO_H
#define UZC_SRV_FIO_H

#include <stddef.h>

#include "workload.h"

/*
 * Parse fio's --output-format=json output.  Lines before the JSON (fio
 * prints "fio: pid=..., err=84/..." there on errors) are skipped.  Several
 * job entries are summed; their percentiles are merged as a mixture of
 * the entries' percentile curves (exact for a single entry).
 * Returns 0, or -1 with a message in @err.
 */
int fio_parse_json(const char *text, struct wl_result *res, char *err,
		   size_t errlen);

/*
 * Run fio with --output-format=json --group_reporting on @dev (passed as
 * --filename, a global option; NULL: the job's own filename).  @job is a
 * job file, or, when it starts with '-', fio options separated by blanks
 * ("--rw=randread --bs=4k --iodepth=16 --runtime=10s"; --name is added if
 * missing).  The fio binary is $ABTOOL_FIO or "fio" on $PATH.  fio's
 * stderr passes through.  Returns 0 when fio ran and its JSON was read
 * (verify failures are in res->verify_errors), else -1 with @err set.
 */
int fio_run(const char *job, const char *dev, struct wl_result *res,
	    char *err, size_t errlen);

#endif
