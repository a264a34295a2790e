// SPDX-License-Identifier: GPL-2.0
/* parse_size: suffixes, case, overflow, junk. */
#include "kselftest_harness.h"
#include "size.h"

TEST(suffixes)
{
	uint64_t v;

	ASSERT_EQ(0, parse_size("4096", &v));
	EXPECT_EQ(4096, v);
	ASSERT_EQ(0, parse_size("4k", &v));
	EXPECT_EQ(4096, v);
	ASSERT_EQ(0, parse_size("64K", &v));
	EXPECT_EQ(65536, v);
	ASSERT_EQ(0, parse_size("1MiB", &v));
	EXPECT_EQ(1 << 20, v);
	ASSERT_EQ(0, parse_size("2gb", &v));
	EXPECT_EQ(2ULL << 30, v);
	ASSERT_EQ(0, parse_size("1T", &v));
	EXPECT_EQ(1ULL << 40, v);
}

TEST(rejects_junk_and_overflow)
{
	uint64_t v = 7;

	EXPECT_EQ(-EINVAL, parse_size("", &v));
	EXPECT_EQ(-EINVAL, parse_size("k", &v));
	EXPECT_EQ(-EINVAL, parse_size("-4k", &v));
	EXPECT_EQ(-EINVAL, parse_size("4q", &v));
	EXPECT_EQ(-EINVAL, parse_size("4kx", &v));
	EXPECT_EQ(-EINVAL, parse_size("99999999999999999999", &v));
	EXPECT_EQ(-EINVAL, parse_size("17000000000000000T", &v));
	EXPECT_EQ(-EINVAL, parse_size(NULL, &v));
	EXPECT_EQ(7, v);
}

TEST_HARNESS_MAIN
