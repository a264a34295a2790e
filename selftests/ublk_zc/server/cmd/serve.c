// SPDX-License-Identifier: GPL-2.0
/* abtool serve: run one ublk device in the foreground until a signal. */
#include <errno.h>
#include <getopt.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "exit_codes.h"
#include "prog.h"
#include "serve.h"
#include "size.h"
#include "ublk.h"

static volatile int serve_stop;

static void on_signal(int sig)
{
	(void)sig;
	serve_stop = 1;
}

static void serve_usage(FILE *f)
{
	fprintf(f,
"usage: %s serve -t TARGET [options]\n"
"Serve one ublk device in the foreground; SIGINT/SIGTERM stop and delete it.\n"
"  -t, --target NAME     target (below)\n"
"  -b, --backing FILE    backing file or block device (repeat for mirror/stripe)\n"
"  -p, --path NAME       data path (below; default copy)\n"
"  -q, --queues N        hardware queues (default 1)\n"
"  -d, --depth N         queue depth (default 64)\n"
"  -s, --size SIZE       device size (null: required; else default: backing)\n"
"      --chunk SIZE      stripe chunk (default 64K)\n"
"      --max-io SIZE     largest request (default 512K)\n"
"      --buffered        open backings without O_DIRECT\n"
"      --ready-fd FD     write the device id to FD once the device is live\n"
"targets:\n", prog_name());
	ublk_target_list(f);
	fprintf(f, "data paths:\n");
	ublk_path_list(f);
}

static int bad_arg(const char *fmt, const char *arg)
{
	fprintf(stderr, "%s serve: ", prog_name());
	fprintf(stderr, fmt, arg);
	fprintf(stderr, "\n");
	serve_usage(stderr);
	return AB_EXIT_USAGE;
}

static int parse_size_opt(const char *name, const char *arg, uint64_t *v)
{
	if (parse_size(arg, v) == 0)
		return 0;
	fprintf(stderr, "%s serve: --%s: '%s' is not a size\n", prog_name(),
		name, arg);
	return -1;
}

int cmd_serve(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "target", required_argument, NULL, 't' },
		{ "backing", required_argument, NULL, 'b' },
		{ "path", required_argument, NULL, 'p' },
		{ "queues", required_argument, NULL, 'q' },
		{ "depth", required_argument, NULL, 'd' },
		{ "size", required_argument, NULL, 's' },
		{ "chunk", required_argument, NULL, 'c' },
		{ "max-io", required_argument, NULL, 'm' },
		{ "buffered", no_argument, NULL, 'B' },
		{ "ready-fd", required_argument, NULL, 'r' },
		{ "help", no_argument, NULL, 'h' },
		{ 0 }
	};
	struct ublk_dev_config c = {
		.path = "copy", .nr_queues = 1, .depth = 64,
		.max_io_bytes = 512 << 10,
	};
	struct ublk_dev *d;
	uint64_t v;
	int opt, ready_fd = -1, ret;
	char err[256] = "";
	char *end;

	optind = 1;
	while ((opt = getopt_long(argc, argv, "t:b:p:q:d:s:h", opts, NULL)) != -1) {
		switch (opt) {
		case 't': c.target = optarg; break;
		case 'p': c.path = optarg; break;
		case 'b':
			if (c.tgt.nr_backing == UBLK_MAX_BACKINGS)
				return bad_arg("at most 8 backings, '%s' is one too many", optarg);
			c.tgt.backing[c.tgt.nr_backing++] = optarg;
			break;
		case 'q':
		case 'd':
			v = strtoul(optarg, &end, 10);
			if (*end || !v || v > UBLK_MAX_QUEUE_DEPTH)
				return bad_arg("'%s' is not a valid count", optarg);
			*(opt == 'q' ? &c.nr_queues : &c.depth) = v;
			break;
		case 's':
			if (parse_size_opt("size", optarg, &c.tgt.size))
				return AB_EXIT_USAGE;
			break;
		case 'c':
			if (parse_size_opt("chunk", optarg, &v))
				return AB_EXIT_USAGE;
			c.tgt.chunk = v;
			break;
		case 'm':
			if (parse_size_opt("max-io", optarg, &v))
				return AB_EXIT_USAGE;
			c.max_io_bytes = v;
			break;
		case 'B': c.tgt.buffered = true; break;
		case 'r': ready_fd = atoi(optarg); break;
		case 'h': serve_usage(stdout); return AB_EXIT_OK;
		default: serve_usage(stderr); return AB_EXIT_USAGE;
		}
	}
	if (optind < argc)
		return bad_arg("unexpected argument '%s'", argv[optind]);
	if (!c.target)
		return bad_arg("%s", "no target given (-t)");

	ublk_cleanup_stale(stderr);
	signal(SIGINT, on_signal);
	signal(SIGTERM, on_signal);

	d = calloc(1, sizeof(*d));
	if (!d)
		return AB_EXIT_FAIL;
	ret = ublk_dev_create(d, &c, err, sizeof(err));
	if (ret == -EOPNOTSUPP) {
		fprintf(stderr, "%s serve: skip: data path %s: %s\n",
			prog_name(), c.path, err);
		ublk_dev_destroy(d);
		free(d);
		return AB_EXIT_SKIP;
	}
	if (ret < 0) {
		fprintf(stderr, "%s serve: %s\n", prog_name(), err);
		ublk_dev_destroy(d);
		free(d);
		return AB_EXIT_FAIL;
	}
	fprintf(stderr, "%s serve: /dev/ublkb%d target=%s path=%s size=%llu queues=%u depth=%u\n",
		prog_name(), d->dev_id, c.target, c.path,
		(unsigned long long)d->tgt.dev_size, c.nr_queues, c.depth);
	ret = ublk_dev_run(d, &serve_stop, ready_fd);
	if (ret < 0)
		fprintf(stderr, "%s serve: ublk%d: %s\n", prog_name(),
			d->dev_id, strerror(-ret));
	ublk_dev_destroy(d);
	free(d);
	return ret < 0 ? AB_EXIT_FAIL : AB_EXIT_OK;
}

const struct subcommand subcmd_serve = {
	"serve", cmd_serve, "serve one ublk device in the foreground"
};
