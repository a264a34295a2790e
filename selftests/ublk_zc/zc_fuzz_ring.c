// SPDX-License-Identifier: GPL-2.0
/*
 * zc_fuzz: the fuzz ring itself.  Its setup is random (SQE128,
 * SUBMIT_ALL, IOPOLL, a sparse table of random size, registered files),
 * and besides the SQEs it runs, the fuzzer does things to the ring:
 * buffer table updates and unregistration, a clone of its table into
 * another ring, and teardown with buffers installed.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <pthread.h>
#include <time.h>
#include <sys/mman.h>
#include <sys/syscall.h>

#include "zc_fuzz.h"

static struct io_uring own_ring;	/* FM_SPLIT: the fuzz ring's own */
struct io_uring *FR = &own_ring;	/* fuzz ring: torn down at random */
void *ubuf[MAX_SLOTS];		/* user buffers for table slots */
unsigned long nr_teardowns;
unsigned long nr_teardown_lent;	/* with buffers installed */

/* ------------------------------------------------------------------ */
/* opening and closing it                                               */

void fuzz_ring_close(void)
{
	int i;

	if (!M.open)
		return;
	if (M.fetch_here)
		uzc_queue_close(&D);	/* the queue goes with the ring */
	else
		io_uring_queue_exit(FR);
	/* ring exit is asynchronous: the loans go back a bit later */
	for (i = 0; i < MAX_SLOTS; i++)
		if (M.slot[i].kind == SL_KERNEL)
			M.tag[M.slot[i].tag].lend = L_MAYBE;
	memset(M.slot, 0, sizeof(M.slot));
	M.open = M.table = M.files = M.parked = false;
	M.nslots = 0;
}

/*
 * The random setup of @ring, the fuzz ring: FR = @ring.  With the FETCHes
 * on it (FM_SAME, called by uzc_queue_open() for D.q) never IOPOLL (no
 * uring_cmd there) nor SQPOLL (its SQ thread would be the daemon, and the
 * data ring could not lend).
 */
int fuzz_ring_setup(struct io_uring *ring)
{
	struct io_uring_params p = { 0 };
	int files[NR_FIX], ret;

	FR = ring;
	memset(M.slot, 0, sizeof(M.slot));
	M.fetch_here = cfg.mode == FM_SAME;
	M.sqe128 = series == S_FUSED ? chance(92) : chance(25);
	M.submit_all = chance(50);
	M.iopoll = chance(series == S_FUSED ? 4 : 8) && !M.fetch_here;
	M.sqpoll = chance(12) && !M.iopoll && !M.fetch_here;
	M.drain_disabled = M.drain_hangs = M.parked = false;
	p.flags = IORING_SETUP_CQSIZE | (M.sqe128 ? IORING_SETUP_SQE128 : 0) |
		  (M.submit_all ? IORING_SETUP_SUBMIT_ALL : 0) |
		  (M.iopoll ? IORING_SETUP_IOPOLL : 0) |
		  (M.sqpoll ? IORING_SETUP_SQPOLL : 0);
	p.cq_entries = 256;
	p.sq_thread_idle = 20;
	ret = io_uring_queue_init_params(32, FR, &p);
	if (ret)
		return ret;
	NC.sqpoll_rings += M.sqpoll;
	M.open = true;
	M.table = series == S_SPLICE && chance(90);
	M.nslots = 0;
	if (M.table) {
		M.nslots = 1 + rnd_below(MAX_SLOTS);
		ret = io_uring_register_buffers_sparse(FR, M.nslots);
		if (ret)
			return ret;
	}
	M.files = chance(80);
	if (M.files) {
		files[FIX_CDEV] = F.cdev;
		files[FIX_SCRATCH] = F.scratch;
		files[FIX_SPARSE] = -1;
		files[FIX_UDP] = F.udp_tx;
		files[FIX_RO] = F.ro;
		files[FIX_BACKING] = F.backing;
		files[FIX_RX] = F.udp_rx;
		files[FIX_PIPE] = F.pipe[0];
		ret = io_uring_register_files(FR, files, NR_FIX);
		if (ret)
			return ret;
	}
	if (cfg.verbose)
		printf("# fuzz ring: sqe128=%d submit_all=%d iopoll=%d sqpoll=%d fetch=%s slots=%u files=%d\n",
		       M.sqe128, M.submit_all, M.iopoll, M.sqpoll,
		       M.fetch_here ? "here" : "own ring",
		       M.table ? M.nslots : 0, M.files);
	return 0;
}

