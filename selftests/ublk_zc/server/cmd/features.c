// SPDX-License-Identifier: GPL-2.0
/* abtool features: what the running kernel offers to the data paths. */
#include <errno.h>
#include <json-c/json.h>
#include <stdio.h>
#include <string.h>
#include <sys/utsname.h>

#include "exit_codes.h"
#include "features.h"
#include "prog.h"
#include "ublk.h"
#include "uapi/regbuf.h"
#include "uapi/ublk_bpf.h"

static const struct { uint64_t bit; const char *name; } ublk_flag_names[] = {
	{ UBLK_F_SUPPORT_ZERO_COPY, "SUPPORT_ZERO_COPY" },
	{ UBLK_F_URING_CMD_COMP_IN_TASK, "URING_CMD_COMP_IN_TASK" },
	{ UBLK_F_NEED_GET_DATA, "NEED_GET_DATA" },
	{ UBLK_F_USER_RECOVERY, "USER_RECOVERY" },
	{ UBLK_F_USER_RECOVERY_REISSUE, "USER_RECOVERY_REISSUE" },
	{ UBLK_F_UNPRIVILEGED_DEV, "UNPRIVILEGED_DEV" },
	{ UBLK_F_CMD_IOCTL_ENCODE, "CMD_IOCTL_ENCODE" },
	{ UBLK_F_USER_COPY, "USER_COPY" },
	{ UBLK_F_ZONED, "ZONED" },
	{ UBLK_F_AUTO_BUF_REG, "AUTO_BUF_REG" },
	{ UBLK_F_REG_IO_BUF, "REG_IO_BUF" },
	{ UBLK_F_BPF, "BPF" },
};

/* io_uring opcodes the data paths use, by name */
static const struct { int op; const char *name; } uring_op_names[] = {
	{ IORING_OP_READ_FIXED, "READ_FIXED" },
	{ IORING_OP_WRITE_FIXED, "WRITE_FIXED" },
	{ IORING_OP_READ, "READ" },
	{ IORING_OP_WRITE, "WRITE" },
	{ IORING_OP_SPLICE, "SPLICE" },
	{ IORING_OP_SEND_ZC, "SEND_ZC" },
	{ IORING_OP_URING_CMD, "URING_CMD" },
};

static void print_text(const char *release, int ublk_ret, uint64_t features)
{
	unsigned int i;

	printf("kernel: %s\n", release);
	if (ublk_ret < 0)
		printf("ublk: unavailable (%s)\n", strerror(-ublk_ret));
	else
		printf("ublk features: 0x%llx\n", (unsigned long long)features);
	for (i = 0; ublk_ret >= 0 && i < sizeof(ublk_flag_names) / sizeof(ublk_flag_names[0]); i++)
		printf("  UBLK_F_%-24s %s\n", ublk_flag_names[i].name,
		       features & ublk_flag_names[i].bit ? "yes" : "no");
	printf("io_uring ops:\n");
	for (i = 0; i < sizeof(uring_op_names) / sizeof(uring_op_names[0]); i++)
		printf("  IORING_OP_%-22s %s\n", uring_op_names[i].name,
		       uring_op_supported(uring_op_names[i].op) ? "yes" : "no");
	printf("data paths:\n");
	for (i = 0; i < ublk_nr_paths; i++) {
		char why[128] = "";
		int ret = ublk_ret < 0 ? ublk_ret :
			  ublk_paths[i]->probe(features, why, sizeof(why));

		printf("  %-10s %s%s%s\n", ublk_paths[i]->name,
		       ret ? "no" : "yes", *why ? ": " : "", why);
	}
}

static void print_json(const char *release, int ublk_ret, uint64_t features)
{
	json_object *o = json_object_new_object(), *flags, *ops, *paths;
	unsigned int i;

	json_object_object_add(o, "kernel", json_object_new_string(release));
	json_object_object_add(o, "ublk", json_object_new_boolean(ublk_ret >= 0));
	json_object_object_add(o, "ublk_features",
			       json_object_new_uint64(ublk_ret >= 0 ? features : 0));
	flags = json_object_new_object();
	for (i = 0; i < sizeof(ublk_flag_names) / sizeof(ublk_flag_names[0]); i++)
		json_object_object_add(flags, ublk_flag_names[i].name,
			json_object_new_boolean(ublk_ret >= 0 &&
						(features & ublk_flag_names[i].bit)));
	json_object_object_add(o, "ublk_flags", flags);
	ops = json_object_new_object();
	for (i = 0; i < sizeof(uring_op_names) / sizeof(uring_op_names[0]); i++)
		json_object_object_add(ops, uring_op_names[i].name,
			json_object_new_boolean(uring_op_supported(uring_op_names[i].op)));
	json_object_object_add(o, "io_uring_ops", ops);
	paths = json_object_new_object();
	for (i = 0; i < ublk_nr_paths; i++) {
		char why[128] = "";
		int ret = ublk_ret < 0 ? ublk_ret :
			  ublk_paths[i]->probe(features, why, sizeof(why));

		json_object_object_add(paths, ublk_paths[i]->name,
				       json_object_new_boolean(ret == 0));
	}
	json_object_object_add(o, "data_paths", paths);
	printf("%s\n", json_object_to_json_string_ext(o, JSON_C_TO_STRING_PRETTY));
	json_object_put(o);
}

/* One line per data path abtool knows: "NAME yes" or "NAME no: why". */
static void print_paths(int ublk_ret, uint64_t features)
{
	unsigned int i;

	for (i = 0; i < ublk_nr_paths; i++) {
		char why[128] = "";
		int ret = ublk_ret < 0 ? ublk_ret :
			  ublk_paths[i]->probe(features, why, sizeof(why));

		if (ublk_ret < 0)
			snprintf(why, sizeof(why), "no ublk: %s", strerror(-ublk_ret));
		printf("%s %s%s%s\n", ublk_paths[i]->name, ret ? "no" : "yes",
		       *why ? ": " : "", why);
	}
}

int cmd_features(int argc, char **argv)
{
	bool json = false, paths = false;
	uint64_t features = 0;
	struct utsname u;
	int i, ret;

	for (i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--json")) {
			json = true;
		} else if (!strcmp(argv[i], "--paths")) {
			paths = true;
		} else if (!strcmp(argv[i], "-h") || !strcmp(argv[i], "--help")) {
			printf("usage: %s features [--json | --paths]\n"
			       "What the running kernel offers: ublk feature flags, io_uring ops,\n"
			       "and which data paths can run (--paths: one line per path).\n",
			       prog_name());
			return AB_EXIT_OK;
		} else {
			fprintf(stderr, "%s features: unknown argument '%s'\n"
				"usage: %s features [--json | --paths]\n",
				prog_name(), argv[i], prog_name());
			return AB_EXIT_USAGE;
		}
	}
	uname(&u);
	ret = ublk_features(&features);
	if (paths)
		print_paths(ret, features);
	else if (json)
		print_json(u.release, ret, features);
	else
		print_text(u.release, ret, features);
	return AB_EXIT_OK;
}

const struct subcommand subcmd_features = {
	"features", cmd_features, "what the running kernel offers"
};
