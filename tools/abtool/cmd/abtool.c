// SPDX-License-Identifier: GPL-2.0
/* abtool: A/B measurements of ublk data paths across kernel variants. */
#include "compare.h"
#include "del.h"
#include "features.h"
#include "load.h"
#include "run.h"
#include "serve.h"
#include "subcmd.h"

static const struct subcommand subcmd_run = {
	"run", cmd_run, "measure the matrix on every data path (JSON lines)"
};
static const struct subcommand subcmd_compare = {
	"compare", cmd_compare, "compare trials: tables, deltas, p-values, plots"
};

static const struct subcommand subcmd_replicate = {
	"replicate", cmd_replicate,
	"do the verdicts of one run hold in another (two result dirs)"
};

static const struct subcommand *const subcommands[] = {
	&subcmd_serve, &subcmd_run, &subcmd_load, &subcmd_compare,
	&subcmd_replicate, &subcmd_features, &subcmd_del,
};

int main(int argc, char **argv)
{
	return subcmd_main("abtool", subcommands,
			   sizeof(subcommands) / sizeof(subcommands[0]),
			   argc, argv);
}
