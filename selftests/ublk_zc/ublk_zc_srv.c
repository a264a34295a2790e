// SPDX-License-Identifier: GPL-2.0
/*
 * ublk_zc_srv: the ublk server of the shell tests: abtool's serve, load,
 * features and del, built from the same sources (server/: the ublk
 * server library, the workload engine with its checksummed --verify
 * patterns, the commands).  The selftests carry them so that they run
 * in a kernel tree without the rest of the project, as selftests/ublk
 * carries kublk.
 */
#include "del.h"
#include "features.h"
#include "load.h"
#include "serve.h"
#include "subcmd.h"

static const struct subcommand *const subcommands[] = {
	&subcmd_serve, &subcmd_load, &subcmd_features, &subcmd_del,
};

int main(int argc, char **argv)
{
	return subcmd_main("ublk_zc_srv", subcommands,
			   sizeof(subcommands) / sizeof(subcommands[0]),
			   argc, argv);
}
