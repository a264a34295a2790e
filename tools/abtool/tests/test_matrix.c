// SPDX-License-Identifier: GPL-2.0
/* Run-matrix parsing: products, defaults, errors with line numbers. */
#include <string.h>

#include "kselftest_harness.h"
#include "matrix.h"
#include "ublk.h"

static struct matrix m;
static char err[256];

static int parse(const char *text)
{
	memset(&m, 0, sizeof(m));
	err[0] = '\0';
	return matrix_parse(&m, text, err, sizeof(err));
}

TEST(product_of_one_line)
{
	char name[64];

	ASSERT_EQ(0, parse("target=null,mirror-2 rw=randread,randwrite bs=4k,64k,512k iodepth=16"));
	ASSERT_EQ(12, m.nr);
	/* the last key varies fastest */
	matrix_cell_name(&m.cells[0], name, sizeof(name));
	EXPECT_STREQ("null randread 4K qd16", name);
	matrix_cell_name(&m.cells[1], name, sizeof(name));
	EXPECT_STREQ("null randread 64K qd16", name);
	matrix_cell_name(&m.cells[11], name, sizeof(name));
	/* the media is part of a cell with backings: tmpfs by default */
	EXPECT_STREQ("mirror-2@tmpfs randwrite 512K qd16", name);
	EXPECT_EQ(2, m.cells[11].legs);
	EXPECT_EQ(0, m.cells[0].legs);
}

TEST(lines_append_and_comments_are_ignored)
{
	ASSERT_EQ(0, parse("# a comment\n\ntarget=loop bs=1m # trailing\ntarget=stripe-4 jobs=2\n"));
	ASSERT_EQ(2, m.nr);
	EXPECT_STREQ("loop", m.cells[0].target);
	EXPECT_EQ(1, m.cells[0].legs);
	EXPECT_EQ(1u << 20, m.cells[0].bs);
	/* defaults: randread, 4K, QD16, one job */
	EXPECT_EQ(WL_RW_RANDREAD, m.cells[0].rw);
	EXPECT_EQ(16, m.cells[0].iodepth);
	EXPECT_EQ(4, m.cells[1].legs);
	EXPECT_EQ(2, m.cells[1].jobs);
	EXPECT_EQ(4096, m.cells[1].bs);
}

TEST(built_in_matrices_parse)
{
	ASSERT_EQ(0, parse(matrix_default));
	/*
	 * 3 targets x 2 rw x 3 bs, plus mirror-4 writes at 64K and 512K,
	 * plus loop and mirror-2 reads and writes at 64K on ram disks, plus
	 * loop reads and writes at 2M on a ram disk
	 */
	EXPECT_EQ(26, m.nr);
	EXPECT_STREQ("brd", m.cells[23].backing);
	EXPECT_EQ(2u << 20, m.cells[25].bs);
	EXPECT_STREQ("tmpfs", m.cells[19].backing);
	ASSERT_EQ(0, parse(matrix_quick));
	EXPECT_EQ(4, m.nr);
}

TEST(backing_is_a_key_and_null_has_none)
{
	char name[64];

	ASSERT_EQ(0, parse("target=null,loop,stripe-2 backing=tmpfs,brd bs=64k"));
	/* null once (no media), loop and stripe-2 on each medium */
	ASSERT_EQ(5, m.nr);
	EXPECT_STREQ("", m.cells[0].backing);
	matrix_cell_name(&m.cells[0], name, sizeof(name));
	EXPECT_STREQ("null randread 64K qd16", name);
	EXPECT_STREQ("tmpfs", m.cells[1].backing);
	matrix_cell_name(&m.cells[2], name, sizeof(name));
	EXPECT_STREQ("loop@brd randread 64K qd16", name);
	matrix_cell_name(&m.cells[4], name, sizeof(name));
	EXPECT_STREQ("stripe-2@brd randread 64K qd16", name);
	/* the key order does not matter */
	ASSERT_EQ(0, parse("backing=brd target=null,mirror-2"));
	ASSERT_EQ(2, m.nr);
	EXPECT_STREQ("", m.cells[0].backing);
	EXPECT_STREQ("brd", m.cells[1].backing);
	EXPECT_EQ(-EINVAL, parse("target=loop backing=nvme"));
	EXPECT_STREQ("line 1: bad backing value 'nvme'", err);
}

TEST(errors_name_the_line_and_value)
{
	EXPECT_EQ(-EINVAL, parse("target=null\ntarget=raid5"));
	EXPECT_STREQ("line 2: bad target value 'raid5'", err);
	EXPECT_EQ(-EINVAL, parse("bs=1000"));
	EXPECT_STREQ("line 1: bad bs value '1000'", err);
	EXPECT_EQ(-EINVAL, parse("colour=red"));
	EXPECT_STREQ("line 1: unknown key 'colour'", err);
	EXPECT_EQ(-EINVAL, parse("target"));
	EXPECT_STREQ("line 1: 'target' is not key=values", err);
	EXPECT_EQ(-EINVAL, parse("target=mirror"));
	EXPECT_EQ(-EINVAL, parse("target=mirror-1"));
	EXPECT_EQ(-EINVAL, parse("target=null-2"));
	EXPECT_EQ(-EINVAL, parse("iodepth=0"));
	EXPECT_EQ(-EINVAL, parse("rw=sideways"));
}

/* What a cell's target takes comes from its entry in the targets' table. */
TEST(targets_say_what_they_take)
{
	const struct ublk_target_ops *stripe = ublk_target_find("stripe");

	ASSERT_NE(NULL, stripe);
	EXPECT_EQ(0, ublk_target_find("null")->max_backing);
	/* the device's bytes: every leg's on stripe, one leg's on mirror */
	EXPECT_EQ(4, ublk_target_share(stripe, 4));
	EXPECT_EQ(1, ublk_target_share(ublk_target_find("mirror"), 4));
	EXPECT_EQ(1, ublk_target_share(ublk_target_find("null"), 0));
	ASSERT_EQ(0, parse("target=stripe-8,mirror-8 backing=brd"));
	EXPECT_EQ(8, m.cells[0].legs);
	EXPECT_EQ(-EINVAL, parse("target=stripe-9"));
	EXPECT_EQ(-EINVAL, parse("target=loop-1"));
	EXPECT_EQ(-EINVAL, parse("target=stripe"));
}

TEST(too_many_cells_is_an_error)
{
	EXPECT_EQ(-EINVAL, parse(
		"bs=1k,2k,3k,4k,5k,6k,7k,8k iodepth=1,2,3,4,5,6,7,8 jobs=1,2,3,4,5,6,7,8,9"));
	EXPECT_STREQ("line 1: more than 512 cells", err);
}

TEST_HARNESS_MAIN
