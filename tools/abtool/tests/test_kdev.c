// SPDX-License-Identifier: GPL-2.0
/*
 * The in-kernel baselines' setup, host-side (no driver is touched): the
 * target -> driver table, what null_blk and md are told, the checks on
 * bad input, and the backing media's checks.  The drivers themselves run
 * in a guest (docs/abtool.md, "In-kernel rows").
 */
#include <errno.h>
#include <linux/loop.h>
#include <linux/raid/md_p.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "kselftest_harness.h"
#include "backing.h"
#include "kdev.h"
#include "kdev_md.h"
#include "kdev_null_blk.h"

static char err[256];

TEST(each_target_has_its_driver)
{
	EXPECT_STREQ("null_blk", kdev_find("null")->driver);
	EXPECT_STREQ("loop-dio", kdev_find("loop")->driver);
	EXPECT_STREQ("md-raid1", kdev_find("mirror")->driver);
	EXPECT_STREQ("md-raid0", kdev_find("stripe")->driver);
	EXPECT_EQ(NULL, kdev_find("raid5"));
	/* the same backing counts as the ublk targets */
	EXPECT_EQ(0, kdev_find("null")->max_backing);
	EXPECT_EQ(1, kdev_find("loop")->min_backing);
	EXPECT_EQ(2, kdev_find("mirror")->min_backing);
	EXPECT_EQ(8, kdev_find("stripe")->max_backing);
}

TEST(bad_targets_and_backing_counts_are_refused)
{
	struct kdev_config c = { .size = 64 << 20, .depth = 16, .nr_backing = 1,
				 .backing = { "/nonexistent" } };
	struct kdev d;

	EXPECT_EQ(-EINVAL, kdev_create(&d, "raid5", &c, err, sizeof(err)));
	EXPECT_STREQ("no in-kernel driver for target 'raid5'", err);
	kdev_destroy(&d);
	EXPECT_EQ(-EINVAL, kdev_create(&d, "mirror", &c, err, sizeof(err)));
	EXPECT_STREQ("md-raid1 takes 2..8 backings, not 1", err);
	kdev_destroy(&d);
}

TEST(null_blk_attributes)
{
	struct kdev_config c = { .size = 64 << 20, .depth = 16,
				 .max_io_bytes = 512 << 10 };
	struct kdev_attr a[16];
	char all[512] = "";
	int n, i;

	n = kdev_null_blk_attrs(&c, a, 16, err, sizeof(err));
	ASSERT_EQ(9, n);
	for (i = 0; i < n; i++)
		snprintf(all + strlen(all), sizeof(all) - strlen(all), "%s=%s ",
			 a[i].name, a[i].val);
	/*
	 * MiB; blk-mq, one queue of the device's depth, inline, no memory,
	 * requests as large as ublk's
	 */
	EXPECT_STREQ("size=64 blocksize=512 queue_mode=2 submit_queues=1 "
		     "hw_queue_depth=16 irqmode=0 completion_nsec=0 "
		     "memory_backed=0 max_sectors=1024 ", all);
	c.size = (64 << 20) + 4096;
	EXPECT_EQ(-EINVAL, kdev_null_blk_attrs(&c, a, 16, err, sizeof(err)));
	EXPECT_NE(NULL, strstr(err, "whole MiB"));
	c.size = 64 << 20;
	c.depth = 0;
	EXPECT_EQ(-EINVAL, kdev_null_blk_attrs(&c, a, 16, err, sizeof(err)));
	c.depth = 16;
	c.max_io_bytes = 0;
	EXPECT_EQ(-EINVAL, kdev_null_blk_attrs(&c, a, 16, err, sizeof(err)));
	c.max_io_bytes = (512 << 10) + 512;
	EXPECT_EQ(-EINVAL, kdev_null_blk_attrs(&c, a, 16, err, sizeof(err)));
	EXPECT_NE(NULL, strstr(err, "whole pages"));
	c.max_io_bytes = 512 << 10;
	EXPECT_EQ(-ENOSPC, kdev_null_blk_attrs(&c, a, 2, err, sizeof(err)));
}

