// SPDX-License-Identifier: GPL-2.0
/*
 * fio JSON parsing on canned output of fio 3.33 (tests/data/), and fio_run
 * against a temporary file when fio is installed.
 */
#include <fcntl.h>
#include <libgen.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "fio.h"

/*
 * TEST_F's wrapper keeps a pid across the harness's setjmp; gcc -O2
 * -Wextra flags it (a false positive: it is not modified after setjmp).
 */
#pragma GCC diagnostic ignored "-Wclobbered"
#include "kselftest_harness.h"

/* tests/data/ beside the test binary, wherever make runs it from */
static char *load_sample(const char *name)
{
	char exe[4096], path[4200], *text;
	ssize_t n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	long len;
	FILE *f;

	if (n < 0)
		return NULL;
	exe[n] = '\0';
	snprintf(path, sizeof(path), "%s/data/%s", dirname(exe), name);
	f = fopen(path, "r");
	if (!f)
		return NULL;
	fseek(f, 0, SEEK_END);
	len = ftell(f);
	rewind(f);
	text = calloc(1, len + 1);
	if (text && fread(text, 1, len, f) != (size_t)len) {
		free(text);
		text = NULL;
	}
	fclose(f);
	return text;
}

static bool near(double a, double b)
{
	return a > b ? a - b < 1e-6 * b + 1 : b - a < 1e-6 * b + 1;
}

TEST(grouped_randread)
{
	char *text = load_sample("fio-randread-grouped.json"), err[256];
	struct wl_result r;

	ASSERT_NE(NULL, text);
	ASSERT_EQ(0, fio_parse_json(text, &r, err, sizeof(err))) TH_LOG("%s", err);
	EXPECT_STREQ("fio", r.source);
	EXPECT_FALSE(r.has_hist);
	EXPECT_FALSE(r.has_uring_counts);
	EXPECT_TRUE(r.direct);
	EXPECT_EQ(512u, r.ios);
	EXPECT_EQ(512u, r.read_ios);
	EXPECT_EQ(0u, r.write_ios);
	EXPECT_EQ(2097152u, r.bytes);
	EXPECT_TRUE(near(r.iops, 15058.823529));
	EXPECT_TRUE(near(r.bw_bytes_per_s, 61680941));
	EXPECT_EQ(56000000u, r.elapsed_ns);
	/* one entry: fio's own clat percentiles, exactly */
	EXPECT_EQ(113152u, r.lat_read.p50_ns);
	EXPECT_EQ(12386304u, r.lat_read.p99_ns);
	EXPECT_EQ(13303808u, r.lat_read.p999_ns);
	EXPECT_EQ(26009u, r.lat_read.min_ns);
	EXPECT_EQ(13358371u, r.lat_read.max_ns);
	EXPECT_EQ(424940u, r.lat_read.mean_ns);
	EXPECT_EQ(r.lat_read.p99_ns, r.lat_all.p99_ns);
	EXPECT_EQ(0u, r.lat_write.p50_ns);
	/* usr 7.142857% and sys 5.357143% of 56 ms */
	EXPECT_TRUE(near(r.cpu_user_ns, 4000000));
	EXPECT_TRUE(near(r.cpu_sys_ns, 3000000));
	EXPECT_EQ(129u, r.ctx_switches);
	EXPECT_EQ(26u, r.page_faults);
	EXPECT_EQ(0u, r.verify_errors);
	EXPECT_EQ(0, r.error);
	free(text);
}

TEST(two_jobs_randrw_are_summed_and_merged)
{
	char *text = load_sample("fio-randrw-2jobs.json"), err[256];
	struct wl_result r;

	ASSERT_NE(NULL, text);
	ASSERT_EQ(0, fio_parse_json(text, &r, err, sizeof(err))) TH_LOG("%s", err);
	EXPECT_EQ(353u + 357, r.read_ios);
	EXPECT_EQ(159u + 155, r.write_ios);
	EXPECT_EQ(1445888u + 1462272, r.read_bytes);
	EXPECT_EQ(651264u + 634880, r.write_bytes);
	EXPECT_EQ(r.read_ios + r.write_ios, r.ios);
	EXPECT_TRUE(near(r.iops, 23533.333333 + 10600 + 23800 + 10333.333333));
	EXPECT_EQ(14000000u, r.elapsed_ns);
	EXPECT_TRUE(near(r.cpu_sys_ns, 2 * 4000000));
	EXPECT_EQ(121u + 113, r.ctx_switches);
	/* the merged median lies between the two jobs' medians */
	EXPECT_GE(r.lat_read.p50_ns, 152576u);
	EXPECT_LE(r.lat_read.p50_ns, 154624u);
	EXPECT_GE(r.lat_write.p50_ns, 259072u);
	EXPECT_LE(r.lat_write.p50_ns, 268288u);
	EXPECT_EQ(80u, r.lat_read.min_ns);
	EXPECT_EQ(1374162u, r.lat_write.max_ns);
	/* reads and writes together: between the read and write curves */
	EXPECT_GE(r.lat_all.p50_ns, r.lat_read.p50_ns);
	EXPECT_LE(r.lat_all.p50_ns, r.lat_write.p50_ns);
	EXPECT_LE(r.lat_all.p99_ns, r.lat_all.p999_ns);
	EXPECT_LE(r.lat_all.p999_ns, r.lat_all.max_ns);
	free(text);
}

