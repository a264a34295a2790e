// SPDX-License-Identifier: GPL-2.0
/*
 * The workload engine: determinism of the I/O sequence, and real runs
 * against temporary files (no ublk needed): write + verify-only, randrw
 * verify, corruption detection, same seed -> same bytes, counts.
 */
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "kselftest_harness.h"
#include "workload.h"

#define MIB	(1ULL << 20)

/* ---- the I/O sequence, no I/O ---- */

static void spec_mixed(struct wl_spec *s, uint64_t seed)
{
	wl_spec_init(s);
	s->rw = WL_RW_RANDRW;
	s->rwmixread = 70;
	s->seed = seed;
	s->offset = MIB;
}

TEST(same_seed_same_sequence_per_job)
{
	struct wl_gen a, b;
	struct wl_io x, y;
	struct wl_spec s;
	uint32_t job;
	int i;

	spec_mixed(&s, 1234);
	for (job = 0; job < 4; job++) {
		wl_gen_init(&a, &s, job, job * 1000, 1000);
		wl_gen_init(&b, &s, job, job * 1000, 1000);
		for (i = 0; i < 20000; i++) {
			wl_gen_next(&a, &x);
			wl_gen_next(&b, &y);
			ASSERT_EQ(x.write, y.write);
			ASSERT_EQ(x.offset, y.offset);
		}
	}
}

/* How many of the first @n I/Os differ between two generators. */
static int differing(struct wl_gen *a, struct wl_gen *b, int n)
{
	struct wl_io x, y;
	int i, diff = 0;

	for (i = 0; i < n; i++) {
		wl_gen_next(a, &x);
		wl_gen_next(b, &y);
		diff += x.write != y.write || x.offset != y.offset;
	}
	return diff;
}

TEST(different_seeds_and_jobs_differ)
{
	struct wl_spec s1, s2;
	struct wl_gen a, b;

	spec_mixed(&s1, 1);
	spec_mixed(&s2, 2);
	wl_gen_init(&a, &s1, 0, 0, 100000);
	wl_gen_init(&b, &s2, 0, 0, 100000);
	EXPECT_GT(differing(&a, &b, 1000), 900);
	/* two jobs on equal-sized slices must not mirror each other */
	wl_gen_init(&a, &s1, 0, 0, 100000);
	wl_gen_init(&b, &s1, 1, 0, 100000);
	EXPECT_GT(differing(&a, &b, 1000), 900);
}

TEST(offsets_aligned_and_inside_the_slice)
{
	static const uint32_t sizes[] = { 512, 4096, 65536 };
	struct wl_spec s;
	struct wl_gen g;
	struct wl_io io;
	uint64_t lo, hi, writes;
	int m, k, i;

	for (m = 0; m < WL_RW_NR; m++) {
		for (k = 0; k < 3; k++) {
			spec_mixed(&s, 99);
			s.rw = m;
			s.bs = sizes[k];
			wl_gen_init(&g, &s, 2, 300, 77);
			lo = s.offset + 300ULL * s.bs;
			hi = lo + 77ULL * s.bs;
			writes = 0;
			for (i = 0; i < 10000; i++) {
				wl_gen_next(&g, &io);
				ASSERT_EQ(0u, io.offset % s.bs);
				ASSERT_LE(lo, io.offset);
				ASSERT_GT(hi, io.offset);
				writes += io.write;
			}
			/* the harness's EXPECTs are not single statements */
			if (m == WL_RW_READ || m == WL_RW_RANDREAD) {
				EXPECT_EQ(0u, writes);
			} else if (m == WL_RW_WRITE || m == WL_RW_RANDWRITE) {
				EXPECT_EQ(10000u, writes);
			} else {	/* rwmixread=70: 3000 writes, roughly */
				EXPECT_LT(writes > 3000 ? writes - 3000 : 3000 - writes,
					  300u);
			}
		}
	}
}

TEST(sequential_walks_and_wraps)
{
	struct wl_spec s;
	struct wl_gen g;
	struct wl_io io;
	int i;

	wl_spec_init(&s);
	s.rw = WL_RW_WRITE;
	wl_gen_init(&g, &s, 0, 10, 5);
	for (i = 0; i < 12; i++) {
		wl_gen_next(&g, &io);
		EXPECT_EQ((10u + i % 5) * 4096, io.offset);
	}
}

