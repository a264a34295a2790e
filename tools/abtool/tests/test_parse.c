// SPDX-License-Identifier: GPL-2.0
/* Parsing of workload options: sizes, modes, durations, flags, errors. */
#include <errno.h>
#include <string.h>

#include "kselftest_harness.h"
#include "rw_mode.h"
#include "size.h"
#include "workload.h"

TEST(sizes_good)
{
	static const struct { const char *s; uint64_t v; } good[] = {
		{ "0", 0 }, { "4096", 4096 }, { "4k", 4096 }, { "4K", 4096 },
		{ "64K", 65536 }, { "1M", 1 << 20 }, { "2G", 2ULL << 30 },
		{ "1t", 1ULL << 40 }, { "4KiB", 4096 }, { "4kb", 4096 },
	};
	uint64_t v;
	size_t i;

	for (i = 0; i < sizeof(good) / sizeof(good[0]); i++) {
		ASSERT_EQ(0, parse_size(good[i].s, &v)) TH_LOG("%s", good[i].s);
		EXPECT_EQ(good[i].v, v) TH_LOG("%s", good[i].s);
	}
}

TEST(sizes_bad)
{
	static const char *const bad[] = {
		"", "k", "4x", "-4k", "4kk", "1.5M", " 4k", "4k ", "0x10",
		"99999999999999999999", "17179869184G",
	};
	uint64_t v;
	size_t i;

	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		EXPECT_EQ(-EINVAL, parse_size(bad[i], &v))
			TH_LOG("'%s'", bad[i] ? bad[i] : "(null)");
	EXPECT_EQ(-EINVAL, parse_size(NULL, &v));
}

TEST(modes)
{
	static const char *const names[] = {
		"read", "write", "randread", "randwrite", "rw", "randrw",
	};
	enum wl_rw rw;
	int i;

	for (i = 0; i < WL_RW_NR; i++) {
		ASSERT_EQ(0, wl_rw_parse(names[i], &rw));
		EXPECT_EQ(i, (int)rw);
		EXPECT_STREQ(names[i], wl_rw_name(rw));
	}
	ASSERT_EQ(0, wl_rw_parse("readwrite", &rw));
	EXPECT_EQ(WL_RW_RW, rw);
	EXPECT_EQ(-EINVAL, wl_rw_parse("random", &rw));
	EXPECT_EQ(-EINVAL, wl_rw_parse("", &rw));
	EXPECT_EQ(-EINVAL, wl_rw_parse("READ", &rw));
	EXPECT_EQ(-EINVAL, wl_rw_parse(NULL, &rw));

	EXPECT_TRUE(wl_rw_is_random(WL_RW_RANDRW));
	EXPECT_FALSE(wl_rw_is_random(WL_RW_RW));
	EXPECT_TRUE(wl_rw_is_mixed(WL_RW_RW));
	EXPECT_FALSE(wl_rw_does_write(WL_RW_RANDREAD));
	EXPECT_FALSE(wl_rw_does_read(WL_RW_WRITE));
	EXPECT_TRUE(wl_rw_does_read(WL_RW_RANDRW));
}

TEST(durations)
{
	static const struct { const char *s; uint64_t ms; } good[] = {
		{ "10", 10000 }, { "10s", 10000 }, { "500ms", 500 },
		{ "2m", 120000 }, { "1h", 3600000 }, { "2000us", 2 },
		{ "0", 0 }, { "3S", 3000 },
	};
	static const char *const bad[] = {
		"", "x", "10q", "1500us", "-1", "1.5s", "s", "10 s",
	};
	uint64_t ms;
	size_t i;

	for (i = 0; i < sizeof(good) / sizeof(good[0]); i++) {
		ASSERT_EQ(0, wl_parse_duration_ms(good[i].s, &ms))
			TH_LOG("%s", good[i].s);
		EXPECT_EQ(good[i].ms, ms) TH_LOG("%s", good[i].s);
	}
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		EXPECT_EQ(-EINVAL, wl_parse_duration_ms(bad[i], &ms))
			TH_LOG("'%s'", bad[i] ? bad[i] : "(null)");
}

