// SPDX-License-Identifier: GPL-2.0
/* report*.c, plot.c and compare.c on synthetic trials (no VM). */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <json-c/json.h>

#include "kselftest_harness.h"

#include "compare.h"
#include "helpers.h"
#include "plot.h"
#include "report.h"
#include "results.h"

#define N(a)	(sizeof(a) / sizeof((a)[0]))

static struct trial_cell make_cell(const char *target, unsigned int legs,
				   const char *rw, uint64_t bs,
				   unsigned int qd, unsigned int jobs)
{
	struct trial_cell c;

	memset(&c, 0, sizeof(c));
	snprintf(c.target, sizeof(c.target), "%s", target);
	snprintf(c.rw, sizeof(c.rw), "%s", rw);
	c.legs = legs;
	c.bs = bs;
	c.iodepth = qd;
	c.jobs = jobs;
	return c;
}

/* Within +-1% of 1, the same sequence for every config. */
static double jitter(int i)
{
	return 1 + 0.002 * (double)((i * 7) % 11 - 5);
}

struct env {
	const char *clock, *accel, *kernel;
};

static const struct env icount_tcg = { "icount", "tcg", "6.12.118" };
static const struct env wall_kvm = { "wall", "kvm", "6.12.118" };

/* @n trials of one config in one cell, iops = @base * @factor * jitter. */
static void add_trials(struct trial_set *set, const char *variant,
		       const char *path, const struct trial_cell *cell,
		       int n, double base, double factor,
		       const struct env *env)
{
	struct trial t;
	double iops;
	int i;

	for (i = 0; i < n; i++) {
		trial_init(&t);
		snprintf(t.variant, sizeof(t.variant), "%s", variant);
		snprintf(t.path, sizeof(t.path), "%s", path);
		snprintf(t.kernel, sizeof(t.kernel), "%s", env->kernel);
		snprintf(t.clock, sizeof(t.clock), "%s", env->clock);
		snprintf(t.accel, sizeof(t.accel), "%s", env->accel);
		strcpy(t.flavor, "perf");
		strcpy(t.host, "testhost");
		snprintf(t.date, sizeof(t.date), "2026-12-03T10:%02d:00Z", i);
		t.boot = 0;
		t.trial = i;
		t.cell = *cell;
		iops = base * factor * jitter(i);
		trial_set_metric(&t, "iops", iops);
		trial_set_metric(&t, "lat_p99_us", 16e6 / iops);
		trial_set_metric(&t, "server_cpu_us_per_io", 9.1 / factor);
		trial_set_metric(&t, "zz_custom_counter", 3);
		trial_set_add(set, &t);
	}
}

static const struct {
	const char *variant, *path;
	double factor;
} configs[] = {
	{ "base", "copy", 1.0 },
	{ "base", "user_copy", 1.0 },		/* same as the baseline */
	{ "splice-rsrc", "splice", 1.2 },	/* clearly faster */
	{ "fused", "fused", 1.3 },
	{ "bpf", "bpf", 0.8 },
	{ "base", "splice", 1.1 },
	{ "splice-rsrc", "copy", 1.0 },
	{ "fused", "copy", 1.0 },
};

/* @nr_configs configs from the table over the usual cells, @n trials. */
static void make_set(struct trial_set *set, size_t nr_configs, int n,
		     const struct env *env)
{
	const struct trial_cell cells[] = {
		make_cell("null", 1, "randread", 4096, 16, 1),
		make_cell("loop", 1, "write", 65536, 16, 1),
		make_cell("mirror", 2, "write", 65536, 16, 1),
		make_cell("stripe", 4, "randrw", 524288, 128, 4),
	};
	size_t c, k;

	trial_set_init(set);
	for (k = 0; k < N(cells); k++)
		for (c = 0; c < nr_configs; c++)
			add_trials(set, configs[c].variant, configs[c].path,
				   &cells[k], n, 60000, configs[c].factor,
				   env);
}

static struct report *build(struct __test_metadata *_metadata,
			    const struct trial_set *set,
			    const struct report_opts *opts)
{
	struct report_opts defaults;
	struct report *r = NULL;
	char err[512];

	if (!opts) {
		report_opts_init(&defaults);
		opts = &defaults;
	}
	EXPECT_EQ(0, report_build(set, opts, &r, err, sizeof(err)))
		TH_LOG("%s", err);
	return r;
}

/* The report in format @fmt, as a malloc'd string. */
static char *emit(const struct report *r, const char *fmt)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	if (!f)
		return NULL;
	if (report_emit(r, fmt, f)) {
		fclose(f);
		free(buf);
		return NULL;
	}
	fclose(f);
	return buf;
}

/* Every line at most @width bytes, and plain ASCII. */
static void expect_fits(struct __test_metadata *_metadata, const char *text,
			size_t width)
{
	const char *line = text, *nl;
	size_t len;

	for (; *line; line = nl + 1) {
		nl = strchrnul(line, '\n');
		len = (size_t)(nl - line);
		EXPECT_LE(len, width)
			TH_LOG("%zu columns: \"%.*s\"", len, (int)len, line);
		for (const char *p = line; p < nl; p++)
			EXPECT_TRUE(*p >= ' ' && *p <= '~')
				TH_LOG("not printable ASCII in \"%.*s\"",
				       (int)len, line);
		if (!*nl)
			break;
	}
}

/* The first line of @text that starts with @prefix, or NULL. */
static const char *line_starting(const char *text, const char *prefix)
{
	const char *line = text;

	while (line && *line) {
		if (!strncmp(line, prefix, strlen(prefix)))
			return line;
		line = strchr(line, '\n');
		if (line)
			line++;
	}
	return NULL;
}

/* Copy of the line at @line (no newline) into @buf. */
static const char *copy_line(const char *line, char *buf, size_t len)
{
	snprintf(buf, len, "%.*s", (int)(strchrnul(line, '\n') - line), line);
	return buf;
}

static void check_text_width(struct __test_metadata *_metadata,
			     size_t nr_configs)
{
	struct trial_set set;
	struct report_opts opts;
	struct report *r;
	char *text;

	make_set(&set, nr_configs, 5, &icount_tcg);
	report_opts_init(&opts);
	opts.all_metrics = true;
	opts.show_ci = true;	/* the CI tables must fit too */
	opts.command = "abtool compare --ci -m all a-rather-long-file-name-"
		       "of-trials-from-a-full-run.jsonl another-one.jsonl";
	r = build(_metadata, &set, &opts);
	ASSERT_NE(NULL, r);
	text = emit(r, "text");
	ASSERT_NE(NULL, text);
	expect_fits(_metadata, text, 72);
	/* every config is named, in the legend at least */
	for (size_t c = 0; c < nr_configs; c++) {
		char label[160];

		snprintf(label, sizeof(label), "%s/%s", configs[c].variant,
			 configs[c].path);
		EXPECT_NE(NULL, strstr(text, label)) TH_LOG("%s", label);
	}
	free(text);
	report_free(r);
	trial_set_release(&set);
}

TEST(text_fits_72_columns_with_2_configs)
{
	check_text_width(_metadata, 2);
}

TEST(text_fits_72_columns_with_3_configs)
{
	check_text_width(_metadata, 3);
}

TEST(text_fits_72_columns_with_4_configs)
{
	check_text_width(_metadata, 4);
}

TEST(text_fits_72_columns_with_8_configs)
{
	check_text_width(_metadata, 8);
}

TEST(text_fits_72_columns_with_long_names)
{
	char target[TRIAL_STR_MAX], variant[TRIAL_STR_MAX];
	struct trial_cell cell;
	struct trial_set set;
	struct report *r;
	size_t nr, k;
	char *text;

	memset(target, 't', sizeof(target) - 1);
	target[sizeof(target) - 1] = '\0';
	memset(variant, 'v', sizeof(variant) - 1);
	variant[sizeof(variant) - 1] = '\0';
	cell = make_cell(target, 16, "randrw", 3 * 524288, 1024, 64);
	for (nr = 2; nr <= 4; nr++) {
		trial_set_init(&set);
		for (k = 0; k < nr; k++) {
			variant[0] = (char)('a' + k);
			add_trials(&set, variant, "a-long-data-path-name",
				   &cell, 5, 123456789, 1 + 0.5 * (double)k,
				   &icount_tcg);
		}
		r = build(_metadata, &set, NULL);
		ASSERT_NE(NULL, r);
		text = emit(r, "text");
		ASSERT_NE(NULL, text);
		expect_fits(_metadata, text, 72);
		free(text);
		report_free(r);
		trial_set_release(&set);
	}
}

/* A trial of config variant/path in @cell, boot @boot, trial @trial. */
static void test_trial(struct trial *t, const char *variant, const char *path,
		       const struct trial_cell *cell, int boot, int trial)
{
	trial_init(t);
	snprintf(t->variant, sizeof(t->variant), "%s", variant);
	snprintf(t->path, sizeof(t->path), "%s", path);
	strcpy(t->clock, "icount");
	strcpy(t->accel, "tcg");
	strcpy(t->flavor, "perf");
	t->boot = boot;
	t->trial = trial;
	t->cell = *cell;
}

/* One trial per value of @v, metric @metric, config variant/path. */
static void add_values(struct trial_set *set, const char *variant,
		       const char *path, const struct trial_cell *cell,
		       const char *metric, const double *v, int n)
{
	struct trial t;
	int i;

	for (i = 0; i < n; i++) {
		test_trial(&t, variant, path, cell, i / 4, i % 4);
		trial_set_metric(&t, metric, v[i]);
		trial_set_add(set, &t);
	}
}

/*
 * Issue 34, item 7: the within-boot spread of a denominator.  The
 * audit's loop@brd row: 6493/7316 in boot 0, 6474/7290 in boot 1, so
 * (7316 - 6493) / 6904.5 = 11.92% in boot 0 and 11.87% in boot 1: the
 * larger.  One trial a boot shows nothing (NaN); a median of 0 with a
 * spread is infinitely unsteady; no boot ids: one boot of them all.
 */
TEST(within_boot_spread)
{
	const struct trial_cell cell = make_cell("loop", 1, "randwrite",
						 65536, 16, 1);
	static const double audit[] = { 6493, 7316, 6474, 7290 };
	static const double zero[] = { 0, 0, 0, 1 };
	const struct trial *tp[4];
	struct trial t[4];
	int i;

	for (i = 0; i < 4; i++) {
		test_trial(&t[i], "base", "kernel", &cell, i / 2, i % 2);
		tp[i] = &t[i];
	}
	EXPECT_TRUE(fabs(823 / 6904.5 * 100 -
			 report_boot_spread(tp, audit, 4)) < 1e-9);
	/* a boot is (variant, boot id): another variant's boot 0 is apart */
	snprintf(t[1].variant, sizeof(t[1].variant), "fused");
	snprintf(t[3].variant, sizeof(t[3].variant), "fused");
	EXPECT_TRUE(isnan(report_boot_spread(tp, audit, 4)));
	/* without boot ids, every trial of a variant is one boot */
	for (i = 0; i < 4; i++) {
		snprintf(t[i].variant, sizeof(t[i].variant), "base");
		t[i].boot = -1;
	}
	EXPECT_TRUE(fabs((7316 - 6474) / 6891.5 * 100 -
			 report_boot_spread(tp, audit, 4)) < 1e-9);
	EXPECT_EQ(0, report_boot_spread(tp, (const double[]){ 5, 5, 5, 5 },
					4));
	EXPECT_TRUE(isinf(report_boot_spread(tp, zero, 4)));
	for (i = 0; i < 4; i++)
		trial_release(&t[i]);
}

