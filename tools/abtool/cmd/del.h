/* SPDX-License-Identifier: GPL-2.0 */
#ifndef ABTOOL_DEL_H
#define ABTOOL_DEL_H

int cmd_del(int argc, char **argv);

#endif
