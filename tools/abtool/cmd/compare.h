/* SPDX-License-Identifier: GPL-2.0 */
#ifndef ABTOOL_COMPARE_H
#define ABTOOL_COMPARE_H

/*
 * abtool compare [options] FILE.json...: compare trial records (see
 * abtool-compare(1)).  @argv[0] is the subcommand name.  Returns the exit
 * status: 0, 1 on a run-time error, 2 on a usage error.
 */
int cmd_compare(int argc, char **argv);
/*
 * abtool replicate [options] RUN_A RUN_B: each verdict of one run beside
 * the other's (replicate.h); compare's options that decide a verdict.
 * Returns 0, 5 when a verdict reverses, 1 on a refusal or error, 2 on
 * a usage error.
 */
int cmd_replicate(int argc, char **argv);

#endif