/*
 * The margin rule (issue 34, item 3), one cell, 8 trials a side, so the
 * family is the cell and the intervals are at 95%: B is 0.1% above A
 * (equivalent: "="), C +20% (better), D -10% (worse), E about +1% with
 * a spread of a percent (inconclusive: "~"); a counter the same in
 * every trial is a value, not tested.
 */
TEST(verdicts_by_the_margin)
{
	const struct trial_cell cell = make_cell("null", 1, "randread", 4096,
						 16, 1);
	static const double a[] = { 1000, 1000.5, 1001, 1001.5, 1002, 1002.5,
				    1003, 1003.5 };
	static const double e[] = { 1002, 1006, 1010, 1014, 1018, 1022, 1004,
				    1012 };
	double b[8], c[8], d[8], two[8], three[8];
	const char *metrics[] = { "iops", "sqes_per_io" };
	const struct report_pair *p;
	struct report_opts opts;
	struct trial_set set;
	char line[256], *text, *md;
	struct report *r;
	int i;

	for (i = 0; i < 8; i++) {
		b[i] = a[i] + 1;
		c[i] = a[i] * 1.2;
		d[i] = a[i] * 0.9;
		two[i] = 2;
		three[i] = 3;
	}
	trial_set_init(&set);
	add_values(&set, "base", "copy", &cell, "iops", a, 8);
	add_values(&set, "base", "user_copy", &cell, "iops", b, 8);
	add_values(&set, "splice-rsrc", "splice", &cell, "iops", c, 8);
	add_values(&set, "bpf", "bpf", &cell, "iops", d, 8);
	add_values(&set, "fused", "fused", &cell, "iops", e, 8);
	for (i = 0; i < 5 * 8; i++)
		trial_set_metric(&set.trials[i], "sqes_per_io",
				 i < 8 ? two[i % 8] : three[i % 8]);
	report_opts_init(&opts);
	opts.metrics = metrics;
	opts.nr_metrics = 2;
	r = build(_metadata, &set, &opts);
	ASSERT_NE(NULL, r);
	ASSERT_EQ(5, r->nr_columns);
	EXPECT_EQ(REPORT_EQUIVALENT, report_entry(r, &r->metrics[0], 0,
						  1)->verdict);
	EXPECT_EQ(REPORT_BETTER, report_entry(r, &r->metrics[0], 0,
					      2)->verdict);
	EXPECT_EQ(REPORT_WORSE, report_entry(r, &r->metrics[0], 0,
					     3)->verdict);
	EXPECT_EQ(REPORT_INCONCLUSIVE, report_entry(r, &r->metrics[0], 0,
						    4)->verdict);
	/* one cell: a family of one, a 95% interval */
	p = &r->metrics[0].pairs[1];
	EXPECT_EQ(1, p->family);
	EXPECT_TRUE(fabs(p->level - 0.95) < 1e-12);
	EXPECT_EQ(1, p->counts.n[REPORT_EQUIVALENT]);
	EXPECT_EQ(1, r->metrics[0].pairs[4].counts.n[REPORT_INCONCLUSIVE]);
	/* the counter: values, not tested, no family */
	EXPECT_EQ(REPORT_VALUE, report_entry(r, &r->metrics[1], 0,
					     1)->verdict);
	EXPECT_EQ(0, r->metrics[1].pairs[1].family);
	EXPECT_EQ(1, r->metrics[1].pairs[1].counts.n[REPORT_VALUE]);
	EXPECT_TRUE(isnan(report_entry(r, &r->metrics[1], 0, 1)->mwu.p) ||
		    !report_tested(report_entry(r, &r->metrics[1], 0, 1)));

	text = emit(r, "text");
	ASSERT_NE(NULL, text);
	copy_line(line_starting(text, "null randread 4K qd16"), line,
		  sizeof(line));
	EXPECT_NE(NULL, strstr(line, "  =  ")) TH_LOG("%s", line);
	EXPECT_NE(NULL, strstr(line, "+20.0%")) TH_LOG("%s", line);
	EXPECT_NE(NULL, strstr(line, "-10.0%")) TH_LOG("%s", line);
	EXPECT_NE(NULL, strstr(line, " ~")) TH_LOG("%s", line);
	EXPECT_NE(NULL, strstr(text, "(+50.0%)")) TH_LOG("%s", text);
	EXPECT_NE(NULL, strstr(text, "margin +-1.0% (--margin)"));
	EXPECT_NE(NULL, strstr(text, "intervals at 95% (1 - 0.05/1)"))
		TH_LOG("%s", text);
	/* n=8: large enough, no footnote */
	EXPECT_EQ(NULL, strstr(text, "~* n too small:"));
	expect_fits(_metadata, text, 72);
	md = emit(r, "markdown");
	ASSERT_NE(NULL, md);
	EXPECT_NE(NULL, strstr(md, "**+20.0%** better")) TH_LOG("%s", md);
	EXPECT_NE(NULL, strstr(md, "**-10.0%** worse"));
	EXPECT_NE(NULL, strstr(md, "= equivalent, +0.1%"));
	EXPECT_NE(NULL, strstr(md, "\\~ inconclusive"));
	EXPECT_NE(NULL, strstr(md, "(+50.0%) value, not tested"));
	free(md);
	free(text);
	report_free(r);

	/* a wider margin makes the +1% cell equivalent, not inconclusive */
	opts.margin_pct = 3;
	r = build(_metadata, &set, &opts);
	ASSERT_NE(NULL, r);
	EXPECT_EQ(REPORT_EQUIVALENT, report_entry(r, &r->metrics[0], 0,
						  4)->verdict);
	EXPECT_EQ(REPORT_BETTER, report_entry(r, &r->metrics[0], 0,
					      2)->verdict);
	report_free(r);
	trial_set_release(&set);
}

/* With only 3 trials a side no interval reaches 95%: no verdict at all. */
TEST(n_too_small_is_a_footnote)
{
	const struct trial_cell cell = make_cell("null", 1, "write", 65536,
						 16, 1);
	struct trial_set set;
	struct report *r;
	char *text, *md, line[256];

	trial_set_init(&set);
	add_trials(&set, "base", "copy", &cell, 3, 9000, 1.0, &wall_kvm);
	add_trials(&set, "fused", "fused", &cell, 3, 9000, 1.5, &wall_kvm);
	r = build(_metadata, &set, NULL);
	ASSERT_NE(NULL, r);
	EXPECT_EQ(REPORT_N_TOO_SMALL,
		  report_entry(r, &r->metrics[0], 0, 1)->verdict);
	EXPECT_TRUE(r->metrics[0].any_n_too_small);
	text = emit(r, "text");
	md = emit(r, "markdown");
	ASSERT_NE(NULL, text);
	ASSERT_NE(NULL, md);
	EXPECT_NE(NULL, strstr(text, "~*"));
	EXPECT_NE(NULL, strstr(text, "n too small"));
	EXPECT_NE(NULL, strstr(md, "n too small"));
	/* no delta in the cell's row (the geomean row is descriptive) */
	ASSERT_NE(NULL, line_starting(text, "null write 64K qd16"));
	copy_line(line_starting(text, "null write 64K qd16"), line,
		  sizeof(line));
	EXPECT_EQ(NULL, strstr(line, "+50.0%")) TH_LOG("%s", line);
	expect_fits(_metadata, text, 72);
	free(text);
	free(md);
	report_free(r);
	trial_set_release(&set);
}

TEST(header_states_n_clock_and_tcg)
{
	struct trial_set set;
	struct report *r;
	char *text, *md;

	make_set(&set, 2, 5, &icount_tcg);
	/* one more trial in one cell: n varies, 5..6 */
	add_trials(&set, "base", "copy", &set.trials[0].cell, 1, 60000, 1,
		   &icount_tcg);
	r = build(_metadata, &set, NULL);
	ASSERT_NE(NULL, r);
	EXPECT_EQ(5, r->columns[0].n_min);
	EXPECT_EQ(6, r->columns[0].n_max);
	text = emit(r, "text");
	md = emit(r, "markdown");
	ASSERT_NE(NULL, text);
	ASSERT_NE(NULL, md);
	EXPECT_NE(NULL, strstr(text, "n=5..6 (1 boot x 5..6 trials)"))
		TH_LOG("%s", text);
	EXPECT_NE(NULL, strstr(text, "n=5 (1 boot x 5 trials)\n"))
		TH_LOG("%s", text);
	EXPECT_NE(NULL, line_starting(text, "clock: icount"));
	EXPECT_NE(NULL, strstr(text, "NOT\n*** hardware numbers"));
	EXPECT_NE(NULL, line_starting(text, "kernels: base 6.12.118"));
	EXPECT_NE(NULL, line_starting(text, "flavor: perf"));
	EXPECT_NE(NULL, line_starting(text, "host: testhost"));
	EXPECT_NE(NULL, line_starting(text,
		"dates: 2026-12-03T10:00:00Z .. 2026-12-03T10:04:00Z"));
	EXPECT_NE(NULL, strstr(md, "**clock:** icount"));
	EXPECT_NE(NULL, strstr(md, "NOT hardware numbers"));
	EXPECT_NE(NULL, strstr(md, "| 5..6 (1 boot x 5..6 trials) |"));
	free(text);
	free(md);
	report_free(r);
	trial_set_release(&set);

	/* no TCG, no warning */
	make_set(&set, 2, 5, &wall_kvm);
	r = build(_metadata, &set, NULL);
	ASSERT_NE(NULL, r);
	text = emit(r, "text");
	ASSERT_NE(NULL, text);
	EXPECT_NE(NULL, line_starting(text, "clock: wall"));
	EXPECT_EQ(NULL, strstr(text, "hardware numbers"));
	free(text);
	report_free(r);
	trial_set_release(&set);
}

TEST(mixed_clocks_are_refused_unless_allowed)
{
	const struct trial_cell cell = make_cell("null", 1, "read", 4096, 1, 1);
	struct report_opts opts;
	struct trial_set set;
	struct report *r;
	char err[512], *text;

	trial_set_init(&set);
	add_trials(&set, "base", "copy", &cell, 5, 1000, 1, &icount_tcg);
	add_trials(&set, "fused", "fused", &cell, 5, 1000, 1, &wall_kvm);
	report_opts_init(&opts);
	EXPECT_EQ(-EINVAL, report_build(&set, &opts, &r, err, sizeof(err)));
	EXPECT_EQ(NULL, r);
	EXPECT_NE(NULL, strstr(err, "mixed clocks")) TH_LOG("%s", err);
	EXPECT_NE(NULL, strstr(err, "--allow-mixed-clock")) TH_LOG("%s", err);

	opts.allow_mixed_clock = true;
	/* the two also differ in accel (tcg, kvm) */
	EXPECT_EQ(-EINVAL, report_build(&set, &opts, &r, err, sizeof(err)));
	EXPECT_NE(NULL, strstr(err, "mixed accels")) TH_LOG("%s", err);
	opts.allow_mixed_env = true;
	r = build(_metadata, &set, &opts);
	ASSERT_NE(NULL, r);
	EXPECT_TRUE(r->mixed_clock);
	text = emit(r, "text");
	ASSERT_NE(NULL, text);
	EXPECT_NE(NULL, line_starting(text, "clock: MIXED"));
	free(text);
	report_free(r);
	trial_set_release(&set);
}

