// SPDX-License-Identifier: GPL-2.0
/*
 * The workload engine.  Each job is a thread with its own io_uring, a slot
 * per in-flight I/O and its own slice of the region.  The loop is: queue
 * SQEs up to iodepth, then one io_uring_enter that submits them and, when
 * no CQE is ready, waits for one; reap every ready CQE.  So every enter is
 * counted exactly (liburing enters once per submit_and_wait call here).
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <linux/fs.h>
#include <linux/perf_event.h>
#include <liburing.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "errmsg.h"
#include "prog.h"
#include "scattered_buf.h"
#include "workload.h"

#define NSEC_PER_MSEC	1000000ULL
#define NSEC_PER_SEC	1000000000ULL

static atomic_int stop_requested;

void wl_request_stop(void)
{
	atomic_store(&stop_requested, 1);
}

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * NSEC_PER_SEC + ts.tv_nsec;
}


/* ---- the I/O sequence ---- */

void wl_job_slice(uint64_t region_blocks, uint32_t jobs, uint32_t job,
		  uint64_t *first_block, uint64_t *nblocks)
{
	/* floor-split: slices cover the region exactly whatever jobs is */
	uint64_t lo = region_blocks * job / jobs;
	uint64_t hi = region_blocks * (job + 1) / jobs;

	*first_block = lo;
	*nblocks = hi - lo;
}

void wl_gen_init(struct wl_gen *g, const struct wl_spec *spec, uint32_t job,
		 uint64_t first_block, uint64_t nblocks)
{
	memset(g, 0, sizeof(*g));
	g->rw = spec->verify_only ? WL_RW_READ : spec->rw;
	g->bs = spec->bs;
	g->rwmixread = spec->rwmixread;
	g->base = spec->offset;
	g->first_block = first_block;
	g->nblocks = nblocks;
	prng_seed(&g->rng, prng_mix(spec->seed, job));
}

void wl_gen_next(struct wl_gen *g, struct wl_io *io)
{
	uint64_t block;

	switch (g->rw) {
	case WL_RW_READ:
	case WL_RW_RANDREAD:
		io->write = false;
		break;
	case WL_RW_WRITE:
	case WL_RW_RANDWRITE:
		io->write = true;
		break;
	default:
		io->write = prng_below(&g->rng, 100) >= g->rwmixread;
		break;
	}
	if (wl_rw_is_random(g->rw)) {
		block = prng_below(&g->rng, g->nblocks);
	} else {
		block = g->next_block;
		g->next_block = (g->next_block + 1) % g->nblocks;
	}
	io->offset = g->base + (g->first_block + block) * g->bs;
}

/* ---- the device ---- */

struct wl_dev {
	int fd;
	uint64_t size;
	uint32_t lbs;		/* logical block size: O_DIRECT alignment */
	bool direct;
};

static int dev_size(struct wl_dev *d, const char *path, char *err,
		    size_t errlen)
{
	struct stat st;
	int lbs;

	if (fstat(d->fd, &st))
		return set_err(err, errlen, -1, "%s: %s", path, strerror(errno));
	if (S_ISBLK(st.st_mode)) {
		if (ioctl(d->fd, BLKGETSIZE64, &d->size) ||
		    ioctl(d->fd, BLKSSZGET, &lbs))
			return set_err(err, errlen, -1, "%s: size: %s", path,
				    strerror(errno));
		d->lbs = lbs;
		return 0;
	}
	if (S_ISREG(st.st_mode)) {
		d->size = st.st_size;
		d->lbs = 512;
		return 0;
	}
	return set_err(err, errlen, -1, "%s: not a block device or regular file",
		    path);
}

/*
 * Some file systems accept O_DIRECT at open() and refuse it at I/O time
 * (EINVAL), so probe with one aligned read.
 */
static bool direct_io_works(int fd, uint32_t bs, uint64_t offset)
{
	void *buf;
	bool ok;

	if (posix_memalign(&buf, 4096, bs))
		return true;	/* let the real I/O report it */
	ok = pread(fd, buf, bs, offset) >= 0 || errno != EINVAL;
	free(buf);
	return ok;
}