TEST(random_offsets_cover_the_slice)
{
	struct wl_spec s;
	struct wl_gen g;
	struct wl_io io;
	char seen[64] = { 0 };
	int i, hit = 0;

	wl_spec_init(&s);
	s.rw = WL_RW_RANDREAD;
	wl_gen_init(&g, &s, 0, 0, 64);
	for (i = 0; i < 2000; i++) {
		wl_gen_next(&g, &io);
		seen[io.offset / 4096] = 1;
	}
	for (i = 0; i < 64; i++)
		hit += seen[i];
	EXPECT_EQ(64, hit);
}

TEST(slices_split_the_region_exactly)
{
	uint64_t blocks, first, n, next;
	uint32_t jobs, j;

	for (blocks = 1; blocks < 100; blocks++) {
		for (jobs = 1; jobs <= 8 && jobs <= blocks; jobs++) {
			next = 0;
			for (j = 0; j < jobs; j++) {
				wl_job_slice(blocks, jobs, j, &first, &n);
				ASSERT_EQ(next, first);
				ASSERT_GE(n, blocks / jobs);
				ASSERT_LE(n, blocks / jobs + 1);
				next = first + n;
			}
			ASSERT_EQ(blocks, next);
		}
	}
}

/* ---- real runs on temporary files ---- */

FIXTURE(files) {
	char dir[256];
	char a[300], b[300];
	struct wl_result res;
	char err[512];
};

FIXTURE_SETUP(files)
{
	const char *tmp = getenv("TMPDIR");

	snprintf(self->dir, sizeof(self->dir), "%s/abtool-wl-XXXXXX",
		 tmp && *tmp ? tmp : "/tmp");
	ASSERT_NE(NULL, mkdtemp(self->dir));
	snprintf(self->a, sizeof(self->a), "%s/a.img", self->dir);
	snprintf(self->b, sizeof(self->b), "%s/b.img", self->dir);
}

FIXTURE_TEARDOWN(files)
{
	unlink(self->a);
	unlink(self->b);
	rmdir(self->dir);
}

static int make_file(const char *path, uint64_t size)
{
	int fd = open(path, O_RDWR | O_CREAT | O_TRUNC, 0644);
	int ret;

	if (fd < 0)
		return -1;
	ret = ftruncate(fd, size);
	close(fd);
	return ret;
}

static int poke(const char *path, uint64_t off, const void *buf, size_t len)
{
	int fd = open(path, O_WRONLY);
	ssize_t n;

	if (fd < 0)
		return -1;
	n = pwrite(fd, buf, len, off);
	fsync(fd);
	close(fd);
	return n == (ssize_t)len ? 0 : -1;
}

static int peek(const char *path, uint64_t off, void *buf, size_t len)
{
	int fd = open(path, O_RDONLY);
	ssize_t n;

	if (fd < 0)
		return -1;
	n = pread(fd, buf, len, off);
	close(fd);
	return n == (ssize_t)len ? 0 : -1;
}

/* 1: same bytes, 0: differ, -1: error */
static int same_contents(const char *x, const char *y)
{
	char bx[65536], by[65536];
	FILE *fx = fopen(x, "r"), *fy = fopen(y, "r");
	size_t nx, ny;
	int same = 1;

	if (!fx || !fy) {
		if (fx)
			fclose(fx);
		if (fy)
			fclose(fy);
		return -1;
	}
	do {
		nx = fread(bx, 1, sizeof(bx), fx);
		ny = fread(by, 1, sizeof(by), fy);
		if (nx != ny || memcmp(bx, by, nx))
			same = 0;
	} while (same && nx);
	fclose(fx);
	fclose(fy);
	return same;
}

static void spec_basic(struct wl_spec *s, enum wl_rw rw, uint32_t iodepth,
		       uint32_t jobs, bool verify)
{
	wl_spec_init(s);
	s->rw = rw;
	s->iodepth = iodepth;
	s->jobs = jobs;
	s->verify = verify;
}

static void spec_verify_only(struct wl_spec *s, uint32_t jobs)
{
	wl_spec_init(s);
	s->verify_only = true;
	s->iodepth = 4;
	s->jobs = jobs;
}