/* What mdadm --build --assume-clean puts in SET_ARRAY_INFO (Build.c) */
TEST(md_array_info_as_mdadm_build)
{
	mdu_array_info_t a;

	ASSERT_EQ(0, kdev_md_array_info(1, 2, 64 << 20, 0, 3, &a, err,
					sizeof(err)));
	EXPECT_EQ(1, a.level);
	EXPECT_EQ(2, a.raid_disks);
	EXPECT_EQ(2, a.nr_disks);
	EXPECT_EQ(2, a.active_disks);
	EXPECT_EQ(2, a.working_disks);
	EXPECT_EQ(0, a.failed_disks);
	EXPECT_EQ(0, a.spare_disks);
	EXPECT_EQ(1, a.not_persistent);		/* no superblock */
	EXPECT_EQ(1 << MD_SB_CLEAN, a.state);	/* no resync */
	EXPECT_EQ(65536, a.size);		/* KiB per leg */
	EXPECT_EQ(0, a.chunk_size);
	EXPECT_EQ(3, a.md_minor);
	/* raid0: the ublk stripe's default chunk, whole chunks per leg */
	ASSERT_EQ(0, kdev_md_array_info(0, 4, (64 << 20) + 4096, 0, 0, &a,
					err, sizeof(err)));
	EXPECT_EQ(0, a.level);
	EXPECT_EQ(4, a.raid_disks);
	EXPECT_EQ(64 << 10, a.chunk_size);
	EXPECT_EQ(65536, a.size);
	ASSERT_EQ(0, kdev_md_array_info(0, 2, 64 << 20, 128 << 10, 0, &a,
					err, sizeof(err)));
	EXPECT_EQ(128 << 10, a.chunk_size);
}

/*
 * The loop row covers the bytes the ublk rows get, not a whole ram disk:
 * brd's pages past them are unallocated, and writes that allocate them
 * made the row faster trial after trial (7.0k to 11.6k IOPS in a boot).
 */
TEST(loop_is_held_to_the_cell_size)
{
	struct loop_config lc;

	kdev_loop_config(&lc, 7, 64ull << 20);
	EXPECT_EQ(7, (int)lc.fd);
	EXPECT_EQ(64ull << 20, lc.info.lo_sizelimit);
	EXPECT_EQ(0ull, lc.info.lo_offset);
	EXPECT_EQ(512u, lc.block_size);
	EXPECT_EQ((unsigned int)LO_FLAGS_DIRECT_IO, lc.info.lo_flags);
	kdev_loop_config(&lc, 7, 0);
	EXPECT_EQ(0ull, lc.info.lo_sizelimit);
}

TEST(md_bad_input)
{
	mdu_array_info_t a;

	EXPECT_EQ(-EINVAL, kdev_md_array_info(5, 3, 64 << 20, 0, 0, &a, err,
					      sizeof(err)));
	EXPECT_STREQ("md level 5: only raid0 and raid1", err);
	EXPECT_EQ(-EINVAL, kdev_md_array_info(1, 1, 64 << 20, 0, 0, &a, err,
					      sizeof(err)));
	EXPECT_STREQ("md raid1 wants 2..8 legs, not 1", err);
	EXPECT_EQ(-EINVAL, kdev_md_array_info(0, 2, 64 << 20, 12288, 0, &a,
					      err, sizeof(err)));
	EXPECT_NE(NULL, strstr(err, "not a power of two"));
	EXPECT_EQ(-EINVAL, kdev_md_array_info(0, 2, 4096, 0, 0, &a, err,
					      sizeof(err)));
	EXPECT_NE(NULL, strstr(err, "out of range"));
}

TEST(tmpfs_backings_are_on_a_tmpfs)
{
	struct backing_set s;
	char dir[] = "/dev/shm/abtool-test-XXXXXX";
	struct stat st;

	EXPECT_EQ(NULL, backing_find("nvme"));
	ASSERT_NE(NULL, backing_find("tmpfs"));
	/* the record would say tmpfs: a directory elsewhere is refused */
	EXPECT_EQ(-EINVAL, backing_prepare(&s, backing_find("tmpfs"), 1,
					   1 << 20, "/proc", err, sizeof(err)));
	EXPECT_NE(NULL, strstr(err, "is not on a tmpfs"));
	if (!mkdtemp(dir))
		SKIP(return, "no /dev/shm here");
	ASSERT_EQ(0, backing_prepare(&s, backing_find("tmpfs"), 2, 2 << 20,
				     dir, err, sizeof(err))) TH_LOG("%s", err);
	ASSERT_EQ(2, s.nr);
	ASSERT_EQ(0, stat(s.path[1], &st));
	EXPECT_EQ(2 << 20, st.st_size);
	backing_release(&s);
	EXPECT_NE(0, stat(s.path[1], &st));
	rmdir(dir);
}

TEST(brd_backings_say_what_is_missing)
{
	struct backing_set s;
	struct stat st;

	if (!stat("/dev/ram0", &st))
		SKIP(return, "this host has ram disks");
	EXPECT_EQ(-ENOENT, backing_prepare(&s, backing_find("brd"), 1, 1 << 20,
					   "/tmp", err, sizeof(err)));
	EXPECT_NE(NULL, strstr(err, "modprobe brd"));
	EXPECT_EQ(-EINVAL, backing_prepare(&s, backing_find("brd"), 9, 1 << 20,
					   "/tmp", err, sizeof(err)));
}

TEST_HARNESS_MAIN
