// SPDX-License-Identifier: GPL-2.0
/*
 * Golden-file tests of `abtool compare`, benchstat style: run the command
 * on the fixed trial files in tests/data/compare/, diff its output with
 * the checked-in report in tests/golden/.  Any change to a report's text
 * shows up here as a diff to review, not as a silent drift of the README
 * tables.
 *
 * The command runs from tests/ (found from /proc/self/exe), so the
 * "regenerate with:" line in each golden is the command that made it,
 * relative to tools/abtool/tests.
 *
 * Regenerate after an intended change, then review `git diff`:
 *
 *   make -C tools/abtool golden        # or: ABTOOL_UPDATE_GOLDEN=1 tests/test_golden
 */
#include <fcntl.h>
#include <libgen.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "kselftest_harness.h"

#include "compare.h"

#define SPLICE	"data/compare/trials-splice-rsrc.jsonl"
#define FUSED	"data/compare/trials-fused.jsonl"
#define OLD	"data/compare/old-format.jsonl"
#define KERNEL	"data/compare/trials-base-kernel.jsonl"

/* cd to the directory of this test binary: tools/abtool/tests */
static int chdir_tests(void)
{
	char exe[PATH_MAX];
	ssize_t len = readlink("/proc/self/exe", exe, sizeof(exe) - 1);

	if (len < 0)
		return -1;
	exe[len] = '\0';
	return chdir(dirname(exe));
}

static char *read_all(int fd)
{
	off_t len = lseek(fd, 0, SEEK_END);
	char *buf = calloc(1, (size_t)(len > 0 ? len : 0) + 1);

	if (buf && len > 0 && pread(fd, buf, (size_t)len, 0) != len) {
		free(buf);
		return NULL;
	}
	return buf;
}

/* cmd_compare(@args); its stdout as a string, stderr to /dev/null. */
static char *run(const char *const *args, int *status)
{
	char *argv[32], path[] = "/tmp/abtool-golden-XXXXXX", *text;
	int argc = 0, out, err, tmp, null;

	argv[argc++] = (char *)"compare";
	while (*args)
		argv[argc++] = (char *)*args++;
	argv[argc] = NULL;
	fflush(stdout);
	fflush(stderr);
	out = dup(STDOUT_FILENO);
	err = dup(STDERR_FILENO);
	tmp = mkstemp(path);
	null = open("/dev/null", O_WRONLY);
	dup2(tmp, STDOUT_FILENO);
	dup2(null, STDERR_FILENO);
	*status = cmd_compare(argc, argv);
	fflush(stdout);
	fflush(stderr);
	dup2(out, STDOUT_FILENO);
	dup2(err, STDERR_FILENO);
	text = read_all(tmp);
	close(out);
	close(err);
	close(tmp);
	close(null);
	unlink(path);
	return text;
}

static char *read_file(const char *path)
{
	int fd = open(path, O_RDONLY);
	char *text;

	if (fd < 0)
		return NULL;
	text = read_all(fd);
	close(fd);
	return text;
}

static int write_file(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");

	if (!f)
		return -1;
	fputs(text, f);
	return fclose(f);
}

/* `diff -u` of the golden and @got, into the test log. */
static void log_diff(struct __test_metadata *_metadata, const char *golden,
		     const char *got)
{
	char path[] = "/tmp/abtool-golden-got-XXXXXX", cmd[512], line[512];
	int fd = mkstemp(path);
	FILE *p;

	if (fd < 0)
		return;
	close(fd);
	write_file(path, got);
	snprintf(cmd, sizeof(cmd), "diff -u %s %s 2>&1 | head -60", golden,
		 path);
	p = popen(cmd, "r");
	while (p && fgets(line, sizeof(line), p))
		TH_LOG("%s", strtok(line, "\n") ? line : "");
	if (p)
		pclose(p);
	unlink(path);
}

static void check_golden(struct __test_metadata *_metadata,
			 const char *golden, const char *const *args)
{
	char *got, *want;
	int status;

	ASSERT_EQ(0, chdir_tests());
	got = run(args, &status);
	ASSERT_NE(NULL, got);
	ASSERT_EQ(0, status);
	if (getenv("ABTOOL_UPDATE_GOLDEN")) {
		ASSERT_EQ(0, write_file(golden, got));
		TH_LOG("wrote %s", golden);
		free(got);
		return;
	}
	want = read_file(golden);
	ASSERT_NE(NULL, want) TH_LOG("no %s: make golden", golden);
	/* not EXPECT_STREQ: it would print both reports whole */
	EXPECT_EQ(0, strcmp(want, got)) {
		log_diff(_metadata, golden, got);
		TH_LOG("intended? regenerate: make -C tools/abtool golden");
	}
	free(want);
	free(got);
}

/* The default report of a QUICK-shaped run: 4 configs, 3 metrics. */
TEST(golden_text_default)
{
	check_golden(_metadata, "golden/default.txt",
		     (const char *[]){ SPLICE, FUSED, NULL });
}

TEST(golden_markdown_default)
{
	check_golden(_metadata, "golden/default.md",
		     (const char *[]){ "-f", "markdown", SPLICE, FUSED,
				       NULL });
}

/* A README table: three configs in order, with the CI table. */
TEST(golden_text_configs_ci)
{
	check_golden(_metadata, "golden/configs-ci.txt",
		     (const char *[]){ "--configs",
				       "splice-rsrc/copy,splice-rsrc/splice,"
				       "fused/fused", "--ci", "-m",
				       "iops,lat_p99_us", SPLICE, FUSED,
				       NULL });
}

TEST(golden_markdown_configs)
{
	check_golden(_metadata, "golden/configs.md",
		     (const char *[]){ "-f", "markdown", "--configs",
				       "splice-rsrc/copy,splice-rsrc/splice,"
				       "fused/fused", "-m", "iops", SPLICE,
				       FUSED, NULL });
}

/* Files from before boot ids: still read, "boots not recorded". */
TEST(golden_text_old_format)
{
	check_golden(_metadata, "golden/old-format.txt",
		     (const char *[]){ OLD, NULL });
}

/* With the in-kernel row: the fraction tables under the main ones. */
TEST(golden_text_kernel_reference)
{
	check_golden(_metadata, "golden/kernel.txt",
		     (const char *[]){ KERNEL, NULL });
}

TEST(golden_markdown_kernel_reference)
{
	check_golden(_metadata, "golden/kernel.md",
		     (const char *[]){ "-f", "markdown", "-m", "iops", KERNEL,
				       NULL });
}

TEST_HARNESS_MAIN
