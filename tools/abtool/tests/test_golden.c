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
#include <dirent.h>
#include <libgen.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "kselftest_harness.h"

#include <math.h>

#include "compare.h"
#include "helpers.h"
#include "plot.h"
#include "report.h"
#include "report_replicate.h"
#include "results.h"

#define SPLICE	"data/compare/trials-splice-rsrc.jsonl"
#define FUSED	"data/compare/trials-fused.jsonl"
#define OLD	"data/compare/old-format.jsonl"
#define KERNEL	"data/compare/trials-base-kernel.jsonl"
/* KERNEL with the audit's drifting loop@brd in-kernel row */
#define DRIFT	"data/compare/trials-drift-kernel.jsonl"
/* a run of 2 boots x 4 trials (make-n8-trials.py says what is in it) */
#define N8_BASE		"data/compare/trials-n8-base.jsonl"
#define N8_FUSED	"data/compare/trials-n8-fused.jsonl"
#define N8_SPLICE	"data/compare/trials-n8-splice-rsrc.jsonl"
#define N8_DUP		"data/compare/dup-n8-fused.jsonl"
#define N8_OTHER	"data/compare/other-run-n8-fused.jsonl"
#define N8_SPLICE2	"data/compare/commit2-n8-splice-rsrc.jsonl"
#define N8		N8_BASE, N8_FUSED, N8_SPLICE
#define NULL_PAIR	"base/user_copy,splice-rsrc/user_copy"
/* result directories of one run each (make-replicate-trials.py) */
#define RUN_A		"data/replicate/run-a"	/* seeds 1..8 */
#define RUN_B		"data/replicate/run-b"	/* A's claims, seeds 9.. */
#define RUN_C		"data/replicate/run-c"	/* 2 claims gone, no seeds */
#define RUN_D		"data/replicate/run-d"	/* a claim reversed */
#define RUN_E		"data/replicate/run-e"	/* B under A's seeds */
#define RUN_F		"data/replicate/run-f"	/* B, a drifting reference */

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

