// SPDX-License-Identifier: GPL-2.0
/*
 * abtool run: the measuring loop.  For every trial, every matrix cell and
 * every data path (order reversed on odd trials, ABBA, to cancel drift;
 * trial i's workloads use seed --seed + i on every cell and path),
 * start a ublk server in a child process, warm up, run the workload while
 * counting the server's CPU and SQEs, stop the server, and append one
 * trial record (JSON line) to the output.  The row "kernel" does the
 * same on the in-kernel driver for the cell's target (kdev.h) on the
 * same media: the baseline each ublk path is a fraction of.  The kublk
 * rows measure upstream's own server, kublk, on the cell (kublk.h).
 *
 * The file reads top down: one trial (run_one(), run_one_kernel(),
 * run_one_kublk()), the measuring loop over all of them (run_trials(),
 * run_measure()), then the command line (run_parse_args() into struct
 * run_opts) and cmd_run(), which joins the two.
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <poll.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/utsname.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "backing.h"
#include "counters.h"
#include "exit_codes.h"
#include "kdev.h"
#include "kublk.h"
#include "matrix.h"
#include "perf_stat.h"
#include "results.h"
#include "run.h"
#include "size.h"
#include "ublk.h"
#include "workload.h"

/* every data path, the in-kernel row and the kublk configs */
#define RUN_MAX_ROWS	(UBLK_MAX_PATHS + KUBLK_NR_CONFIGS)

/*
 * What the command line asked for (run_parse_args() fills it) and the
 * state of the run that measures it (run_measure()).
 */
struct run_opts {
	const char *variant, *flavor, *clock, *accel;
	const char *run_id, *series_commit;	/* "": not recorded */
	int boot;
	unsigned int trials;
	uint64_t runtime_ms, ramp_ms, backing_size, seed;
	const char *workdir;
	const char *perf_stat_out, *perf_events;
	bool verify;
	const char *output;		/* -o; NULL: stdout */
	const char *matrix_file;	/* --matrix; NULL: built in */
	bool quick;			/* the built-in quick matrix */
	bool dry_run;
	FILE *out;
	struct matrix matrix;
	const struct ublk_path_ops *paths[RUN_MAX_ROWS];
	bool path_skipped[RUN_MAX_ROWS];
	char kublk[4096];		/* --kublk; default: in the tree */
	bool kublk_del_noted;		/* kublk del's complaint said once */
	unsigned int nr_paths;
	struct backing_set media[2];	/* tmpfs, brd: as the cells need */
	unsigned int nr_media;
};

/*
 * The in-kernel row, "kernel", sits in the path list beside the ublk
 * paths so that it takes part in the ABBA order and the skip rules; it
 * has no ublk ops: run_one() hands it to run_one_kernel().
 */
static const struct ublk_path_ops kernel_row = {
	.name = "kernel",
	.help = "the in-kernel driver doing the target's job (null_blk, loop "
		"dio, md raid1/raid0) on the same media",
};

/* Queue depth of a cell's device: ublk's and null_blk's alike. */
static unsigned int cell_depth(const struct matrix_cell *c)
{
	return c->iodepth * c->jobs < 16 ? 16 : c->iodepth * c->jobs;
}

/* Largest request of a cell's device: ublk's and null_blk's alike. */
static uint32_t cell_max_io(const struct matrix_cell *c)
{
	return c->bs > (512u << 10) ? c->bs : 512u << 10;
}

/* The backings of @c's medium; NULL for null (none) or one not made. */
static const struct backing_set *cell_media(const struct run_opts *o,
					    const struct matrix_cell *c)
{
	unsigned int i;

	for (i = 0; i < o->nr_media; i++)
		if (!strcmp(backing_name(o->media[i].kind), c->backing))
			return &o->media[i];
	return NULL;
}

/* What one trial measured, beyond the workload's own result. */
struct server_sample {
	struct ublk_stats stats;
	struct counters_values cpu;
	bool have_cpu;
	/* a server abtool does not run (kublk): its SQE, io_uring_enter
	 * and copy counts are not available */
	bool external;
};

static volatile sig_atomic_t run_interrupted;

static void on_interrupt(int sig)
{
	(void)sig;
	run_interrupted = 1;
	wl_request_stop();
}

static volatile int server_stop;

static void server_on_signal(int sig)
{
	(void)sig;
	server_stop = 1;
}

/*
 * The bytes of a cell's ublk device, which every row's workload is held
 * to (spec_for_cell()): kublk's null device is 250 GiB, and a loop or
 * md over a ram disk spans all of it (1 GiB, md whatever size it is
 * told), most of it pages brd has not allocated yet.  Writes there
 * allocate them, so the row got faster trial by trial in a boot (loop
 * at 64K: 7.0k to 11.6k IOPS) instead of measuring the filled bytes the
 * ublk rows use.
 */
static uint64_t cell_bytes(const struct run_opts *o, const struct matrix_cell *c)
{
	return o->backing_size *
	       ublk_target_share(ublk_target_find(c->target), c->legs);
}

