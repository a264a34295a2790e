/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Minimal in-test ublk server for the ublk_zc selftests: one device, one
 * queue, served by the calling thread (the test drives fetch/commit itself
 * and checks every step), block I/O issued from a helper thread, and raw
 * SQE preparation for IORING_OP_SPLICE_FROM / IORING_OP_BUF_REMOVE (which
 * liburing 2.3 has no helpers for).
 */
#ifndef UBLK_ZC_LIB_H
#define UBLK_ZC_LIB_H

#include <stdbool.h>
#include <stddef.h>
#include <pthread.h>
#include <sys/types.h>
#include <sys/uio.h>
#include <linux/types.h>
#include <linux/ublk_cmd.h>
#include <liburing.h>

/* what older headers lack: 6.12's, and the splice-rsrc series' uAPI */
#include "uapi/base.h"
#include "uapi/splice_rsrc.h"
#include "uapi/regbuf.h"

#define UZC_MAX_DEPTH		64

/*
 * The device of the zero-copy cases: user copy beside zero copy (the
 * fallback the series keep), requests up to 512 KiB, 64 MiB.  The
 * lending flag is the running kernel's: UBLK_F_SUPPORT_ZERO_COPY (bit 0)
 * on the 6.12 series, UBLK_F_LEND (bit 21) on the 7.3 one.  So are the
 * fused and bpf series' (bit 0): uzc_splice_uapi() picks the 6.12
 * numbers on every kernel without ops 65 and 66.
 */
#define UZC_ZC_FLAGS		(UBLK_F_USER_COPY | UZC_F_LEND)
#define UZC_ZC_MAX_IO		(512 << 10)
#define UZC_ZC_DEV_SIZE		(64ULL << 20)

/* user_data of the queue ring's ublk commands */
#define UZC_UD_IO		(1ULL << 63)

struct uzc_dev {
	int dev_id;
	int ctrl_fd;
	struct io_uring ctrl;		/* IORING_SETUP_SQE128, control commands */
	bool ctrl_ready;
	int cdev_fd;			/* /dev/ublkcN */
	bool cdev_read_only;		/* uzc_queue_open(): O_RDONLY, not O_RDWR */
	unsigned int depth;
	unsigned int max_io;		/* bytes */
	unsigned long long dev_size;	/* bytes */
	__u64 flags;			/* as negotiated by ADD_DEV */
	struct ublksrv_io_desc *iods;
	size_t iods_len;
	struct io_uring q;		/* ublk io commands of queue 0 */
	bool q_ready;
	bool started;
	unsigned int nr_active;		/* fetch/commit commands in flight */
	/* requests the test did not ask for yet (e.g. after a timeout) */
	int pending[UZC_MAX_DEPTH];
	unsigned int nr_pending;
	char cdev_path[32];
	char bdev_path[32];
};

/* a block I/O on /dev/ublkbN, O_DIRECT, run by a helper thread */
/* UZC_DISCARD, UZC_WRITE_ZEROES: BLKDISCARD, BLKZEROOUT of iov[0].iov_len */
enum uzc_io_op { UZC_READ, UZC_WRITE, UZC_FSYNC, UZC_DISCARD,
		 UZC_WRITE_ZEROES };

struct uzc_io {
	pthread_t thread;
	int fd;
	enum uzc_io_op op;
	struct iovec iov[16];
	int iovcnt;
	off_t off;
	ssize_t ret;			/* bytes, or -errno */
	int done;			/* __atomic accesses */
};

/* true if io_uring knows both ops; *features = UBLK_U_CMD_GET_FEATURES */
bool uzc_have_ops(void);
int uzc_get_features(__u64 *features);
/* what every test needs (root, /dev/ublk-control): NULL, or why not */
const char *uzc_prereq(void);
/*
 * NULL if ublk advertises UBLK_F_SUPPORT_ZERO_COPY as a 6.12 series does
 * (splice-rsrc, fused; not upstream's, uapi/upstream.h), else why not
 */
const char *uzc_zc_missing(void);
/* NULL if the splice-rsrc series is there (ops 58/59 and zero copy) */
const char *uzc_unsupported(void);
/*
 * NULL if the fused series is there: op 58 without op 59 (the
 * splice-rsrc series uses both numbers for its own ops), and zero copy
 */
const char *uzc_fused_unsupported(void);
/*
 * Whether this is an upstream ublk (7.x: GET_FEATURES has bits no 6.12
 * kernel of the project sets, uapi/upstream.h); false without ublk
 */