static int dev_open(struct wl_dev *d, const char *path,
		    const struct wl_spec *spec, bool writes, char *err,
		    size_t errlen)
{
	int flags = (writes ? O_RDWR : O_RDONLY) | O_CLOEXEC;
	const char *why = NULL;

	d->direct = spec->direct;
	d->fd = open(path, flags | (d->direct ? O_DIRECT : 0));
	if (d->fd < 0 && errno == EINVAL && d->direct) {
		why = "open";
		d->direct = false;
		d->fd = open(path, flags);
	}
	if (d->fd < 0)
		return set_err(err, errlen, -1, "%s: %s", path, strerror(errno));
	if (dev_size(d, path, err, errlen))
		goto out_close;
	if (d->direct && !direct_io_works(d->fd, spec->bs, spec->offset)) {
		why = "read";
		d->direct = false;
		close(d->fd);
		d->fd = open(path, flags);
		if (d->fd < 0)
			return set_err(err, errlen, -1, "%s: %s", path,
				    strerror(errno));
	}
	if (why)
		fprintf(stderr,
			"%s: %s: O_DIRECT refused (EINVAL at %s); using buffered I/O, results include the page cache\n",
			prog_name(), path, why);
	return 0;
out_close:
	close(d->fd);
	d->fd = -1;
	return -1;
}

/* ---- a job ---- */

struct wl_shared {
	const struct wl_spec *spec;
	int fd;
	pthread_mutex_t lock;
	pthread_cond_t cond;
	uint32_t ready;
	bool go;
	atomic_bool abort;
};

struct slot {
	uint64_t offset;
	uint64_t start_ns;	/* stamped right before io_uring_enter */
	uint32_t gen;		/* verify: generation written / expected */
	bool write;
	unsigned char *buf;
};

struct phase {
	struct wl_gen gen;
	bool limited;		/* stop after ios I/Os */
	uint64_t ios;
	uint64_t deadline_ns;	/* 0: none */
	uint64_t ramp_end_ns;
	bool measured;		/* false: the untimed verify prefill */
};

struct job {
	uint32_t id;
	struct wl_shared *sh;
	const struct wl_spec *spec;
	uint64_t first_block, nblocks;	/* slice, in region blocks */
	bool limited;
	uint64_t ios_to_do;

	struct io_uring ring;
	bool ring_ready;
	unsigned char *bufs;		/* iodepth slot buffers */
	unsigned char *pattern;		/* write data when not verifying */
	struct slot *slots;
	uint32_t *free_slots, nfree;
	uint32_t *pending, npending;	/* queued, not yet submitted */
	uint32_t inflight;		/* queued + submitted */
	uint32_t *gen;			/* verify: per block of the slice */
	uint8_t *busy;			/* verify: block has an I/O in flight */
	struct lathist *rhist, *whist;

	uint64_t read_ios, read_bytes, write_ios, write_bytes;
	uint64_t enters, sqes, enters0, sqes0;
	uint64_t verify_errors, verified_bytes, prefill_bytes;
	unsigned int nr_reported;
	struct verify_mismatch reported[WL_VERIFY_REPORT_MAX];
	struct rusage ru0, ru1;
	int clock_fd;			/* this thread's task-clock; -1: none */
	uint64_t clock0, clock1;	/* ns, at the timed phase's ends */
	bool measuring;
	uint64_t t_start, t_end;

	int error;
	char err[256];
	bool leak_bufs;
};

static void job_error(struct job *j, int error, const char *fmt, ...)
{
	va_list ap;

	if (j->error)
		return;
	j->error = error ? error : EIO;
	va_start(ap, fmt);
	vsnprintf(j->err, sizeof(j->err), fmt, ap);
	va_end(ap);
	atomic_store(&j->sh->abort, true);
}