/* Same clock, but emulated vs real CPU, or debug vs perf kernels. */
TEST(mixed_accel_or_flavor_is_refused)
{
	const struct trial_cell cell = make_cell("null", 1, "read", 4096, 1, 1);
	static const struct env icount_kvm = { "icount", "kvm", "6.12.118" };
	struct report_opts opts;
	struct trial_set set;
	struct report *r;
	char err[512], *text;

	trial_set_init(&set);
	add_trials(&set, "base", "copy", &cell, 5, 1000, 1, &icount_tcg);
	add_trials(&set, "fused", "fused", &cell, 5, 1000, 1, &icount_kvm);
	report_opts_init(&opts);
	EXPECT_EQ(-EINVAL, report_build(&set, &opts, &r, err, sizeof(err)));
	EXPECT_NE(NULL, strstr(err, "mixed accels: tcg")) TH_LOG("%s", err);
	EXPECT_NE(NULL, strstr(err, "--allow-mixed-env")) TH_LOG("%s", err);
	trial_set_release(&set);

	trial_set_init(&set);
	add_trials(&set, "base", "copy", &cell, 5, 1000, 1, &icount_tcg);
	add_trials(&set, "fused", "fused", &cell, 5, 1000, 1, &icount_tcg);
	strcpy(set.trials[7].flavor, "debug");
	EXPECT_EQ(-EINVAL, report_build(&set, &opts, &r, err, sizeof(err)));
	EXPECT_NE(NULL, strstr(err, "mixed flavors: perf")) TH_LOG("%s", err);
	opts.allow_mixed_env = true;
	r = build(_metadata, &set, &opts);
	ASSERT_NE(NULL, r);
	text = emit(r, "text");
	ASSERT_NE(NULL, text);
	EXPECT_NE(NULL, line_starting(text, "flavor: MIXED (perf, debug)"))
		TH_LOG("%s", text);
	free(text);
	report_free(r);
	trial_set_release(&set);
}

/*
 * vCPU counts: under icount a task's CPU time is its own only on one vCPU
 * and the handoff differs (IPI or context switch); files from before the
 * count was recorded (0) do not pool with those that have it.
 */
TEST(mixed_vcpus_are_refused_and_shown)
{
	const struct trial_cell cell = make_cell("null", 1, "read", 4096, 1, 1);
	struct report_opts opts;
	struct trial_set set;
	struct report *r;
	char err[512], *text, *md;
	size_t i;

	trial_set_init(&set);
	add_trials(&set, "base", "copy", &cell, 5, 1000, 1, &icount_tcg);
	add_trials(&set, "fused", "fused", &cell, 5, 1000, 1, &icount_tcg);
	for (i = 0; i < set.nr; i++)
		set.trials[i].cpus = 1;
	report_opts_init(&opts);
	r = build(_metadata, &set, &opts);
	ASSERT_NE(NULL, r);
	text = emit(r, "text");
	md = emit(r, "markdown");
	ASSERT_NE(NULL, text);
	ASSERT_NE(NULL, md);
	EXPECT_NE(NULL, line_starting(text, "vCPUs: 1\n")) TH_LOG("%s", text);
	EXPECT_NE(NULL, strstr(md, "**vCPUs:** 1\n")) TH_LOG("%s", md);
	free(text);
	free(md);
	report_free(r);

	set.trials[7].cpus = 2;
	EXPECT_EQ(-EINVAL, report_build(&set, &opts, &r, err, sizeof(err)));
	EXPECT_NE(NULL, strstr(err, "mixed vCPU counts: 1")) TH_LOG("%s", err);
	EXPECT_NE(NULL, strstr(err, "--allow-mixed-env")) TH_LOG("%s", err);
	set.trials[7].cpus = 0;
	EXPECT_EQ(-EINVAL, report_build(&set, &opts, &r, err, sizeof(err)));
	EXPECT_NE(NULL, strstr(err, "and unknown")) TH_LOG("%s", err);
	set.trials[7].cpus = 2;
	opts.allow_mixed_env = true;
	r = build(_metadata, &set, &opts);
	ASSERT_NE(NULL, r);
	EXPECT_TRUE(r->mixed_env);
	text = emit(r, "text");
	ASSERT_NE(NULL, text);
	EXPECT_NE(NULL, line_starting(text, "vCPUs: MIXED (1, 2)"))
		TH_LOG("%s", text);
	free(text);
	report_free(r);
	trial_set_release(&set);
}

/* --configs selects and orders; unknown names list the known ones. */
TEST(configs_select_and_order)
{
	const char *pick[] = { "fused/fused", "base/copy" };
	const char *unknown[] = { "base/copy", "nope/nope" };
	const char *twice[] = { "base/copy", "base/copy" };
	struct report_opts opts;
	struct trial_set set;
	struct report *r;
	char err[512];

	make_set(&set, 4, 5, &icount_tcg);
	report_opts_init(&opts);
	opts.configs = pick;
	opts.nr_configs = N(pick);
	r = build(_metadata, &set, &opts);
	ASSERT_NE(NULL, r);
	ASSERT_EQ(2, r->nr_columns);
	EXPECT_STREQ("fused/fused", r->columns[0].label);	/* baseline */
	EXPECT_STREQ("base/copy", r->columns[1].label);
	EXPECT_EQ(40, r->nr_trials);
	report_free(r);

	opts.baseline = "base/copy";
	r = build(_metadata, &set, &opts);
	ASSERT_NE(NULL, r);
	EXPECT_STREQ("base/copy", r->columns[0].label);
	EXPECT_STREQ("fused/fused", r->columns[1].label);
	report_free(r);

	opts.baseline = "splice-rsrc/splice";	/* not selected */
	EXPECT_EQ(-EINVAL, report_build(&set, &opts, &r, err, sizeof(err)));
	EXPECT_NE(NULL, strstr(err, "baseline 'splice-rsrc/splice'"));

	report_opts_init(&opts);
	opts.configs = unknown;
	opts.nr_configs = N(unknown);
	EXPECT_EQ(-EINVAL, report_build(&set, &opts, &r, err, sizeof(err)));
	EXPECT_NE(NULL, strstr(err, "unknown config 'nope/nope' (configs: "
			       "base/copy, base/user_copy, "
			       "splice-rsrc/splice, fused/fused)"))
		TH_LOG("%s", err);
	opts.configs = twice;
	opts.nr_configs = N(twice);
	EXPECT_EQ(-EINVAL, report_build(&set, &opts, &r, err, sizeof(err)));
	EXPECT_NE(NULL, strstr(err, "listed twice")) TH_LOG("%s", err);
	trial_set_release(&set);
}

TEST(no_trials_is_an_error)
{
	struct report_opts opts;
	struct trial_set set;
	struct report *r;
	char err[256];

	trial_set_init(&set);
	report_opts_init(&opts);
	EXPECT_GT(0, report_build(&set, &opts, &r, err, sizeof(err)));
	EXPECT_NE(NULL, strstr(err, "no trials"));
}

TEST(baseline_grouping_and_metric_selection)
{
	const char *bad[] = { "iops", "no_such_metric" };
	struct report_opts opts;
	struct trial_set set;
	struct report *r;
	char err[512];

	make_set(&set, 4, 3, &wall_kvm);
	report_opts_init(&opts);
	opts.baseline = "splice-rsrc/splice";
	r = build(_metadata, &set, &opts);
	ASSERT_NE(NULL, r);
	EXPECT_STREQ("splice-rsrc/splice", r->columns[0].label);
	EXPECT_STREQ("base/copy", r->columns[1].label);
	EXPECT_STREQ("base/user_copy", r->columns[2].label);
	/* defaults, in table order; the custom counter is not a default */
	ASSERT_EQ(3, r->nr_metrics);
	EXPECT_STREQ("iops", r->metrics[0].info.name);
	EXPECT_STREQ("lat_p99_us", r->metrics[1].info.name);
	EXPECT_STREQ("server_cpu_us_per_io", r->metrics[2].info.name);
	report_free(r);

	opts.baseline = "nope/nope";
	EXPECT_EQ(-EINVAL, report_build(&set, &opts, &r, err, sizeof(err)));
	EXPECT_NE(NULL, strstr(err, "base/copy")) TH_LOG("%s", err);

	report_opts_init(&opts);
	opts.by = REPORT_BY_VARIANT;
	opts.all_metrics = true;
	r = build(_metadata, &set, &opts);
	ASSERT_NE(NULL, r);
	EXPECT_EQ(3, r->nr_columns);	/* base, splice-rsrc, fused */
	EXPECT_EQ(6, r->columns[0].n_min);	/* copy + user_copy */
	ASSERT_EQ(4, r->nr_metrics);	/* unknown ones last */
	EXPECT_STREQ("zz_custom_counter", r->metrics[3].info.name);
	EXPECT_FALSE(r->metrics[3].info.known);
	EXPECT_FALSE(r->metrics[3].info.higher_is_better);
	EXPECT_TRUE(r->metrics[0].info.higher_is_better);
	report_free(r);

	report_opts_init(&opts);
	opts.by = REPORT_BY_PATH;
	r = build(_metadata, &set, &opts);
	ASSERT_NE(NULL, r);
	EXPECT_EQ(4, r->nr_columns);
	EXPECT_STREQ("copy", r->columns[0].label);
	report_free(r);

	report_opts_init(&opts);
	opts.metrics = bad;
	opts.nr_metrics = N(bad);
	EXPECT_EQ(-EINVAL, report_build(&set, &opts, &r, err, sizeof(err)));
	EXPECT_NE(NULL, strstr(err, "no_such_metric")) TH_LOG("%s", err);
	trial_set_release(&set);
}

TEST(cell_labels)
{
	struct trial_cell c;
	char buf[128];

	c = make_cell("null", 1, "randread", 4096, 16, 1);
	report_cell_label(&c, buf, sizeof(buf));
	EXPECT_STREQ("null randread 4K qd16", buf);
	c = make_cell("mirror", 2, "write", 65536, 16, 1);
	report_cell_label(&c, buf, sizeof(buf));
	EXPECT_STREQ("mirror-2 write 64K qd16", buf);
	c = make_cell("stripe", 4, "randrw", 1 << 20, 32, 4);
	report_cell_label(&c, buf, sizeof(buf));
	EXPECT_STREQ("stripe-4 randrw 1M qd32 j4", buf);
	c = make_cell("loop", 1, "read", 1000, 1, 1);
	report_cell_label(&c, buf, sizeof(buf));
	EXPECT_STREQ("loop read 1000B qd1", buf);
}

TEST(value_formatting)
{
	static const struct {
		double v;
		const char *s;
	} cases[] = {
		{ 60123, "60.12k" }, { 1234567, "1.235M" }, { 4096, "4096" },
		{ 250.1, "250.1" }, { 9.1, "9.100" }, { 0.5, "0.5000" },
		{ 0, "0" }, { 123456, "123.5k" }, { 2.5e9, "2.500G" },
	};
	char buf[32];
	size_t i;

	for (i = 0; i < N(cases); i++) {
		report_fmt_value(cases[i].v, buf, sizeof(buf));
		EXPECT_STREQ(cases[i].s, buf);
	}
}

