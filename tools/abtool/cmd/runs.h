/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The two runs `abtool replicate` sets side by side, and what it refuses
 * of them (issue 34, item 4).  A run is a result directory of `make ab`
 * (its trials-*.jsonl, in name order) or one JSON-lines file, and holds
 * one run: the records of one run_id (inputs.h's rules apply to each
 * side as to compare's inputs, --pool aside).
 *
 * Two runs must be two: not the same run_id, not the same files or
 * records (a copy), and not the same workload seeds, which would
 * replay the same offsets and bytes.  Records from before the "seed"
 * field cannot show their seeds; the report then says so (seeds "not
 * recorded") rather than guessing.
 */
#ifndef ABTOOL_RUNS_H
#define ABTOOL_RUNS_H

#include <stddef.h>

#include "report.h"
#include "results.h"

struct run_input {
	const char *arg;	/* what was given */
	char **files;		/* the files read */
	size_t nr_files;
	struct trial_set set;
	/* its seeds for the report: "1..8", "9 distinct in 1..40", or
	 * "not recorded (...)" */
	char seeds[160];
};

/*
 * Read run @arg (a directory or a file) into @in.  0, or a negative
 * errno with a one-line reason in @err: nothing to read, a bad record,
 * the input rules of compare (inputs.h, records of @by columns), or
 * records of more than one run_id.
 */
int run_input_read(struct run_input *in, const char *arg, enum report_by by,
		   char *err, size_t errlen);
/*
 * 0, or -EINVAL with the reason in @err when @a and @b are not two
 * runs: the same run_id, a file of one is a file (or copy) of the
 * other, a record of one is a record of the other, or they share a
 * workload seed (when both record every seed).
 */
int run_inputs_check_apart(const struct run_input *a,
			   const struct run_input *b, char *err,
			   size_t errlen);
void run_input_release(struct run_input *in);

#endif