int fuzz_ring_open(void)
{
	return fuzz_ring_setup(&own_ring);
}

/* ------------------------------------------------------------------ */
/* table, clone and teardown: register-time ops on the fuzz ring        */

void table_op(void)
{
	unsigned int r = rnd_below(100), s, n;
	__u64 utag = 0;
	struct iovec iov;
	int ret, want;

	nr_ops++;
	s = M.table && chance(90) ? rnd_below(M.nslots) :
		M.nslots + rnd_below(4);
	if (!M.table && r < 70) {
		n = 1 + rnd_below(MAX_SLOTS);
		ret = io_uring_register_buffers_sparse(FR, n);
		check_reg("register sparse buffers", ret, 0);
		if (!ret) {
			M.table = true;
			M.nslots = n;
		}
	} else if (r < 45) {
		iov.iov_base = ubuf[s % MAX_SLOTS];
		iov.iov_len = 512 + rnd_below(UBUF_LEN - 511);
		ret = io_uring_register_buffers_update_tag(FR, s, &iov, &utag,
							   1);
		want = !M.table ? -ENXIO : s >= M.nslots ? -EINVAL : 1;
		check_reg("buffer update (user buffer)", ret, want);
		if (ret == 1) {
			slot_drop(&M, s);
			M.slot[s].kind = SL_USER;
			M.slot[s].uaddr = (uintptr_t)iov.iov_base;
			M.slot[s].len = iov.iov_len;
		}
	} else if (r < 75) {
		iov.iov_base = NULL;
		iov.iov_len = 0;
		ret = io_uring_register_buffers_update_tag(FR, s, &iov, &utag,
							   1);
		want = !M.table ? -ENXIO : s >= M.nslots ? -EINVAL : 1;
		check_reg("buffer update (empty)", ret, want);
		/*
		 * a lent buffer leaves at once, never through the rsrc node
		 * (which a parked fixed-file READ may hold): as BUF_REMOVE
		 */
		if (ret == 1)
			slot_drop(&M, s);
	} else if (r < 92) {
		nr_ops--;
		unregister_op("unregister buffers");
	} else {
		ret = io_uring_register_buffers_sparse(FR, 4);
		check_reg("register buffers twice", ret,
			  M.table ? -EBUSY : 0);
		if (!ret) {
			M.table = true;
			M.nslots = 4;
		}
	}
}

/* one SQE on a scratch ring, checked on the spot */
static int one_sqe(struct io_uring *r, struct io_uring_sqe *s)
{
	struct io_uring_sqe *sqe = io_uring_get_sqe(r);
	struct io_uring_cqe *cqe;
	int res;

	*sqe = *s;
	sqe->user_data = 1;
	io_uring_submit(r);
	if (io_uring_wait_cqe(r, &cqe))
		return INT_MIN;
	res = cqe->res;
	io_uring_cqe_seen(r, cqe);
	return res;
}

/*
 * the clone of the table shares user buffers, never lent ones; 7.3's
 * io_clone_buffers() shares kernel buffers too (a node of its own on the
 * same io_mapped_ubuf, refcount_inc(&src_node->buf->refs)): the clone's
 * BUF_REMOVE takes it out (and the WRITE_FIXED after it finds the slot
 * empty); the loan goes back once the source's slot lets go too
 */