/* Split one CSV record (RFC 4180 quoting); returns the field count. */
static int csv_fields(const char **p)
{
	const char *s = *p;
	bool quoted = false;
	int n = 1;

	for (; *s; s++) {
		if (quoted) {
			if (*s == '"' && s[1] == '"')
				s++;
			else if (*s == '"')
				quoted = false;
		} else if (*s == '"') {
			quoted = true;
		} else if (*s == ',') {
			n++;
		} else if (*s == '\n') {
			s++;
			break;
		}
	}
	*p = s;
	return quoted ? -1 : n;
}

TEST(csv_is_well_formed)
{
	const struct trial_cell cell = make_cell("null", 1, "read", 4096, 1, 1);
	struct trial_set set;
	struct report *r;
	const char *p;
	char *csv;
	int header, rows = 0, n;

	make_set(&set, 3, 5, &icount_tcg);
	/* a label that needs quoting */
	add_trials(&set, "we\"ird,variant", "copy", &cell, 5, 100, 1,
		   &icount_tcg);
	r = build(_metadata, &set, NULL);
	ASSERT_NE(NULL, r);
	csv = emit(r, "csv");
	ASSERT_NE(NULL, csv);
	p = csv;
	header = csv_fields(&p);
	EXPECT_EQ(62, header);
	EXPECT_EQ(0, strncmp(csv, "metric,unit,", 12));
	while (*p) {
		n = csv_fields(&p);
		EXPECT_EQ(header, n);
		rows++;
	}
	/* a row per entry, then a geomean row per non-baseline config */
	EXPECT_EQ(r->nr_metrics * (r->nr_cells * r->nr_columns +
				   r->nr_columns - 1), rows);
	EXPECT_NE(NULL, strstr(csv, "\"we\"\"ird,variant/copy\""));
	EXPECT_NE(NULL, strstr(csv, ",icount,tcg,"));
	free(csv);
	report_free(r);
	trial_set_release(&set);
}

/* '|' not escaped by a backslash */
static int md_pipes(const char *s, size_t len)
{
	int n = 0;
	size_t i;

	for (i = 0; i < len; i++)
		if (s[i] == '|' && (!i || s[i - 1] != '\\'))
			n++;
	return n;
}

TEST(markdown_tables_are_well_formed)
{
	const char *line, *nl;
	struct trial_set set;
	struct report *r;
	int tables = 0, width = 0, n;
	size_t len;
	char *md;

	make_set(&set, 4, 5, &icount_tcg);
	r = build(_metadata, &set, NULL);
	ASSERT_NE(NULL, r);
	md = emit(r, "markdown");
	ASSERT_NE(NULL, md);
	EXPECT_EQ(0, strncmp(md, "# abtool compare\n", 17));
	for (line = md; *line; line = nl + 1) {
		nl = strchrnul(line, '\n');
		len = (size_t)(nl - line);
		if (len && line[0] == '|') {
			EXPECT_EQ('|', line[len - 1]);
			n = md_pipes(line, len);
			if (!width) {
				width = n;
				tables++;
				/* the delimiter row follows the header */
				EXPECT_EQ(0, strncmp(nl + 1, "|:--", 4) &&
					     strncmp(nl + 1, "|---", 4));
			}
			EXPECT_EQ(width, n) TH_LOG("%.*s", (int)len, line);
		} else {
			width = 0;
		}
		if (!*nl)
			break;
	}
	/* configs, then per metric the table and its verdict counts */
	EXPECT_EQ(1 + 2 * r->nr_metrics, tables);
	EXPECT_NE(NULL, strstr(md, "**+20.0%** better"));
	EXPECT_NE(NULL, strstr(md, "\\~ inconclusive, "));
	free(md);
	report_free(r);
	trial_set_release(&set);
}

static struct json_object *get(struct json_object *o, const char *key)
{
	struct json_object *v = NULL;

	json_object_object_get_ex(o, key, &v);
	return v;
}

TEST(json_parses_back)
{
	struct json_object *root, *header, *metrics, *m, *rows, *entries, *e;
	struct trial_set set;
	struct report *r;
	char *js;

	make_set(&set, 3, 5, &icount_tcg);
	r = build(_metadata, &set, NULL);
	ASSERT_NE(NULL, r);
	js = emit(r, "json");
	ASSERT_NE(NULL, js);
	root = json_tokener_parse(js);
	ASSERT_NE(NULL, root) TH_LOG("%s", js);
	EXPECT_STREQ("abtool-compare-1",
		     json_object_get_string(get(root, "schema")));
	header = get(root, "header");
	ASSERT_NE(NULL, header);
	EXPECT_EQ(60, json_object_get_int(get(header, "trials")));
	EXPECT_STREQ("base/copy",
		     json_object_get_string(get(header, "baseline")));
	EXPECT_TRUE(json_object_get_boolean(get(header, "tcg")));
	EXPECT_STREQ("icount", json_object_get_string(json_object_array_get_idx(
		get(get(header, "env"), "clocks"), 0)));
	EXPECT_EQ(3, json_object_array_length(get(root, "configs")));
	EXPECT_EQ(5, json_object_get_int(get(json_object_array_get_idx(
		get(root, "configs"), 1), "n_min")));
	EXPECT_EQ(4, json_object_array_length(get(root, "cells")));

	metrics = get(root, "metrics");
	ASSERT_EQ(3, json_object_array_length(metrics));
	m = json_object_array_get_idx(metrics, 0);
	EXPECT_STREQ("iops", json_object_get_string(get(m, "name")));
	EXPECT_TRUE(json_object_get_boolean(get(m, "higher_is_better")));
	rows = get(m, "rows");
	ASSERT_EQ(4, json_object_array_length(rows));
	entries = get(json_object_array_get_idx(rows, 0), "configs");
	ASSERT_EQ(3, json_object_array_length(entries));
	e = json_object_array_get_idx(entries, 0);
	EXPECT_STREQ("baseline", json_object_get_string(get(e, "verdict")));
	EXPECT_TRUE(json_object_is_type(get(e, "delta_pct"), json_type_null));
	EXPECT_EQ(5, json_object_array_length(get(e, "values")));
	e = json_object_array_get_idx(entries, 1);
	EXPECT_STREQ("inconclusive",
		     json_object_get_string(get(e, "verdict")));
	e = json_object_array_get_idx(entries, 2);
	EXPECT_STREQ("better", json_object_get_string(get(e, "verdict")));
	EXPECT_TRUE(fabs(json_object_get_double(get(e, "delta_pct")) - 20) <
		    1e-9);
	EXPECT_TRUE(json_object_get_double(get(e, "p_value")) < 0.05);
	json_object_put(root);
	free(js);
	report_free(r);
	trial_set_release(&set);
}

/*
 * Issue 34, item 2: the family is the pair (A, config) and the metric
 * over the cells, not the table.  One cell where B beats A by 50%, five
 * where they are equal; 8 trials a side: B's family is its 6 cells
 * (intervals at 1 - 0.05/6), and adding configs C and D as columns
 * changes none of B's numbers.  At 4 trials a side no interval reaches
 * that level: every entry is "n too small".
 */
static struct trial_set family_set(int n, size_t configs)
{
	struct trial_set set;
	struct trial_cell cell;
	int k;

	trial_set_init(&set);
	for (k = 0; k < 6; k++) {
		cell = make_cell("null", 1, "randread", 4096u << k, 16, 1);
		add_trials(&set, "base", "copy", &cell, n, 1000, 1.0,
			   &icount_tcg);
		add_trials(&set, "fused", "fused", &cell, n, 1000,
			   k ? 1.0 : 1.5, &icount_tcg);
		if (configs > 2)
			add_trials(&set, "bpf", "bpf", &cell, n, 1000, 1.3,
				   &icount_tcg);
		if (configs > 3)
			add_trials(&set, "splice-rsrc", "splice", &cell, n,
				   1000, 0.7, &icount_tcg);
	}
	return set;
}

TEST(family_is_the_pair_not_the_table)
{
	struct trial_set narrow = family_set(8, 2), wide = family_set(8, 4);
	struct trial_set small = family_set(4, 2);
	struct report *rn, *rw, *rs;
	size_t i, k;

	rn = build(_metadata, &narrow, NULL);
	rw = build(_metadata, &wide, NULL);
	rs = build(_metadata, &small, NULL);
	ASSERT_NE(NULL, rn);
	ASSERT_NE(NULL, rw);
	ASSERT_NE(NULL, rs);
	ASSERT_EQ(2, rn->nr_columns);
	ASSERT_EQ(4, rw->nr_columns);
	EXPECT_EQ(6, rn->metrics[0].pairs[1].family);
	EXPECT_EQ(6, rw->metrics[0].pairs[1].family);
	EXPECT_EQ(6, rw->metrics[0].pairs[3].family);
	EXPECT_TRUE(fabs(rn->metrics[0].pairs[1].level - (1 - 0.05 / 6)) <
		    1e-12);
	EXPECT_EQ(REPORT_BETTER, report_entry(rn, &rn->metrics[0], 0,
					      1)->verdict);
	for (k = 0; k < rn->nr_metrics; k++) {
		for (i = 0; i < rn->nr_cells; i++) {
			const struct report_entry *a =
				report_entry(rn, &rn->metrics[k], i, 1);
			const struct report_entry *b =
				report_entry(rw, &rw->metrics[k], i, 1);

			EXPECT_EQ(a->verdict, b->verdict);
			EXPECT_TRUE(same(a->ci_lo_pct, b->ci_lo_pct) &&
				    same(a->ci_hi_pct, b->ci_hi_pct));
			EXPECT_TRUE(same(a->q, b->q));
			if (report_tested(a))
				EXPECT_TRUE(fabs(a->mwu.p * 6 - a->q) < 1e-12 ||
					    a->q == 1);
		}
		EXPECT_TRUE(same(rn->metrics[k].pairs[1].geomean_pct,
				 rw->metrics[k].pairs[1].geomean_pct));
		EXPECT_TRUE(same(rn->metrics[k].pairs[1].geomean_lo_pct,
				 rw->metrics[k].pairs[1].geomean_lo_pct));
	}
	for (i = 0; i < rs->nr_cells; i++)
		EXPECT_EQ(REPORT_N_TOO_SMALL,
			  report_entry(rs, &rs->metrics[0], i, 1)->verdict);
	EXPECT_EQ(5, report_min_trials(0.05, 6));
	EXPECT_EQ(7, report_min_trials(0.05, 24));
	EXPECT_EQ(4, report_min_trials(0.05, 1));
	report_free(rn);
	report_free(rw);
	report_free(rs);
	trial_set_release(&narrow);
	trial_set_release(&wide);
	trial_set_release(&small);
}

/*
 * Uncertainty per cell: the Hodges-Lehmann CI (5 vs 5 over a family of
 * 4 cells: 1 - 0.05/4 needs the widest interval, exact level
 * 1 - 2/252 = 125/126) in every format, a geomean row with its cells
 * and bootstrap interval, tenths where the spread rounds to 0%.
 */