/* one message per process: every job and cell would say the same */
static void warn_layout_once(void)
{
	static atomic_flag said = ATOMIC_FLAG_INIT;

	if (!atomic_flag_test_and_set(&said))
		fprintf(stderr, "%s: /proc/self/pagemap hides frame numbers "
			"(not root?): buffer pages are not scattered, so "
			"large-block results may vary from run to run\n", prog_name());
}

/* the slots' buffers and the write pattern, each page its own segment */
static int job_bufs(struct job *j)
{
	const struct wl_spec *s = j->spec;
	void *bufs, *pattern;
	int ret, ret2 = 0;

	ret = scattered_buf_alloc((size_t)s->iodepth * s->bs, &bufs);
	if (ret >= 0) {
		j->bufs = bufs;
		ret2 = scattered_buf_alloc(s->bs, &pattern);
	}
	if (ret < 0 || ret2 < 0) {
		ret = ret < 0 ? ret : ret2;
		job_error(j, -ret, "job %u: buffers: %s", j->id, strerror(-ret));
		return -1;
	}
	j->pattern = pattern;
	if (ret || ret2)
		warn_layout_once();
	return 0;
}

static int job_setup(struct job *j)
{
	const struct wl_spec *s = j->spec;
	uint32_t depth = s->iodepth, i;
	struct iovec *iov;
	int ret;

	ret = io_uring_queue_init(depth, &j->ring, 0);
	if (ret) {
		job_error(j, -ret, "io_uring_queue_init(%u): %s", depth,
			  strerror(-ret));
		return -1;
	}
	j->ring_ready = true;
	if (job_bufs(j))
		return -1;
	j->rhist = malloc(sizeof(*j->rhist));
	j->whist = malloc(sizeof(*j->whist));
	if (!j->rhist || !j->whist)
		goto nomem;
	lathist_init(j->rhist);
	lathist_init(j->whist);
	j->slots = calloc(depth, sizeof(*j->slots));
	j->free_slots = calloc(depth, sizeof(*j->free_slots));
	j->pending = calloc(depth, sizeof(*j->pending));
	if (!j->slots || !j->free_slots || !j->pending)
		goto nomem;
	if (s->verify) {
		j->gen = calloc(j->nblocks, sizeof(*j->gen));
		j->busy = calloc(j->nblocks, 1);
		if (!j->gen || !j->busy)
			goto nomem;
	}
	/* same bytes at every offset on every run: a function of the seed */
	prng_fill(j->pattern, s->bs, prng_mix(s->seed, UINT64_MAX));
	for (i = 0; i < depth; i++) {
		j->slots[i].buf = j->bufs + (size_t)i * s->bs;
		j->free_slots[i] = depth - 1 - i;
	}
	j->nfree = depth;
	if (!s->fixed_bufs)
		return 0;

	/* slots 0..depth-1, then the pattern at index depth */
	iov = calloc(depth + 1, sizeof(*iov));
	if (!iov)
		goto nomem;
	for (i = 0; i < depth; i++)
		iov[i] = (struct iovec){ j->slots[i].buf, s->bs };
	iov[depth] = (struct iovec){ j->pattern, s->bs };
	ret = io_uring_register_buffers(&j->ring, iov, depth + 1);
	free(iov);
	if (ret) {
		job_error(j, -ret, "io_uring_register_buffers: %s",
			  strerror(-ret));
		return -1;
	}
	return 0;
nomem:
	job_error(j, ENOMEM, "job %u: out of memory", j->id);
	return -1;
}

static void job_teardown(struct job *j)
{
	if (j->clock_fd >= 0)
		close(j->clock_fd);
	if (j->ring_ready)
		io_uring_queue_exit(&j->ring);
	if (!j->leak_bufs) {
		scattered_buf_free(j->bufs, (size_t)j->spec->iodepth *
				   j->spec->bs);
		scattered_buf_free(j->pattern, j->spec->bs);
	}
	free(j->slots);
	free(j->free_slots);
	free(j->pending);
	free(j->gen);
	free(j->busy);
	free(j->rhist);
	free(j->whist);
}