void clone_op(void)
{
	struct clone_buffers cb = { .src_fd = FR->ring_fd };
	struct io_uring_sqe s;
	struct io_uring c;
	const struct mslot *sl;
	unsigned int i;
	int ret, want;

	nr_ops++;
	if (io_uring_queue_init(8, &c, 0))
		return;
	ret = syscall(__NR_io_uring_register, c.ring_fd, REG_CLONE_BUFFERS,
		      &cb, 1);
	ret = ret < 0 ? -errno : ret;
	hist_add(K_CLONE, ret);
	want = M.table ? 0 : -ENXIO;
	if (ret != want) {
		nr_mismatch_model++;
		report("seed %llu after op #%lu: clone buffers returned %d, expected %d",
		       cfg.seed, nr_ops, ret, want);
	}
	if (ret || !M.nslots)
		goto out;
	i = rnd_below(M.nslots);
	sl = &M.slot[i];

	memset(&s, 0, sizeof(s));
	uzc_prep_buf_remove(&s, i);
	ret = one_sqe(&c, &s);
	hist_add(K_CLONE, ret);
	want = sl->kind == SL_USER ? -EPERM :
	       sl->kind == SL_KERNEL && v73 ? 0 : -ENOENT;
	if (ret != want) {
		nr_mismatch_model++;
		report("seed %llu after op #%lu: BUF_REMOVE of cloned slot %u (%s) returned %d, expected %d",
		       cfg.seed, nr_ops, i,
		       sl->kind == SL_KERNEL ? "lent" : sl->kind == SL_USER ?
		       "user" : "empty", ret, want);
	}

	io_uring_prep_write_fixed(&s, F.scratch,
				  (void *)(uintptr_t)(sl->kind == SL_USER ?
						      sl->uaddr : 0),
				  512, 0, i);
	ret = one_sqe(&c, &s);
	hist_add(K_CLONE, ret);
	want = sl->kind == SL_USER ? 512 : -EFAULT;
	if (ret != want) {
		nr_mismatch_model++;
		report("seed %llu after op #%lu: WRITE_FIXED from cloned slot %u (%s) returned %d, expected %d",
		       cfg.seed, nr_ops, i,
		       sl->kind == SL_KERNEL ? "lent" : sl->kind == SL_USER ?
		       "user" : "empty", ret, want);
	}
out:
	io_uring_queue_exit(&c);
}

int teardown_op(void)
{
	/*
	 * FM_SAME: the ring carries the queue, and goes only at the end
	 * (end_same_ring()); its table goes instead, every loan with it
	 */
	if (M.fetch_here) {
		unsigned int ns = M.nslots ? M.nslots : 1 + rnd_below(MAX_SLOTS);

		if (series != S_SPLICE)
			return 0;
		reregister_op("instead of teardown", ns);
		return 0;
	}
	nr_ops++;
	nr_teardowns++;
	if (pick_slot(&M, SL_KERNEL, 0) >= 0)
		nr_teardown_lent++;
	hist_add(K_TEARDOWN, 0);
	reap_fuzz(0, NULL);
	fuzz_ring_close();
	return fuzz_ring_open();
}

/* ------------------------------------------------------------------ */
/* IORING_UNREGISTER_BUFFERS, with a READ parked on a fixed file or not */

static void *unregister_thread(void *arg)
{
	(void)arg;
	return (void *)(long)io_uring_unregister_buffers(FR);
}

/*
 * Unregistering quiesces every rsrc node, so with a READ parked on the
 * fixed pipe it returns only once that READ is gone: it runs in a helper
 * thread then, and meanwhile every loan must come back (settle() probes
 * them, and reports one that waits for the quiesce); then the READ is
 * given its byte and the unregister must return.
 */
