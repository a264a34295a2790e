// SPDX-License-Identifier: GPL-2.0
/* Dispatch "PROG COMMAND [options]" to a table of subcommands. */
#include <stdio.h>
#include <string.h>

#include "exit_codes.h"
#include "subcmd.h"

static void usage(FILE *f, const char *prog,
		  const struct subcommand *const *cmds, size_t n)
{
	size_t i;

	fprintf(f, "usage: %s COMMAND [options]   (%s COMMAND --help)\n",
		prog, prog);
	for (i = 0; i < n; i++)
		fprintf(f, "  %-10s %s\n", cmds[i]->name, cmds[i]->summary);
}

int subcmd_main(const char *prog, const struct subcommand *const *cmds,
		size_t n, int argc, char **argv)
{
	size_t i;

	if (argc < 2) {
		usage(stderr, prog, cmds, n);
		return AB_EXIT_USAGE;
	}
	if (!strcmp(argv[1], "-h") || !strcmp(argv[1], "--help")) {
		usage(stdout, prog, cmds, n);
		return AB_EXIT_OK;
	}
	for (i = 0; i < n; i++)
		if (!strcmp(argv[1], cmds[i]->name))
			return cmds[i]->fn(argc - 1, argv + 1);
	fprintf(stderr, "%s: unknown command '%s'\n", prog, argv[1]);
	usage(stderr, prog, cmds, n);
	return AB_EXIT_USAGE;
}