TEST_F(files, write_then_verify_only)
{
	struct wl_result *r = &self->res;
	struct wl_spec s;

	ASSERT_EQ(0, make_file(self->a, 4 * MIB));
	spec_basic(&s, WL_RW_WRITE, 8, 2, true);
	ASSERT_EQ(0, wl_run(self->a, &s, r, self->err, sizeof(self->err)))
		TH_LOG("%s", self->err);
	EXPECT_EQ(1024u, r->write_ios);
	EXPECT_EQ(4 * MIB, r->bytes);
	EXPECT_EQ(0u, r->read_ios);
	EXPECT_EQ(r->ios, r->lat.count);
	EXPECT_EQ(r->ios, r->sqes);
	EXPECT_TRUE(r->uring_enters >= 1 && r->uring_enters <= r->sqes);
	EXPECT_TRUE(r->elapsed_ns > 0 && r->iops > 0);
	EXPECT_TRUE(r->lat_all.min_ns <= r->lat_all.p50_ns &&
		    r->lat_all.p50_ns <= r->lat_all.p99_ns &&
		    r->lat_all.p99_ns <= r->lat_all.p999_ns &&
		    r->lat_all.p999_ns <= r->lat_all.max_ns);
	EXPECT_EQ(0u, r->verify_errors);

	/* another job count: slices differ, the whole region is still read */
	spec_verify_only(&s, 3);
	ASSERT_EQ(0, wl_run(self->a, &s, r, self->err, sizeof(self->err)))
		TH_LOG("%s", self->err);
	EXPECT_EQ(0u, r->verify_errors) TH_LOG("%s", r->reported[0].what);
	EXPECT_EQ(4 * MIB, r->verified_bytes);
	EXPECT_EQ(4 * MIB, r->read_bytes);
	EXPECT_EQ(0u, r->write_ios);
}

TEST_F(files, randrw_verify_is_exact)
{
	struct wl_result *r = &self->res;
	struct wl_spec s;

	ASSERT_EQ(0, make_file(self->a, 2 * MIB));
	spec_basic(&s, WL_RW_RANDRW, 16, 2, true);
	s.size = 8 * MIB;	/* four passes' worth: blocks get rewritten */
	ASSERT_EQ(0, wl_run(self->a, &s, r, self->err, sizeof(self->err)))
		TH_LOG("%s", self->err);
	EXPECT_EQ(0u, r->verify_errors) TH_LOG("%s", r->reported[0].what);
	EXPECT_EQ(2048u, r->ios);
	EXPECT_TRUE(r->read_ios > 0 && r->write_ios > 0);
	EXPECT_EQ(r->read_bytes, r->verified_bytes);
	EXPECT_EQ(2 * MIB, r->prefill_bytes);

	/* whatever generation each block ended at, it reads back clean */
	spec_verify_only(&s, 1);
	ASSERT_EQ(0, wl_run(self->a, &s, r, self->err, sizeof(self->err)));
	EXPECT_EQ(0u, r->verify_errors) TH_LOG("%s", r->reported[0].what);
	EXPECT_EQ(2 * MIB, r->verified_bytes);
}

TEST_F(files, corruption_is_reported)
{
	struct wl_result *r = &self->res;
	unsigned char blk[4096];
	struct wl_spec s;

	ASSERT_EQ(0, make_file(self->a, 1 * MIB));
	spec_basic(&s, WL_RW_WRITE, 4, 1, true);
	ASSERT_EQ(0, wl_run(self->a, &s, r, self->err, sizeof(self->err)));

	/* a flipped payload byte in block 10, block 3's data over block 20 */
	ASSERT_EQ(0, peek(self->a, 10 * 4096 + 777, blk, 1));
	blk[0] ^= 0x20;
	ASSERT_EQ(0, poke(self->a, 10 * 4096 + 777, blk, 1));
	ASSERT_EQ(0, peek(self->a, 3 * 4096, blk, 4096));
	ASSERT_EQ(0, poke(self->a, 20 * 4096, blk, 4096));

	spec_verify_only(&s, 1);
	s.iodepth = 1;		/* in order, so the report order is known */
	ASSERT_EQ(0, wl_run(self->a, &s, r, self->err, sizeof(self->err)));
	EXPECT_EQ(2u, r->verify_errors);
	ASSERT_EQ(2u, r->nr_reported);
	EXPECT_EQ(10u * 4096, r->reported[0].offset);
	EXPECT_NE(NULL, strstr(r->reported[0].what, "payload byte +777"))
		TH_LOG("%s", r->reported[0].what);
	EXPECT_EQ(20u * 4096, r->reported[1].offset);
	EXPECT_NE(NULL, strstr(r->reported[1].what, "header offset"))
		TH_LOG("%s", r->reported[1].what);
	EXPECT_EQ(1 * MIB, r->verified_bytes);

	/* a region never written at all: every block is a mismatch */
	ASSERT_EQ(0, make_file(self->b, 64 * 1024));
	spec_verify_only(&s, 2);
	ASSERT_EQ(0, wl_run(self->b, &s, r, self->err, sizeof(self->err)));
	EXPECT_EQ(16u, r->verify_errors);
	EXPECT_EQ((unsigned int)WL_VERIFY_REPORT_MAX, r->nr_reported);
	EXPECT_NE(NULL, strstr(r->reported[0].what, "magic"));
}

