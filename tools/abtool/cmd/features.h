/* SPDX-License-Identifier: GPL-2.0 */
#ifndef ABTOOL_FEATURES_H
#define ABTOOL_FEATURES_H

#include <stdbool.h>

int cmd_features(int argc, char **argv);
/* Whether io_uring on this kernel supports opcode op. */
bool uring_op_supported(int op);

#endif
