// SPDX-License-Identifier: GPL-2.0
/* results.c: trial records as JSON lines, written and read back. */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <json-c/json.h>

#include "kselftest_harness.h"

#include "results.h"

#define GOOD \
	"{\"schema\":\"abtool-trial-1\",\"variant\":\"base\"," \
	"\"metrics\":{\"iops\":1}}"

static void fill_trial(struct trial *t, int i)
{
	trial_init(t);
	strcpy(t->variant, "splice-rsrc");
	strcpy(t->kernel, "6.12.118");
	strcpy(t->flavor, "perf");
	strcpy(t->path, "splice");
	strcpy(t->clock, "icount");
	strcpy(t->accel, "tcg");
	strcpy(t->host, "build-host");
	strcpy(t->date, "2026-12-03T10:00:00Z");
	strcpy(t->run_id, "20261203-095900");
	strcpy(t->series_commit, "b1d5c6d0123456789abcdef0123456789abcdef0");
	t->has_seed = true;
	t->seed = 9;
	t->boot = 1;
	t->trial = i;
	t->cpus = 1 + i;
	strcpy(t->cell.target, "mirror");
	t->cell.legs = 2;
	strcpy(t->cell.backing, "brd");
	strcpy(t->driver, "md-raid1");
	strcpy(t->cell.rw, "randwrite");
	t->cell.bs = 65536;
	t->cell.iodepth = 16;
	t->cell.jobs = 4;
	trial_set_metric(t, "iops", 60123.0 + i);
	trial_set_metric(t, "bw_mbps", 234.8);
	trial_set_metric(t, "lat_p99_us", 0.1);
	trial_set_metric(t, "faults_per_io", 1e-7);
	trial_set_metric(t, "copied_bytes_per_io", 4096);
	trial_set_metric(t, "huge", 1.5e20);
	trial_set_metric(t, "zero", 0);
}

static void expect_same(struct __test_metadata *_metadata,
			const struct trial *a, const struct trial *b)
{
	size_t i;

	EXPECT_STREQ(a->variant, b->variant);
	EXPECT_STREQ(a->kernel, b->kernel);
	EXPECT_STREQ(a->flavor, b->flavor);
	EXPECT_STREQ(a->path, b->path);
	EXPECT_STREQ(a->clock, b->clock);
	EXPECT_STREQ(a->accel, b->accel);
	EXPECT_STREQ(a->host, b->host);
	EXPECT_STREQ(a->date, b->date);
	EXPECT_STREQ(a->run_id, b->run_id);
	EXPECT_STREQ(a->series_commit, b->series_commit);
	EXPECT_EQ(a->has_seed, b->has_seed);
	EXPECT_EQ(a->seed, b->seed);
	EXPECT_EQ(a->boot, b->boot);
	EXPECT_EQ(a->trial, b->trial);
	EXPECT_EQ(a->cpus, b->cpus);
	EXPECT_STREQ(a->cell.target, b->cell.target);
	EXPECT_EQ(a->cell.legs, b->cell.legs);
	EXPECT_STREQ(a->cell.backing, b->cell.backing);
	EXPECT_STREQ(a->driver, b->driver);
	EXPECT_STREQ(a->skipped, b->skipped);
	EXPECT_STREQ(a->cell.rw, b->cell.rw);
	EXPECT_EQ(a->cell.bs, b->cell.bs);
	EXPECT_EQ(a->cell.iodepth, b->cell.iodepth);
	EXPECT_EQ(a->cell.jobs, b->cell.jobs);
	ASSERT_EQ(a->nr_metrics, b->nr_metrics);
	for (i = 0; i < a->nr_metrics; i++) {
		EXPECT_STREQ(a->metrics[i].name, b->metrics[i].name);
		/* shortest round-trip text: bit-exact */
		EXPECT_TRUE(a->metrics[i].value == b->metrics[i].value)
			TH_LOG("%s: %.17g != %.17g", a->metrics[i].name,
			       a->metrics[i].value, b->metrics[i].value);
	}
}

/* Write @text to a new temporary file; returns its path (static). */
static const char *temp_file(const char *text)
{
	static char path[64];
	int fd;

	strcpy(path, "/tmp/abtool-test-results-XXXXXX");
	fd = mkstemp(path);
	if (fd < 0)
		return NULL;
	if (write(fd, text, strlen(text)) != (ssize_t)strlen(text)) {
		close(fd);
		return NULL;
	}
	close(fd);
	return path;
}