TEST(uncertainty_in_every_format)
{
	struct json_object *root, *m, *e, *g;
	struct trial_set set;
	struct report_opts opts;
	const struct report_entry *en;
	struct report *r;
	char *text, *md, *csv, *js;

	make_set(&set, 3, 5, &icount_tcg);
	report_opts_init(&opts);
	opts.show_ci = true;
	r = build(_metadata, &set, &opts);
	ASSERT_NE(NULL, r);
	en = report_entry(r, &r->metrics[0], 0, 2);	/* 1.2x: +20% */
	EXPECT_TRUE(fabs(en->hl.level - 125.0 / 126) < 1e-12);
	EXPECT_TRUE(en->ci_lo_pct < 20 && en->ci_hi_pct > 20)
		TH_LOG("%g..%g", en->ci_lo_pct, en->ci_hi_pct);
	EXPECT_TRUE(fabs(r->metrics[0].pairs[2].geomean_pct - 20) < 1e-9);
	EXPECT_EQ(4, r->metrics[0].pairs[2].geomean_cells);
	EXPECT_TRUE(r->metrics[0].pairs[2].geomean_lo_pct <= 20 &&
		    r->metrics[0].pairs[2].geomean_hi_pct >= 20);
	text = emit(r, "text");
	md = emit(r, "markdown");
	csv = emit(r, "csv");
	js = emit(r, "json");
	ASSERT_NE(NULL, text);
	ASSERT_NE(NULL, md);
	ASSERT_NE(NULL, csv);
	ASSERT_NE(NULL, js);
	expect_fits(_metadata, text, 72);
	EXPECT_NE(NULL, line_starting(text, "geomean (4 cells) "))
		TH_LOG("%s", text);
	EXPECT_NE(NULL, strstr(text, "iops: change vs A, the Hodges-Lehmann "
			       "shift's interval (level reached:\n    "
			       "99.21%)")) TH_LOG("%s", text);
	EXPECT_NE(NULL, strstr(text, "  +17.8..+22.2\n")) TH_LOG("%s", text);
	/* jitter spreads by +-0.4%: one decimal, not "+-0%" */
	EXPECT_NE(NULL, strstr(text, "60.12k +-0.4%")) TH_LOG("%s", text);
	EXPECT_NE(NULL, strstr(md, "| *geomean* |"));
	EXPECT_NE(NULL, strstr(md, "+20.0% (+")) TH_LOG("%s", md);
	EXPECT_NE(NULL, strstr(md, "%), 4 cells |")) TH_LOG("%s", md);
	EXPECT_NE(NULL, strstr(md, ", n=5 |"));
	EXPECT_NE(NULL, strstr(md, "levels reached: 99.21%"));
	EXPECT_NE(NULL, strstr(csv, ",q_value,p_adjust,hl_shift_pct,"));
	EXPECT_NE(NULL, strstr(csv, ",geomean,"));
	root = json_tokener_parse(js);
	ASSERT_NE(NULL, root);
	m = json_object_array_get_idx(get(root, "metrics"), 0);
	e = json_object_array_get_idx(get(json_object_array_get_idx(
		get(m, "rows"), 0), "configs"), 2);
	EXPECT_TRUE(fabs(json_object_get_double(get(e, "ci_level")) -
			 125.0 / 126) < 1e-12);
	EXPECT_TRUE(json_object_get_double(get(e, "q_value")) < 0.05);
	g = json_object_array_get_idx(get(m, "geomean"), 1);
	EXPECT_TRUE(fabs(json_object_get_double(get(g, "delta_pct")) - 20) <
		    1e-9);
	EXPECT_EQ(4, json_object_get_int(get(g, "cells")));
	EXPECT_EQ(4, json_object_get_int(get(get(g, "verdicts"), "better")));
	json_object_put(root);
	free(text);
	free(md);
	free(csv);
	free(js);
	report_free(r);
	trial_set_release(&set);
}

TEST(spread_tenths)
{
	char buf[16];

	report_fmt_spread(0.3, buf, sizeof(buf));
	EXPECT_STREQ("0.3%", buf);
	report_fmt_spread(0.01, buf, sizeof(buf));
	EXPECT_STREQ("0.0%", buf);
	report_fmt_spread(0, buf, sizeof(buf));
	EXPECT_STREQ("0%", buf);
	report_fmt_spread(2.4, buf, sizeof(buf));
	EXPECT_STREQ("2%", buf);
}

/* ---- the command ---- */

static char *write_trials(const struct trial_set *set)
{
	static char path[64];
	const struct trial *t;
	FILE *f;
	int fd;

	strcpy(path, "/tmp/abtool-test-compare-XXXXXX");
	fd = mkstemp(path);
	if (fd < 0)
		return NULL;
	f = fdopen(fd, "w");
	trial_set_for_each(set, t)
		results_write_trial(f, t);
	fclose(f);
	return path;
}

/* The text of what the command wrote to stderr during run_compare(). */
static char stderr_text[8192];

/* cmd_compare(); stdout discarded (TAP stays clean), stderr kept. */
static int run_compare(const char *const *args)
{
	char *said;
	int ret;

	said = capture_cmd(cmd_compare, "compare", args, &ret, true);
	snprintf(stderr_text, sizeof(stderr_text), "%s", said ? said : "");
	free(said);
	return ret;
}

/* A usage error: exit 2, one line naming the problem, then the usage. */
static void expect_usage_error(struct __test_metadata *_metadata,
			       const char *const *args, const char *what)
{
	const char *nl;

	EXPECT_EQ(2, run_compare(args));
	EXPECT_EQ(0, strncmp(stderr_text, "abtool compare: ", 16))
		TH_LOG("%s", stderr_text);
	nl = strchr(stderr_text, '\n');
	ASSERT_NE(NULL, nl);
	EXPECT_TRUE(memmem(stderr_text, (size_t)(nl - stderr_text), what,
			   strlen(what)) != NULL) TH_LOG("%s", stderr_text);
	EXPECT_EQ(0, strncmp(nl + 1, "usage: abtool compare", 21));
}

static bool exists(const char *dir, const char *name)
{
	char path[512];
	struct stat st;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	return !stat(path, &st) && st.st_size > 0;
}

TEST(compare_command_line)
{
	char dir[] = "/tmp/abtool-test-outdir-XXXXXX", out[128], sub[128];
	struct trial_set set;
	char *input;

	make_set(&set, 2, 5, &icount_tcg);
	input = write_trials(&set);
	ASSERT_NE(NULL, input);
	ASSERT_NE(NULL, mkdtemp(dir));
	snprintf(out, sizeof(out), "%s/out.csv", dir);
	snprintf(sub, sizeof(sub), "%s/all", dir);

	EXPECT_EQ(0, run_compare((const char *[]){ "--help", NULL }));
	EXPECT_STREQ("", stderr_text);
	expect_usage_error(_metadata, (const char *[]){ NULL },
			   "no input files");
	expect_usage_error(_metadata, (const char *[]){ "--bogus", input,
							NULL }, "--bogus");
	expect_usage_error(_metadata, (const char *[]){ "-f", "xml", input,
							NULL }, "xml");
	expect_usage_error(_metadata, (const char *[]){ "--steady", "1%",
							input, NULL },
			   "--steady wants a percentage");
	expect_usage_error(_metadata, (const char *[]){ "--alpha", "1.5",
							input, NULL }, "1.5");
	expect_usage_error(_metadata, (const char *[]){ "--by", "kernel",
							input, NULL },
			   "kernel");
	expect_usage_error(_metadata, (const char *[]){ input, "-m", NULL },
			   "-m needs an argument");
	/* an unknown letter inside a cluster is named, not the word before */
	expect_usage_error(_metadata, (const char *[]){ "-xq", input, NULL },
			   "unknown option '-x'");
	expect_usage_error(_metadata, (const char *[]){ "--configs", ",",
							input, NULL },
			   "bad config list");
	EXPECT_EQ(1, run_compare((const char *[]){ "--configs", "a/b", input,
						   NULL }));
	EXPECT_NE(NULL, strstr(stderr_text, "unknown config 'a/b' (configs: "
			       "base/copy, base/user_copy)"))
		TH_LOG("%s", stderr_text);
	EXPECT_EQ(1, run_compare((const char *[]){ "/nonexistent.json",
						   NULL }));
	EXPECT_NE(NULL, strstr(stderr_text, "/nonexistent.json: "));
	EXPECT_EQ(1, run_compare((const char *[]){ "-m", "nope", input,
						   NULL }));
	EXPECT_NE(NULL, strstr(stderr_text, "'nope'"));
	EXPECT_EQ(0, run_compare((const char *[]){ input, NULL }));
	EXPECT_EQ(0, run_compare((const char *[]){ "-f", "csv", "-o", out,
						   "-m", "all", input,
						   NULL }));
	EXPECT_TRUE(exists(dir, "out.csv"));
	/* --by file would pool base/copy and base/user_copy: refused */
	EXPECT_EQ(1, run_compare((const char *[]){ "--by", "file", input,
						   NULL }));
	EXPECT_NE(NULL, strstr(stderr_text, "--by file: ")) TH_LOG("%s",
								  stderr_text);
	EXPECT_NE(NULL, strstr(stderr_text, "base/copy")) TH_LOG("%s",
								 stderr_text);
	EXPECT_NE(NULL, strstr(stderr_text, "base/user_copy"));
	EXPECT_EQ(0, run_compare((const char *[]){ "--outdir", sub,
						   "--alpha", "0.01", input,
						   NULL }));
	EXPECT_TRUE(exists(sub, "report.txt"));
	EXPECT_TRUE(exists(sub, "report.md"));
	EXPECT_TRUE(exists(sub, "report.csv"));
	EXPECT_TRUE(exists(sub, "report.json"));
	remove_tree(dir);
	unlink(input);
	trial_set_release(&set);
}

/* A file given twice would double n: same path, a link, or a copy. */
TEST(compare_refuses_duplicate_inputs)
{
	char dir[] = "/tmp/abtool-test-dup-XXXXXX", link[128], copy[128];
	char other[128], out[128], cmd[512];
	struct trial_set set;
	char *input, *text;
	FILE *f;

	make_set(&set, 2, 5, &icount_tcg);
	input = write_trials(&set);
	ASSERT_NE(NULL, input);
	ASSERT_NE(NULL, mkdtemp(dir));
	snprintf(link, sizeof(link), "%s/link.jsonl", dir);
	snprintf(copy, sizeof(copy), "%s/copy.jsonl", dir);
	snprintf(other, sizeof(other), "%s/other.jsonl", dir);
	snprintf(out, sizeof(out), "%s/report.txt", dir);
	ASSERT_EQ(0, symlink(input, link));
	snprintf(cmd, sizeof(cmd), "cp %s %s", input, copy);
	ASSERT_EQ(0, system(cmd));

	EXPECT_EQ(1, run_compare((const char *[]){ input, input, NULL }));
	EXPECT_NE(NULL, strstr(stderr_text, "are the same file"))
		TH_LOG("%s", stderr_text);
	EXPECT_EQ(1, run_compare((const char *[]){ input, link, NULL }));
	EXPECT_NE(NULL, strstr(stderr_text, "are the same file"));
	EXPECT_EQ(1, run_compare((const char *[]){ copy, input, NULL }));
	EXPECT_NE(NULL, strstr(stderr_text, "have the same content"));
	EXPECT_NE(NULL, strstr(stderr_text, "would count twice"));
	EXPECT_EQ(1, run_compare((const char *[]){ "-", "-", NULL }));
	EXPECT_NE(NULL, strstr(stderr_text, "(-) is given twice"));

	/* different trials of the same configs: pooled, n adds up */
	trial_set_release(&set);
	make_set(&set, 2, 3, &icount_tcg);
	f = fopen(other, "w");
	ASSERT_NE(NULL, f);
	for (size_t k = 0; k < set.nr; k++) {
		set.trials[k].boot = 1;
		results_write_trial(f, &set.trials[k]);
	}
	fclose(f);
	EXPECT_EQ(0, run_compare((const char *[]){ "-o", out, input, other,
						   NULL }))
		TH_LOG("%s", stderr_text);
	f = fopen(out, "r");
	ASSERT_NE(NULL, f);
	text = calloc(1, 65536);
	ASSERT_NE(NULL, text);
	fread(text, 1, 65535, f);
	fclose(f);
	EXPECT_NE(NULL, strstr(text, "n=8 (2 boots x 3..5 trials)"))
		TH_LOG("%s", text);
	/* the header says how to regenerate it */
	snprintf(cmd, sizeof(cmd), "regenerate with:\nabtool compare -o %s",
		 out);
	EXPECT_NE(NULL, strstr(text, cmd)) TH_LOG("%s", text);
	free(text);
	remove_tree(dir);
	unlink(input);
	trial_set_release(&set);
}