bool uzc_kernel_upstream(void);
/* NULL if the regbuf series is there: UBLK_F_REG_IO_BUF, _AUTO_BUF_REG */
const char *uzc_regbuf_unsupported(void);

/*
 * UBLK_F_AUTO_BUF_REG servers: when non-zero, uzc_queue_open() gives the
 * queue ring a sparse buffer table of that many slots, and every FETCH
 * and COMMIT_AND_FETCH names slot = tag with uzc_auto_buf_flags in its
 * sqe->addr.  Set before the queue is opened.
 */
extern unsigned int uzc_auto_buf_slots;
extern __u8 uzc_auto_buf_flags;

/*
 * A copy-mode device (neither USER_COPY nor zero copy): every FETCH and
 * COMMIT_AND_FETCH names uzc_copy_bufs + tag * max_io as the tag's
 * buffer.  NULL (the default) sends addr 0, as the other modes want.
 */
extern char *uzc_copy_bufs;

/*
 * When set, uzc_queue_open() calls it to set up the queue ring d->q
 * (d->cdev_fd is open) instead of a plain ring of 2 * depth entries: a
 * server whose FETCHes share a ring of its own making (zc_fuzz).
 * 0 or -errno.
 */
extern int (*uzc_queue_ring_init)(struct uzc_dev *d);

/*
 * The kernel variant the suite runs on: env UBLK_ZC_VARIANT, set by the
 * project's scripts/check and scripts/stress, or NULL (a kernel developer
 * running the kselftest by hand: then a missing feature is a skip).
 * uzc_must_have(@path): whether that variant must have data path @path
 * (its line in ./variants, the registry beside the programs; NULL: what
 * every path needs, uzc_prereq()), so that its absence
 * is a failure, not a skip.  False without a variant; an unknown variant
 * must have everything.
 */
const char *uzc_variant(void);
bool uzc_must_have(const char *path);
/*
 * A program's gate: with @why (what is missing, or NULL) it cannot run,
 * so it exits: failing when the variant must have data path @path (or,
 * without root or ublk, what every path needs), else skipping.
 */
void uzc_require(const char *why, const char *path);

/*
 * Add a device (one queue of @depth, @max_io bytes per request, @dev_size
 * bytes), set its parameters (@volatile_cache adds a write cache, so that
 * fsync sends FLUSH), open its char device, fetch every tag and start it,
 * serving the partition scan. 0 or -errno.
 */
int uzc_dev_create(struct uzc_dev *d, __u64 flags, unsigned int depth,
		   unsigned int max_io, unsigned long long dev_size,
		   bool volatile_cache);
/* the phases of uzc_dev_create, for a server living in another process */
/* logical block size of the devices uzc_dev_add() makes (default 9) */
extern unsigned int uzc_logical_bs_shift;
/*
 * max discard and write zeroes sectors of the devices uzc_dev_add()
 * makes (default 0: neither is advertised)
 */
extern unsigned int uzc_discard_sectors;
/* more UBLK_ATTR_* for the next devices (bpf_uapi: UBLK_ATTR_FUA) */
extern unsigned int uzc_extra_attrs;
int uzc_dev_add(struct uzc_dev *d, __u64 flags, unsigned int depth,
		unsigned int max_io, unsigned long long dev_size,
		bool volatile_cache);
int uzc_queue_open(struct uzc_dev *d);	/* in the serving task */
int uzc_dev_start(struct uzc_dev *d);	/* serves until started */
int uzc_ctrl_cmd(struct uzc_dev *d, __u32 op, __u64 data0, void *buf,
		 __u32 len);
/* stop (serving until stopped), release the queue, delete. 0 or -errno */
int uzc_dev_destroy(struct uzc_dev *d);
/* the control side only: stop and delete a device served elsewhere */
int uzc_dev_del(struct uzc_dev *d);
/*
 * Stop and delete @d from a child and wait for it up to @ms: a kernel that
 * cannot delete leaves the child in D state, and the case fails instead of
 * hanging. The child keeps only the control files. The caller must have
 * closed its /dev/ublkcN.
 */
bool uzc_deleted_within(struct uzc_dev *d, int ms);
/*
 * uzc_deleted_within() in two steps, for a case that has more to do while
 * the delete runs: DEL_DEV returns only once the disk is released, i.e.
 * when the last /dev/ublkbN opener closed it, and a uzc_io keeps its fd
 * until uzc_io_wait(); a block I/O that only STOP_DEV ends (one a
 * UBLK_F_USER_RECOVERY device requeued) must be reaped between the two.
 * uzc_delete_start() returns the child's pid or -errno.
 */