/* Child: serve the cell's device with path until SIGTERM. */
static void __attribute__((noreturn))
server_child(const struct run_opts *o, const struct matrix_cell *c,
	     const struct ublk_path_ops *path, struct ublk_stats *shared,
	     int ready_fd)
{
	struct ublk_dev_config cfg = {
		.target = c->target, .path = path->name, .nr_queues = 1,
		.depth = cell_depth(c),
		.max_io_bytes = cell_max_io(c),
		.shared_stats = shared,
	};
	struct ublk_dev *d = calloc(1, sizeof(*d));
	char err[256] = "";
	unsigned int i;
	int ret;

	signal(SIGINT, SIG_IGN);
	signal(SIGTERM, server_on_signal);
	const struct backing_set *media = cell_media(o, c);

	cfg.tgt.size = cell_bytes(o, c);
	for (i = 0; i < c->legs && media; i++)
		cfg.tgt.backing[cfg.tgt.nr_backing++] = media->path[i];
	if (!d)
		_exit(AB_EXIT_FAIL);
	ret = ublk_dev_create(d, &cfg, err, sizeof(err));
	if (ret < 0) {
		fprintf(stderr, "abtool run: %s: %s\n", path->name, err);
		ublk_dev_destroy(d);
		_exit(ret == -EOPNOTSUPP ? AB_EXIT_SKIP : AB_EXIT_FAIL);
	}
	ret = ublk_dev_run(d, &server_stop, ready_fd);
	ublk_dev_destroy(d);
	_exit(ret < 0 ? AB_EXIT_FAIL : AB_EXIT_OK);
}

/* Wait for the child's device id; -1 when it exited (status in *status). */
static int server_wait_ready(pid_t pid, int fd, int *status)
{
	struct pollfd p = { .fd = fd, .events = POLLIN };
	char buf[32] = "";
	ssize_t n = 0;

	if (poll(&p, 1, 60000) > 0)
		n = read(fd, buf, sizeof(buf) - 1);
	if (n > 0)
		return atoi(buf);
	kill(pid, SIGKILL);
	waitpid(pid, status, 0);
	return -1;
}

static void stats_delta(const struct ublk_stats *a, const struct ublk_stats *b,
			struct ublk_stats *d)
{
	d->requests = b->requests - a->requests;
	d->bytes = b->bytes - a->bytes;
	d->sqes = b->sqes - a->sqes;
	d->enters = b->enters - a->enters;
	d->copied_bytes = b->copied_bytes - a->copied_bytes;
}

/* Trial @nr's seed: a new offset sequence per trial, the same on every
 * cell and data path of that trial (and on every kernel: scripts/ab gives
 * each boot's --seed) */
static uint64_t trial_seed(const struct run_opts *o, unsigned int nr)
{
	return o->seed + nr;
}

/* What says where and what a trial ran: everything but the metrics. */
static void trial_labels(const struct run_opts *o, const struct matrix_cell *c,
			 const struct ublk_path_ops *path, const char *driver,
			 unsigned int nr, struct trial *t)
{
	long cpus = sysconf(_SC_NPROCESSORS_ONLN);
	struct utsname u;
	time_t now = time(NULL);

	trial_init(t);
	uname(&u);
	snprintf(t->variant, sizeof(t->variant), "%s", o->variant);
	snprintf(t->kernel, sizeof(t->kernel), "%.63s", u.release);
	snprintf(t->flavor, sizeof(t->flavor), "%s", o->flavor);
	snprintf(t->path, sizeof(t->path), "%s", path->name);
	snprintf(t->driver, sizeof(t->driver), "%s", driver ? driver : "");
	snprintf(t->clock, sizeof(t->clock), "%s", o->clock);
	snprintf(t->accel, sizeof(t->accel), "%s", o->accel);
	snprintf(t->host, sizeof(t->host), "%.63s", u.nodename);
	strftime(t->date, sizeof(t->date), "%Y-%m-%dT%H:%M:%SZ", gmtime(&now));
	snprintf(t->run_id, sizeof(t->run_id), "%s", o->run_id);
	snprintf(t->series_commit, sizeof(t->series_commit), "%s",
		 o->series_commit);
	t->boot = o->boot;
	t->trial = nr;
	t->cpus = cpus > 0 ? (int)cpus : 0;
	t->has_seed = true;
	t->seed = trial_seed(o, nr);
	snprintf(t->cell.target, sizeof(t->cell.target), "%s", c->target);
	t->cell.legs = c->legs ? c->legs : 1;
	snprintf(t->cell.backing, sizeof(t->cell.backing), "%s", c->backing);
	snprintf(t->cell.rw, sizeof(t->cell.rw), "%s", wl_rw_name(c->rw));
	t->cell.bs = c->bs;
	t->cell.iodepth = c->iodepth;
	t->cell.jobs = c->jobs;
}

static void fill_trial(const struct run_opts *o, const struct matrix_cell *c,
		       const struct ublk_path_ops *path, const char *driver,
		       unsigned int nr, const struct wl_result *r,
		       const struct server_sample *s, struct trial *t)
{
	double ios = r->ios ? (double)r->ios : 1;
	bool own = counters_cpu_time_is_own(o->clock,
					    sysconf(_SC_NPROCESSORS_ONLN));

	trial_labels(o, c, path, driver, nr, t);
	trial_set_metric(t, "iops", r->iops);
	trial_set_metric(t, "bw_mbps", r->bw_bytes_per_s / 1e6);
	trial_set_metric(t, "lat_p50_us", r->lat_all.p50_ns / 1e3);
	trial_set_metric(t, "lat_p99_us", r->lat_all.p99_ns / 1e3);
	trial_set_metric(t, "lat_p999_us", r->lat_all.p999_ns / 1e3);
	if (own)
		trial_set_metric(t, "load_cpu_us_per_io", r->cpu_ns / 1e3 / ios);
	if (s->have_cpu) {
		const struct counters_values *v = &s->cpu;

		if (own)
			trial_set_metric(t, "server_cpu_us_per_io",
					 v->value[CNT_TASK_CLOCK] / 1e3 / ios);
		trial_set_metric(t, "ctx_per_io",
				 (v->value[CNT_CONTEXT_SWITCHES] + r->ctx_switches) / ios);
		trial_set_metric(t, "faults_per_io",
				 (v->value[CNT_PAGE_FAULTS] + r->page_faults) / ios);
		if (v->present[CNT_INSTRUCTIONS])
			trial_set_metric(t, "server_instr_per_io",
					 v->value[CNT_INSTRUCTIONS] / ios);
	}
	if (s->stats.requests) {
		double reqs = s->stats.requests;

		trial_set_metric(t, "sqes_per_io", s->stats.sqes / reqs);
		trial_set_metric(t, "syscalls_per_io", s->stats.enters / reqs);
		trial_set_metric(t, "copied_bytes_per_io",
				 (s->stats.copied_bytes +
				  (path->kernel_copies ? s->stats.bytes : 0)) / reqs);
	} else if (s->external) {
		trial_set_metric_na(t, "sqes_per_io");
		trial_set_metric_na(t, "syscalls_per_io");
		trial_set_metric_na(t, "copied_bytes_per_io");
	}
	if (o->verify)
		trial_set_metric(t, "verify_errors", r->verify_errors);
}

