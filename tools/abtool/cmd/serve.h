/* SPDX-License-Identifier: GPL-2.0 */
#ifndef ABTOOL_SERVE_H
#define ABTOOL_SERVE_H

int cmd_serve(int argc, char **argv);

#endif