static uint64_t slice_index(const struct job *j, uint64_t offset)
{
	return (offset - j->spec->offset) / j->spec->bs - j->first_block;
}

static void queue_io(struct job *j, const struct wl_io *io)
{
	const struct wl_spec *s = j->spec;
	uint32_t si = j->free_slots[--j->nfree];
	struct slot *slot = &j->slots[si];
	struct io_uring_sqe *sqe = io_uring_get_sqe(&j->ring);
	uint64_t bi = slice_index(j, io->offset);
	unsigned char *buf = slot->buf;
	int buf_index = si;

	/* inflight < iodepth = SQ size, so the SQ always has room */
	slot->offset = io->offset;
	slot->write = io->write;
	slot->gen = s->verify ? j->gen[bi] : 0;
	if (io->write && s->verify) {
		slot->gen = ++j->gen[bi];
		verify_fill(buf, s->bs, io->offset, s->seed, slot->gen);
	} else if (io->write) {
		buf = j->pattern;
		buf_index = s->iodepth;
	}
	if (s->verify)
		j->busy[bi] = 1;

	if (s->fixed_bufs && io->write)
		io_uring_prep_write_fixed(sqe, j->sh->fd, buf, s->bs,
					  io->offset, buf_index);
	else if (s->fixed_bufs)
		io_uring_prep_read_fixed(sqe, j->sh->fd, buf, s->bs,
					 io->offset, buf_index);
	else if (io->write)
		io_uring_prep_write(sqe, j->sh->fd, buf, s->bs, io->offset);
	else
		io_uring_prep_read(sqe, j->sh->fd, buf, s->bs, io->offset);
	io_uring_sqe_set_data64(sqe, si);
	j->pending[j->npending++] = si;
	j->inflight++;
}

/* One io_uring_enter: submit what is queued, wait for @wait_nr CQEs. */
static int ring_enter(struct job *j, unsigned int wait_nr)
{
	uint64_t now = now_ns();
	uint32_t i, done;
	int ret;

	for (i = 0; i < j->npending; i++)
		j->slots[j->pending[i]].start_ns = now;
	do {
		ret = io_uring_submit_and_wait(&j->ring, wait_nr);
		j->enters++;
	} while (ret == -EINTR);
	if (ret < 0) {
		job_error(j, -ret, "io_uring_enter: %s", strerror(-ret));
		return -1;
	}
	j->sqes += ret;
	/* a short submit leaves the rest in the SQ for the next enter */
	done = (uint32_t)ret < j->npending ? (uint32_t)ret : j->npending;
	memmove(j->pending, j->pending + done,
		(j->npending - done) * sizeof(*j->pending));
	j->npending -= done;
	return 0;
}

static void report_mismatch(struct job *j, const struct verify_mismatch *mm)
{
	j->verify_errors++;
	if (j->nr_reported < WL_VERIFY_REPORT_MAX)
		j->reported[j->nr_reported++] = *mm;
}

static void account(struct job *j, const struct slot *slot, uint64_t now)
{
	uint32_t bs = j->spec->bs;

	if (slot->write) {
		j->write_ios++;
		j->write_bytes += bs;
		lathist_add(j->whist, now - slot->start_ns);
	} else {
		j->read_ios++;
		j->read_bytes += bs;
		lathist_add(j->rhist, now - slot->start_ns);
	}
}