/* The @j-th data path of trial @tr: ABBA, the order reversed on odd trials */
static unsigned int path_at(const struct run_opts *o, unsigned int tr,
			    unsigned int j)
{
	return tr % 2 ? o->nr_paths - 1 - j : j;
}

static void spec_for_cell(const struct run_opts *o, const struct matrix_cell *c,
			  unsigned int nr, uint64_t runtime_ms, struct wl_spec *spec)
{
	wl_spec_init(spec);
	spec->rw = c->rw;
	spec->bs = c->bs;
	spec->iodepth = c->iodepth;
	spec->jobs = c->jobs;
	spec->runtime_ms = runtime_ms;
	spec->seed = trial_seed(o, nr);
	spec->verify = o->verify;
	spec->direct = true;
	spec->length = cell_bytes(o, c);
}

/*
 * One trial of one cell on the in-kernel driver: set it up on the
 * cell's media, warm up, measure, tear down.  No server: the server
 * metrics stay out, the workload's own CPU time holds the driver's.
 * 0, AB_EXIT_SKIP (this kernel lacks the driver) or -1.
 */
static int run_one_kernel(struct run_opts *o, const struct matrix_cell *c,
			  unsigned int nr, unsigned int step, unsigned int steps)
{
	const struct backing_set *media = cell_media(o, c);
	struct kdev_config kc = {
		.size = o->backing_size, .depth = cell_depth(c),
		.max_io_bytes = cell_max_io(c),
	};
	struct server_sample none = { 0 };
	char name[64], err[256] = "";
	struct wl_result res;
	struct wl_spec spec;
	struct kdev d;
	struct trial t;
	unsigned int i;
	int ret;

	matrix_cell_name(c, name, sizeof(name));
	for (i = 0; i < c->legs && media; i++)
		kc.backing[kc.nr_backing++] = media->path[i];
	ret = kdev_create(&d, c->target, &kc, err, sizeof(err));
	if (ret) {
		fprintf(stderr, "abtool run: kernel %s: %s\n", name, err);
		kdev_destroy(&d);
		if (ret == -EOPNOTSUPP) {
			fprintf(stderr, "abtool run: skip path kernel on this "
				"kernel\n");
			return AB_EXIT_SKIP;
		}
		return -1;
	}
	ret = -1;
	if (o->ramp_ms) {
		spec_for_cell(o, c, nr, o->ramp_ms, &spec);
		spec.verify = false;
		if (wl_run(d.dev, &spec, &res, err, sizeof(err))) {
			fprintf(stderr, "abtool run: warm-up on %s: %s\n", d.dev, err);
			goto out;
		}
	}
	spec_for_cell(o, c, nr, o->runtime_ms, &spec);
	if (wl_run(d.dev, &spec, &res, err, sizeof(err))) {
		fprintf(stderr, "abtool run: kernel %s (%s): %s\n", name, d.dev, err);
		goto out;
	}
	fill_trial(o, c, &kernel_row, d.driver, nr, &res, &none, &t);
	ret = results_write_trial(o->out, &t) ? -1 : 0;
	fflush(o->out);
	trial_release(&t);
	fprintf(stderr, "[%u/%u] %s/kernel %-26s %10.0f IOPS  p99 %7.0f us  (%s)%s\n",
		step, steps, o->variant, name, res.iops, res.lat_all.p99_ns / 1e3,
		d.driver, o->verify ? (res.verify_errors ? "  VERIFY ERRORS" :
		"  verified") : "");
	if (o->verify && res.verify_errors)
		ret = -1;
out:
	kdev_destroy(&d);
	return ret;
}

/* abtool's stripe chunk: server_child() leaves target_stripe.c's default */
#define RUN_STRIPE_CHUNK	(64u << 10)

/* The cell as kublk gets it: what server_child() gives abtool's server. */
static void kublk_cell_for(const struct run_opts *o,
			   const struct matrix_cell *c, struct kublk_cell *kc)
{
	const struct backing_set *media = cell_media(o, c);
	unsigned int i;

	memset(kc, 0, sizeof(*kc));
	kc->target = c->target;
	kc->nr_queues = 1;
	kc->depth = cell_depth(c);
	kc->max_io_bytes = cell_max_io(c);
	kc->chunk = RUN_STRIPE_CHUNK;
	for (i = 0; i < c->legs && media && i < UBLK_MAX_BACKINGS; i++)
		kc->backing[kc->nr_backing++] = media->path[i];
}