TEST(verify_failure_sample)
{
	char *text = load_sample("fio-verify-error.json"), err[256];
	struct wl_result r;

	ASSERT_NE(NULL, text);
	/* the sample starts with fio's "fio: pid=..., err=84/..." line */
	ASSERT_NE('{', text[0]);
	ASSERT_EQ(0, fio_parse_json(text, &r, err, sizeof(err))) TH_LOG("%s", err);
	EXPECT_EQ(1u, r.verify_errors);
	EXPECT_EQ(0, r.error);
	EXPECT_EQ(3u, r.read_ios);
	free(text);
}

TEST(garbage_is_rejected)
{
	struct wl_result r;
	char err[256];

	EXPECT_EQ(-1, fio_parse_json("fio: no such file\n", &r, err, sizeof(err)));
	EXPECT_NE(NULL, strstr(err, "no JSON"));
	EXPECT_EQ(-1, fio_parse_json("{\"fio version\": \"x\"}", &r, err,
				     sizeof(err)));
	EXPECT_NE(NULL, strstr(err, "jobs"));
	EXPECT_EQ(-1, fio_parse_json("{\"jobs\": [ {\"read\": ", &r, err,
				     sizeof(err)));
}

FIXTURE(fio) {
	char dir[256], file[300];
};

static bool have_fio(void)
{
	const char *bin = getenv("ABTOOL_FIO");
	char cmd[512];

	snprintf(cmd, sizeof(cmd), "command -v '%s' >/dev/null 2>&1",
		 bin && *bin ? bin : "fio");
	return system(cmd) == 0;
}

FIXTURE_SETUP(fio)
{
	const char *tmp = getenv("TMPDIR");
	int fd;

	snprintf(self->dir, sizeof(self->dir), "%s/abtool-fio-XXXXXX",
		 tmp && *tmp ? tmp : "/tmp");
	ASSERT_NE(NULL, mkdtemp(self->dir));
	snprintf(self->file, sizeof(self->file), "%s/f.img", self->dir);
	fd = open(self->file, O_RDWR | O_CREAT, 0644);
	ASSERT_LE(0, fd);
	ASSERT_EQ(0, ftruncate(fd, 1 << 20));
	close(fd);
}

FIXTURE_TEARDOWN(fio)
{
	unlink(self->file);
	rmdir(self->dir);
}

TEST_F(fio, run_options_string)
{
	struct wl_result r;
	char err[512];

	if (!have_fio())
		SKIP(return, "fio is not installed");
	ASSERT_EQ(0, fio_run("--rw=randread --bs=4k --size=256k --ioengine=psync",
			     self->file, &r, err, sizeof(err)))
		TH_LOG("%s", err);
	EXPECT_EQ(64u, r.read_ios);
	EXPECT_EQ(262144u, r.bytes);
	EXPECT_GT(r.iops, 0);
	EXPECT_LE(r.lat_all.p50_ns, r.lat_all.p999_ns);
}

TEST_F(fio, run_verify_failure_is_counted)
{
	struct wl_result r;
	unsigned char junk[64];
	int fd, saved, devnull, ret;
	char err[512];

	if (!have_fio())
		SKIP(return, "fio is not installed");
	ASSERT_EQ(0, fio_run("--rw=write --bs=4k --size=64k --verify=crc32c --do_verify=0 --verify_state_save=0",
			     self->file, &r, err, sizeof(err)))
		TH_LOG("%s", err);
	EXPECT_EQ(0u, r.verify_errors);
	memset(junk, 0x5a, sizeof(junk));
	fd = open(self->file, O_WRONLY);
	ASSERT_LE(0, fd);
	ASSERT_EQ((ssize_t)sizeof(junk), pwrite(fd, junk, sizeof(junk), 8192 + 100));
	close(fd);
	/* fio's own complaint goes to stderr: keep it out of the TAP log */
	saved = dup(STDERR_FILENO);
	devnull = open("/dev/null", O_WRONLY);
	dup2(devnull, STDERR_FILENO);
	ret = fio_run("--rw=write --bs=4k --size=64k --verify=crc32c --verify_only --verify_state_save=0",
		      self->file, &r, err, sizeof(err));
	dup2(saved, STDERR_FILENO);
	close(saved);
	close(devnull);
	ASSERT_EQ(0, ret) TH_LOG("%s", err);
	EXPECT_EQ(1u, r.verify_errors);
}

TEST_F(fio, missing_binary_and_job)
{
	struct wl_result r;
	char err[512];

	setenv("ABTOOL_FIO", "/nonexistent/fio", 1);
	EXPECT_EQ(-1, fio_run("--rw=read", self->file, &r, err, sizeof(err)));
	EXPECT_NE(NULL, strstr(err, "could not be run")) TH_LOG("%s", err);
	unsetenv("ABTOOL_FIO");
	EXPECT_EQ(-1, fio_run("", self->file, &r, err, sizeof(err)));
	EXPECT_EQ(-1, fio_run("/nonexistent/job.fio", self->file, &r, err,
			      sizeof(err)));
}

TEST_HARNESS_MAIN
