/* SPDX-License-Identifier: GPL-2.0 */
#ifndef ABTOOL_RUN_H
#define ABTOOL_RUN_H

int cmd_run(int argc, char **argv);

#endif
