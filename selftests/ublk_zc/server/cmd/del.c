// SPDX-License-Identifier: GPL-2.0
/*
 * abtool del: delete a ublk device through the control path, whoever
 * serves it.  This is the "device deleted under I/O" fault of the
 * selftests: the kernel stops the disk (in-flight requests drain through
 * the live server), aborts the server's FETCH commands, and frees the
 * device once the server closes /dev/ublkcN.
 */
#include <errno.h>
#include <getopt.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "del.h"
#include "exit_codes.h"
#include "prog.h"
#include "ublk.h"

static void del_usage(FILE *f)
{
	fprintf(f,
"usage: %s del -n ID [--async]\n"
"Delete /dev/ublkbID (UBLK_U_CMD_DEL_DEV) even while another process serves it.\n"
"  -n, --number ID       device id\n"
"  -a, --async           do not wait until the server has closed /dev/ublkcID\n"
"                        (UBLK_U_CMD_DEL_DEV_ASYNC)\n", prog_name());
}

int cmd_del(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "number", required_argument, NULL, 'n' },
		{ "async", no_argument, NULL, 'a' },
		{ "help", no_argument, NULL, 'h' },
		{ 0 }
	};
	struct ublk_dev d = { .dev_id = -1, .ctrl_fd = -1 };
	bool async = false;
	int opt, ret;
	char *end;
	long id = -1;

	optind = 1;
	while ((opt = getopt_long(argc, argv, "n:ah", opts, NULL)) != -1) {
		switch (opt) {
		case 'n':
			id = strtol(optarg, &end, 10);
			if (*end || id < 0 || id > 0x7fffffff) {
				fprintf(stderr, "%s del: '%s' is not a device id\n",
					prog_name(), optarg);
				return AB_EXIT_USAGE;
			}
			break;
		case 'a': async = true; break;
		case 'h': del_usage(stdout); return AB_EXIT_OK;
		default: del_usage(stderr); return AB_EXIT_USAGE;
		}
	}
	if (id < 0 || optind < argc) {
		del_usage(stderr);
		return AB_EXIT_USAGE;
	}
	ret = ublk_ctrl_open(&d);
	if (ret < 0) {
		fprintf(stderr, "%s del: cannot open %s: %s\n",
			prog_name(), UBLK_CTRL_DEV, strerror(-ret));
		return AB_EXIT_FAIL;
	}
	d.dev_id = id;
	ret = async ? ublk_ctrl_del_async(&d) : ublk_ctrl_del(&d);
	ublk_ctrl_close(&d);
	if (ret < 0) {
		fprintf(stderr, "%s del: ublk%ld: %s\n", prog_name(), id,
			strerror(-ret));
		return AB_EXIT_FAIL;
	}
	return AB_EXIT_OK;
}

const struct subcommand subcmd_del = {
	"del", cmd_del, "delete a ublk device, even one another process serves"
};
