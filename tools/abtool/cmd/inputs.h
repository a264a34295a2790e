/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What `abtool compare` refuses to pool, before anything is computed.
 *
 * The files must be distinct: a file given twice (the same path, another
 * path to it, or a copy) would pool its trials twice, doubling n and
 * making every p-value smaller than the data allow.
 *
 * The records must be too, whatever the files' bytes (a copy with one
 * blank line more, `cat a a`): one record per (run, variant, path, cell,
 * boot, trial).  And a config (a column) is of one run unless --pool
 * says otherwise: the boots of one run are the unit of replication, and
 * two runs (another day, another commit of the series) are not more
 * boots of the same thing.  The Dec 6 audit (issue 34) pooled 7 runs as
 * "2 boots x 14 trials" and two versions of a series under one name.
 * Columns of different runs side by side are a comparison, not a pool
 * (--by file: monday.jsonl against tuesday.jsonl).
 */
#ifndef ABTOOL_INPUTS_H
#define ABTOOL_INPUTS_H

#include <stdbool.h>
#include <stddef.h>

#include "report.h"
#include "results.h"

/*
 * 0, or -EINVAL with a one-line reason in @err when two of @paths are the
 * same file (device and inode), have the same content (size and a 64-bit
 * FNV-1a hash of the bytes), or "-" (stdin) appears twice.  Paths that
 * cannot be read are left for the reader to report.
 */
int inputs_check_distinct(char *const *paths, size_t n, char *err,
			  size_t errlen);

/* What inputs_check_records() enforces beyond distinct records. */
struct inputs_rules {
	bool pool;		/* --pool: a column of several runs or commits */
	enum report_by by;	/* what makes a column; --by file: each file
				 * must hold one config */
};

/*
 * 0, or -EINVAL with a one-line reason naming files and lines in @err
 * when: a file holds no record; two records have the same variant,
 * path, cell, boot and trial and come from the same run (the same
 * run_id, or neither has one and their dates agree; records without
 * boot and trial ids are told apart by their dates alone); a column
 * (config, as rules->by labels it) holds trials of more than one run or
 * series commit (unless rules->pool); --by file and a file holds more
 * than one variant/path.
 */
int inputs_check_records(const struct trial_set *set,
			 const struct inputs_rules *rules,
			 char *err, size_t errlen);

#endif