void unregister_op(const char *what)
{
	struct timespec ts;
	unsigned int i;
	pthread_t th;
	void *res;
	int ret;

	nr_ops++;
	if (!M.parked || !M.table) {
		ret = io_uring_unregister_buffers(FR);
		check_reg(what, ret, M.table ? 0 : -ENXIO);
		if (!ret) {
			for (i = 0; i < M.nslots; i++)
				slot_drop(&M, i);
			M.table = false;
			M.nslots = 0;
		}
		return;
	}
	if (pthread_create(&th, NULL, unregister_thread, NULL)) {
		report("seed %llu after op #%lu: no thread for %s", cfg.seed,
		       nr_ops, what);
		return;
	}
	nr_unreg_parked++;
	for (i = 0; i < M.nslots; i++) {
		if (M.slot[i].kind == SL_KERNEL) {
			/* must be back before the quiesce ends */
			M.tag[M.slot[i].tag].lend = L_MAYBE;
			nr_unreg_parked_lent++;
		}
	}
	memset(M.slot, 0, sizeof(M.slot));
	M.table = false;
	M.nslots = 0;
	if (series == S_SPLICE)
		settle();
	unpark_op_data();
	clock_gettime(CLOCK_REALTIME, &ts);
	ts.tv_sec += cfg.cqe_wait_ms / 1000;
	ret = pthread_timedjoin_np(th, &res, &ts);
	if (ret) {
		nr_mismatch_model++;
		report("seed %llu after op #%lu: %s did not return after the parked READ completed",
		       cfg.seed, nr_ops, what);
		pthread_join(th, &res);
	}
	check_reg(what, (int)(long)res, 0);
}

/* unregister the table, then register a sparse one of @ns slots */
void reregister_op(const char *why, unsigned int ns)
{
	char what[64];

	snprintf(what, sizeof(what), "unregister buffers (%s)", why);
	unregister_op(what);
	nr_ops++;
	snprintf(what, sizeof(what), "register sparse buffers (%s)", why);
	check_reg(what, io_uring_register_buffers_sparse(FR, ns), 0);
	M.table = true;
	M.nslots = ns;
}

/* ------------------------------------------------------------------ */
/* a READ parked on the fixed pipe                                      */

#define UD_PARK		(1ULL << 61)
#define UD_CANCEL	(UD_PARK + 1)

static char park_buf[16];
static int park_res, cancel_res;
static bool park_got, cancel_got, unparking;
unsigned long nr_parks, nr_unparks, nr_unreg_parked, nr_unreg_parked_lent;

bool park_cqe(const struct io_uring_cqe *cqe)
{
	if (cqe->user_data == UD_CANCEL) {
		cancel_got = true;
		cancel_res = cqe->res;
		return true;
	}
	if (cqe->user_data != UD_PARK)
		return false;
	park_got = true;
	park_res = cqe->res;
	if (!unparking) {
		nr_mismatch_model++;
		report("seed %llu after op #%lu: the READ parked on the fixed pipe completed on its own (%d, %s)",
		       cfg.seed, nr_ops, cqe->res, errname(cqe->res));
		M.parked = false;
	}
	return true;
}

static bool park_done(void)
{
	return park_got;
}

static bool unpark_done(void)
{
	return park_got && cancel_got;
}

/* a READ of the empty pipe, a fixed file: it parks, holding the node */
void park_op(void)
{
	struct io_uring_sqe *sqe;
	int r;

	if (M.parked || !M.files || M.iopoll)
		return;
	nr_ops++;
	nr_parks++;
	hist_add(K_PARK, 0);
	sqe = io_uring_get_sqe(FR);
	memset(sqe, 0, M.sqe128 ? 128 : 64);
	io_uring_prep_read(sqe, FIX_PIPE, park_buf, sizeof(park_buf), 0);
	sqe->flags = IOSQE_FIXED_FILE;
	sqe->user_data = UD_PARK;
	park_got = unparking = false;
	M.parked = true;
	r = io_uring_submit(FR);
	/*
	 * SQPOLL: liburing counts what the SQ ring holds (tail - khead),
	 * and the SQ thread may not have moved khead past the last batch
	 * yet (split_ok())
	 */
	if (M.sqpoll ? r < 1 : r != 1)
		report("seed %llu op #%lu: parking a READ: submit returned %d",
		       cfg.seed, nr_ops, r);
	reap_fuzz(10, park_done);
}

