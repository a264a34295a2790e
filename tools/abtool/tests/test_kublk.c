// SPDX-License-Identifier: GPL-2.0
/*
 * kublk.c host-side: the configs, which cells kublk can serve, its
 * command lines, what `kublk add` prints, the default path, and the
 * add/del plumbing against a stand-in script (no ublk device is made).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "kselftest_harness.h"

#include "uapi/base.h"
#include "uapi/regbuf.h"

#include "kublk.h"

#ifndef UBLK_F_BATCH_IO
#define UBLK_F_BATCH_IO		(1ULL << 15)
#endif

/* `kublk add -t loop -q 1 -d 16 -z FILE` on 7.3, as ublk_ctrl_dump() prints */
static const char add_out[] =
	"dev id 3: nr_hw_queues 1 queue_depth 16 block size 512 dev_capacity 131072\n"
	"\tmax rq size 1048576 daemon pid 4242 flags 0x842 state LIVE\n"
	"\tqueue 0: affinity(0 1 )\n";

TEST(parse_add_output)
{
	int id = -1;
	pid_t pid = -1;

	ASSERT_EQ(0, kublk_parse_add(add_out, &id, &pid));
	EXPECT_EQ(3, id);
	EXPECT_EQ(4242, pid);
	/* a stripe device's target line first, no trailing newline */
	ASSERT_EQ(0, kublk_parse_add("ublk_stripe_tgt_init: shift 16 files 2\n"
				     "dev id 12: nr_hw_queues 1 queue_depth 16\n"
				     "\tmax rq size 1048576 daemon pid 7 flags 0x0 state LIVE",
				     &id, &pid));
	EXPECT_EQ(12, id);
	EXPECT_EQ(7, pid);
	/* what a failed add leaves: nothing is taken from it */
	id = pid = -1;
	EXPECT_EQ(-EINVAL, kublk_parse_add("", &id, &pid));
	EXPECT_EQ(-EINVAL, kublk_parse_add("__cmd_dev_add: can't add dev id -1, "
					   "type loop ret -22\n", &id, &pid));
	EXPECT_EQ(-EINVAL, kublk_parse_add("dev id 3: nr_hw_queues 1\n", &id, &pid));
	EXPECT_EQ(-EINVAL, kublk_parse_add("\tmax rq size 1 daemon pid 9\n", &id, &pid));
	EXPECT_EQ(-EINVAL, kublk_parse_add("dev id -1: x\n daemon pid 9\n", &id, &pid));
	EXPECT_EQ(-1, id);
	EXPECT_EQ(-1, pid);
}

TEST(configs_and_probe)
{
	const struct kublk_config *z = kublk_config_find("kublk-z");
	const struct kublk_config *a = kublk_config_find("kublk-auto_zc");
	const struct kublk_config *b = kublk_config_find("kublk-batch");
	char why[256];

	ASSERT_NE(NULL, z);
	ASSERT_NE(NULL, a);
	ASSERT_NE(NULL, b);
	EXPECT_EQ(NULL, kublk_config_find("regbuf"));
	EXPECT_EQ(z, kublk_config_of(&z->row));
	EXPECT_EQ(NULL, kublk_config_of(NULL));
	/* 7.3: all three */
	EXPECT_EQ(0, kublk_probe(z, UBLK_F_SUPPORT_ZERO_COPY |
				 UBLK_F_AUTO_BUF_REG | UBLK_F_BATCH_IO, why,
				 sizeof(why)));
	EXPECT_EQ(0, kublk_probe(b, UBLK_F_AUTO_BUF_REG | UBLK_F_BATCH_IO,
				 why, sizeof(why)));
	/* splice-rsrc's bit 0 is not REGISTER_IO_BUF */
	EXPECT_EQ(-EOPNOTSUPP, kublk_probe(z, UBLK_F_SUPPORT_ZERO_COPY, why,
					   sizeof(why)));
	EXPECT_NE(NULL, strstr(why, "UBLK_F_AUTO_BUF_REG"));
	EXPECT_EQ(NULL, strstr(why, "ZERO_COPY"));
	/* the regbuf port: auto_zc, no batch */
	EXPECT_EQ(0, kublk_probe(a, UBLK_F_AUTO_BUF_REG, why, sizeof(why)));
	EXPECT_EQ(-EOPNOTSUPP, kublk_probe(b, UBLK_F_AUTO_BUF_REG, why,
					   sizeof(why)));
	EXPECT_NE(NULL, strstr(why, "UBLK_F_BATCH_IO"));
	EXPECT_NE(NULL, strstr(why, "-b"));
}