/*
 * A cell kublk cannot serve as abtool's server would: a record saying
 * so instead of a measurement, so that the run still has one per cell.
 */
static int kublk_skip_cell(struct run_opts *o, const struct matrix_cell *c,
			   const struct kublk_config *k, unsigned int nr,
			   unsigned int step, unsigned int steps, const char *why)
{
	char name[64];
	struct trial t;
	int ret;

	matrix_cell_name(c, name, sizeof(name));
	trial_labels(o, c, &k->row, NULL, nr, &t);
	snprintf(t.skipped, sizeof(t.skipped), "%s", why);
	ret = results_write_trial(o->out, &t) ? -1 : 0;
	fflush(o->out);
	trial_release(&t);
	fprintf(stderr, "[%u/%u] %s/%s %-26s not measured: %s\n", step, steps,
		o->variant, k->row.name, name, why);
	return ret;
}

/*
 * Whether this run can use kublk config @k at all: the binary is there
 * and the kernel has what the config asks of it.  0, or AB_EXIT_SKIP
 * after saying why.
 */
static int kublk_usable(const struct run_opts *o, const struct kublk_config *k)
{
	uint64_t features = 0;
	char why[256];
	int ret;

	if (access(o->kublk, X_OK)) {
		fprintf(stderr, "abtool run: skip path %s: no kublk at %s (build "
			"upstream's selftests/ublk in the 7.3 tree, or give "
			"--kublk PATH)\n", k->row.name, o->kublk);
		return AB_EXIT_SKIP;
	}
	ret = ublk_features(&features);
	if (ret < 0) {
		fprintf(stderr, "abtool run: skip path %s on this kernel: no "
			"ublk features (%s)\n", k->row.name, strerror(-ret));
		return AB_EXIT_SKIP;
	}
	if (kublk_probe(k, features, why, sizeof(why))) {
		fprintf(stderr, "abtool run: skip path %s on this kernel: %s\n",
			k->row.name, why);
		return AB_EXIT_SKIP;
	}
	return 0;
}

/*
 * One trial of one cell on kublk with config @k, as run_one() does it on
 * abtool's server: the same backings, queues and depth, the same
 * workload (held to the bytes abtool's device has: kublk's null device
 * is 250 GiB) and counters on kublk's daemon.  The device is deleted
 * with `kublk del` whatever happens.  0, AB_EXIT_SKIP or -1.
 */
static int run_one_kublk(struct run_opts *o, const struct matrix_cell *c,
			 const struct kublk_config *k, unsigned int nr,
			 unsigned int step, unsigned int steps)
{
	struct server_sample s = { .external = true };
	char name[64], why[TRIAL_STR_MAX], err[512] = "", hdr[160];
	struct counters *cnt = NULL;
	struct perf_stat *ps = NULL;
	struct kublk_cell kc;
	struct kublk_dev d;
	struct wl_result res;
	struct wl_spec spec;
	struct trial t;
	int ret;

	ret = kublk_usable(o, k);
	if (ret)
		return ret;
	matrix_cell_name(c, name, sizeof(name));
	kublk_cell_for(o, c, &kc);
	if (kublk_cell_check(&kc, why, sizeof(why)))
		return kublk_skip_cell(o, c, k, nr, step, steps, why);
	if (kublk_add(o->kublk, k, &kc, &d, err, sizeof(err))) {
		fprintf(stderr, "abtool run: %s %s: %s\n", k->row.name, name, err);
		return -1;
	}
	ret = -1;
	if (kdev_wait_node(d.blk)) {
		fprintf(stderr, "abtool run: %s did not appear\n", d.blk);
		goto out;
	}
	if (o->ramp_ms) {
		spec_for_cell(o, c, nr, o->ramp_ms, &spec);
		spec.verify = false;
		if (wl_run(d.blk, &spec, &res, err, sizeof(err))) {
			fprintf(stderr, "abtool run: warm-up on %s: %s\n", d.blk, err);
			goto out;
		}
	}
	spec_for_cell(o, c, nr, o->runtime_ms, &spec);
	cnt = counters_open_pid(d.daemon);
	if (!cnt)
		fprintf(stderr, "abtool run: kublk counters: %s\n", strerror(errno));
	if (o->perf_stat_out) {
		ps = perf_stat_start(d.daemon, o->perf_events, err, sizeof(err));
		if (!ps) {
			fprintf(stderr, "abtool run: --perf-stat: %s\n", err);
			goto out;
		}
	}
	if (cnt)
		counters_start(cnt);
	ret = wl_run(d.blk, &spec, &res, err, sizeof(err));
	if (cnt) {
		counters_stop(cnt);
		s.have_cpu = counters_read(cnt, &s.cpu) == 0;
	}
	if (ps) {
		snprintf(hdr, sizeof(hdr), "variant=%s path=%s cell=\"%s\" trial=%u boot=%d",
			 o->variant, k->row.name, name, nr, o->boot);
		if (perf_stat_finish(ps, o->perf_stat_out, hdr, err, sizeof(err))) {
			fprintf(stderr, "abtool run: --perf-stat: %s\n", err);
			ret = -1;
			goto out;
		}
	}
	if (ret) {
		fprintf(stderr, "abtool run: %s %s: %s\n", k->row.name, name, err);
		ret = -1;
		goto out;
	}
	fill_trial(o, c, &k->row, NULL, nr, &res, &s, &t);
	ret = results_write_trial(o->out, &t) ? -1 : 0;
	fflush(o->out);
	trial_release(&t);
	fprintf(stderr, "[%u/%u] %s/%s %-26s %10.0f IOPS  p99 %7.0f us%s\n",
		step, steps, o->variant, k->row.name, name, res.iops,
		res.lat_all.p99_ns / 1e3,
		o->verify ? (res.verify_errors ? "  VERIFY ERRORS" : "  verified") : "");
	if (o->verify && res.verify_errors)
		ret = -1;
out:
	if (cnt)
		counters_close(cnt);
	if (kublk_del(o->kublk, &d, err, sizeof(err))) {
		fprintf(stderr, "abtool run: %s %s: %s\n", k->row.name, name, err);
		ret = -1;
	} else if (*err && !o->kublk_del_noted) {
		/* the same on every trial of a kernel: once is enough */
		fprintf(stderr, "abtool run: note: %s (not repeated)\n", err);
		o->kublk_del_noted = true;
	}
	return ret;
}

