/* SPDX-License-Identifier: GPL-2.0 */
#ifndef ABTOOL_COMPARE_H
#define ABTOOL_COMPARE_H

/*
 * abtool compare [options] FILE.json...: compare trial records (see
 * abtool-compare(1)).  @argv[0] is the subcommand name.  Returns the exit
 * status: 0, 1 on a run-time error, 2 on a usage error.
 */
int cmd_compare(int argc, char **argv);

#endif
