/* SPDX-License-Identifier: GPL-2.0 */
#ifndef ABTOOL_FEATURES_H
#define ABTOOL_FEATURES_H

int cmd_features(int argc, char **argv);

#endif