static struct kublk_cell cell(const char *target, unsigned int legs)
{
	static const char *const files[] = { "/t/b0", "/t/b1", "/t/b2",
		"/t/b3", "/t/b4", "/t/b5", "/t/b6", "/t/b7" };
	struct kublk_cell c = {
		.target = target, .nr_queues = 1, .depth = 16,
		.max_io_bytes = 512 << 10, .chunk = 64 << 10,
	};
	unsigned int i;

	for (i = 0; i < legs; i++)
		c.backing[c.nr_backing++] = files[i];
	return c;
}

TEST(cells_kublk_can_serve)
{
	struct kublk_cell c;
	char why[64];

	c = cell("null", 0);
	EXPECT_EQ(0, kublk_cell_check(&c, why, sizeof(why)));
	c = cell("loop", 1);
	EXPECT_EQ(0, kublk_cell_check(&c, why, sizeof(why)));
	c = cell("stripe", 4);
	EXPECT_EQ(0, kublk_cell_check(&c, why, sizeof(why)));
	c = cell("mirror", 2);
	EXPECT_EQ(-EOPNOTSUPP, kublk_cell_check(&c, why, sizeof(why)));
	EXPECT_STREQ("kublk has no mirror target", why);
	c = cell("stripe", 8);
	EXPECT_EQ(-EOPNOTSUPP, kublk_cell_check(&c, why, sizeof(why)));
	EXPECT_STREQ("kublk takes at most 4 backing files", why);
	/* loop at 2M: abtool's one request would be two of kublk's */
	c = cell("loop", 1);
	c.max_io_bytes = 2 << 20;
	EXPECT_EQ(-EOPNOTSUPP, kublk_cell_check(&c, why, sizeof(why)));
	EXPECT_STREQ("kublk's requests are at most 1024K, abtool's 2048K", why);
	c.max_io_bytes = 1 << 20;
	EXPECT_EQ(0, kublk_cell_check(&c, why, sizeof(why)));
	c.depth = 2048;
	EXPECT_EQ(-EOPNOTSUPP, kublk_cell_check(&c, why, sizeof(why)));
	c = cell("stripe", 2);
	c.chunk = 1 << 20;
	EXPECT_EQ(-EOPNOTSUPP, kublk_cell_check(&c, why, sizeof(why)));
	/* every reason fits a record's string */
	EXPECT_LT(strlen(why), 64);
}

static void expect_argv(struct __test_metadata *_metadata,
			const char *const *argv, const char *want)
{
	char got[512] = "";
	size_t i, used = 0;

	for (i = 0; argv[i]; i++)
		used += snprintf(got + used, sizeof(got) - used, "%s%s",
				 i ? " " : "", argv[i]);
	EXPECT_STREQ(want, got);
}

TEST(add_command_lines)
{
	struct kublk_argv_buf num;
	struct kublk_cell c;
	const char *argv[24];

	c = cell("loop", 1);
	ASSERT_EQ(10, kublk_add_argv("/k/kublk", kublk_config_find("kublk-z"),
				    &c, &num, argv, 24));
	expect_argv(_metadata, argv, "/k/kublk add -t loop -q 1 -d 16 -z /t/b0");
	c = cell("null", 0);
	c.depth = 64;
	ASSERT_EQ(9, kublk_add_argv("/k/kublk", kublk_config_find("kublk-auto_zc"),
				    &c, &num, argv, 24));
	expect_argv(_metadata, argv,
		    "/k/kublk add -t null -q 1 -d 64 --auto_zc");
	c = cell("stripe", 2);
	ASSERT_EQ(14, kublk_add_argv("/k/kublk", kublk_config_find("kublk-batch"),
				     &c, &num, argv, 24));
	expect_argv(_metadata, argv, "/k/kublk add -t stripe -q 1 -d 16 -b "
		    "--auto_zc --chunk_size 65536 /t/b0 /t/b1");
	/* no room: refused, not cut short */
	EXPECT_EQ(-E2BIG, kublk_add_argv("/k/kublk", kublk_config_find("kublk-batch"),
					 &c, &num, argv, 8));
}

