// SPDX-License-Identifier: GPL-2.0
/*
 * abtool replicate RUN_A RUN_B: does each verdict of one run hold in
 * another with other seeds (issue 34, item 4)?  report_replicate.h says
 * what replicates, runs.h what is refused.
 */
#include <limits.h>
#include <stdio.h>
#include <string.h>

#include "exit_codes.h"
#include "replicate.h"
#include "report_replicate.h"
#include "runs.h"

static int fail(const char *err)
{
	fprintf(stderr, "abtool replicate: %s\n", err);
	return AB_EXIT_FAIL;
}

/*
 * Both reports, B's with A's baseline and reference, so that each pair
 * is the same pair in both runs.
 */
static int build_both(const struct run_input *a, const struct run_input *b,
		      const struct report_opts *opts, struct report **ra,
		      struct report **rb, char *err, size_t errlen)
{
	struct report_opts o = *opts;
	int ret;

	o.command = NULL;
	ret = report_build(&a->set, &o, ra, err, errlen);
	if (ret)
		return ret;
	o.baseline = (*ra)->columns[0].label;
	o.reference = (*ra)->ref ? (*ra)->columns[(*ra)->ref_column].label :
				   "none";
	return report_build(&b->set, &o, rb, err, errlen);
}

int replicate_main(const char *run_a, const char *run_b,
		   const struct report_opts *opts, const char *command)
{
	struct run_input a = { 0 }, b = { 0 };
	struct report *ra = NULL, *rb = NULL;
	struct replicate_counts total;
	struct replicate_run xa, xb;
	char err[2 * PATH_MAX + 1024];
	int ret;

	ret = run_input_read(&a, run_a, opts->by, err, sizeof(err));
	if (!ret)
		ret = run_input_read(&b, run_b, opts->by, err, sizeof(err));
	if (!ret)
		ret = run_inputs_check_apart(&a, &b, err, sizeof(err));
	if (!ret)
		ret = build_both(&a, &b, opts, &ra, &rb, err, sizeof(err));
	if (ret) {
		ret = fail(err);
		goto out;
	}
	xa = (struct replicate_run){ .name = run_a, .r = ra };
	xb = (struct replicate_run){ .name = run_b, .r = rb };
	snprintf(xa.seeds, sizeof(xa.seeds), "%s", a.seeds);
	snprintf(xb.seeds, sizeof(xb.seeds), "%s", b.seeds);
	if (replicate_emit(stdout, &xa, &xb, command, &total) ||
	    fflush(stdout)) {
		ret = fail("writing stdout failed");
		goto out;
	}
	ret = total.n[REPL_REVERSED] ? AB_EXIT_REVERSED : AB_EXIT_OK;
out:
	report_free(ra);
	report_free(rb);
	run_input_release(&a);
	run_input_release(&b);
	return ret;
}
