/* SPDX-License-Identifier: GPL-2.0 */
#ifndef ABTOOL_REPLICATE_CMD_H
#define ABTOOL_REPLICATE_CMD_H

#include "report.h"

/*
 * abtool replicate's work, once compare's option parser has read the
 * options (cmd_replicate() in compare.c): read runs @run_a and @run_b
 * (runs.h), refuse them unless they are two runs, judge each with
 * @opts, and print each verdict of one beside the other's (report_replicate.h)
 * on stdout, headed by @command.  Returns the exit status:
 * AB_EXIT_OK, AB_EXIT_REVERSED when a verdict reverses, AB_EXIT_FAIL on
 * a refusal or an error (said on stderr).
 */
int replicate_main(const char *run_a, const char *run_b,
		   const struct report_opts *opts, const char *command);

#endif