/* Write @set to @path, each trial changed by @edit first (may be NULL). */
static void write_edited(const char *path, const struct trial_set *set,
			 void (*edit)(struct trial *t, size_t k))
{
	FILE *f = fopen(path, "w");
	size_t k;

	for (k = 0; f && k < set->nr; k++) {
		struct trial t = set->trials[k];

		if (edit)
			edit(&t, k);
		results_write_trial(f, &t);
	}
	if (f)
		fclose(f);
}

static void run_a(struct trial *t, size_t k)
{
	strcpy(t->run_id, "run-a");
	strcpy(t->series_commit, "1111111");
}

static void run_b(struct trial *t, size_t k)
{
	strcpy(t->run_id, "run-b");
	strcpy(t->series_commit, "1111111");
	t->boot = 1;
}

static void run_a_commit_2(struct trial *t, size_t k)
{
	run_a(t, k);
	t->boot = 1;
	strcpy(t->series_commit, "2222222");
}

/* the same trials, but boot 1: what a second boot of run-a writes */
static void run_a_boot_1(struct trial *t, size_t k)
{
	run_a(t, k);
	t->boot = 1;
}

/*
 * Issue 34, item 5: records, not files, are what must be distinct, and
 * a comparison is of one run unless --pool says otherwise.
 */
TEST(compare_refuses_duplicate_records_and_other_runs)
{
	char dir[] = "/tmp/abtool-test-keys-XXXXXX", a[128], a2[128], b[128];
	char cat[128], blank[128], empty[128], c2[128], one[128], cmd[1024];
	struct trial_set set;
	FILE *f;

	make_set(&set, 2, 4, &icount_tcg);
	ASSERT_NE(NULL, mkdtemp(dir));
	snprintf(a, sizeof(a), "%s/a.jsonl", dir);
	snprintf(a2, sizeof(a2), "%s/a-boot1.jsonl", dir);
	snprintf(b, sizeof(b), "%s/b.jsonl", dir);
	snprintf(c2, sizeof(c2), "%s/commit2.jsonl", dir);
	snprintf(cat, sizeof(cat), "%s/cat.jsonl", dir);
	snprintf(blank, sizeof(blank), "%s/blank.jsonl", dir);
	snprintf(empty, sizeof(empty), "%s/empty.jsonl", dir);
	snprintf(one, sizeof(one), "%s/one.jsonl", dir);
	write_edited(a, &set, run_a);
	write_edited(a2, &set, run_a_boot_1);
	write_edited(b, &set, run_b);
	write_edited(c2, &set, run_a_commit_2);
	snprintf(cmd, sizeof(cmd), "cat %s %s > %s && (cat %s; echo) > %s && "
		 ": > %s", a, a, cat, a, blank, empty);
	ASSERT_EQ(0, system(cmd));

	/* two boots of one run: fine */
	EXPECT_EQ(0, run_compare((const char *[]){ a, a2, NULL }))
		TH_LOG("%s", stderr_text);
	/* every record twice in one file: refused, naming both lines */
	EXPECT_EQ(1, run_compare((const char *[]){ cat, NULL }));
	EXPECT_NE(NULL, strstr(stderr_text, "are the same trial"))
		TH_LOG("%s", stderr_text);
	EXPECT_NE(NULL, strstr(stderr_text, "cat.jsonl:1 and "))
		TH_LOG("%s", stderr_text);
	EXPECT_NE(NULL, strstr(stderr_text, "boot 0, trial 0, run run-a"))
		TH_LOG("%s", stderr_text);
	/* a copy with a blank line more passes the file check, not this */
	EXPECT_EQ(1, run_compare((const char *[]){ a, blank, NULL }));
	EXPECT_NE(NULL, strstr(stderr_text, "doubles n")) TH_LOG("%s",
								  stderr_text);
	/* --pool does not make a duplicate a trial */
	EXPECT_EQ(1, run_compare((const char *[]){ "--pool", a, blank,
						   NULL }));
	EXPECT_NE(NULL, strstr(stderr_text, "doubles n"));
	/* two runs, two commits: only with --pool */
	EXPECT_EQ(1, run_compare((const char *[]){ a, b, NULL }));
	EXPECT_NE(NULL, strstr(stderr_text, "trials of two runs: run-a"))
		TH_LOG("%s", stderr_text);
	EXPECT_NE(NULL, strstr(stderr_text, "--pool"));
	EXPECT_EQ(0, run_compare((const char *[]){ "--pool", a, b, NULL }))
		TH_LOG("%s", stderr_text);
	EXPECT_EQ(1, run_compare((const char *[]){ a, c2, NULL }));
	EXPECT_NE(NULL, strstr(stderr_text, "trials of two series commits: "
			       "1111111")) TH_LOG("%s", stderr_text);
	EXPECT_EQ(0, run_compare((const char *[]){ "--pool", a, c2, NULL }));
	/* the same trial in two runs: without --pool, said as such */
	write_edited(b, &set, run_a);
	f = fopen(b, "a");
	ASSERT_NE(NULL, f);
	fputs("\n", f);	/* not the same bytes as a */
	fclose(f);
	snprintf(cmd, sizeof(cmd), "sed -i s/run-a/run-c/ %s", b);
	ASSERT_EQ(0, system(cmd));
	EXPECT_EQ(1, run_compare((const char *[]){ a, b, NULL }));
	EXPECT_NE(NULL, strstr(stderr_text, "of two runs (run-a, run-c)"))
		TH_LOG("%s", stderr_text);
	/* an empty file is an error, not a config with no trials */
	EXPECT_EQ(1, run_compare((const char *[]){ a, empty, NULL }));
	EXPECT_NE(NULL, strstr(stderr_text, "empty.jsonl: no trial records"))
		TH_LOG("%s", stderr_text);
	/* --by file with one config per file: fine */
	trial_set_release(&set);
	make_set(&set, 1, 4, &icount_tcg);
	write_edited(one, &set, NULL);
	EXPECT_EQ(0, run_compare((const char *[]){ "--by", "file", one,
						   NULL }))
		TH_LOG("%s", stderr_text);
	/* two runs side by side, a column each, is a comparison: fine */
	write_edited(a, &set, run_a);
	write_edited(b, &set, run_b);
	EXPECT_EQ(0, run_compare((const char *[]){ "--by", "file", a, b,
						   NULL }))
		TH_LOG("%s", stderr_text);
	/* but by variant,path they pool into one column */
	EXPECT_EQ(1, run_compare((const char *[]){ a, b, NULL }));
	EXPECT_NE(NULL, strstr(stderr_text, "base/copy pools trials of two "
			       "runs: run-a")) TH_LOG("%s", stderr_text);
	remove_tree(dir);
	trial_set_release(&set);
}

/* The text of DIR/NAME (malloc'd), or NULL. */
static char *slurp(const char *dir, const char *name)
{
	char path[512];

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	return read_file(path);
}

/*
 * The forest plot: one panel per non-baseline config, its rows the
 * ratio of the medians, the Hodges-Lehmann interval as ratios and the
 * verdict, on a log2 axis with the margin band around 1.
 */
static void check_forest(struct __test_metadata *_metadata,
			 const struct report *r, const char *dir)
{
	const struct report_metric *m = &r->metrics[0];
	const struct report_entry *b = report_entry(r, m, 0, 0);
	const struct report_entry *e = report_entry(r, m, 0, 2);
	char *dat = slurp(dir, "iops-change.dat");
	char *gp = slurp(dir, "iops-change.gp");
	char want[256], level[16];

	ASSERT_NE(NULL, dat);
	ASSERT_NE(NULL, gp);
	if (plot_have_gnuplot()) {
		EXPECT_TRUE(exists(dir, "iops-change.svg"));
		EXPECT_TRUE(exists(dir, "iops-change.png"));
	}
	/* the first cell of splice-rsrc/splice: 4 rows, the top one */
	ASSERT_EQ(REPORT_BETTER, e->verdict);
	snprintf(want, sizeof(want), "\n4 %.6g %.6g %.6g better \"null "
		 "randread 4K qd16\"\n", e->sum.median / b->sum.median,
		 1 + e->ci_lo_pct / 100, 1 + e->ci_hi_pct / 100);
	EXPECT_NE(NULL, strstr(dat, want)) TH_LOG("%s in %s", want, dat);
	EXPECT_NE(NULL, strstr(dat, "# splice-rsrc/splice vs base/copy\n"));
	EXPECT_NE(NULL, strstr(dat, "\n0 1.2")) TH_LOG("geomean: %s", dat);
	EXPECT_NE(NULL, strstr(gp, "set logscale x 2\n"));
	EXPECT_NE(NULL, strstr(gp, "\"1\" 1,")) TH_LOG("%s", gp);
	EXPECT_NE(NULL, strstr(gp, "with xerrorbars"));
	EXPECT_NE(NULL, strstr(gp, "index 1 using 2:1:3:4"));
	/*
	 * jitter() spreads the trials of a boot over up to 2%: A is
	 * unsteady by the 1% rule, and the row's name says so
	 */
	EXPECT_TRUE(report_unsteady(r, m, 0));
	EXPECT_NE(NULL, strstr(gp, "\"null randread 4K qd16 !\" 4,"));
	EXPECT_NE(NULL, strstr(gp, "set object 1 rect from 0.99, graph 0 to "
			       "1.01, graph 1")) TH_LOG("%s", gp);
	report_fmt_level(m->pairs[2].level, level, sizeof(level));
	snprintf(want, sizeof(want), "intervals at %s", level);
	EXPECT_NE(NULL, strstr(gp, want)) TH_LOG("%s in %s", want, gp);
	EXPECT_NE(NULL, strstr(gp, "title \"better\"")) TH_LOG("%s", gp);
	free(dat);
	free(gp);
}

