// SPDX-License-Identifier: GPL-2.0
/* abtool: A/B measurements of ublk data paths across kernel variants. */
#include <stdio.h>
#include <string.h>

#include "compare.h"
#include "del.h"
#include "exit_codes.h"
#include "features.h"
#include "load.h"
#include "run.h"
#include "serve.h"

static const struct subcommand {
	const char *name;
	int (*fn)(int argc, char **argv);
	const char *summary;
} subcommands[] = {
	{ "serve", cmd_serve, "serve one ublk device in the foreground" },
	{ "run", cmd_run, "measure the matrix on every data path (JSON lines)" },
	{ "load", cmd_load, "run a workload on a device or file" },
	{ "compare", cmd_compare, "compare trials: tables, deltas, p-values, plots" },
	{ "features", cmd_features, "what the running kernel offers" },
	{ "del", cmd_del, "delete a ublk device, even one another process serves" },
};

static void usage(FILE *f)
{
	unsigned int i;

	fprintf(f, "usage: abtool COMMAND [options]   (abtool COMMAND --help)\n");
	for (i = 0; i < sizeof(subcommands) / sizeof(subcommands[0]); i++)
		fprintf(f, "  %-10s %s\n", subcommands[i].name,
			subcommands[i].summary);
}

int main(int argc, char **argv)
{
	unsigned int i;

	if (argc < 2) {
		usage(stderr);
		return AB_EXIT_USAGE;
	}
	if (!strcmp(argv[1], "-h") || !strcmp(argv[1], "--help")) {
		usage(stdout);
		return AB_EXIT_OK;
	}
	for (i = 0; i < sizeof(subcommands) / sizeof(subcommands[0]); i++)
		if (!strcmp(argv[1], subcommands[i].name))
			return subcommands[i].fn(argc - 1, argv + 1);
	fprintf(stderr, "abtool: unknown command '%s'\n", argv[1]);
	usage(stderr);
	return AB_EXIT_USAGE;
}