static void complete_io(struct job *j, const struct phase *ph,
			const struct io_uring_cqe *cqe, uint64_t now)
{
	const struct wl_spec *s = j->spec;
	uint32_t si = (uint32_t)cqe->user_data;
	struct slot *slot = &j->slots[si];
	const char *op = slot->write ? "write" : "read";
	struct verify_mismatch mm;

	if (cqe->res < 0)
		job_error(j, -cqe->res, "%s at offset %" PRIu64 ": %s", op,
			  slot->offset, strerror(-cqe->res));
	else if ((uint32_t)cqe->res != s->bs)
		job_error(j, EIO, "short %s at offset %" PRIu64 ": %d of %u bytes",
			  op, slot->offset, cqe->res, s->bs);
	else if (!slot->write && s->verify) {
		if (verify_check(slot->buf, s->bs, slot->offset, s->seed,
				 slot->gen, &mm))
			report_mismatch(j, &mm);
		j->verified_bytes += s->bs;
	}
	if (s->verify)
		j->busy[slice_index(j, slot->offset)] = 0;
	if (!ph->measured)
		j->prefill_bytes += s->bs;
	else if (slot->start_ns >= ph->ramp_end_ns &&
		 (uint32_t)cqe->res == s->bs)
		account(j, slot, now);
	j->free_slots[j->nfree++] = si;
	j->inflight--;
}

static void reap(struct job *j, const struct phase *ph)
{
	struct io_uring_cqe *cqe;
	uint64_t now = now_ns();
	unsigned int head, n = 0;

	io_uring_for_each_cqe(&j->ring, head, cqe) {
		complete_io(j, ph, cqe, now);
		n++;
	}
	io_uring_cq_advance(&j->ring, n);
}

/*
 * The calling thread's task-clock (perf's, as the server's is counted),
 * read at will; -1 where perf_event_open is refused.
 */
static int thread_clock_open(void)
{
	struct perf_event_attr attr = {
		.size = sizeof(attr),
		.type = PERF_TYPE_SOFTWARE,
		.config = PERF_COUNT_SW_TASK_CLOCK,
		.exclude_hv = 1,
	};

	return syscall(SYS_perf_event_open, &attr, 0, -1, -1,
		       PERF_FLAG_FD_CLOEXEC);
}

static uint64_t thread_clock_read(struct job *j)
{
	uint64_t v;

	if (j->clock_fd >= 0 && read(j->clock_fd, &v, sizeof(v)) == sizeof(v))
		return v;
	if (j->clock_fd >= 0) {		/* cannot happen; stay consistent */
		close(j->clock_fd);
		j->clock_fd = -1;
	}
	return 0;
}

static void measure_begin(struct job *j, uint64_t now)
{
	j->measuring = true;
	j->t_start = now;
	j->enters0 = j->enters;
	j->sqes0 = j->sqes;
	getrusage(RUSAGE_THREAD, &j->ru0);
	j->clock0 = thread_clock_read(j);
}

static bool phase_should_stop(struct job *j, const struct phase *ph,
			      uint64_t issued, uint64_t now)
{
	return (ph->limited && issued >= ph->ios) ||
	       (ph->deadline_ns && now >= ph->deadline_ns) ||
	       atomic_load(&stop_requested) || atomic_load(&j->sh->abort);
}

/*
 * Issue the phase's sequence, keeping iodepth in flight, then drain.
 * With verify, an I/O whose block is still in flight waits for it, so
 * reads never race writes of the same block (and the order is kept).
 */
static void run_phase(struct job *j, struct phase *ph)
{
	uint32_t depth = j->spec->iodepth;
	bool have_next = false, stopping = false;
	struct wl_io next;
	uint64_t issued = 0, now;

	for (;;) {
		now = now_ns();
		if (ph->measured && !j->measuring && now >= ph->ramp_end_ns) {
			measure_begin(j, now);
			/* time runtime from when measuring really began */
			if (j->spec->runtime_ms)
				ph->deadline_ns = now + j->spec->runtime_ms * NSEC_PER_MSEC;
		}
		if (!stopping && phase_should_stop(j, ph, issued, now))
			stopping = true;
		while (!stopping && j->inflight < depth) {
			if (!have_next)
				wl_gen_next(&ph->gen, &next);
			have_next = true;
			if (j->busy && j->busy[slice_index(j, next.offset)])
				break;
			queue_io(j, &next);
			have_next = false;
			if (ph->limited && ++issued >= ph->ios)
				stopping = true;
		}
		if (!j->inflight)
			break;
		if (ring_enter(j, io_uring_cq_ready(&j->ring) ? 0 : 1)) {
			/*
			 * The ring is unusable: submitted I/O may still land
			 * in our buffers, so never free them.
			 */
			j->leak_bufs = j->inflight > j->npending;
			return;
		}
		reap(j, ph);
	}
}