TEST_F(files, same_seed_same_bytes)
{
	struct wl_result *r = &self->res;
	struct wl_spec s;
	int i;

	for (i = 0; i < 3; i++) {
		/* plain writes, verify patterns, then a mixed verify run */
		ASSERT_EQ(0, make_file(self->a, 1 * MIB));
		ASSERT_EQ(0, make_file(self->b, 1 * MIB));
		spec_basic(&s, i < 2 ? WL_RW_RANDWRITE : WL_RW_RANDRW, 8, 2,
			   i > 0);
		s.seed = 77;
		s.size = 2 * MIB;
		ASSERT_EQ(0, wl_run(self->a, &s, r, self->err, sizeof(self->err)));
		s.iodepth = 3;	/* other timing, same workload */
		ASSERT_EQ(0, wl_run(self->b, &s, r, self->err, sizeof(self->err)));
		EXPECT_EQ(1, same_contents(self->a, self->b)) TH_LOG("round %d", i);
		s.seed = 78;
		ASSERT_EQ(0, wl_run(self->b, &s, r, self->err, sizeof(self->err)));
		EXPECT_EQ(0, same_contents(self->a, self->b)) TH_LOG("round %d", i);
	}
}

TEST_F(files, submit_counts_are_exact)
{
	struct wl_result *r = &self->res;
	struct wl_spec s;

	ASSERT_EQ(0, make_file(self->a, 1 * MIB));
	/* iodepth 1: one io_uring_enter (submit + wait) per I/O */
	spec_basic(&s, WL_RW_READ, 1, 1, false);
	ASSERT_EQ(0, wl_run(self->a, &s, r, self->err, sizeof(self->err)));
	EXPECT_EQ(256u, r->ios);
	EXPECT_EQ(256u, r->sqes);
	EXPECT_EQ(256u, r->uring_enters);
	EXPECT_TRUE(r->has_uring_counts && r->has_hist);

	/* deeper: every SQE still counted once; enters bounded, not exact */
	spec_basic(&s, WL_RW_RANDREAD, 32, 1, false);
	ASSERT_EQ(0, wl_run(self->a, &s, r, self->err, sizeof(self->err)));
	EXPECT_EQ(256u, r->sqes);
	EXPECT_LE(r->uring_enters, 256u + 32);
	EXPECT_GE(r->uring_enters, 256u / 32);
}

TEST_F(files, runtime_and_ramp)
{
	struct wl_result *r = &self->res;
	struct wl_spec s;

	ASSERT_EQ(0, make_file(self->a, 2 * MIB));
	spec_basic(&s, WL_RW_RANDREAD, 4, 2, false);
	s.runtime_ms = 200;
	s.ramp_ms = 100;
	ASSERT_EQ(0, wl_run(self->a, &s, r, self->err, sizeof(self->err)));
	EXPECT_GT(r->ios, 0u);
	EXPECT_EQ(r->ios, r->lat.count);
	EXPECT_GE(r->elapsed_ns, 200000000u);
	EXPECT_LT(r->elapsed_ns, 3000000000u);
	EXPECT_GT(r->cpu_user_ns + r->cpu_sys_ns, 0u);
	/*
	 * the job threads' task-clock over the timed phase: no thread runs
	 * longer than the phase (getrusage was seen to break this in a
	 * 1-vCPU guest)
	 */
	EXPECT_GT(r->cpu_ns, 0u);
	if (r->cpu_from_perf) {
		EXPECT_LE(r->cpu_ns, s.jobs * (r->elapsed_ns + 10000000u));
	} else {
		EXPECT_EQ(r->cpu_user_ns + r->cpu_sys_ns, r->cpu_ns);
	}
}