TEST(plots)
{
	char dir[] = "/tmp/abtool-test-plot-XXXXXX", err[512];
	struct trial_set set;
	struct report *r;
	char *path;
	int ret;

	make_set(&set, 3, 5, &icount_tcg);
	r = build(_metadata, &set, NULL);
	ASSERT_NE(NULL, r);
	ASSERT_NE(NULL, mkdtemp(dir));
	ret = plot_write(r, dir, err, sizeof(err));
	if (plot_have_gnuplot()) {
		EXPECT_EQ(0, ret) TH_LOG("%s", err);
		EXPECT_TRUE(exists(dir, "iops.svg"));
		EXPECT_TRUE(exists(dir, "iops.png"));
		EXPECT_TRUE(exists(dir, "lat_p99_us.svg"));
	} else {
		EXPECT_EQ(PLOT_NO_GNUPLOT, ret);
	}
	EXPECT_TRUE(exists(dir, "iops.gp"));
	EXPECT_TRUE(exists(dir, "iops.dat"));
	check_forest(_metadata, r, dir);

	/* without gnuplot: scripts and data still, and a clear message */
	path = getenv("PATH") ? strdup(getenv("PATH")) : NULL;
	setenv("PATH", "/nonexistent", 1);
	EXPECT_FALSE(plot_have_gnuplot());
	EXPECT_EQ(PLOT_NO_GNUPLOT, plot_write(r, dir, err, sizeof(err)));
	EXPECT_NE(NULL, strstr(err, "gnuplot not found"));
	if (path)
		setenv("PATH", path, 1);
	free(path);
	remove_tree(dir);
	report_free(r);
	trial_set_release(&set);
}

/*
 * A metric that is 0 for the baseline in every cell (the page faults of
 * a 4K-only matrix; here the server CPU) has no change in percent: its
 * forest plot is left out (gnuplot fails on a plot without points), its
 * bar chart and the other metrics' plots are still drawn.
 */
TEST(plots_without_changes)
{
	char dir[] = "/tmp/abtool-test-plot-XXXXXX", err[512];
	struct trial_set set;
	struct report *r;
	struct trial *t;
	int ret;

	make_set(&set, 3, 5, &icount_tcg);
	trial_set_for_each(&set, t)
		trial_set_metric(t, "server_cpu_us_per_io", 0);
	r = build(_metadata, &set, NULL);
	ASSERT_NE(NULL, r);
	ASSERT_NE(NULL, mkdtemp(dir));
	ret = plot_write(r, dir, err, sizeof(err));
	EXPECT_EQ(plot_have_gnuplot() ? 0 : PLOT_NO_GNUPLOT, ret) TH_LOG("%s", err);
	EXPECT_TRUE(exists(dir, "server_cpu_us_per_io.gp"));
	EXPECT_FALSE(exists(dir, "server_cpu_us_per_io-change.gp"));
	EXPECT_TRUE(exists(dir, "iops-change.gp"));
	remove_tree(dir);
	report_free(r);
	trial_set_release(&set);
}

/*
 * Issue 34, item 10: a clean run prints no tool warnings.  A config
 * without the metric (the kernel row has no server) and a metric that
 * is 0 everywhere made gnuplot warn; the plots leave such series out.
 */
TEST(plots_say_nothing_on_stderr)
{
	char dir[] = "/tmp/abtool-test-plot-XXXXXX", err[512];
	char path[] = "/tmp/abtool-test-stderr-XXXXXX", said[4096];
	struct trial_set set;
	struct report *r;
	struct trial *t;
	int fd, saved, ret;
	ssize_t len;

	if (!plot_have_gnuplot())
		SKIP(return, "no gnuplot");
	make_set(&set, 3, 5, &icount_tcg);
	trial_set_for_each(&set, t) {
		trial_set_metric(t, "faults_per_io", 0);
		if (!strcmp(t->path, "user_copy"))
			trial_set_metric_na(t, "server_cpu_us_per_io");
	}
	r = build(_metadata, &set, &(struct report_opts){
		.by = REPORT_BY_VARIANT_PATH, .alpha = 0.05, .margin_pct = 1,
		.all_metrics = true });
	ASSERT_NE(NULL, r);
	ASSERT_NE(NULL, mkdtemp(dir));
	fd = mkstemp(path);
	ASSERT_LE(0, fd);
	fflush(stderr);
	saved = dup(STDERR_FILENO);
	dup2(fd, STDERR_FILENO);
	ret = plot_write(r, dir, err, sizeof(err));
	fflush(stderr);
	dup2(saved, STDERR_FILENO);
	close(saved);
	len = pread(fd, said, sizeof(said) - 1, 0);
	said[len > 0 ? len : 0] = '\0';
	close(fd);
	unlink(path);
	EXPECT_EQ(0, ret) TH_LOG("%s", err);
	EXPECT_STREQ("", said);
	remove_tree(dir);
	report_free(r);
	trial_set_release(&set);
}

/* The tics plot_axis_put_tics() writes for @a, as a string. */
static char *axis_tics(const struct plot_axis *a, int px)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	if (!f)
		return NULL;
	plot_axis_put_tics(f, a, px);
	fclose(f);
	return buf;
}

/*
 * The forest plots' log2 axis: its ends are fixed stops beyond the data
 * (never 0.9137), its labels round ratios that fit, 1 always among them.
 */
TEST(plot_axis_stops_and_tics)
{
	struct plot_axis a;
	char *t;

	plot_axis_fit(&a, 0.99, 1.01);		/* the margin band alone */
	EXPECT_EQ(0.95, a.lo);
	EXPECT_EQ(1.05, a.hi);
	t = axis_tics(&a, 250);
	EXPECT_STREQ("set xtics (\"0.95\" 0.95, \"0.98\" 0.98, \"1\" 1, "
		     "\"1.02\" 1.02, \"1.05\" 1.05)\n", t);
	free(t);
	plot_axis_fit(&a, 0.85, 1.2);
	EXPECT_EQ(0.8, a.lo);
	EXPECT_EQ(1.25, a.hi);
	t = axis_tics(&a, 250);
	EXPECT_STREQ("set xtics (\"0.8\" 0.8, \"0.9\" 0.9, \"1\" 1, "
		     "\"1.1\" 1.1, \"1.25\" 1.25, \"\" 0.95 1, "
		     "\"\" 1.05 1)\n", t);
	free(t);
	/* the in-kernel driver at 7.4x the baseline: powers of 2 */
	plot_axis_fit(&a, 0.85, 7.4);
	EXPECT_EQ(0.8, a.lo);
	EXPECT_EQ(8, a.hi);
	t = axis_tics(&a, 250);
	EXPECT_NE(NULL, strstr(t, "\"1\" 1, \"2\" 2, \"4\" 4, \"8\" 8"))
		TH_LOG("%s", t);
	free(t);
	/* fractions of the kernel: 1/8 and 1/16 */
	plot_axis_fit(&a, 0.11, 1.02);
	EXPECT_EQ(1.0 / 16, a.lo);
	EXPECT_EQ(1.05, a.hi);
	t = axis_tics(&a, 250);
	EXPECT_NE(NULL, strstr(t, "(\"1/16\" 0.0625, \"1/8\" 0.125, "))
		TH_LOG("%s", t);
	free(t);
	/* a point at an end gets room: 0.5 is inside [0.25, ...] */
	plot_axis_fit(&a, 0.5, 1);
	EXPECT_EQ(0.25, a.lo);
	/* nothing positive: the least axis */
	plot_axis_fit(&a, NAN, 0);
	EXPECT_EQ(0.95, a.lo);
	EXPECT_EQ(1.05, a.hi);
}

/* Every "set terminal svg size W,H" of @gp: the largest W and H. */
static void svg_size(const char *gp, int *w, int *h)
{
	const char *at = strstr(gp, "svg size ");

	*w = *h = 0;
	if (at)
		sscanf(at, "svg size %d,%d", w, h);
}

/*
 * Issue 34, item 10: no 900 x 5506 images.  A matrix of 70 cells and 9
 * configs (one the in-kernel driver) is split into pages of at most 32
 * cells and 6 panels, each image under 1800 pixels tall; every page of
 * a forest figure has the same x axis (small multiples of one scale);
 * the bar charts' pages too stay under 1800 x 1600.
 */
TEST(plots_stay_readable)
{
	static const char *const targets[] = { "null", "loop", "mirror",
						"stripe", "delay" };
	static const char *const rws[] = { "randread", "randwrite" };
	char dir[] = "/tmp/abtool-test-plot-XXXXXX", err[512], name[64];
	static const char *const figures[] = { "change-", "fraction-", "" };
	char xrange[3][64] = { "", "", "" }, *gp, *path, *x;
	struct trial_set set;
	struct trial_cell cell;
	size_t t, w, b, c, pages[3] = { 0, 0, 0 }, k;
	struct report *r;
	int width, height, panels;

	trial_set_init(&set);
	for (t = 0; t < N(targets); t++)
		for (w = 0; w < N(rws); w++)
			for (b = 0; b < 7; b++) {
				cell = make_cell(targets[t], 1, rws[w],
						 4096ull << b, 16, 1);
				for (c = 0; c < N(configs); c++)
					add_trials(&set, configs[c].variant,
						   configs[c].path, &cell, 5,
						   60000, configs[c].factor,
						   &icount_tcg);
				add_trials(&set, "base", "kernel", &cell, 5,
					   60000, 2.5, &icount_tcg);
			}
	r = build(_metadata, &set, NULL);
	ASSERT_NE(NULL, r);
	ASSERT_EQ(70, r->nr_cells);
	ASSERT_NE(NULL, r->ref);
	ASSERT_NE(NULL, mkdtemp(dir));
	/* the scripts are what is checked: no need to draw them */
	path = getenv("PATH") ? strdup(getenv("PATH")) : NULL;
	setenv("PATH", "/nonexistent", 1);
	EXPECT_EQ(PLOT_NO_GNUPLOT, plot_write(r, dir, err, sizeof(err)));
	if (path)
		setenv("PATH", path, 1);
	free(path);
	EXPECT_FALSE(exists(dir, "iops-change.gp"));
	for (k = 0; k < 3; k++)
		for (t = 1; t < 20; t++) {
			snprintf(name, sizeof(name), "iops-%s%zu.gp",
				 figures[k], t);
			gp = slurp(dir, name);
			if (!gp)
				break;
			pages[k]++;
			svg_size(gp, &width, &height);
			EXPECT_LT(height, 1800) TH_LOG("%s: %d", name, height);
			EXPECT_LT(width, 1600) TH_LOG("%s: %d", name, width);
			if (k == 2) {	/* bars: each cell has its own scale */
				free(gp);
				continue;
			}
			x = strstr(gp, "set yrange [-0.6:");
			ASSERT_NE(NULL, x);
			EXPECT_LE(atoi(x + strlen("set yrange [-0.6:")), 32);
			for (panels = 0, x = gp; (x = strstr(x, " index ")); x++)
				panels++;
			/* two plot lines a panel */
			EXPECT_LE(panels, 2 * 6) TH_LOG("%s", name);
			x = strstr(gp, "set xrange [");
			ASSERT_NE(NULL, x);
			if (!*xrange[k])
				snprintf(xrange[k], sizeof(xrange[k]), "%.*s",
					 (int)strcspn(x, "\n"), x);
			EXPECT_EQ(0, strncmp(x, xrange[k], strlen(xrange[k])))
				TH_LOG("%s: %s", name, xrange[k]);
			free(gp);
		}
	/* 70 cells: 3 parts; 7 or 8 panels: 2 groups */
	EXPECT_EQ(6, pages[0]);
	EXPECT_EQ(6, pages[1]);
	/* 70 panels of 9 bars: 4 x 8 a page at most */
	EXPECT_EQ(3, pages[2]);
	EXPECT_FALSE(exists(dir, "iops.gp"));
	remove_tree(dir);
	report_free(r);
	trial_set_release(&set);
}