static void prefill(struct job *j)
{
	struct wl_spec fill = *j->spec;
	struct phase ph = { .limited = true, .ios = j->nblocks };

	fill.rw = WL_RW_WRITE;
	wl_gen_init(&ph.gen, &fill, j->id, j->first_block, j->nblocks);
	run_phase(j, &ph);
}

static void wait_for_go(struct wl_shared *sh)
{
	pthread_mutex_lock(&sh->lock);
	sh->ready++;
	pthread_cond_broadcast(&sh->cond);
	while (!sh->go)
		pthread_cond_wait(&sh->cond, &sh->lock);
	pthread_mutex_unlock(&sh->lock);
}

static void *job_main(void *arg)
{
	struct job *j = arg;
	const struct wl_spec *s = j->spec;
	struct phase ph = { .measured = true };
	uint64_t t0;

	j->clock_fd = thread_clock_open();
	/* a mixed verify reads blocks before writing them: give them data */
	if (!job_setup(j) && s->verify && wl_rw_is_mixed(s->rw))
		prefill(j);
	wait_for_go(j->sh);
	if (atomic_load(&j->sh->abort))
		return NULL;

	t0 = now_ns();
	wl_gen_init(&ph.gen, s, j->id, j->first_block, j->nblocks);
	ph.limited = j->limited;
	ph.ios = j->ios_to_do;
	ph.ramp_end_ns = t0 + s->ramp_ms * NSEC_PER_MSEC;
	if (s->runtime_ms)
		ph.deadline_ns = ph.ramp_end_ns + s->runtime_ms * NSEC_PER_MSEC;
	run_phase(j, &ph);
	if (!j->measuring)	/* all done within the ramp: nothing timed */
		measure_begin(j, now_ns());
	j->t_end = now_ns();
	getrusage(RUSAGE_THREAD, &j->ru1);
	j->clock1 = thread_clock_read(j);
	return NULL;
}

/* ---- results ---- */

static uint64_t tv_ns(const struct timeval *tv)
{
	return (uint64_t)tv->tv_sec * NSEC_PER_SEC + tv->tv_usec * 1000ULL;
}

static void summarize(const struct lathist *h, struct wl_lat_summary *l)
{
	l->min_ns = h->count ? h->min : 0;
	l->mean_ns = lathist_mean(h);
	l->p50_ns = lathist_percentile(h, 50.0);
	l->p99_ns = lathist_percentile(h, 99.0);
	l->p999_ns = lathist_percentile(h, 99.9);
	l->max_ns = h->max;
}

static void add_rusage(struct wl_result *r, const struct job *j, bool perf)
{
	const struct rusage *a = &j->ru0, *b = &j->ru1;
	uint64_t user = tv_ns(&b->ru_utime) - tv_ns(&a->ru_utime);
	uint64_t sys = tv_ns(&b->ru_stime) - tv_ns(&a->ru_stime);

	r->cpu_user_ns += user;
	r->cpu_sys_ns += sys;
	r->cpu_ns += perf ? j->clock1 - j->clock0 : user + sys;
	r->ctx_switches += (b->ru_nvcsw - a->ru_nvcsw) +
			   (b->ru_nivcsw - a->ru_nivcsw);
	r->page_faults += (b->ru_minflt - a->ru_minflt) +
			  (b->ru_majflt - a->ru_majflt);
}

static void add_job(struct wl_result *r, const struct job *j,
		    struct lathist *rh, struct lathist *wh, bool perf)
{
	unsigned int i;