TEST_F(files, fixedbufs_and_buffered)
{
	struct wl_result *r = &self->res;
	struct wl_spec s;

	ASSERT_EQ(0, make_file(self->a, 1 * MIB));
	spec_basic(&s, WL_RW_RANDRW, 8, 2, true);
	s.fixed_bufs = true;
	ASSERT_EQ(0, wl_run(self->a, &s, r, self->err, sizeof(self->err)))
		TH_LOG("%s", self->err);
	EXPECT_EQ(0u, r->verify_errors);
	EXPECT_EQ(256u, r->ios);

	spec_verify_only(&s, 1);
	s.direct = false;
	ASSERT_EQ(0, wl_run(self->a, &s, r, self->err, sizeof(self->err)));
	EXPECT_FALSE(r->direct);
	EXPECT_EQ(0u, r->verify_errors);
	EXPECT_EQ(1 * MIB, r->verified_bytes);
}

TEST_F(files, bad_targets_fail_with_a_message)
{
	struct wl_result *r = &self->res;
	struct wl_spec s;

	spec_basic(&s, WL_RW_READ, 1, 1, false);
	EXPECT_EQ(-1, wl_run(self->a, &s, r, self->err, sizeof(self->err)));
	EXPECT_NE(NULL, strstr(self->err, "a.img"));

	ASSERT_EQ(0, make_file(self->a, 64 * 1024));
	s.length = 1 * MIB;
	EXPECT_EQ(-1, wl_run(self->a, &s, r, self->err, sizeof(self->err)));
	EXPECT_NE(NULL, strstr(self->err, "past the end")) TH_LOG("%s", self->err);

	spec_basic(&s, WL_RW_READ, 1, 32, false);
	EXPECT_EQ(-1, wl_run(self->a, &s, r, self->err, sizeof(self->err)));
	EXPECT_NE(NULL, strstr(self->err, "one per job")) TH_LOG("%s", self->err);

	spec_basic(&s, WL_RW_READ, 1, 1, false);
	s.offset = 64 * 1024;
	EXPECT_EQ(-1, wl_run(self->a, &s, r, self->err, sizeof(self->err)));
	EXPECT_NE(NULL, strstr(self->err, "--offset")) TH_LOG("%s", self->err);
}

static void *stop_soon(void *arg)
{
	(void)arg;
	usleep(150 * 1000);
	wl_request_stop();
	return NULL;
}

TEST_F(files, stop_request_ends_a_long_run)
{
	struct wl_result *r = &self->res;
	struct wl_spec s;
	pthread_t t;

	/* the harness forks per test, so the sticky stop stays here */
	ASSERT_EQ(0, make_file(self->a, 1 * MIB));
	spec_basic(&s, WL_RW_RANDREAD, 4, 2, false);
	s.runtime_ms = 60000;
	ASSERT_EQ(0, pthread_create(&t, NULL, stop_soon, NULL));
	ASSERT_EQ(0, wl_run(self->a, &s, r, self->err, sizeof(self->err)));
	pthread_join(t, NULL);
	EXPECT_GT(r->ios, 0u);
	EXPECT_LT(r->elapsed_ns, 5000000000u);
}

TEST_F(files, result_as_json)
{
	struct wl_result *r = &self->res;
	struct json_object *o, *v;
	struct wl_spec s;

	ASSERT_EQ(0, make_file(self->a, 256 * 1024));
	spec_basic(&s, WL_RW_RANDRW, 4, 1, true);
	ASSERT_EQ(0, wl_run(self->a, &s, r, self->err, sizeof(self->err)));
	o = wl_result_to_json(r, &s);
	ASSERT_NE(NULL, o);
	ASSERT_TRUE(json_object_object_get_ex(o, "ios", &v));
	EXPECT_EQ(r->ios, json_object_get_uint64(v));
	ASSERT_TRUE(json_object_object_get_ex(o, "lat_ns", &v));
	ASSERT_TRUE(json_object_object_get_ex(v, "p99.9", &v));
	EXPECT_EQ(r->lat_all.p999_ns, json_object_get_uint64(v));
	ASSERT_TRUE(json_object_object_get_ex(o, "verify", &v));
	ASSERT_TRUE(json_object_object_get_ex(v, "errors", &v));
	EXPECT_EQ(0u, json_object_get_uint64(v));
	ASSERT_TRUE(json_object_object_get_ex(o, "spec", &v));
	ASSERT_TRUE(json_object_object_get_ex(v, "rw", &v));
	EXPECT_STREQ("randrw", json_object_get_string(v));
	json_object_put(o);
}

TEST_HARNESS_MAIN