TEST(round_trip_through_a_file)
{
	struct trial written[3], *t;
	struct trial_set set;
	char path[] = "/tmp/abtool-test-results-XXXXXX", err[256];
	FILE *f;
	int fd, i;

	fd = mkstemp(path);
	ASSERT_LE(0, fd);
	f = fdopen(fd, "w");
	ASSERT_NE(NULL, f);
	for (i = 0; i < 3; i++) {
		fill_trial(&written[i], i);
		ASSERT_EQ(0, results_write_trial(f, &written[i]));
	}
	ASSERT_EQ(0, fclose(f));

	trial_set_init(&set);
	ASSERT_EQ(0, results_read_file(&set, path, err, sizeof(err)))
		TH_LOG("%s", err);
	ASSERT_EQ(3, set.nr);
	i = 0;
	trial_set_for_each(&set, t) {
		expect_same(_metadata, &written[i], t);
		EXPECT_STREQ(path, t->source);
		EXPECT_EQ(i + 1, t->line);
		i++;
	}
	ASSERT_EQ(1, set.nr_files);
	EXPECT_STREQ(path, set.files[0]);
	trial_set_release(&set);
	for (i = 0; i < 3; i++)
		trial_release(&written[i]);
	unlink(path);
}

TEST(written_record_is_one_json_line)
{
	struct json_object *obj, *cell, *metrics, *v;
	struct trial t;
	char *buf = NULL;
	size_t len = 0;
	FILE *f;

	fill_trial(&t, 7);
	f = open_memstream(&buf, &len);
	ASSERT_NE(NULL, f);
	ASSERT_EQ(0, results_write_trial(f, &t));
	ASSERT_EQ(0, fclose(f));
	ASSERT_LT(0, len);
	EXPECT_EQ('\n', buf[len - 1]);
	EXPECT_EQ(NULL, memchr(buf, '\n', len - 1));

	obj = json_tokener_parse(buf);
	ASSERT_NE(NULL, obj);
	ASSERT_TRUE(json_object_object_get_ex(obj, "schema", &v));
	EXPECT_STREQ(TRIAL_SCHEMA, json_object_get_string(v));
	ASSERT_TRUE(json_object_object_get_ex(obj, "trial", &v));
	EXPECT_EQ(7, json_object_get_int(v));
	ASSERT_TRUE(json_object_object_get_ex(obj, "cell", &cell));
	ASSERT_TRUE(json_object_object_get_ex(cell, "bs", &v));
	EXPECT_EQ(65536, json_object_get_int(v));
	ASSERT_TRUE(json_object_object_get_ex(obj, "metrics", &metrics));
	ASSERT_TRUE(json_object_object_get_ex(metrics, "bw_mbps", &v));
	/* short numbers, not %.17g noise */
	EXPECT_STREQ("234.8", json_object_to_json_string(v));
	ASSERT_TRUE(json_object_object_get_ex(metrics, "copied_bytes_per_io",
					      &v));
	EXPECT_STREQ("4096", json_object_to_json_string(v));
	json_object_put(obj);
	free(buf);
	trial_release(&t);
}

TEST(unset_fields_are_not_written)
{
	char *buf = NULL;
	size_t len = 0;
	struct trial t;
	FILE *f;

	trial_init(&t);
	f = open_memstream(&buf, &len);
	ASSERT_NE(NULL, f);
	ASSERT_EQ(0, results_write_trial(f, &t));
	ASSERT_EQ(0, fclose(f));
	EXPECT_EQ(NULL, strstr(buf, "\"variant\""));
	EXPECT_EQ(NULL, strstr(buf, "\"boot\""));
	EXPECT_EQ(NULL, strstr(buf, "\"cpus\""));
	EXPECT_EQ(NULL, strstr(buf, "\"run_id\""));
	EXPECT_EQ(NULL, strstr(buf, "\"series_commit\""));
	EXPECT_EQ(NULL, strstr(buf, "\"seed\""));
	EXPECT_NE(NULL, strstr(buf, "\"metrics\":{}"));
	free(buf);
}

TEST(json_numbers_are_short_and_exact)
{
	static const double v[] = { 0.1, 234.8, 60123.5, 1e-7, 1.0 / 3,
				    -2.5, 1e300, 4096, 0 };
	struct json_object *o;
	size_t i;

	for (i = 0; i < sizeof(v) / sizeof(v[0]); i++) {
		o = results_json_number(v[i]);
		ASSERT_NE(NULL, o);
		EXPECT_TRUE(strtod(json_object_to_json_string(o), NULL) == v[i])
			TH_LOG("%.17g printed as %s", v[i],
			       json_object_to_json_string(o));
		json_object_put(o);
	}
	o = results_json_number(4096);
	EXPECT_STREQ("4096", json_object_to_json_string(o));
	json_object_put(o);
	EXPECT_EQ(NULL, results_json_number(NAN));
	EXPECT_EQ(NULL, results_json_number(INFINITY));
}