TEST(numbers_and_booleans)
{
	uint64_t v;
	bool b;

	EXPECT_EQ(0, wl_parse_uint("42", 1, 100, &v));
	EXPECT_EQ(42u, v);
	EXPECT_EQ(-EINVAL, wl_parse_uint("0", 1, 100, &v));
	EXPECT_EQ(-EINVAL, wl_parse_uint("101", 1, 100, &v));
	EXPECT_EQ(-EINVAL, wl_parse_uint("4k", 1, 100000, &v));
	EXPECT_EQ(-EINVAL, wl_parse_uint("-1", 0, 100, &v));

	EXPECT_EQ(0, wl_parse_bool(NULL, &b));
	EXPECT_TRUE(b);
	EXPECT_EQ(0, wl_parse_bool("off", &b));
	EXPECT_FALSE(b);
	EXPECT_EQ(0, wl_parse_bool("Yes", &b));
	EXPECT_TRUE(b);
	EXPECT_EQ(0, wl_parse_bool("0", &b));
	EXPECT_FALSE(b);
	EXPECT_EQ(-EINVAL, wl_parse_bool("maybe", &b));
	EXPECT_EQ(-EINVAL, wl_parse_bool("", &b));
}

TEST(defaults)
{
	struct wl_spec s;
	char err[128];

	wl_spec_init(&s);
	EXPECT_EQ(WL_RW_READ, s.rw);
	EXPECT_EQ(4096u, s.bs);
	EXPECT_EQ(1u, s.iodepth);
	EXPECT_EQ(1u, s.jobs);
	EXPECT_EQ(1u, s.seed);
	EXPECT_TRUE(s.direct);
	EXPECT_FALSE(s.verify);
	EXPECT_EQ(0, wl_spec_check(&s, err, sizeof(err)));
}

TEST(options_by_name)
{
	struct wl_spec s;
	char err[256];

	wl_spec_init(&s);
	ASSERT_EQ(0, wl_parse_option(&s, "rw", "randrw", err, sizeof(err)));
	ASSERT_EQ(0, wl_parse_option(&s, "--bs", "64K", err, sizeof(err)));
	ASSERT_EQ(0, wl_parse_option(&s, "iodepth", "32", err, sizeof(err)));
	ASSERT_EQ(0, wl_parse_option(&s, "numjobs", "4", err, sizeof(err)));
	ASSERT_EQ(0, wl_parse_option(&s, "runtime", "10s", err, sizeof(err)));
	ASSERT_EQ(0, wl_parse_option(&s, "ramp_time", "500ms", err, sizeof(err)));
	ASSERT_EQ(0, wl_parse_option(&s, "size", "2G", err, sizeof(err)));
	ASSERT_EQ(0, wl_parse_option(&s, "seed", "18446744073709551615", err,
				     sizeof(err)));
	ASSERT_EQ(0, wl_parse_option(&s, "rwmixread", "70", err, sizeof(err)));
	ASSERT_EQ(0, wl_parse_option(&s, "offset", "1M", err, sizeof(err)));
	ASSERT_EQ(0, wl_parse_option(&s, "length", "1G", err, sizeof(err)));
	ASSERT_EQ(0, wl_parse_option(&s, "verify", NULL, err, sizeof(err)));
	ASSERT_EQ(0, wl_parse_option(&s, "direct", "0", err, sizeof(err)));
	ASSERT_EQ(0, wl_parse_option(&s, "fixedbufs", "on", err, sizeof(err)));

	EXPECT_EQ(WL_RW_RANDRW, s.rw);
	EXPECT_EQ(65536u, s.bs);
	EXPECT_EQ(32u, s.iodepth);
	EXPECT_EQ(4u, s.jobs);
	EXPECT_EQ(10000u, s.runtime_ms);
	EXPECT_EQ(500u, s.ramp_ms);
	EXPECT_EQ(2ULL << 30, s.size);
	EXPECT_EQ(UINT64_MAX, s.seed);
	EXPECT_EQ(70u, s.rwmixread);
	EXPECT_EQ(1u << 20, s.offset);
	EXPECT_EQ(1ULL << 30, s.length);
	EXPECT_TRUE(s.verify);
	EXPECT_FALSE(s.direct);
	EXPECT_TRUE(s.fixed_bufs);
	EXPECT_EQ(0, wl_spec_check(&s, err, sizeof(err))) TH_LOG("%s", err);
}