	r->read_ios += j->read_ios;
	r->read_bytes += j->read_bytes;
	r->write_ios += j->write_ios;
	r->write_bytes += j->write_bytes;
	r->uring_enters += j->enters - j->enters0;
	r->sqes += j->sqes - j->sqes0;
	r->verify_errors += j->verify_errors;
	r->verified_bytes += j->verified_bytes;
	r->prefill_bytes += j->prefill_bytes;
	for (i = 0; i < j->nr_reported && r->nr_reported < WL_VERIFY_REPORT_MAX; i++)
		r->reported[r->nr_reported++] = j->reported[i];
	if (j->measuring)
		add_rusage(r, j, perf);
	lathist_merge(rh, j->rhist);
	lathist_merge(wh, j->whist);
}

static int merge_results(struct wl_result *r, struct job *jobs, uint32_t n)
{
	struct lathist *rh = malloc(sizeof(*rh)), *wh = malloc(sizeof(*wh));
	uint64_t t_start = UINT64_MAX, t_end = 0;
	bool perf = true;	/* every timed job has its task-clock */
	uint32_t i;

	if (!rh || !wh) {
		free(rh);
		free(wh);
		return -1;
	}
	lathist_init(rh);
	lathist_init(wh);
	for (i = 0; i < n; i++)
		if (jobs[i].rhist && jobs[i].measuring && jobs[i].clock_fd < 0)
			perf = false;
	r->cpu_from_perf = perf;
	for (i = 0; i < n; i++) {
		if (!jobs[i].rhist)	/* setup failed before allocating */
			continue;
		add_job(r, &jobs[i], rh, wh, perf);
		if (jobs[i].measuring && jobs[i].t_start < t_start)
			t_start = jobs[i].t_start;
		if (jobs[i].t_end > t_end)
			t_end = jobs[i].t_end;
	}
	r->ios = r->read_ios + r->write_ios;
	r->bytes = r->read_bytes + r->write_bytes;
	r->elapsed_ns = t_end > t_start && t_start != UINT64_MAX ?
			t_end - t_start : 0;
	if (r->elapsed_ns) {
		r->iops = (double)r->ios * NSEC_PER_SEC / r->elapsed_ns;
		r->bw_bytes_per_s = (double)r->bytes * NSEC_PER_SEC /
				    r->elapsed_ns;
	}
	lathist_merge(&r->lat, rh);
	lathist_merge(&r->lat, wh);
	summarize(&r->lat, &r->lat_all);
	summarize(rh, &r->lat_read);
	summarize(wh, &r->lat_write);
	free(rh);
	free(wh);
	return 0;
}

/* ---- wl_run ---- */

static int plan_region(const struct wl_spec *s, const struct wl_dev *d,
		       const char *path, uint64_t *blocks, char *err,
		       size_t errlen)
{
	uint64_t len;

	if (s->offset >= d->size)
		return set_err(err, errlen, -1,
			    "%s: --offset %" PRIu64 " is at or past the end (%" PRIu64 " bytes)",
			    path, s->offset, d->size);
	len = s->length ? s->length : d->size - s->offset;
	if (len > d->size - s->offset)
		return set_err(err, errlen, -1,
			    "%s: region %" PRIu64 "+%" PRIu64 " ends past the end (%" PRIu64 " bytes)",
			    path, s->offset, len, d->size);
	if (d->direct && (s->bs % d->lbs || s->offset % d->lbs))
		return set_err(err, errlen, -1,
			    "%s: bs and offset must be multiples of the logical block size %u for O_DIRECT",
			    path, d->lbs);
	*blocks = len / s->bs;
	if (*blocks < s->jobs)
		return set_err(err, errlen, -1,
			    "%s: region of %" PRIu64 " bytes has fewer than %u blocks of %u bytes (one per job)",
			    path, len, s->jobs, s->bs);
	return 0;
}