pid_t uzc_delete_start(struct uzc_dev *d);
bool uzc_delete_wait(struct uzc_dev *d, pid_t pid, int ms);
void uzc_queue_close(struct uzc_dev *d);

/*
 * Wait up to @ms for @d to be in @state (UBLK_S_DEV_*): QUIESCED after its
 * daemon died (UBLK_F_USER_RECOVERY), DEAD once an aborted queue without
 * recovery had the device stopped (del_gendisk() has returned).  0,
 * -ETIMEDOUT or -errno.
 */
int uzc_dev_wait_state(struct uzc_dev *d, __u16 state, int ms);

/*
 * Take the place of @d's dead daemon (UBLK_F_USER_RECOVERY): wait until
 * the device is quiesced, START_USER_RECOVERY, open the queue in this
 * task, END_USER_RECOVERY.  0, -ETIMEDOUT (never quiesced) or -errno.
 */
int uzc_dev_recover(struct uzc_dev *d);

/*
 * A lending server in one task: @d, a zero-copy device (UZC_ZC_*, one
 * queue of @depth) served by the calling thread, and @ring (@entries,
 * @ring_flags) with a sparse buffer table of @slots to lend requests
 * into.  0 or -errno; on failure nothing is left and d->dev_id is -1.
 */
int uzc_serving_setup(struct uzc_dev *d, unsigned int depth,
		      struct io_uring *ring, unsigned int entries,
		      unsigned int ring_flags, unsigned int slots);
/* its teardown: the ring first (its loans go back), then the device */
int uzc_serving_teardown(struct uzc_dev *d, struct io_uring *ring);

/*
 * Wait up to @timeout_ms for the next request handed to the server.
 * Returns its tag, -ETIMEDOUT, or -ENODEV once the queue was aborted.
 */
int uzc_next_req(struct uzc_dev *d, int timeout_ms);
static inline const struct ublksrv_io_desc *uzc_iod(struct uzc_dev *d,
						    int tag)
{
	return &d->iods[tag];
}
/* COMMIT_AND_FETCH_REQ for @tag with @res (submitted, not waited for) */
int uzc_commit(struct uzc_dev *d, int tag, int res);
/*
 * The answer to the COMMIT_AND_FETCH of @tag just sent by uzc_commit(), or
 * -ETIMEDOUT if the command is still queued after @ms (other ublk
 * completions are reaped and dropped).
 */
int uzc_commit_answer(struct uzc_dev *d, int tag, int ms);
/* serve a request without zero copy: zero-fill reads, accept writes */
int uzc_serve_default(struct uzc_dev *d, int tag);

/*
 * A pipe (both ends O_NONBLOCK) whose one page is full, so that a write
 * to it parks in poll; 0 or -errno.
 */
int uzc_full_pipe(int p[2]);
/*
 * Drop a reference to a ring (its mappings and fd) and, when it was the
 * last, wait up to @ms for the kernel to tear the ring down.  Teardown,
 * which cancels the requests parked there (a ublk FETCH: ublk aborts the
 * queue), runs later from a workqueue, so a test that depends on it must
 * wait for it.  The ring must have no file table.  0, -ETIME when the
 * teardown had not finished, or -errno.
 */
int uzc_ring_exit_wait(struct io_uring *ring, int ms);
/*
 * Kernel reports: a refcount WARN does not fail a system call, so a case
 * that provokes one watches /dev/kmsg from a point on.  uzc_kmsg_from_now()
 * returns a reader positioned at the end of the log (or -1: then
 * uzc_kmsg_report() sees nothing); uzc_kmsg_report() tells whether a
 * WARNING, BUG, KASAN or refcount report was logged since, and copies the
 * first to @line (@len bytes, may be 0).
 *
 * uzc_kmsg_settle() ends a case's watch: it waits @ms for reports of work
 * the case left running (task work, workqueues), then reports as
 * uzc_kmsg_report() and closes the reader.
 */
int uzc_kmsg_from_now(void);
bool uzc_kmsg_report(int fd, char *line, size_t len);
bool uzc_kmsg_settle(int fd, int ms, char *line, size_t len);

/* user-copy position of (queue 0, @tag, @off) */
static inline __u64 uzc_pos(unsigned int q, unsigned int tag, __u64 off)
{
	return UBLKSRV_IO_BUF_OFFSET + (((__u64)q << UBLK_QID_OFF) |
					((__u64)tag << UBLK_TAG_OFF) | off);
}