/* A bad value: -EINVAL, and a one-line message naming option and value. */
static void expect_bad(struct __test_metadata *_metadata, const char *name,
		       const char *value, const char *needle)
{
	struct wl_spec s;
	char err[256] = "";

	wl_spec_init(&s);
	EXPECT_EQ(-EINVAL, wl_parse_option(&s, name, value, err, sizeof(err)))
		TH_LOG("%s=%s", name, value);
	EXPECT_NE(NULL, strstr(err, needle)) TH_LOG("'%s' lacks '%s'", err, needle);
	EXPECT_EQ(NULL, strchr(err, '\n'));
}

TEST(options_bad_values_are_named)
{
	expect_bad(_metadata, "bs", "3x", "--bs: '3x' is not a size");
	expect_bad(_metadata, "bs", "1000", "--bs: 1000 is not a multiple of 512");
	expect_bad(_metadata, "bs", "0", "--bs");
	expect_bad(_metadata, "bs", "128M", "--bs");
	expect_bad(_metadata, "iodepth", "0", "--iodepth: '0'");
	expect_bad(_metadata, "iodepth", "100000", "--iodepth");
	expect_bad(_metadata, "jobs", "x", "--jobs");
	expect_bad(_metadata, "rw", "sideways", "--rw: 'sideways' is not one of");
	expect_bad(_metadata, "runtime", "soon", "--runtime: 'soon' is not a duration");
	expect_bad(_metadata, "rwmixread", "101", "--rwmixread");
	expect_bad(_metadata, "seed", "-1", "--seed");
	expect_bad(_metadata, "verify", "maybe", "--verify: 'maybe' is not a boolean");
	expect_bad(_metadata, "size", "", "--size: needs a value");
	expect_bad(_metadata, "size", NULL, "--size: needs a value");
	expect_bad(_metadata, "frobnicate", "1", "unknown workload option '--frobnicate'");
}

TEST(cross_option_checks)
{
	struct wl_spec s;
	char err[256];

	wl_spec_init(&s);
	s.verify_only = true;
	s.rw = WL_RW_WRITE;
	EXPECT_EQ(-EINVAL, wl_spec_check(&s, err, sizeof(err)));
	EXPECT_NE(NULL, strstr(err, "--verify-only"));

	wl_spec_init(&s);
	s.offset = 100;
	EXPECT_EQ(-EINVAL, wl_spec_check(&s, err, sizeof(err)));
	EXPECT_NE(NULL, strstr(err, "--offset"));

	wl_spec_init(&s);
	s.bs = 65536;
	s.length = 4096;
	EXPECT_EQ(-EINVAL, wl_spec_check(&s, err, sizeof(err)));
	EXPECT_NE(NULL, strstr(err, "--length"));
}

TEST(describe)
{
	struct wl_spec s;
	char buf[256];

	wl_spec_init(&s);
	s.rw = WL_RW_RANDRW;
	s.bs = 65536;
	s.iodepth = 32;
	s.jobs = 2;
	s.rwmixread = 70;
	s.runtime_ms = 10000;
	s.ramp_ms = 500;
	s.verify = true;
	wl_spec_describe(&s, buf, sizeof(buf));
	EXPECT_STREQ("randrw bs=64k iodepth=32 jobs=2 rwmixread=70 runtime=10s ramp=500ms seed=1 verify",
		     buf);
	wl_spec_describe(&s, buf, 10);		/* truncates, terminated */
	EXPECT_EQ(9u, strlen(buf));
}

TEST_HARNESS_MAIN