/*
 * A set with an in-kernel row: base/copy at 0.5 and base/splice at 0.8
 * of base/kernel, 5 trials each (enough for an exact p of 2/252), on
 * two cells; base/user_copy equal to the kernel row.
 */
static void make_kernel_set(struct trial_set *set)
{
	const struct trial_cell cells[] = {
		make_cell("null", 1, "randread", 4096, 16, 1),
		make_cell("mirror", 2, "write", 65536, 16, 1),
	};
	struct trial *t;
	size_t k;

	trial_set_init(set);
	for (k = 0; k < N(cells); k++) {
		add_trials(set, "base", "copy", &cells[k], 5, 10000, 0.5,
			   &icount_tcg);
		add_trials(set, "base", "kernel", &cells[k], 5, 10000, 1.0,
			   &icount_tcg);
		add_trials(set, "base", "splice", &cells[k], 5, 10000, 0.8,
			   &icount_tcg);
		add_trials(set, "base", "user_copy", &cells[k], 5, 10000, 1.0,
			   &icount_tcg);
	}
	trial_set_for_each(set, t)
		if (!strcmp(t->path, "kernel"))
			strcpy(t->driver, !strcmp(t->cell.target, "null") ?
			       "null_blk" : "md-raid1");
}

TEST(kernel_row_is_the_reference)
{
	const struct report_entry *e, *ref;
	struct trial_set set;
	struct report *r;
	double f, lo, hi;
	char buf[32];

	make_kernel_set(&set);
	r = build(_metadata, &set, NULL);
	ASSERT_NE(NULL, r);
	/* the main table keeps its baseline; the reference is found */
	EXPECT_STREQ("base/copy", r->columns[0].label);
	ASSERT_NE(NULL, r->ref);
	EXPECT_EQ(1, r->ref_column);
	EXPECT_STREQ("base/kernel", r->ref->columns[0].label);
	/* the drivers behind the kernel row are known */
	ASSERT_EQ(2, r->columns[1].env.drivers.nr);
	EXPECT_STREQ("null_blk", r->columns[1].env.drivers.v[0]);
	/* copy: half the kernel row, significant against it */
	ref = report_ref_entry(r, 0, 0, 1);
	e = report_ref_entry(r, 0, 0, 0);
	EXPECT_EQ(REPORT_BASELINE, ref->verdict);
	report_fraction(e, ref->sum.median, &f, &lo, &hi);
	EXPECT_TRUE(fabs(f - 0.5) < 1e-9) TH_LOG("f=%g", f);
	EXPECT_LE(lo, 0.5);
	EXPECT_GE(hi, 0.5);
	EXPECT_GT(lo, 0.48);
	EXPECT_LT(hi, 0.52);
	EXPECT_EQ(REPORT_WORSE, e->verdict);
	report_fmt_fraction(e, ref->sum.median, buf, sizeof(buf));
	EXPECT_STREQ("0.50", buf);
	/* user_copy: the same as the kernel row, so not significant */
	e = report_ref_entry(r, 0, 0, 3);
	report_fmt_fraction(e, ref->sum.median, buf, sizeof(buf));
	EXPECT_STREQ("1.00~", buf);
	/* geomean of the fractions over both cells: splice at 0.8 */
	EXPECT_TRUE(fabs(r->ref->metrics[0].pairs[r->ref_map[2]].geomean_pct +
			 20) < 1e-6);
	report_free(r);
	trial_set_release(&set);
}

TEST(reference_option)
{
	struct report_opts opts;
	struct trial_set set;
	struct report *r = NULL;
	char err[512];

	make_kernel_set(&set);
	report_opts_init(&opts);
	opts.reference = "none";
	r = build(_metadata, &set, &opts);
	ASSERT_NE(NULL, r);
	EXPECT_EQ(NULL, r->ref);
	report_free(r);
	/* any config can be the reference */
	opts.reference = "base/splice";
	r = build(_metadata, &set, &opts);
	ASSERT_NE(NULL, r);
	ASSERT_NE(NULL, r->ref);
	EXPECT_STREQ("base/splice", r->columns[r->ref_column].label);
	report_free(r);
	/* a config no trial has: an error that lists the configs */
	opts.reference = "base/nvme";
	EXPECT_EQ(-EINVAL, report_build(&set, &opts, &r, err, sizeof(err)));
	EXPECT_EQ(NULL, r);
	EXPECT_NE(NULL, strstr(err, "reference 'base/nvme' is not a config"));
	EXPECT_NE(NULL, strstr(err, "base/kernel"));
	/* --by path: the column "kernel" */
	opts.reference = NULL;
	opts.by = REPORT_BY_PATH;
	r = build(_metadata, &set, &opts);
	ASSERT_NE(NULL, r);
	ASSERT_NE(NULL, r->ref);
	EXPECT_STREQ("kernel", r->columns[r->ref_column].label);
	report_free(r);
	/* --by variant: no kernel column, no fractions */
	opts.by = REPORT_BY_VARIANT;
	r = build(_metadata, &set, &opts);
	ASSERT_NE(NULL, r);
	EXPECT_EQ(NULL, r->ref);
	report_free(r);
	trial_set_release(&set);
}

TEST(fractions_in_every_format)
{
	struct trial_set set;
	struct report *r;
	char *out;
	const char *line;

	make_kernel_set(&set);
	r = build(_metadata, &set, NULL);
	ASSERT_NE(NULL, r);
	out = emit(r, "text");
	ASSERT_NE(NULL, out);
	EXPECT_NE(NULL, strstr(out, "iops as a fraction of B (base/kernel: "
			       "null_blk, md-raid1)"));
	/* every line still fits a cover letter */
	for (line = out; *line; line += strcspn(line, "\n") + 1) {
		EXPECT_LE(strcspn(line, "\n"), REPORT_TEXT_WIDTH);
		if (!line[strcspn(line, "\n")])
			break;
	}
	free(out);
	out = emit(r, "markdown");
	ASSERT_NE(NULL, out);
	EXPECT_NE(NULL, strstr(out, "### iops as a fraction of B: base/kernel"));
	EXPECT_NE(NULL, strstr(out, "| **0.5** worse (0.4"));
	free(out);
	out = emit(r, "json");
	ASSERT_NE(NULL, out);
	EXPECT_NE(NULL, strstr(out, "\"reference\": \"base/kernel\""));
	EXPECT_NE(NULL, strstr(out, "\"vs_reference\""));
	EXPECT_NE(NULL, strstr(out, "\"fraction_of_reference\""));
	free(out);
	out = emit(r, "csv");
	ASSERT_NE(NULL, out);
	EXPECT_NE(NULL, strstr(out, ",ref_config,ref_fraction,"));
	EXPECT_NE(NULL, strstr(out, ",base/kernel,0.5,worse,"));
	free(out);
	report_free(r);
	trial_set_release(&set);
}

TEST(backing_is_part_of_the_cell)
{
	struct trial_cell tmpfs = make_cell("loop", 1, "randwrite", 65536, 16, 1);
	struct trial_cell brd = tmpfs;
	struct trial_set set;
	struct report *r;

	strcpy(tmpfs.backing, "tmpfs");
	strcpy(brd.backing, "brd");
	trial_set_init(&set);
	add_trials(&set, "base", "copy", &tmpfs, 4, 1000, 1, &icount_tcg);
	add_trials(&set, "base", "copy", &brd, 4, 1000, 1, &icount_tcg);
	r = build(_metadata, &set, NULL);
	ASSERT_NE(NULL, r);
	ASSERT_EQ(2, r->nr_cells);
	EXPECT_STREQ("loop@tmpfs randwrite 64K qd16", r->cells[0].label);
	EXPECT_STREQ("loop@brd randwrite 64K qd16", r->cells[1].label);
	report_free(r);
	trial_set_release(&set);
}

/* @n "skipped" records of one config in one cell (abtool run's kublk rows) */
static void add_skipped(struct trial_set *set, const char *variant,
			const char *path, const struct trial_cell *cell, int n,
			const char *why)
{
	struct trial t;
	int i;

	for (i = 0; i < n; i++) {
		test_trial(&t, variant, path, cell, 0, i);
		snprintf(t.skipped, sizeof(t.skipped), "%s", why);
		trial_set_add(set, &t);
	}
}

/*
 * A cell a config cannot serve: no data in the table (not pooled, n
 * unchanged), and the header says which config, how many cells, why.
 */
TEST(skipped_cells_are_noted_not_pooled)
{
	struct trial_cell null = make_cell("null", 1, "randread", 4096, 16, 1);
	struct trial_cell m2 = make_cell("mirror", 2, "randwrite", 65536, 16, 1);
	struct trial_cell m4 = make_cell("mirror", 4, "randwrite", 65536, 16, 1);
	const char *why = "kublk has no mirror target";
	const char *only[] = { "upstream/copy" };
	struct report_opts opts;
	struct trial_set set;
	struct report *r;
	char *text, *md, *json;

	trial_set_init(&set);
	add_trials(&set, "upstream", "copy", &null, 4, 1000, 1, &icount_tcg);
	add_trials(&set, "upstream", "copy", &m2, 4, 1000, 1, &icount_tcg);
	add_trials(&set, "upstream", "copy", &m4, 4, 1000, 1, &icount_tcg);
	add_trials(&set, "upstream", "kublk-z", &null, 4, 1000, 1.1,
		   &icount_tcg);
	add_skipped(&set, "upstream", "kublk-z", &m2, 4, why);
	add_skipped(&set, "upstream", "kublk-z", &m4, 4, why);
	r = build(_metadata, &set, NULL);
	ASSERT_NE(NULL, r);
	EXPECT_EQ(3, r->nr_cells);
	ASSERT_EQ(2, r->nr_columns);
	EXPECT_EQ(4, r->columns[1].n_min);
	EXPECT_EQ(4, r->columns[1].n_max);
	ASSERT_EQ(1, r->not_measured.nr);
	EXPECT_STREQ("upstream/kublk-z: 2 cells: kublk has no mirror target",
		     r->not_measured.v[0]);
	EXPECT_EQ(0, report_entry(r, &r->metrics[0], 1, 1)->sum.n);
	text = emit(r, "text");
	md = emit(r, "markdown");
	json = emit(r, "json");
	EXPECT_NE(NULL, strstr(text, "not measured"));
	EXPECT_NE(NULL, strstr(text, "upstream/kublk-z: 2 cells: kublk has no"));
	EXPECT_NE(NULL, strstr(md, "**not measured**"));
	EXPECT_NE(NULL, strstr(json, "\"not_measured\""));
	free(text);
	free(md);
	free(json);
	report_free(r);

	/* --configs without the config: no note */
	report_opts_init(&opts);
	opts.configs = only;
	opts.nr_configs = 1;
	r = build(_metadata, &set, &opts);
	ASSERT_NE(NULL, r);
	EXPECT_EQ(0, r->not_measured.nr);
	report_free(r);
	trial_set_release(&set);
}

TEST_HARNESS_MAIN
