/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Trial records: one JSON object per line (schema "abtool-trial-1"),
 * written by the runner after every trial and read by `abtool compare`.
 *
 *   {"schema":"abtool-trial-1","variant":"base","kernel":"6.12.118",
 *    "flavor":"perf","path":"copy","clock":"icount","accel":"tcg",
 *    "host":"h","date":"2026-12-03T10:00:00Z","boot":0,"trial":0,"cpus":1,
 *    "run_id":"20261206-053715","series_commit":"b1d5c6d...","seed":1,
 *    "cell":{"target":"null","legs":1,"rw":"randread","bs":4096,
 *            "iodepth":16,"jobs":1},
 *    (an in-kernel row: "path":"kernel","driver":"md-raid1"; a cell on
 *     media: "cell":{"target":"mirror","legs":2,"backing":"brd",...})
 *    "metrics":{"iops":60123.0,"lat_p99_us":410.0,...}}
 *
 * Only "schema" and "metrics" are required; "metrics" is an open map of
 * numbers, never negative (null means "not available": a counter that
 * does not apply to the config, such as the SQEs of a server abtool does
 * not run; skipped when read).  "run_id" names the run (one `make ab`:
 * every boot and variant of it) and "series_commit" the commit of the
 * series the kernels were built from, so that `abtool compare` can tell
 * trials of different runs apart whatever files they come in; records
 * from before them have neither.  "seed" is the workload's seed of the
 * trial (the same on every config of one boot and trial), so that two
 * runs can be shown to differ in it; records from before 2026-12-07
 * have none.  A cell a config cannot express (an external server
 * without the target) is a record with "skipped":"why" and no metrics,
 * so that a run's every config still has a record per cell.  Unknown
 * top-level keys are ignored so newer writers stay readable.
 */
#ifndef ABTOOL_RESULTS_H
#define ABTOOL_RESULTS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

struct json_object;

#define TRIAL_SCHEMA		"abtool-trial-1"
#define TRIAL_STR_MAX		64	/* including the NUL */

struct trial_cell {
	char target[TRIAL_STR_MAX];	/* null, loop, mirror, stripe */
	unsigned int legs;		/* 1 unless mirror/stripe */
	char backing[TRIAL_STR_MAX];	/* tmpfs, brd; "": none or unrecorded */
	char rw[TRIAL_STR_MAX];		/* read, write, randread, ... */
	uint64_t bs;			/* bytes */
	unsigned int iodepth;
	unsigned int jobs;
};

struct trial_metric {
	char name[TRIAL_STR_MAX];
	double value;
};

struct trial {
	char variant[TRIAL_STR_MAX];	/* kernel variant */
	char kernel[TRIAL_STR_MAX];	/* uname -r */
	char flavor[TRIAL_STR_MAX];	/* perf | debug */
	char path[TRIAL_STR_MAX];	/* data path; "kernel": in-kernel driver */
	char driver[TRIAL_STR_MAX];	/* that driver ("md-raid1"); "" for ublk */
	char skipped[TRIAL_STR_MAX];	/* why the cell was not measured; "" */
	char clock[TRIAL_STR_MAX];	/* wall | icount */
	char accel[TRIAL_STR_MAX];	/* tcg | kvm | native */
	char host[TRIAL_STR_MAX];
	char date[TRIAL_STR_MAX];	/* ISO 8601, UTC */
	char run_id[TRIAL_STR_MAX];	/* the run's name; "": unrecorded */
	char series_commit[TRIAL_STR_MAX]; /* git commit; "": unrecorded */
	int boot;			/* -1: absent */
	int trial;			/* -1: absent */
	int cpus;			/* online CPUs (a guest's vCPUs) it
					 * ran on; 0: not recorded */
	bool has_seed;			/* false: not recorded (before it) */
	uint64_t seed;			/* the workload's seed */
	struct trial_cell cell;
	struct trial_metric *metrics;	/* in file order; owned */
	size_t nr_metrics;
	const char *source;		/* file read from (owned by the set) */
	unsigned int line;		/* line in @source */
};

/* A growing array of trials, plus the names of the files they came from. */
struct trial_set {
	struct trial *trials;
	size_t nr, cap;
	char **files;
	size_t nr_files;
};

#define trial_set_for_each(set, t) \
	for ((t) = (set)->trials; (t) < (set)->trials + (set)->nr; (t)++)

/* Empty strings, boot/trial -1, cell legs/jobs 1, no metrics. */
void trial_init(struct trial *t);
/* Free what @t owns; @t may be reused after trial_init(). */
void trial_release(struct trial *t);
/* Add or replace a metric; -EINVAL for a non-finite value or long name. */
int trial_set_metric(struct trial *t, const char *name, double value);
/*
 * Add or replace metric @name as not available (written as null): the
 * metric exists for other configs of the run but not for this one.
 */
int trial_set_metric_na(struct trial *t, const char *name);
/* false when @t has no metric @name or has it as not available */
bool trial_get_metric(const struct trial *t, const char *name, double *value);

void trial_set_init(struct trial_set *set);
void trial_set_release(struct trial_set *set);
/* Append @t, taking over its metrics (@t is left initialized, empty). */
int trial_set_add(struct trial_set *set, struct trial *t);

/*
 * Parse one line into @t (initialized here).  On error returns -EINVAL
 * and writes a message without location to @err.
 */
int results_parse_line(const char *line, struct trial *t,
		       char *err, size_t errlen);

/*
 * Append every trial of a JSON-lines stream/file to @set.  Blank lines
 * are skipped.  On error returns a negative errno, appends nothing from
 * that file, and writes "FILE:LINE: what" to @err.  @path "-" is stdin.
 */
int results_read_stream(struct trial_set *set, FILE *f, const char *name,
			char *err, size_t errlen);
int results_read_file(struct trial_set *set, const char *path,
		      char *err, size_t errlen);

/* The record as a json-c object (caller puts it). */
struct json_object *results_trial_to_json(const struct trial *t);
/* One line, newline-terminated; 0 or -errno (-EIO on a write error). */
int results_write_trial(FILE *f, const struct trial *t);

/*
 * A json-c number that prints as the shortest text which reads back as
 * @v (integers without ".0"); JSON null for NaN or infinity.
 */
struct json_object *results_json_number(double v);

#endif