TEST(missing_optional_fields_get_defaults)
{
	struct trial t;
	char err[256];

	ASSERT_EQ(0, results_parse_line("{\"schema\":\"abtool-trial-1\","
					"\"metrics\":{}}", &t, err,
					sizeof(err))) TH_LOG("%s", err);
	EXPECT_STREQ("", t.variant);
	EXPECT_STREQ("", t.clock);
	EXPECT_EQ(-1, t.boot);
	EXPECT_EQ(-1, t.trial);
	EXPECT_EQ(0, t.cpus);		/* not recorded */
	EXPECT_STREQ("", t.cell.target);
	EXPECT_EQ(1, t.cell.legs);
	EXPECT_EQ(1, t.cell.jobs);
	EXPECT_EQ(0, t.cell.bs);
	EXPECT_EQ(0, t.nr_metrics);
	trial_release(&t);

	/* a partial cell keeps the defaults of what it leaves out */
	ASSERT_EQ(0, results_parse_line("{\"schema\":\"abtool-trial-1\","
					"\"cell\":{\"bs\":4096},\"boot\":3,"
					"\"metrics\":{\"iops\":5}}", &t, err,
					sizeof(err))) TH_LOG("%s", err);
	EXPECT_EQ(4096, t.cell.bs);
	EXPECT_EQ(1, t.cell.legs);
	EXPECT_EQ(3, t.boot);
	EXPECT_EQ(-1, t.trial);
	trial_release(&t);
}

TEST(unknown_metrics_and_keys_are_kept_or_ignored)
{
	struct trial t;
	char err[256];
	double v;

	ASSERT_EQ(0, results_parse_line(
		"{\"schema\":\"abtool-trial-1\",\"future_key\":[1,2],"
		"\"metrics\":{\"iops\":100,\"my_new_counter\":2.5,"
		"\"lat_p99_us\":null,\"instr_per_io\":12000}}",
		&t, err, sizeof(err))) TH_LOG("%s", err);
	ASSERT_EQ(3, t.nr_metrics);	/* null: not measured, skipped */
	EXPECT_STREQ("iops", t.metrics[0].name);
	EXPECT_STREQ("my_new_counter", t.metrics[1].name);
	EXPECT_STREQ("instr_per_io", t.metrics[2].name);
	ASSERT_TRUE(trial_get_metric(&t, "my_new_counter", &v));
	EXPECT_TRUE(v == 2.5);
	EXPECT_FALSE(trial_get_metric(&t, "lat_p99_us", &v));
	trial_release(&t);
}

TEST(blank_lines_are_skipped)
{
	const char *path = temp_file("\n   \n" GOOD "\n\r\n\t\n" GOOD "\n\n");
	struct trial_set set;
	char err[256];

	ASSERT_NE(NULL, path);
	trial_set_init(&set);
	ASSERT_EQ(0, results_read_file(&set, path, err, sizeof(err)))
		TH_LOG("%s", err);
	ASSERT_EQ(2, set.nr);
	EXPECT_EQ(3, set.trials[0].line);
	EXPECT_EQ(6, set.trials[1].line);
	trial_set_release(&set);
	unlink(path);
}

/* Read @text as a file; expect failure with "<path>:<line>: <what>". */
static void expect_bad(struct __test_metadata *_metadata, const char *text,
		       int line, const char *what)
{
	const char *path = temp_file(text);
	char err[512], want[128];
	struct trial_set set;

	ASSERT_NE(NULL, path);
	trial_set_init(&set);
	EXPECT_EQ(-EINVAL, results_read_file(&set, path, err, sizeof(err)));
	snprintf(want, sizeof(want), "%s:%d: ", path, line);
	EXPECT_EQ(0, strncmp(err, want, strlen(want)))
		TH_LOG("error \"%s\" does not start with \"%s\"", err, want);
	EXPECT_NE(NULL, strstr(err, what))
		TH_LOG("error \"%s\" does not say \"%s\"", err, what);
	/* all or nothing: the good lines before are dropped too */
	EXPECT_EQ(0, set.nr);
	EXPECT_EQ(0, set.nr_files);
	trial_set_release(&set);
	unlink(path);
}

