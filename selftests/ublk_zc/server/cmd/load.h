/* SPDX-License-Identifier: GPL-2.0 */
#ifndef UZC_SRV_LOAD_H
#define UZC_SRV_LOAD_H

#include "subcmd.h"

/*
 * abtool load [options] DEV_OR_FILE: run the workload engine (or fio with
 * --fio) on a device or file and print the result.  Exit status: 0, 1 on
 * failure, 2 on bad arguments, 3 on verify mismatches.
 */
int cmd_load(int argc, char **argv);

/* its entry in a command table (abtool, ublk_zc_srv) */
extern const struct subcommand subcmd_load;

#endif