static void plan_jobs(struct job *jobs, const struct wl_spec *s,
		      struct wl_shared *sh, uint64_t region_blocks)
{
	/* no size and no runtime: one pass over the region */
	bool limited = s->size || !s->runtime_ms;
	uint64_t total = s->size ? s->size / s->bs : region_blocks;
	uint64_t first;
	uint32_t i;

	for (i = 0; i < s->jobs; i++) {
		jobs[i].id = i;
		jobs[i].sh = sh;
		jobs[i].spec = s;
		wl_job_slice(region_blocks, s->jobs, i, &jobs[i].first_block,
			     &jobs[i].nblocks);
		jobs[i].limited = limited;
		jobs[i].clock_fd = -1;
		wl_job_slice(total, s->jobs, i, &first, &jobs[i].ios_to_do);
	}
}

/* Start the jobs, let them all go at once, wait for them. */
static int run_jobs(struct job *jobs, struct wl_shared *sh, uint32_t n,
		    char *err, size_t errlen)
{
	pthread_t *tids = calloc(n, sizeof(*tids));
	uint32_t started = 0, i;
	int ret = 0;

	if (!tids)
		return set_err(err, errlen, -1, "out of memory");
	for (; started < n; started++) {
		ret = pthread_create(&tids[started], NULL, job_main,
				     &jobs[started]);
		if (ret) {
			set_err(err, errlen, -1, "pthread_create: %s", strerror(ret));
			atomic_store(&sh->abort, true);
			break;
		}
	}
	pthread_mutex_lock(&sh->lock);
	while (sh->ready < started)
		pthread_cond_wait(&sh->cond, &sh->lock);
	sh->go = true;
	pthread_cond_broadcast(&sh->cond);
	pthread_mutex_unlock(&sh->lock);
	for (i = 0; i < started; i++)
		pthread_join(tids[i], NULL);
	free(tids);
	return ret ? -1 : 0;
}

static void init_result(struct wl_result *res)
{
	memset(res, 0, sizeof(*res));
	lathist_init(&res->lat);
	snprintf(res->source, sizeof(res->source), "abtool");
	res->has_hist = true;
	res->has_uring_counts = true;
}

int wl_run(const char *path, const struct wl_spec *spec_in,
	   struct wl_result *res, char *err, size_t errlen)
{
	struct wl_spec spec = *spec_in;
	struct wl_shared sh = { .spec = &spec, .fd = -1 };
	struct wl_dev dev = { .fd = -1 };
	struct job *jobs = NULL;
	uint64_t region_blocks = 0;
	int ret = -1;
	uint32_t i;

	init_result(res);
	if (spec.verify_only)
		spec.verify = true;
	if (wl_spec_check(&spec, err, errlen))
		return -1;
	if (dev_open(&dev, path, &spec, wl_rw_does_write(spec.rw) &&
		     !spec.verify_only, err, errlen))
		return -1;
	res->direct = dev.direct;
	if (plan_region(&spec, &dev, path, &region_blocks, err, errlen))
		goto out;
	jobs = calloc(spec.jobs, sizeof(*jobs));
	if (!jobs) {
		set_err(err, errlen, -1, "out of memory");
		goto out;
	}
	sh.fd = dev.fd;
	pthread_mutex_init(&sh.lock, NULL);
	pthread_cond_init(&sh.cond, NULL);
	plan_jobs(jobs, &spec, &sh, region_blocks);
	ret = run_jobs(jobs, &sh, spec.jobs, err, errlen);
	if (merge_results(res, jobs, spec.jobs) && !ret)
		ret = set_err(err, errlen, -1, "out of memory");
	for (i = 0; i < spec.jobs; i++) {
		if (jobs[i].error && !res->error) {
			res->error = jobs[i].error;
			ret = set_err(err, errlen, -1, "%s: job %u: %s", path, i,
				   jobs[i].err);
		}
		job_teardown(&jobs[i]);
	}
	pthread_cond_destroy(&sh.cond);
	pthread_mutex_destroy(&sh.lock);
out:
	free(jobs);
	close(dev.fd);
	return ret;
}