TEST(default_path_is_in_the_tree)
{
	char buf[256];

	ASSERT_EQ(0, kublk_path_from_exe("/work/main/tools/abtool/abtool", buf,
					 sizeof(buf)));
	EXPECT_STREQ("/work/main/build/trees/upstream/tools/testing/selftests/"
		     "ublk/kublk", buf);
	EXPECT_EQ(-EINVAL, kublk_path_from_exe("abtool", buf, sizeof(buf)));
	EXPECT_EQ(-ENAMETOOLONG, kublk_path_from_exe("/a/b/c/d", buf, 16));
	ASSERT_EQ(0, kublk_default_path(buf, sizeof(buf)));
	EXPECT_NE(NULL, strstr(buf, KUBLK_TREE_PATH));
}

/*
 * A stand-in for kublk: "add" prints what kublk prints for device id 987
 * (one that does not exist here, so del finds it gone), or fails as
 * told by $0's name; "del" logs its arguments.
 */
static void write_script(struct __test_metadata *_metadata, const char *path,
			 const char *body)
{
	FILE *f = fopen(path, "w");

	ASSERT_NE(NULL, f);
	fprintf(f, "#!/bin/sh\n%s", body);
	fclose(f);
	ASSERT_EQ(0, chmod(path, 0755));
}

TEST(add_and_del_through_a_stand_in)
{
	char dir[] = "/tmp/abtool-kublk-XXXXXX", good[64], bad[64], log[64];
	char err[512] = "", body[512];
	struct kublk_cell c = cell("null", 0);
	struct kublk_dev d;
	char line[128] = "";
	FILE *f;

	ASSERT_NE(NULL, mkdtemp(dir));
	snprintf(good, sizeof(good), "%s/good", dir);
	snprintf(bad, sizeof(bad), "%s/bad", dir);
	snprintf(log, sizeof(log), "%s/log", dir);
	snprintf(body, sizeof(body),
		 "case $1 in\n"
		 "add) printf 'dev id 987: nr_hw_queues 1\\n\\tmax rq size 1048576 "
		 "daemon pid 55 flags 0x0 state LIVE\\n';;\n"
		 "del) echo \"$@\" > %s;;\n"
		 "esac\n", log);
	write_script(_metadata, good, body);
	write_script(_metadata, bad,
		     "echo 'partial'\nexit 3\n");

	ASSERT_EQ(0, kublk_add(good, kublk_config_find("kublk-z"), &c, &d, err,
			       sizeof(err))) TH_LOG("%s", err);
	EXPECT_EQ(987, d.id);
	EXPECT_EQ(55, d.daemon);
	EXPECT_STREQ("/dev/ublkb987", d.blk);
	EXPECT_EQ(0, kublk_del(good, &d, err, sizeof(err))) TH_LOG("%s", err);
	EXPECT_EQ(-1, d.id);
	f = fopen(log, "r");
	ASSERT_NE(NULL, f);
	EXPECT_NE(NULL, fgets(line, sizeof(line), f));
	fclose(f);
	EXPECT_STREQ("del -n 987\n", line);
	/* once deleted, nothing more to do */
	EXPECT_EQ(0, kublk_del(good, &d, err, sizeof(err)));
	EXPECT_STREQ("", err);
	/* kublk del failing (no inotify) on a device that is gone: a note */
	d.id = 987;
	EXPECT_EQ(0, kublk_del(bad, &d, err, sizeof(err)));
	EXPECT_STREQ("kublk del -n 987: status 3: partial, but the device is "
		     "gone", err);

	EXPECT_EQ(-EIO, kublk_add(bad, kublk_config_find("kublk-z"), &c, &d,
				  err, sizeof(err)));
	EXPECT_EQ(-1, d.id);
	EXPECT_NE(NULL, strstr(err, "`bad add -t null -q 1 -d 16 -z` exited 3: partial"))
		TH_LOG("%s", err);
	EXPECT_EQ(-ENOENT, kublk_add("/nonexistent/kublk",
				     kublk_config_find("kublk-z"), &c, &d, err,
				     sizeof(err)));
	EXPECT_STREQ("no kublk at /nonexistent/kublk", err);
	unlink(good);
	unlink(bad);
	unlink(log);
	rmdir(dir);
}

TEST_HARNESS_MAIN
