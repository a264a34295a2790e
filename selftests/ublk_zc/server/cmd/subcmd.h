/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A command line of subcommands ("PROG COMMAND [options]"): abtool's and
 * the selftests' server's, which offers a subset of abtool's commands.
 */
#ifndef SUBCMD_H
#define SUBCMD_H

#include <stddef.h>

struct subcommand {
	const char *name;
	int (*fn)(int argc, char **argv);
	const char *summary;
};

/*
 * Run the one of @cmds (@n of them) that argv[1] names, with its argv[0]
 * the command's name; usage errors name @prog.
 */
int subcmd_main(const char *prog, const struct subcommand *const *cmds,
		size_t n, int argc, char **argv);

#endif
