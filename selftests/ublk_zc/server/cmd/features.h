/* SPDX-License-Identifier: GPL-2.0 */
#ifndef UZC_SRV_FEATURES_H
#define UZC_SRV_FEATURES_H

#include "subcmd.h"

int cmd_features(int argc, char **argv);

/* its entry in a command table (abtool, ublk_zc_srv) */
extern const struct subcommand subcmd_features;

#endif