TEST(malformed_lines_name_file_and_line)
{
	expect_bad(_metadata, GOOD "\n\n{\"schema\":\"abtool-trial-1\",\n",
		   3, "invalid JSON");
	expect_bad(_metadata, GOOD "\nnot json at all\n", 2, "invalid JSON");
	expect_bad(_metadata, GOOD " {}\n", 1, "text after the record");
	expect_bad(_metadata, "{\"schema\":\"abtool-trial-1\","
		   "\"metrics\":{\"iops\":1,}}\n", 1, "invalid JSON");
	expect_bad(_metadata, "[1,2,3]\n", 1, "expected a JSON object");
	expect_bad(_metadata, "{\"metrics\":{}}\n", 1, "schema");
	expect_bad(_metadata, "{\"schema\":\"abtool-trial-9\","
		   "\"metrics\":{}}\n", 1, "abtool-trial-9");
	expect_bad(_metadata, "{\"schema\":\"abtool-trial-1\"}\n", 1,
		   "metrics");
	expect_bad(_metadata, GOOD "\n{\"schema\":\"abtool-trial-1\","
		   "\"metrics\":{\"iops\":\"fast\"}}\n", 2, "metrics.iops");
	expect_bad(_metadata, "{\"schema\":\"abtool-trial-1\","
		   "\"cell\":{\"bs\":-1},\"metrics\":{}}\n", 1, "cell.bs");
	expect_bad(_metadata, "{\"schema\":\"abtool-trial-1\","
		   "\"cell\":{\"iodepth\":1.5},\"metrics\":{}}\n", 1,
		   "cell.iodepth");
	expect_bad(_metadata, "{\"schema\":\"abtool-trial-1\",\"variant\":7,"
		   "\"metrics\":{}}\n", 1, "variant");
	/* issue 34: IOPS of -5 is a broken record, not a slow trial */
	expect_bad(_metadata, GOOD "\n{\"schema\":\"abtool-trial-1\","
		   "\"metrics\":{\"iops\":-5}}\n", 2, "metrics.iops: negative");
	expect_bad(_metadata, "{\"schema\":\"abtool-trial-1\",\"run_id\":1,"
		   "\"metrics\":{}}\n", 1, "run_id");
}

TEST(missing_file_is_a_clear_error)
{
	struct trial_set set;
	char err[256];

	trial_set_init(&set);
	EXPECT_EQ(-ENOENT, results_read_file(&set, "/nonexistent/x.json", err,
					     sizeof(err)));
	EXPECT_NE(NULL, strstr(err, "/nonexistent/x.json"));
	EXPECT_NE(NULL, strstr(err, strerror(ENOENT)));
	trial_set_release(&set);
}

TEST(metrics_replace_and_reject_non_finite)
{
	struct trial t;
	double v;

	trial_init(&t);
	EXPECT_EQ(0, trial_set_metric(&t, "iops", 1));
	EXPECT_EQ(0, trial_set_metric(&t, "iops", 2));
	EXPECT_EQ(1, t.nr_metrics);
	ASSERT_TRUE(trial_get_metric(&t, "iops", &v));
	EXPECT_TRUE(v == 2);
	EXPECT_EQ(-EINVAL, trial_set_metric(&t, "x", NAN));
	EXPECT_EQ(-EINVAL, trial_set_metric(&t, "x", INFINITY));
	EXPECT_EQ(-EINVAL, trial_set_metric(&t, "", 1));
	EXPECT_EQ(1, t.nr_metrics);
	trial_release(&t);
}

/*
 * An external server's record: a counter abtool cannot take from it is
 * null (not available), not 0, and reads back as absent; a cell it
 * cannot serve is a record with "skipped" and no metrics.
 */
TEST(not_available_metrics_and_skipped_cells)
{
	struct trial t, back;
	char *buf = NULL, err[256];
	size_t len = 0;
	FILE *f;
	double v;

	trial_init(&t);
	strcpy(t.path, "kublk-z");
	strcpy(t.skipped, "kublk has no mirror target");
	EXPECT_EQ(0, trial_set_metric(&t, "iops", 5));
	EXPECT_EQ(0, trial_set_metric_na(&t, "sqes_per_io"));
	EXPECT_FALSE(trial_get_metric(&t, "sqes_per_io", &v));
	EXPECT_TRUE(trial_get_metric(&t, "iops", &v));
	EXPECT_EQ(-EINVAL, trial_set_metric_na(&t, ""));
	f = open_memstream(&buf, &len);
	ASSERT_NE(NULL, f);
	ASSERT_EQ(0, results_write_trial(f, &t));
	fclose(f);
	EXPECT_NE(NULL, strstr(buf, "\"sqes_per_io\":null"));
	EXPECT_NE(NULL, strstr(buf, "\"skipped\":\"kublk has no mirror target\""));
	ASSERT_EQ(0, results_parse_line(buf, &back, err, sizeof(err)))
		TH_LOG("%s", err);
	EXPECT_STREQ("kublk has no mirror target", back.skipped);
	EXPECT_EQ(1, back.nr_metrics);
	EXPECT_FALSE(trial_get_metric(&back, "sqes_per_io", &v));
	trial_release(&back);
	trial_release(&t);
	free(buf);
}

TEST_HARNESS_MAIN
