/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The workload engine: io_uring, O_DIRECT, one thread and one ring per
 * job, iodepth I/Os in flight per job.  The region is cut into one slice
 * per job (whole blocks of bs); a job only touches its slice, so jobs never
 * race on a block.  The same spec and seed give every job the same
 * sequence of (op, offset) and the same bytes written on every run, which
 * is what lets two kernel variants be compared on identical work.
 */
#ifndef UZC_SRV_WORKLOAD_H
#define UZC_SRV_WORKLOAD_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include <json-c/json.h>

#include "lathist.h"
#include "prng.h"
#include "rw_mode.h"
#include "verify.h"

struct wl_spec {
	enum wl_rw rw;
	uint32_t bs;		/* bytes per I/O, multiple of 512 */
	uint32_t iodepth;	/* I/Os in flight per job */
	uint32_t jobs;		/* threads, each with its own ring and slice */
	uint64_t runtime_ms;	/* timed phase; 0: until size is done */
	uint64_t size;		/* bytes to transfer, all jobs; 0: runtime */
	uint64_t ramp_ms;	/* warm-up before the timed phase, not counted */
	uint64_t seed;
	uint32_t rwmixread;	/* % of reads in rw and randrw */
	uint64_t offset;	/* region start on the device */
	uint64_t length;	/* region length; 0: to the end */
	bool verify;		/* write patterns, check every read */
	bool verify_only;	/* read the whole region once and check it */
	bool direct;		/* O_DIRECT (falls back, saying so) */
	bool fixed_bufs;	/* registered buffers, READ/WRITE_FIXED */
};

#define WL_VERIFY_REPORT_MAX	8

struct wl_lat_summary {
	uint64_t min_ns, mean_ns, p50_ns, p99_ns, p999_ns, max_ns;
};

struct wl_result {
	uint64_t ios, bytes;
	uint64_t elapsed_ns;		/* timed phase, first start to last end */
	uint64_t read_ios, read_bytes;
	uint64_t write_ios, write_bytes;
	double iops, bw_bytes_per_s;

	/* completion latency: submit (io_uring_enter) to CQE reaped */
	struct lathist lat;		/* all I/Os; empty for fio */
	struct wl_lat_summary lat_all, lat_read, lat_write;

	uint64_t verify_errors, verified_bytes;
	unsigned int nr_reported;	/* first mismatches, in job order */
	struct verify_mismatch reported[WL_VERIFY_REPORT_MAX];

	/* the workload's own threads, timed phase only (RUSAGE_THREAD) */
	uint64_t cpu_user_ns, cpu_sys_ns;
	uint64_t ctx_switches, page_faults;
	/*
	 * The same threads' CPU time over the same phase as perf's
	 * task-clock reads it (per thread, at the phase's ends); user + sys
	 * above where perf_event_open is refused (cpu_from_perf false).
	 * getrusage(RUSAGE_THREAD) alone was seen 3x too high on a 1-vCPU
	 * guest (more than the CPU had, with the server's task-clock).
	 */
	uint64_t cpu_ns;
	bool cpu_from_perf;

	uint64_t uring_enters;		/* io_uring_enter calls made */
	uint64_t sqes;			/* SQEs those calls submitted */

	uint64_t prefill_bytes;		/* untimed fill before a mixed verify */
	int error;			/* first I/O error (errno), 0: none */
	bool direct;			/* O_DIRECT was in effect */
	bool has_hist;			/* lat is filled (false for fio) */
	bool has_uring_counts;		/* uring_enters/sqes known */
	char source[8];			/* "abtool" or "fio" */
};

/* Defaults: read, 4k, iodepth 1, 1 job, one pass over the region, seed 1. */
void wl_spec_init(struct wl_spec *spec);

/*
 * Set one option by name ("bs" or "--bs"), as `abtool load` and
 * `abtool run` take them; @value NULL for a bare boolean flag.  Returns 0,
 * or -EINVAL with a one-line message naming the option in @err.
 */
int wl_parse_option(struct wl_spec *spec, const char *name, const char *value,
		    char *err, size_t errlen);

/* Cross-option checks that do not need the device; 0 or -EINVAL. */
int wl_spec_check(const struct wl_spec *spec, char *err, size_t errlen);

/* "randrw bs=4k iodepth=32 jobs=2 rwmixread=70 runtime=10s seed=1" */
void wl_spec_describe(const struct wl_spec *spec, char *buf, size_t len);

struct wl_option {
	const char *name;	/* without "--" */
	const char *arg;	/* NULL: a boolean flag, "=0" turns it off */
	const char *help;
};
extern const struct wl_option wl_options[];
extern const size_t wl_options_len;

/* fio's spellings, accepted as well: numjobs, ramp_time, randseed... */
struct wl_option_alias {
	const char *alias, *name;
};
extern const struct wl_option_alias wl_option_aliases[];
extern const size_t wl_option_aliases_len;

/* The option list, fio style, for --help. */
void wl_print_options(FILE *f);

/*
 * Run @spec against @path (block device or regular file, which must
 * already be large enough).  Fills @res even on failure as far as it got.
 * Returns 0 (verify mismatches are counted in @res, not an error), or -1
 * with a message in @err.
 */
int wl_run(const char *path, const struct wl_spec *spec, struct wl_result *res,
	   char *err, size_t errlen);

/* Ask running jobs to stop issuing and drain (async-signal-safe). */
void wl_request_stop(void);

/* The result as a JSON object, spec included when given. */
struct json_object *wl_result_to_json(const struct wl_result *res,
				      const struct wl_spec *spec);

/*
 * The I/O sequence of one job, exposed so tests can check determinism
 * without doing I/O.  Offsets are absolute and bs-aligned within the
 * job's slice [first_block, first_block + nblocks) of the region.
 */
struct wl_io {
	bool write;
	uint64_t offset;
};

struct wl_gen {
	enum wl_rw rw;
	uint32_t bs, rwmixread;
	uint64_t base;			/* region offset */
	uint64_t first_block, nblocks;
	uint64_t next_block;		/* sequential position in the slice */
	struct prng rng;
};

/* Blocks of job @job when @region_blocks are split over @jobs jobs. */
void wl_job_slice(uint64_t region_blocks, uint32_t jobs, uint32_t job,
		  uint64_t *first_block, uint64_t *nblocks);
void wl_gen_init(struct wl_gen *g, const struct wl_spec *spec, uint32_t job,
		 uint64_t first_block, uint64_t nblocks);
void wl_gen_next(struct wl_gen *g, struct wl_io *io);

#endif