static char *run_for(const char *const *args, int *status, bool want_stderr)
{
	return capture_cmd(cmd_compare, "compare", args, status, want_stderr);
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

/*
 * The output of `abtool compare @args` against @golden: stdout and exit
 * 0, or with @refused what it says on stderr and exit 1.
 */
/* @got (freed) against @golden, or into it with ABTOOL_UPDATE_GOLDEN. */
static void compare_golden(struct __test_metadata *_metadata,
			   const char *golden, char *got)
{
	char *want;

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

static void check_output(struct __test_metadata *_metadata,
			 const char *golden, const char *const *args,
			 bool refused)
{
	char *got;
	int status;

	ASSERT_EQ(0, chdir_tests());
	got = run_for(args, &status, refused);
	ASSERT_NE(NULL, got);
	ASSERT_EQ(refused ? 1 : 0, status);
	compare_golden(_metadata, golden, got);
}

static void check_golden(struct __test_metadata *_metadata,
			 const char *golden, const char *const *args)
{
	check_output(_metadata, golden, args, false);
}

/* A refusal: exit status 1 and what stderr says, word for word. */
static void check_refusal(struct __test_metadata *_metadata,
			  const char *golden, const char *const *args)
{
	check_output(_metadata, golden, args, true);
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

/*
 * ---- issue 34, item 7: a reference must be steady to divide ----
 *
 * DRIFT is KERNEL but for one cell whose in-kernel trial 1 is 12.7%
 * above trial 0 in both boots: its fractions are marked and counted in
 * every format; KERNEL (golden_*_kernel_reference above) shows none.
 */
TEST(golden_text_drift)
{
	check_golden(_metadata, "golden/drift.txt",
		     (const char *[]){ "-m", "iops", DRIFT, NULL });
}

TEST(golden_markdown_drift)
{
	check_golden(_metadata, "golden/drift.md",
		     (const char *[]){ "-f", "markdown", "-m", "iops", DRIFT,
				       NULL });
}

TEST(golden_summary_drift)
{
	check_golden(_metadata, "golden/drift-summary.txt",
		     (const char *[]){ "-f", "summary", DRIFT, NULL });
}

/* The steady run's summary: no mark, no "!" column, no note. */
TEST(golden_summary_kernel_steady)
{
	check_golden(_metadata, "golden/kernel-summary.txt",
		     (const char *[]){ "-f", "summary", KERNEL, NULL });
}

/*
 * The cells of @file's fractions of iops (metric 0) whose reference is
 * unsteady at --steady @steady (NaN: the default), and in *@pair those
 * of the geomean of its column 1.
 */
static size_t unsteady_cells(struct __test_metadata *_metadata,
			     const char *file, double steady, size_t *pair)
{
	struct report *r = NULL;
	struct report_opts o;
	struct trial_set set;
	char err[512];
	size_t n = SIZE_MAX;

	trial_set_init(&set);
	report_opts_init(&o);
	if (!isnan(steady))
		o.steady_pct = steady;
	EXPECT_EQ(0, results_read_file(&set, file, err, sizeof(err)));
	EXPECT_EQ(0, report_build(&set, &o, &r, err, sizeof(err)))
		TH_LOG("%s", err);
	if (r && r->ref) {
		n = r->ref->metrics[0].unsteady_cells;
		*pair = r->ref->metrics[0].pairs[1].unsteady_cells;
		/* base/copy, the main table's A, is steady in both files */
		EXPECT_EQ(0, r->metrics[0].unsteady_cells);
	}
	report_free(r);
	trial_set_release(&set);
	return n;
}

/* `abtool compare -m iops -f @format @file`'s stdout */
static char *report_of(const char *format, const char *file)
{
	int status;

	return run_for((const char *[]){ "-m", "iops", "-f", format, file,
					 NULL }, &status, false);
}

TEST(unsteady_reference_is_marked_and_counted)
{
	char *csv, *json, *text;
	size_t pair = SIZE_MAX;

	ASSERT_EQ(0, chdir_tests());
	EXPECT_EQ(1, unsteady_cells(_metadata, DRIFT, NAN, &pair));
	EXPECT_EQ(1, pair);
	/* --steady above the drift: nothing to mark */
	EXPECT_EQ(0, unsteady_cells(_metadata, DRIFT, 15, &pair));
	EXPECT_EQ(0, unsteady_cells(_metadata, KERNEL, NAN, &pair));
	EXPECT_EQ(0, pair);

	csv = report_of("csv", DRIFT);
	json = report_of("json", DRIFT);
	ASSERT_NE(NULL, csv);
	ASSERT_NE(NULL, json);
	/* A's loop@brd row: its baseline steady, the reference not */
	EXPECT_NE(NULL, strstr(csv, ",0,1,1,,\n"));
	EXPECT_NE(NULL, strstr(json, "\"reference_unsteady\": true"));
	EXPECT_NE(NULL, strstr(json, "\"unsteady_cells\": 1"));
	free(csv);
	free(json);

	/* the steady run: no mark in any format */
	text = report_of("text", KERNEL);
	json = report_of("json", KERNEL);
	ASSERT_NE(NULL, text);
	ASSERT_NE(NULL, json);
	EXPECT_EQ(NULL, strchr(text, '!'));
	EXPECT_EQ(NULL, strstr(json, "\"reference_unsteady\": true"));
	free(text);
	free(json);
}

/*
 * ---- issue 34: verdicts that stand on their own, 8 trials a side ----
 */

/* The default report: every rule of the verdicts in one run. */
TEST(golden_n8_text)
{
	check_golden(_metadata, "golden/n8.txt", (const char *[]){ N8, NULL });
}

TEST(golden_n8_markdown)
{
	check_golden(_metadata, "golden/n8.md",
		     (const char *[]){ "-f", "markdown", "-m", "iops", N8,
				       NULL });
}

/*
 * What make ab ends with: one screen, naming where --outdir and --plot
 * wrote (a fixed place under /tmp, so the golden is the same each time;
 * removed after).
 */
#define SUMMARY_DIR	"/tmp/abtool-golden-summary"

TEST(golden_n8_summary)
{
	check_golden(_metadata, "golden/n8-summary.txt",
		     (const char *[]){ "-f", "summary", "--null", NULL_PAIR,
				       "--outdir", SUMMARY_DIR, "--plot",
				       SUMMARY_DIR "/plots", N8, NULL });
	EXPECT_EQ(0, system("rm -rf " SUMMARY_DIR));
}

/*
 * The audit's case: base/user_copy against splice-rsrc/user_copy alone,
 * then with base/copy and fused/fused as columns too.  The verdicts and
 * intervals of the pair are the same in both goldens (and the test
 * below checks every number).
 */
TEST(golden_n8_pair)
{
	check_golden(_metadata, "golden/n8-pair.txt",
		     (const char *[]){ "--configs", NULL_PAIR, "-m", "iops",
				       "--ci", N8, NULL });
}

TEST(golden_n8_pair_wide)
{
	check_golden(_metadata, "golden/n8-pair-wide.txt",
		     (const char *[]){ "--configs", NULL_PAIR
				       ",base/copy,fused/fused", "-m", "iops",
				       "--ci", N8, NULL });
}

/* The practical margin from the measured cross-kernel null. */
TEST(golden_n8_null_margin)
{
	check_golden(_metadata, "golden/n8-null.txt",
		     (const char *[]){ "--null", NULL_PAIR, "--margin", "0.5",
				       "--configs", "base/copy,"
				       "splice-rsrc/splice,fused/fused", "-m",
				       "iops", N8, NULL });
}

/* Counters the same in every trial: values, not tested. */
TEST(golden_n8_values)
{
	check_golden(_metadata, "golden/n8-values.txt",
		     (const char *[]){ "-m", "sqes_per_io,copied_bytes_per_io",
				       "--configs", "base/copy,base/user_copy,"
				       "splice-rsrc/splice", N8, NULL });
}

/* Two runs pooled because --pool says so: the header says so too. */
TEST(golden_n8_pooled)
{
	check_golden(_metadata, "golden/n8-pooled.txt",
		     (const char *[]){ "--pool", "-m", "iops", N8_FUSED,
				       N8_OTHER, NULL });
}

/*
 * Each variant its own series commit, one run: nothing is pooled, and the
 * header lists the commits without saying POOLED.
 */
TEST(golden_n8_commit_per_variant)
{
	check_golden(_metadata, "golden/n8-commit-per-variant.txt",
		     (const char *[]){ "-m", "iops", N8_BASE, N8_SPLICE2,
				       NULL });
}

/* The refusals: the same trial twice, two runs, a file of two configs. */
TEST(golden_refuses_duplicate_records)
{
	check_refusal(_metadata, "golden/refused-duplicate.txt",
		      (const char *[]){ N8_DUP, NULL });
}

TEST(golden_refuses_two_runs)
{
	check_refusal(_metadata, "golden/refused-two-runs.txt",
		      (const char *[]){ N8_FUSED, N8_OTHER, NULL });
}

TEST(golden_refuses_mixed_file_column)
{
	check_refusal(_metadata, "golden/refused-by-file.txt",
		      (const char *[]){ "--by", "file", N8_BASE, NULL });
}

/*
 * ---- issue 34, item 4: replication of claims across two runs ----
 *
 * abtool replicate @args against @golden: its stdout and exit @status,
 * or with @status 1 (a refusal) what it says on stderr.
 */
static void check_replicate(struct __test_metadata *_metadata,
			    const char *golden, const char *const *args,
			    int want)
{
	char *got;
	int status;

	ASSERT_EQ(0, chdir_tests());
	got = capture_cmd(cmd_replicate, "replicate", args, &status, want == 1);
	ASSERT_NE(NULL, got);
	EXPECT_EQ(want, status);
	compare_golden(_metadata, golden, got);
}

/* Every claim holds in a run of other seeds and noise: exit 0. */
TEST(golden_replicate_holds)
{
	check_replicate(_metadata, "golden/replicate-holds.txt",
			(const char *[]){ "-m", "iops", RUN_A, RUN_B, NULL },
			0);
}

/*
 * Two claims do not hold (= against +, + against ~): counted, exit 0;
 * the older run records no seeds, and the report says so.
 */
TEST(golden_replicate_not)
{
	check_replicate(_metadata, "golden/replicate-not.txt",
			(const char *[]){ "-m", "iops", RUN_A, RUN_C, NULL },
			0);
}

/* Better in one run, worse in the other: exit 5. */
TEST(golden_replicate_reversed)
{
	check_replicate(_metadata, "golden/replicate-reversed.txt",
			(const char *[]){ "-m", "iops", RUN_A, RUN_D, NULL },
			5);
}

/* The claims hold, but run B's reference drifts in one cell: marked. */
TEST(golden_replicate_unsteady)
{
	check_replicate(_metadata, "golden/replicate-unsteady.txt",
			(const char *[]){ "-m", "iops", RUN_A, RUN_F, NULL },
			0);
}

TEST(golden_refuses_replicate_same_run)
{
	check_replicate(_metadata, "golden/refused-replicate-same-run.txt",
			(const char *[]){ RUN_A, RUN_A, NULL }, 1);
}

TEST(golden_refuses_replicate_same_seeds)
{
	check_replicate(_metadata, "golden/refused-replicate-same-seeds.txt",
			(const char *[]){ RUN_A, RUN_E, NULL }, 1);
}

/* Two runs, and none of compare's output options: usage errors. */
TEST(replicate_usage)
{
	static const char *const bad[][5] = {
		{ RUN_A, NULL },
		{ RUN_A, RUN_B, RUN_C, NULL },
		{ "-f", "markdown", RUN_A, RUN_B, NULL },
		{ "--pool", RUN_A, RUN_B, NULL },
	};
	char *said;
	size_t i;
	int status;

	ASSERT_EQ(0, chdir_tests());
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		said = capture_cmd(cmd_replicate, "replicate", bad[i],
				   &status, true);
		ASSERT_NE(NULL, said);
		EXPECT_EQ(2, status);
		EXPECT_EQ(0, strncmp(said, "abtool replicate: ", 18))
			TH_LOG("%s", said);
		free(said);
	}
	said = capture_cmd(cmd_replicate, "replicate",
			   (const char *[]){ "--help", NULL }, &status, false);
	ASSERT_NE(NULL, said);
	EXPECT_EQ(0, status);
	EXPECT_EQ(0, strncmp(said, "usage: abtool replicate", 23));
	free(said);
}

/* What replicates: the same claim; what reverses: better and worse. */
TEST(replication_rule)
{
	static const struct {
		enum report_verdict a, b;
		enum replication want;
	} cases[] = {
		{ REPORT_BETTER, REPORT_BETTER, REPL_SAME },
		{ REPORT_WORSE, REPORT_WORSE, REPL_SAME },
		{ REPORT_EQUIVALENT, REPORT_EQUIVALENT, REPL_SAME },
		{ REPORT_BETTER, REPORT_WORSE, REPL_REVERSED },
		{ REPORT_WORSE, REPORT_BETTER, REPL_REVERSED },
		{ REPORT_BETTER, REPORT_EQUIVALENT, REPL_NOT },
		{ REPORT_EQUIVALENT, REPORT_WORSE, REPL_NOT },
		{ REPORT_BETTER, REPORT_INCONCLUSIVE, REPL_NOT },
		{ REPORT_N_TOO_SMALL, REPORT_WORSE, REPL_NOT },
		{ REPORT_EQUIVALENT, REPORT_NO_DATA, REPL_NOT },
		{ REPORT_INCONCLUSIVE, REPORT_INCONCLUSIVE, REPL_NO_CLAIM },
		{ REPORT_N_TOO_SMALL, REPORT_VALUE, REPL_NO_CLAIM },
		{ REPORT_VALUE, REPORT_VALUE, REPL_UNTESTED },
		{ REPORT_NO_DATA, REPORT_VALUE, REPL_UNTESTED },
	};
	size_t i;

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
		EXPECT_EQ(cases[i].want,
			  replication_of(cases[i].a, cases[i].b))
			TH_LOG("case %zu", i);
}

/*
 * ---- issue 34, item 8: the plots' gnuplot scripts and data ----
 *
 * The golden is every .gp and .dat file `abtool compare --plot DIR`
 * writes, in name order, each under a "==> NAME <==" line (the images
 * are not compared: they depend on gnuplot's version and fonts).  Where
 * gnuplot is installed the scripts are also run, and must say nothing
 * on stderr: a clean run prints no tool warnings.
 */
static int by_name(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* The .gp and .dat files of @dir, each under its name, as one string. */
static char *plot_files(const char *dir, const char *header)
{
	char *names[256], path[PATH_MAX], *text, *buf = NULL;
	size_t n = 0, len = 0, i, l;
	struct dirent *d;
	DIR *dp = opendir(dir);
	FILE *f = open_memstream(&buf, &len);

	if (!dp || !f)
		return NULL;
	while ((d = readdir(dp)) && n < 256) {
		l = strlen(d->d_name);
		if ((l > 3 && !strcmp(d->d_name + l - 3, ".gp")) ||
		    (l > 4 && !strcmp(d->d_name + l - 4, ".dat")))
			names[n++] = strdup(d->d_name);
	}
	closedir(dp);
	qsort(names, n, sizeof(*names), by_name);
	fputs(header, f);
	for (i = 0; i < n; i++) {
		snprintf(path, sizeof(path), "%s/%s", dir, names[i]);
		text = read_file(path);
		fprintf(f, "\n==> %s <==\n%s", names[i], text ? text : "");
		free(text);
		free(names[i]);
	}
	fclose(f);
	return buf;
}

static void check_plots(struct __test_metadata *_metadata,
			const char *golden, const char *const *args)
{
	char dir[] = "/tmp/abtool-golden-plots-XXXXXX", header[1024];
	const char *argv[32];
	char *said, *got;
	size_t n = 0, i;
	int status;

	ASSERT_EQ(0, chdir_tests());
	ASSERT_NE(NULL, mkdtemp(dir));
	snprintf(header, sizeof(header), "# the .gp and .dat files of: "
		 "abtool compare --plot DIR");
	for (i = 0; args[i]; i++) {
		argv[n++] = args[i];
		snprintf(header + strlen(header),
			 sizeof(header) - strlen(header), " %s", args[i]);
	}
	snprintf(header + strlen(header), sizeof(header) - strlen(header),
		 "\n# run in tools/abtool/tests; regenerate: make -C "
		 "tools/abtool golden\n");
	argv[n++] = "--plot";
	argv[n++] = dir;
	argv[n] = NULL;
	said = run_for(argv, &status, true);
	ASSERT_NE(NULL, said);
	EXPECT_EQ(0, status);
	if (plot_have_gnuplot())
		EXPECT_STREQ("", said);		/* no gnuplot warnings */
	free(said);
	got = plot_files(dir, header);
	remove_tree(dir);
	ASSERT_NE(NULL, got);
	compare_golden(_metadata, golden, got);
}

/*
 * Every kind of row on the n = 8 run: better, worse, =, ~, values, a
 * ratio of 0 (copied bytes of a zero-copy path), a config without a
 * cell, the in-kernel reference and its fraction figures, a metric it
 * has none of (server CPU), the margin from the measured null.
 */
TEST(golden_n8_plots)
{
	check_plots(_metadata, "golden/n8-plots.txt",
		    (const char *[]){ "-m", "all", "--null", NULL_PAIR, N8,
				      NULL });
}

/* The drifting reference: its cell's row marked "!", and the subtitle. */
TEST(golden_drift_plots)
{
	check_plots(_metadata, "golden/drift-plots.txt",
		    (const char *[]){ "-m", "iops", DRIFT, NULL });
}

/* A run of 4 trials a side: every row n too small (~*), no reference. */
TEST(golden_default_plots)
{
	check_plots(_metadata, "golden/default-plots.txt",
		    (const char *[]){ "-m", "iops,lat_p99_us", SPLICE, FUSED,
				      NULL });
}

/* @files into @set; 0 or an errno. */
static int read_n8(struct trial_set *set)
{
	static const char *const files[] = { N8_BASE, N8_FUSED, N8_SPLICE };
	char err[512];
	size_t i;
	int ret = 0;

	trial_set_init(set);
	for (i = 0; i < 3 && !ret; i++)
		ret = results_read_file(set, files[i], err, sizeof(err));
	return ret;
}

/*
 * Issue 34, item 2: every number of the pair base/user_copy,
 * splice-rsrc/user_copy is the same whether the table shows two configs
 * or four (the audit had 0 of 24 cells significant, then 9).
 */
TEST(verdict_does_not_depend_on_the_columns)
{
	static const char *const narrow[] = { "base/user_copy",
					      "splice-rsrc/user_copy" };
	static const char *const wide[] = { "base/user_copy",
					    "splice-rsrc/user_copy",
					    "base/copy", "fused/fused" };
	struct report *a = NULL, *b = NULL;
	struct report_opts o;
	struct trial_set set;
	char err[512];
	size_t k, i;

	ASSERT_EQ(0, chdir_tests());
	ASSERT_EQ(0, read_n8(&set));
	report_opts_init(&o);
	o.configs = narrow;
	o.nr_configs = 2;
	ASSERT_EQ(0, report_build(&set, &o, &a, err, sizeof(err)))
		TH_LOG("%s", err);
	o.configs = wide;
	o.nr_configs = 4;
	ASSERT_EQ(0, report_build(&set, &o, &b, err, sizeof(err)))
		TH_LOG("%s", err);
	ASSERT_EQ(a->nr_metrics, b->nr_metrics);
	ASSERT_EQ(a->nr_cells, b->nr_cells);
	for (k = 0; k < a->nr_metrics; k++) {
		const struct report_pair *pa = &a->metrics[k].pairs[1];
		const struct report_pair *pb = &b->metrics[k].pairs[1];

		EXPECT_EQ(pa->family, pb->family);
		EXPECT_TRUE(same(pa->geomean_pct, pb->geomean_pct));
		EXPECT_TRUE(same(pa->geomean_lo_pct, pb->geomean_lo_pct));
		EXPECT_TRUE(same(pa->geomean_hi_pct, pb->geomean_hi_pct));
		EXPECT_EQ(0, memcmp(&pa->counts, &pb->counts,
				    sizeof(pa->counts)));
		for (i = 0; i < a->nr_cells; i++) {
			const struct report_entry *ea =
				report_entry(a, &a->metrics[k], i, 1);
			const struct report_entry *eb =
				report_entry(b, &b->metrics[k], i, 1);

			EXPECT_EQ(ea->verdict, eb->verdict);
			EXPECT_TRUE(same(ea->ci_lo_pct, eb->ci_lo_pct));
			EXPECT_TRUE(same(ea->ci_hi_pct, eb->ci_hi_pct));
			EXPECT_TRUE(same(ea->q, eb->q));
		}
	}
	report_free(a);
	report_free(b);
	trial_set_release(&set);
}

TEST_HARNESS_MAIN