/*
 * A pread() of 4 KiB of (queue 0, @tag) on the char device (user copy),
 * for a thread: with @area a private mapping of a page of another ublk
 * device that is not read yet, the copy parks in the fault, holding the
 * request, until the test serves that device's READ.  ->ret: what
 * pread() returned.
 */
struct uzc_pread_holder {
	struct uzc_dev *d;
	char *area;
	int tag;
	ssize_t ret;
};

void *uzc_pread_holder_fn(void *arg);

int uzc_io_start(struct uzc_dev *d, struct uzc_io *io, enum uzc_io_op op,
		 const struct iovec *iov, int iovcnt, off_t off);
/* join; returns io->ret */
ssize_t uzc_io_wait(struct uzc_io *io);
/* has the block I/O finished? (wait up to @ms) */
bool uzc_io_done(struct uzc_io *io, int ms);

/* raw SQEs for the new ops */
void uzc_prep_splice_from(struct io_uring_sqe *sqe, int fd, __u64 pos,
			  __u32 len, __u16 slot);
void uzc_prep_buf_remove(struct io_uring_sqe *sqe, __u16 slot);

/*
 * Wait for @nr completions; their res and user_data, in order of arrival,
 * go to res[]/ud[] (either may be NULL). Returns 0 or -errno (-ETIMEDOUT
 * when one did not come within @timeout_ms of the call).
 */
int uzc_wait_cqes(struct io_uring *ring, unsigned int nr, int *res,
		  __u64 *ud, int timeout_ms);
/* Submit what is queued, then uzc_wait_cqes() */
int uzc_submit_wait(struct io_uring *ring, unsigned int nr, int *res,
		    __u64 *ud, int timeout_ms);

/* fill / check a deterministic pattern, seeded */
void uzc_fill(void *buf, size_t len, unsigned int seed);
/* 1 + offset of the first difference, 0 if equal */
size_t uzc_cmp(const void *a, const void *b, size_t len);

/* bring the loopback interface up (a fresh guest has it down); -errno */
int uzc_loopback_up(void);
/*
 * A connected TCP loopback pair, @tx connected to @rx, neither end
 * O_NONBLOCK; @sndbuf (SO_SNDBUF of @tx) and @rcvbuf (SO_RCVBUF of @rx,
 * set before the handshake so that the window stays small) are left at
 * the defaults when 0.  0 or -errno.
 */
int uzc_tcp_pair(int *tx, int *rx, int sndbuf, int rcvbuf);
/*
 * A connected TCP loopback pair whose sending side is full: a send on
 * @tx parks until @rx reads (neither end is O_NONBLOCK). 0 or -errno.
 */
int uzc_tcp_full_pair(int *tx, int *rx);
/* read exactly @len bytes from @fd into @buf; false on error or EOF */
bool uzc_read_full(int fd, void *buf, size_t len);
/*
 * Wait up to @ms for every one of @len bytes written to TCP socket @tx
 * to be in the pair (queued in @tx, not yet acked, or waiting in @rx):
 * the sendmsg() that took them has returned.  Returns the bytes seen
 * last, or -errno.
 */
int uzc_tcp_wait_queued(int tx, int rx, int len, int ms);
/* sk_wmem_queued of socket @fd (SO_MEMINFO): what its send buffer is charged */
int uzc_wmem_queued(int fd);
/*
 * The first @len bytes of @area (@area_len bytes, already touched) whose
 * pages are physically contiguous, from /proc/self/pagemap (root sees
 * PFNs), or NULL.  O_DIRECT I/O on them gives a bio of one multi-page
 * bvec.
 */
void *uzc_contiguous_run(char *area, size_t area_len, size_t len);

/*
 * A server in a child, for the lifetime cases: the daemon is killed (or
 * closes its queue) with the test's WRITE in some state, and the case
 * then watches the block I/O and the device delete with deadlines, so
 * that a kernel with the bug fails the case instead of hanging the run.
 */
#define UZC_DEADLINE_MS		10000
/* the sector the child servers wait for (the partition scan reads 0) */
#define UZC_TEST_SECTOR		2048

/* start a block WRITE of @len pattern bytes (@seed) at UZC_TEST_SECTOR */
void *uzc_write_start(struct uzc_dev *d, struct uzc_io *io, size_t len,
		      unsigned int seed);