static void unpark_check(const char *how, int want_read, int want_cancel)
{
	reap_fuzz(cfg.cqe_wait_ms, want_cancel == INT_MIN ? park_done :
		  unpark_done);
	if (!park_got || park_res != want_read ||
	    (want_cancel != INT_MIN && (!cancel_got ||
					cancel_res != want_cancel))) {
		nr_mismatch_model++;
		report("seed %llu after op #%lu: parked READ released by %s: READ %d (%s), cancel %d, expected %d and %d",
		       cfg.seed, nr_ops, how, park_got ? park_res : INT_MIN,
		       park_got ? errname(park_res) : "no CQE",
		       cancel_got ? cancel_res : INT_MIN, want_read,
		       want_cancel);
	}
	hist_add(K_PARK, park_got ? park_res : 0);
	unparking = false;
	M.parked = false;
}

/* a byte for it: the READ completes with it */
void unpark_op_data(void)
{
	if (!M.parked)
		return;
	nr_unparks++;
	unparking = true;
	if (write(F.pipe[1], "p", 1) != 1)
		report("seed %llu: write to the pipe failed", cfg.seed);
	unpark_check("a byte", 1, INT_MIN);
	if (park_got && park_buf[0] != 'p')
		report("seed %llu: the parked READ read 0x%x, not 'p'",
		       cfg.seed, park_buf[0]);
}

/* release it: a byte, or IORING_OP_ASYNC_CANCEL by its user_data */
void unpark_op(void)
{
	struct io_uring_sqe *sqe;

	if (!M.parked)
		return;
	nr_ops++;
	if (chance(60)) {
		unpark_op_data();
		return;
	}
	nr_unparks++;
	unparking = true;
	cancel_got = false;
	sqe = io_uring_get_sqe(FR);
	memset(sqe, 0, M.sqe128 ? 128 : 64);
	io_uring_prep_cancel64(sqe, UD_PARK, 0);
	sqe->user_data = UD_CANCEL;
	io_uring_submit(FR);
	unpark_check("ASYNC_CANCEL", -ECANCELED, 0);
}

/* ------------------------------------------------------------------ */
/* server memory where a lent buffer's offsets point as user addresses  */

#define GUARD_ADDR	0x10000UL
static __u64 *guard;
static size_t guard_len;

static __u64 guard_val(size_t i)
{
	return 0x1000 + i;	/* what a wrong ->write() would count */
}

void mem_guard_setup(void)
{
	size_t i;

	guard_len = cfg.max_io;
	guard = mmap((void *)GUARD_ADDR, guard_len, PROT_READ | PROT_WRITE,
		     MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED_NOREPLACE, -1, 0);
	if (guard == MAP_FAILED || guard != (void *)GUARD_ADDR) {
		if (guard != MAP_FAILED)
			munmap(guard, guard_len);
		guard = NULL;
		printf("# no server memory at 0x%lx (the eventfd and inotify cases check results only)\n",
		       GUARD_ADDR);
		return;
	}
	for (i = 0; i < guard_len / 8; i++)
		guard[i] = guard_val(i);
}

/* the eventfd still counts 0, the memory holds its pattern */
void mem_guard_check(void)
{
	__u64 v;
	size_t i;

	if (read(F.evfd, &v, sizeof(v)) == sizeof(v)) {
		nr_mismatch_model++;
		report("seed %llu after op #%lu: the eventfd counted %llu: server memory written through a lent buffer",
		       cfg.seed, nr_ops, (unsigned long long)v);
	}
	for (i = 0; guard && i < guard_len / 8; i++) {
		if (guard[i] != guard_val(i)) {
			nr_mismatch_model++;
			report("seed %llu after op #%lu: server memory at 0x%lx overwritten through a lent buffer",
			       cfg.seed, nr_ops, GUARD_ADDR + 8 * i);
			guard[i] = guard_val(i);
			break;
		}
	}
}