/*
 * One trial of one cell on one path; 0, AB_EXIT_SKIP (the server child
 * said the kernel cannot run the path) or -1.
 */
static int run_one(struct run_opts *o, const struct matrix_cell *c,
		   unsigned int pi, unsigned int nr, unsigned int step,
		   unsigned int steps)
{
	const struct ublk_path_ops *path = o->paths[pi];
	struct server_sample s0 = { 0 }, s1 = { 0 }, sd = { 0 };
	struct ublk_stats *shared;
	struct wl_result res;
	struct wl_spec spec;
	struct counters *cnt = NULL;
	struct perf_stat *ps = NULL;
	char dev[32], name[64], err[256] = "", hdr[160];
	int fds[2], status = 0, id, ret = -1;
	pid_t pid;
	struct trial t;

	if (path == &kernel_row)
		return run_one_kernel(o, c, nr, step, steps);
	if (kublk_config_of(path))
		return run_one_kublk(o, c, kublk_config_of(path), nr, step,
				     steps);
	matrix_cell_name(c, name, sizeof(name));
	shared = mmap(NULL, sizeof(*shared), PROT_READ | PROT_WRITE,
		      MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (shared == MAP_FAILED || pipe2(fds, O_CLOEXEC))
		return -1;
	fflush(NULL);
	pid = fork();
	if (pid == 0) {
		close(fds[0]);
		server_child(o, c, path, shared, fds[1]);
	}
	close(fds[1]);
	id = pid > 0 ? server_wait_ready(pid, fds[0], &status) : -1;
	close(fds[0]);
	if (id < 0) {
		munmap(shared, sizeof(*shared));
		if (WIFEXITED(status) && WEXITSTATUS(status) == AB_EXIT_SKIP) {
			fprintf(stderr, "abtool run: skip path %s on this kernel\n",
				path->name);
			return AB_EXIT_SKIP;
		}
		fprintf(stderr, "abtool run: %s %s: server did not start\n",
			path->name, name);
		return -1;
	}
	snprintf(dev, sizeof(dev), "/dev/ublkb%d", id);
	if (kdev_wait_node(dev)) {
		fprintf(stderr, "abtool run: %s did not appear\n", dev);
		goto stop;
	}

	if (o->ramp_ms) {
		spec_for_cell(o, c, nr, o->ramp_ms, &spec);
		spec.verify = false;
		if (wl_run(dev, &spec, &res, err, sizeof(err))) {
			fprintf(stderr, "abtool run: warm-up on %s: %s\n", dev, err);
			goto stop;
		}
	}
	spec_for_cell(o, c, nr, o->runtime_ms, &spec);
	cnt = counters_open_pid(pid);
	if (!cnt)
		fprintf(stderr, "abtool run: server counters: %s\n", strerror(errno));
	s0.stats = *shared;
	if (o->perf_stat_out) {
		ps = perf_stat_start(pid, o->perf_events, err, sizeof(err));
		if (!ps) {
			fprintf(stderr, "abtool run: --perf-stat: %s\n", err);
			goto stop;
		}
	}
	if (cnt)
		counters_start(cnt);
	ret = wl_run(dev, &spec, &res, err, sizeof(err));
	if (cnt) {
		counters_stop(cnt);
		sd.have_cpu = counters_read(cnt, &sd.cpu) == 0;
	}
	if (ps) {
		snprintf(hdr, sizeof(hdr), "variant=%s path=%s cell=\"%s\" trial=%u boot=%d",
			 o->variant, path->name, name, nr, o->boot);
		if (perf_stat_finish(ps, o->perf_stat_out, hdr, err, sizeof(err))) {
			fprintf(stderr, "abtool run: --perf-stat: %s\n", err);
			ret = -1;
			goto stop;
		}
	}
	s1.stats = *shared;
	stats_delta(&s0.stats, &s1.stats, &sd.stats);
	if (ret) {
		fprintf(stderr, "abtool run: %s %s: %s\n", path->name, name, err);
		ret = -1;
		goto stop;
	}
	fill_trial(o, c, path, NULL, nr, &res, &sd, &t);
	ret = results_write_trial(o->out, &t) ? -1 : 0;
	fflush(o->out);
	trial_release(&t);
	fprintf(stderr, "[%u/%u] %s/%s %-26s %10.0f IOPS  p99 %7.0f us%s\n",
		step, steps, o->variant, path->name, name, res.iops,
		res.lat_all.p99_ns / 1e3,
		o->verify ? (res.verify_errors ? "  VERIFY ERRORS" : "  verified") : "");
	if (o->verify && res.verify_errors)
		ret = -1;
stop:
	if (cnt)
		counters_close(cnt);
	kill(pid, SIGTERM);
	waitpid(pid, &status, 0);
	if (!WIFEXITED(status) || WEXITSTATUS(status)) {
		fprintf(stderr, "abtool run: server for %s %s exited badly (status 0x%x)\n",
			path->name, name, status);
		ublk_cleanup_stale(stderr);
		ret = -1;
	}
	munmap(shared, sizeof(*shared));
	return ret;
}

/*
 * The media the matrix needs, each with as many backings as its widest
 * cell has legs; filled so that reads touch real pages.
 */
static int make_backings(struct run_opts *o)
{
	static const char *const names[] = { "tmpfs", "brd" };
	char err[256] = "";
	unsigned int k, i, legs;

	for (k = 0; k < sizeof(names) / sizeof(names[0]); k++) {
		for (legs = 0, i = 0; i < o->matrix.nr; i++)
			if (!strcmp(o->matrix.cells[i].backing, names[k]) &&
			    o->matrix.cells[i].legs > legs)
				legs = o->matrix.cells[i].legs;
		if (!legs)
			continue;
		if (backing_prepare(&o->media[o->nr_media++],
				    backing_find(names[k]), legs,
				    o->backing_size, o->workdir, err,
				    sizeof(err))) {
			fprintf(stderr, "abtool run: backing=%s: %s\n",
				names[k], err);
			return -1;
		}
	}
	return 0;
}

static void remove_backings(struct run_opts *o)
{
	while (o->nr_media)
		backing_release(&o->media[--o->nr_media]);
}

/*
 * Every trial of every cell on every path, the paths in ABBA order,
 * until done or interrupted.  A path whose server says the kernel cannot
 * run it is skipped from then on.  AB_EXIT_FAIL when any trial failed.
 */
static int run_trials(struct run_opts *o)
{
	unsigned int i, j, k, tr, step = 0;
	unsigned int steps = o->trials * o->matrix.nr * o->nr_paths;
	int ret = AB_EXIT_OK;

	for (tr = 0; tr < o->trials && !run_interrupted; tr++) {
		for (i = 0; i < o->matrix.nr && !run_interrupted; i++) {
			for (j = 0; j < o->nr_paths && !run_interrupted; j++) {
				k = path_at(o, tr, j);
				step++;
				if (o->path_skipped[k])
					continue;
				switch (run_one(o, &o->matrix.cells[i], k, tr, step, steps)) {
				case 0: break;
				case AB_EXIT_SKIP: o->path_skipped[k] = true; break;
				default: ret = AB_EXIT_FAIL;
				}
			}
		}
	}
	return ret;
}

/*
 * Under icount every vCPU's instructions tick every task's clock, so CPU
 * time per I/O means something only with one vCPU: say why it is left out.
 */
static void warn_cpu_time_not_own(const struct run_opts *o)
{
	if (!counters_cpu_time_is_own(o->clock, sysconf(_SC_NPROCESSORS_ONLN)))
		fprintf(stderr, "abtool run: icount with %ld vCPUs: a task's "
			"task-clock also counts the other vCPUs' instructions, so "
			"server_cpu_us_per_io and load_cpu_us_per_io are not "
			"recorded (boot 1 vCPU for them)\n",
			sysconf(_SC_NPROCESSORS_ONLN));
}

/*
 * The measuring run: open the output, clean up after dead servers, make
 * the media, run the trials, tidy up.  Returns the exit status.
 */
static int run_measure(struct run_opts *o)
{
	int ret;

	o->out = o->output ? fopen(o->output, "a") : stdout;
	if (!o->out) {
		fprintf(stderr, "abtool run: cannot open %s: %s\n", o->output,
			strerror(errno));
		return AB_EXIT_FAIL;
	}
	warn_cpu_time_not_own(o);
	ublk_cleanup_stale(stderr);
	signal(SIGINT, on_interrupt);
	signal(SIGTERM, on_interrupt);
	if (make_backings(o)) {
		remove_backings(o);
		return AB_EXIT_FAIL;
	}
	ret = run_trials(o);
	remove_backings(o);
	if (o->output)
		fclose(o->out);
	if (run_interrupted) {
		fprintf(stderr, "abtool run: interrupted\n");
		ret = AB_EXIT_INTERRUPTED;
	}
	return ret;
}

/* --dry-run: the trials run_trials() would run, in its order, with seeds. */
static int run_dry(const struct run_opts *o)
{
	unsigned int i, j, tr;
	char name[64];

	for (tr = 0; tr < o->trials; tr++)
		for (i = 0; i < o->matrix.nr; i++)
			for (j = 0; j < o->nr_paths; j++) {
				matrix_cell_name(&o->matrix.cells[i], name,
						 sizeof(name));
				printf("boot=%d trial=%u cell=\"%s\" path=%s seed=%llu\n",
				       o->boot, tr, name,
				       o->paths[path_at(o, tr, j)]->name,
				       (unsigned long long)trial_seed(o, tr));
			}
	return AB_EXIT_OK;
}

static void run_usage(FILE *f)
{
	fprintf(f,
"usage: abtool run [options]\n"
"Measure every matrix cell on every data path; one JSON line per trial.\n"
"  -o, --output FILE     append trial records here (default stdout)\n"
"      --matrix FILE     run matrix (key=v1,v2 lines); default: built in\n"
"      --quick           the built-in quick matrix\n"
"  -p, --paths LIST      data paths, comma separated (default: all); \"kernel\"\n"
"                        is the in-kernel driver doing the cell's job;\n"
"                        kublk-z, kublk-auto_zc, kublk-batch: upstream's\n"
"                        server kublk (-z, --auto_zc, -b --auto_zc) on the\n"
"                        cell, where it has the target\n"
"      --kublk PATH      the kublk binary (default: TOP/build/trees/upstream/\n"
"                        tools/testing/selftests/ublk/kublk, TOP two folders\n"
"                        above abtool's)\n"
"  -n, --trials N        trials per cell and path (default 3)\n"
"      --runtime DUR     measured time per trial (default 2s)\n"
"      --ramp DUR        warm-up before each trial (default 100ms)\n"
"      --size SIZE       size of each backing file (default 64M)\n"
"      --workdir DIR     where backing files go, a tmpfs (default /tmp)\n"
"      --seed N          workload seed of trial 0; trial i uses N + i on every\n"
"                        cell and path (default 1)\n"
"      --verify          check every byte read (checksummed patterns)\n"
"      --perf-stat FILE  also run `perf stat -x, -p SERVER` over each measured\n"
"                        window; CSV appended to FILE, one block a trial\n"
"      --perf-events L   events for --perf-stat (perf -e list; default perf's)\n"
"      --variant NAME    kernel variant label (default $ABTOOL_VARIANT or native)\n"
"      --flavor NAME     kernel flavor label (default $ABTOOL_FLAVOR or perf)\n"
"      --clock MODE      clock label: wall or icount (default $VMRUN_CLOCK or wall)\n"
"      --accel NAME      tcg, kvm or native (default $VMRUN_ACCEL or native)\n"
"      --boot N          boot index recorded with each trial (default 0)\n"
"      --run-id ID       the run's name, recorded with each trial: the same\n"
"                        in every boot of one run (default $ABTOOL_RUN_ID;\n"
"                        none: compare cannot tell runs apart)\n"
"      --series-commit C the commit the kernels were built from, recorded\n"
"                        with each trial (default $ABTOOL_SERIES_COMMIT)\n"
"      --list-paths      print the data paths abtool knows, one a line\n"
"      --dry-run         print the trials in run order (trial, cell, path,\n"
"                        seed), one a line, and run none\n"
"Default matrix:\n%s", matrix_default);
}

static const char *env_or(const char *name, const char *def)
{
	const char *v = getenv(name);

	return v && *v ? v : def;
}

static int parse_paths(struct run_opts *o, char *list)
{
	char *tok, *save = NULL;

	o->nr_paths = 0;
	for (tok = strtok_r(list, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		const struct kublk_config *k = kublk_config_find(tok);
		const struct ublk_path_ops *p = !strcmp(tok, kernel_row.name) ?
						&kernel_row : k ? &k->row :
						ublk_path_find(tok);

		if (!p) {
			fprintf(stderr, "abtool run: unknown data path '%s'\n", tok);
			return -1;
		}
		if (o->nr_paths == RUN_MAX_ROWS) {
			fprintf(stderr, "abtool run: more than %d data paths\n",
				RUN_MAX_ROWS);
			return -1;
		}
		o->paths[o->nr_paths++] = p;
	}
	return o->nr_paths ? 0 : -1;
}

static int run_bad(const char *opt, const char *arg)
{
	fprintf(stderr, "abtool run: --%s: bad value '%s'\n", opt, arg);
	run_usage(stderr);
	return AB_EXIT_USAGE;
}

static const struct option run_long_opts[] = {
	{ "output", required_argument, NULL, 'o' },
	{ "matrix", required_argument, NULL, 'M' },
	{ "quick", no_argument, NULL, 'Q' },
	{ "paths", required_argument, NULL, 'p' },
	{ "trials", required_argument, NULL, 'n' },
	{ "runtime", required_argument, NULL, 'R' },
	{ "ramp", required_argument, NULL, 'r' },
	{ "size", required_argument, NULL, 's' },
	{ "workdir", required_argument, NULL, 'w' },
	{ "seed", required_argument, NULL, 'S' },
	{ "verify", no_argument, NULL, 'V' },
	{ "perf-stat", required_argument, NULL, 'P' },
	{ "perf-events", required_argument, NULL, 'E' },
	{ "variant", required_argument, NULL, 'v' },
	{ "flavor", required_argument, NULL, 'f' },
	{ "clock", required_argument, NULL, 'c' },
	{ "accel", required_argument, NULL, 'a' },
	{ "boot", required_argument, NULL, 'b' },
	{ "run-id", required_argument, NULL, 'I' },
	{ "series-commit", required_argument, NULL, 'C' },
	{ "kublk", required_argument, NULL, 'K' },
	{ "list-paths", no_argument, NULL, 'L' },
	{ "dry-run", no_argument, NULL, 'D' },
	{ "help", no_argument, NULL, 'h' },
	{ 0 }
};

/*
 * The defaults: labels from the environment, every path, the kernel row
 * and the kublk configs (which skip where kublk or the kernel cannot)
 */
static void run_opts_init(struct run_opts *o)
{
	unsigned int i;

	o->variant = env_or("ABTOOL_VARIANT", "native");
	o->flavor = env_or("ABTOOL_FLAVOR", "perf");
	o->clock = env_or("VMRUN_CLOCK", "wall");
	o->accel = env_or("VMRUN_ACCEL", "native");
	/*
	 * No default of our own: each boot of a run is a process of its
	 * own, and a generated id would split one run into many
	 */
	o->run_id = env_or("ABTOOL_RUN_ID", "");
	o->series_commit = env_or("ABTOOL_SERIES_COMMIT", "");
	o->trials = 3;
	o->runtime_ms = 2000;
	o->ramp_ms = 100;
	o->backing_size = 64 << 20;
	o->workdir = "/tmp";
	o->seed = 1;
	for (i = 0; i < ublk_nr_paths; i++)
		o->paths[o->nr_paths++] = ublk_paths[i];
	o->paths[o->nr_paths++] = &kernel_row;
	for (i = 0; i < KUBLK_NR_CONFIGS; i++)
		o->paths[o->nr_paths++] = &kublk_configs[i].row;
	if (kublk_default_path(o->kublk, sizeof(o->kublk)))
		snprintf(o->kublk, sizeof(o->kublk), "%s", KUBLK_TREE_PATH);
}

static void list_paths(void)
{
	unsigned int i;

	for (i = 0; i < ublk_nr_paths; i++)
		printf("%s\n", ublk_paths[i]->name);
	printf("%s\n", kernel_row.name);
	for (i = 0; i < KUBLK_NR_CONFIGS; i++)
		printf("%s\n", kublk_configs[i].row.name);
}

/*
 * One option from getopt_long() into @o.  -1 to go on, else the exit
 * status: a bad value, or an option that does its job and ends the
 * command (--help, --list-paths).
 */
static int run_parse_opt(struct run_opts *o, int opt, char *arg)
{
	uint64_t v;

	switch (opt) {
	case 'o': o->output = arg; break;
	case 'M': o->matrix_file = arg; break;
	case 'Q': o->quick = true; break;
	case 'p':
		if (parse_paths(o, arg))
			return run_bad("paths", arg);
		break;
	case 'n':
		if (wl_parse_uint(arg, 1, 1000, &v))
			return run_bad("trials", arg);
		o->trials = v;
		break;
	case 'R':
		if (wl_parse_duration_ms(arg, &o->runtime_ms) || !o->runtime_ms)
			return run_bad("runtime", arg);
		break;
	case 'r':
		if (wl_parse_duration_ms(arg, &o->ramp_ms))
			return run_bad("ramp", arg);
		break;
	case 's':
		if (parse_size(arg, &o->backing_size) ||
		    o->backing_size < (1 << 20))
			return run_bad("size", arg);
		o->backing_size &= ~((uint64_t)(1 << 20) - 1);
		break;
	case 'w': o->workdir = arg; break;
	case 'S':
		if (wl_parse_uint(arg, 0, UINT64_MAX, &o->seed))
			return run_bad("seed", arg);
		break;
	case 'V': o->verify = true; break;
	case 'P': o->perf_stat_out = arg; break;
	case 'E': o->perf_events = arg; break;
	case 'v': o->variant = arg; break;
	case 'f': o->flavor = arg; break;
	case 'c':
		if (strcmp(arg, "wall") && strcmp(arg, "icount"))
			return run_bad("clock", arg);
		o->clock = arg;
		break;
	case 'a': o->accel = arg; break;
	case 'b':
		if (wl_parse_uint(arg, 0, 1000, &v))
			return run_bad("boot", arg);
		o->boot = v;
		break;
	case 'I':
	case 'C':
		/* a record's strings hold TRIAL_STR_MAX - 1 characters */
		if (!*arg || strlen(arg) >= TRIAL_STR_MAX)
			return run_bad(opt == 'I' ? "run-id" : "series-commit",
				       arg);
		*(opt == 'I' ? &o->run_id : &o->series_commit) = arg;
		break;
	case 'K':
		if (snprintf(o->kublk, sizeof(o->kublk), "%s", arg) >=
		    (int)sizeof(o->kublk))
			return run_bad("kublk", arg);
		break;
	case 'L': list_paths(); return AB_EXIT_OK;
	case 'D': o->dry_run = true; break;
	case 'h': run_usage(stdout); return AB_EXIT_OK;
	default: run_usage(stderr); return AB_EXIT_USAGE;
	}
	return -1;
}

/* The matrix of --matrix, --quick or the default; -1, else the exit status */
static int run_load_matrix(struct run_opts *o)
{
	char err[256] = "";
	int ret;

	if (o->matrix_file)
		ret = matrix_parse_file(&o->matrix, o->matrix_file, err, sizeof(err));
	else
		ret = matrix_parse(&o->matrix, o->quick ? matrix_quick : matrix_default,
				   err, sizeof(err));
	if (!ret)
		return -1;
	fprintf(stderr, "abtool run: matrix: %s\n", err);
	return AB_EXIT_USAGE;
}

/*
 * The command line into @o, the matrix included.  -1 to go on, else the
 * exit status (as compare's parse_args()).
 */
static int run_parse_args(int argc, char **argv, struct run_opts *o)
{
	int opt, ret;

	run_opts_init(o);
	optind = 1;
	while ((opt = getopt_long(argc, argv, "o:p:n:h", run_long_opts,
				  NULL)) != -1) {
		ret = run_parse_opt(o, opt, optarg);
		if (ret >= 0)
			return ret;
	}
	if (optind < argc) {
		fprintf(stderr, "abtool run: unexpected argument '%s'\n", argv[optind]);
		run_usage(stderr);
		return AB_EXIT_USAGE;
	}
	if (o->perf_events && !o->perf_stat_out) {
		fprintf(stderr, "abtool run: --perf-events needs --perf-stat FILE\n");
		run_usage(stderr);
		return AB_EXIT_USAGE;
	}
	return run_load_matrix(o);
}

int cmd_run(int argc, char **argv)
{
	struct run_opts *o = calloc(1, sizeof(*o));
	int ret;

	if (!o)
		return AB_EXIT_FAIL;
	ret = run_parse_args(argc, argv, o);
	if (ret < 0)
		ret = o->dry_run ? run_dry(o) : run_measure(o);
	free(o);
	return ret;
}