struct uzc_srv;
/*
 * What the child does with the test's WRITE, request @tag of @len bytes,
 * once it holds it (lend it, park a fused command on it, ...): 'r' when
 * it is where the case wants it, any other character fails the start.
 */
typedef char (*uzc_srv_fn)(struct uzc_srv *s, int tag, __u32 len);

struct uzc_srv {
	struct uzc_dev d;	/* the parent's has the control only */
	struct uzc_io io;	/* the test's WRITE */
	void *buf;		/* its data */
	pid_t pid;		/* the daemon */
	pid_t holder;		/* uzc_srv_fork_holder(): a ring's other owner */
	int out;		/* a result the callback reports to the parent */
	unsigned int mode;	/* the case's choice, for the callback */
	int ready[2];		/* the daemon's report */
	int pipe[2];		/* full, nonblocking: a write to it parks */
};

/* nothing started: uzc_srv_close() has nothing to undo */
void uzc_srv_init(struct uzc_srv *s);
/*
 * Add a device of @flags (UZC_ZC_MAX_IO, UZC_ZC_DEV_SIZE, one queue of
 * @depth), start it served by a child that serves every request until
 * the test's WRITE of @len bytes (which this starts) and hands it to
 * @fn, and wait until @fn returned.  @mode goes to s->mode.  0 or -errno.
 */
int uzc_srv_start(struct uzc_srv *s, __u64 flags, unsigned int depth,
		  uzc_srv_fn fn, unsigned int mode, size_t len);
/*
 * In the daemon: fork a child that keeps the daemon's rings open, but
 * nothing of the device (its queue ring, mapped, and its char device
 * would keep the daemon's FETCHes alive), so that a ring outlives the
 * daemon; with @keep_queue_ring the queue ring too (still not the char
 * device or its mapping): the FETCHes' ring outlives the daemon.
 * 0 or -errno.
 */
int uzc_srv_fork_holder(struct uzc_srv *s, bool keep_queue_ring);
/* a holder's life at most: longer than any case's timeout */
#define UZC_HOLDER_MAX_S	300
/* SIGKILL the daemon and reap it */
void uzc_srv_kill(struct uzc_srv *s);
/*
 * Undo what is left: the holder, the daemon and the device of a case
 * that stopped early (false if the device could not be deleted within
 * UZC_DEADLINE_MS), the pipes, the buffer.
 */
bool uzc_srv_close(struct uzc_srv *s);

/*
 * Stop @pid in do_exit(), at PTRACE_EVENT_EXIT, before io_uring's cancel
 * runs: seize it, send SIGUSR1 (on which it must exit) and wait for the
 * exit stop.  0, or -errno / -EPROTO for an unexpected stop.  The caller
 * detaches (PTRACE_DETACH) to let the exit go on.
 */
int uzc_stop_at_exit(pid_t pid);

/*
 * Another process's fd: pidfd_getfd() of @fd in @pid, the same open file
 * (not a reopen).  The new fd, or -errno.
 */
int uzc_take_fd(pid_t pid, int fd);
/*
 * Send @fd over a unix socket pair with SCM_RIGHTS (and take it back on
 * the other end): 0, or -errno of sendmsg().  6.12 refuses io_uring files
 * there (-EINVAL, since 6.7), so rings reach another process by fork() or
 * pidfd_getfd() only.
 */
int uzc_scm_pass(int fd);

/*
 * ADD_DEV of a device of @flags | UBLK_F_UNPRIVILEGED_DEV by a task
 * without CAP_SYS_ADMIN: a child opens /dev/ublk-control and its ring as
 * root, drops CAP_SYS_ADMIN (capset: effective, permitted and
 * inheritable; it stays uid 0), keeps both and sends ADD_DEV.  Returns
 * ADD_DEV's result, or -ECHILD if the child could not get that far.  On 0
 * *@got is the flags the device got, and the child deletes the device
 * again (DEL_DEV naming its char device, as an unprivileged device
 * requires): *@del is that result.
 */
int uzc_unprivileged_add(__u64 flags, __u64 *got, int *del);
/*
 * The same child adds the device and leaves it to the caller (root), whose
 * control commands on it must name its char device: uzc_ctrl_cmd_path(),
 * DEL_DEV included.  0 or ADD_DEV's -errno.
 */
int uzc_unprivileged_dev(struct uzc_dev *d, __u64 flags);
/* control command @op naming the char device, as unprivileged devices need */
int uzc_ctrl_cmd_path(struct uzc_dev *d, __u32 op, __u64 data0);

#endif
