// SPDX-License-Identifier: GPL-2.0
/*
 * Lifetime of lent request pages (splice-rsrc): every way a lent buffer
 * leaves its slot gives the pages back at once, whatever else is parked
 * on the ring; a COMMIT before the release never makes ring exit, daemon
 * death or device delete wait forever; loans are made only for the
 * queue's daemon and die with it, even when its ring lives on in another
 * process; a request aborted while lent is requeued when recovery asks
 * for it.
 *
 * Each case watches the block I/O and the device delete with a deadline
 * instead of blocking on them, so that a kernel with the bug fails the
 * case (and leaves a stuck device behind) instead of hanging the run.
 *
 * Exit 4 (skip) when the kernel lacks the splice-rsrc uAPI, unless
 * UBLK_ZC_VARIANT says it is splice-rsrc: then that fails (exit 1).
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/mman.h>
#include <sys/ptrace.h>
#include <sys/wait.h>

#include "uzc_ring.h"
#include "kselftest_harness.h"
#include "uzc_cases.h"

#define DEPTH		4
#define SLOTS		8

/* --- child servers --------------------------------------------------- */

/* what the child server does with the test's WRITE */
enum lend_mode {
	/* lend on the FETCH ring and commit at once */
	LEND_COMMIT_SAME_RING	= 1 << 0,
	/* a forked child keeps the lending ring (not the device) open */
	LEND_FORK_HOLDER	= 1 << 1,
	/* a WRITE_FIXED leg of the buffer parks on a full pipe */
	LEND_PARKED_LEG		= 1 << 2,
	/* a SEND_ZC of the buffer parks on a full TCP socket */
	LEND_PARKED_SEND	= 1 << 3,
	/* the daemon exits (exit_group) on SIGUSR1 */
	LEND_EXIT_ON_USR1	= 1 << 4,
	/*
	 * before its commit, a COMMIT_AND_FETCH naming the loan's slot as
	 * its IORING_URING_CMD_FIXED buffer (the answer in s->out)
	 */
	LEND_FIXED_COMMIT	= 1 << 5,
	/* the lending ring's fd goes to the parent in s->out */
	LEND_REPORT_RING	= 1 << 6,
};

/*
 * ublk io command @op (COMMIT_AND_FETCH_REQ, FETCH_REQ) of @tag on the
 * queue ring with IORING_URING_CMD_FIXED and buf_index @slot: its answer
 * within @ms, or -ETIMEDOUT when it was taken and waits as the tag's next
 * FETCH.
 */
static int io_cmd_fixed(struct uzc_dev *d, __u32 op, int tag, int res,
			__u16 slot, int ms)
{
	struct io_uring_sqe *sqe = io_uring_get_sqe(&d->q);
	struct ublksrv_io_cmd *cmd = (struct ublksrv_io_cmd *)&sqe->addr3;

	io_uring_prep_rw(IORING_OP_URING_CMD, sqe, d->cdev_fd, NULL, 0, 0);
	sqe->cmd_op = op;
	sqe->uring_cmd_flags = IORING_URING_CMD_FIXED;
	sqe->buf_index = slot;
	sqe->user_data = UZC_UD_IO | tag;
	cmd->q_id = 0;
	cmd->tag = tag;
	cmd->result = res;
	if (io_uring_submit(&d->q) != 1)
		return -EIO;
	d->nr_active++;
	return uzc_commit_answer(d, tag, ms);
}

#define commit_fixed(d, tag, res, slot, ms) \
	io_cmd_fixed(d, UBLK_U_IO_COMMIT_AND_FETCH_REQ, tag, res, slot, ms)

static void exit_now(int sig)
{
	_exit(0);
}

/* the daemon holds the test's WRITE: lend it as s->mode says */
static char lend_write(struct uzc_srv *s, int tag, __u32 len)
{
	struct uzc_dev *d = &s->d;
	struct io_uring own, *ring = &own;
	struct io_uring_sqe *sqe;

	if (s->mode & LEND_COMMIT_SAME_RING)
		ring = &d->q;
	else if (io_uring_queue_init(8, ring, 0))
		return '1';
	if (io_uring_register_buffers_sparse(ring, SLOTS))
		return '1';
	if (uzc_splice_from(ring, d->cdev_fd, uzc_pos(0, tag, 0), len, 1, 0) !=
	    (int)len)
		return '3';

	/*
	 * refused: it changes nothing, the commit below goes through; on
	 * 7.3 taken, as a plain commit (it pins nothing there)
	 */
	if (s->mode & LEND_FIXED_COMMIT) {
		s->out = commit_fixed(d, tag, len, 1, 1000);
		if (s->out == -ETIMEDOUT && !UZC_V73)
			return 'r';
	}
	/* the pages stay lent; the FETCH of the tag parks on the ring */
	if ((s->mode & LEND_COMMIT_SAME_RING) &&
	    !((s->mode & LEND_FIXED_COMMIT) && s->out == -ETIMEDOUT) &&
	    uzc_commit(d, tag, len))
		return '4';
	if (s->mode & LEND_PARKED_LEG) {
		sqe = io_uring_get_sqe(ring);
		io_uring_prep_write_fixed(sqe, s->pipe[1], NULL, len, 0, 1);
		if (io_uring_submit(ring) != 1 || !uzc_cq_quiet(ring, 50))
			return '5';
	}
	if (s->mode & LEND_PARKED_SEND) {
		int tx, rx;

		/* the peer, kept by the daemon, never reads */
		if (uzc_tcp_full_pair(&tx, &rx))
			return '7';
		sqe = io_uring_get_sqe(ring);
		io_uring_prep_send_zc_fixed(sqe, tx, NULL, len, 0, 0, 1);
		if (io_uring_submit(ring) != 1 || !uzc_cq_quiet(ring, 50))
			return '8';
	}
	if ((s->mode & LEND_FORK_HOLDER) && uzc_srv_fork_holder(s, false))
		return '6';
	if (s->mode & LEND_EXIT_ON_USR1)
		signal(SIGUSR1, exit_now);
	if (s->mode & LEND_REPORT_RING)
		s->out = ring->ring_fd;
	return 'r';
}

/* a device of @flags served by a child that lends the test's 8 KiB WRITE */
static int server_start(struct uzc_srv *s, __u64 flags, unsigned int mode)
{
	return uzc_srv_start(s, flags, DEPTH, lend_write, mode, 8192);
}

/*
 * The request is held (lent) until the daemon dies; then it must end
 * with @want within the deadline and the device must delete.
 */
static void kill_then_expect(struct __test_metadata *_metadata,
			     struct uzc_srv *s, ssize_t want)
{
	EXPECT_FALSE(uzc_io_done(&s->io, 200));
	uzc_srv_kill_bounded(_metadata, s);
	EXPECT_TRUE(uzc_io_done(&s->io, UZC_DEADLINE_MS));
	if (s->io.done)
		EXPECT_EQ(want, uzc_io_wait(&s->io));
	EXPECT_TRUE(uzc_deleted_within(&s->d, UZC_DEADLINE_MS));
}

/*
 * kill_then_expect() where a ring with the loan outlives the daemon,
 * held by its child (s->holder) or by the test (@rfd).  6.12 binds loans
 * to the daemon: the request ends at its death, whoever holds the ring.
 * The 7.3 series does not (cover letter): a loan belongs to the ring it
 * is in, as a REGISTER_IO_BUF buffer does, and the ring keeps the request
 * until it lets the buffer go or is closed.  There, a request that did
 * not end at the death must end with @want once the other owner lets
 * the ring go, and the device must delete; the case then reports XFAIL
 * (known limit).  A request that ends at the death passes, as on 6.12.
 */
static void kill_then_expect_held(struct __test_metadata *_metadata,
				  struct uzc_srv *s, ssize_t want, int *rfd)
{
	bool ended;

	if (!UZC_V73) {
		kill_then_expect(_metadata, s, want);
		return;
	}
	EXPECT_FALSE(uzc_io_done(&s->io, 200));
	uzc_srv_kill_bounded(_metadata, s);
	ended = uzc_io_done(&s->io, UZC_DEADLINE_MS);
	if (!ended) {
		uzc_srv_release_holders(s, rfd);
		/* then the ring's teardown is what ends it */
		ASSERT_TRUE(uzc_io_done(&s->io, UZC_DEADLINE_MS))
			TH_LOG("the request stayed pending after its daemon "
			       "died and the ring's last owner let it go");
	}
	EXPECT_EQ(want, uzc_io_wait(&s->io));
	EXPECT_TRUE(uzc_deleted_within(&s->d, UZC_DEADLINE_MS));
	if (!ended)
		uzc_known_limit(_metadata, "known limit (7.3 model, as "
				"REGISTER_IO_BUF): the loan belongs to its ring; "
				"the request ended when the ring's other owner "
				"let it go");
}

/* cases with a child server; the harness's default 30 s is too short */
FIXTURE(srv) {
	struct uzc_srv s;
};

FIXTURE_SETUP(srv)
{
	uzc_srv_init(&self->s);
}

FIXTURE_TEARDOWN(srv)
{
	/* a case that stopped early: never wait for the daemon unbounded */
	if (self->s.pid > 0 && !uzc_kill_reap(self->s.pid, UZC_DEADLINE_MS))
		TH_LOG("the daemon did not finish its exit");
	self->s.pid = 0;
	if (!uzc_srv_close(&self->s))
		TH_LOG("the device could not be deleted");
}

/* --- COMMIT before the release, FETCH on the lending ring --------------- */

/* the ring closes: the committed request completes, the device goes */
TEST(same_ring_commit_then_ring_exit)
{
	struct uzc_dev d;
	struct uzc_io io;
	void *buf;
	int tag;

	ASSERT_EQ(0, uzc_dev_create(&d, UZC_ZC_FLAGS, DEPTH, UZC_ZC_MAX_IO,
				    UZC_ZC_DEV_SIZE, false));
	ASSERT_EQ(0, io_uring_register_buffers_sparse(&d.q, SLOTS));
	buf = uzc_write_start(&d, &io, 128 << 10, 50);
	ASSERT_NE(NULL, buf);
	tag = uzc_want_req(&d, UBLK_IO_OP_WRITE, 128 << 10);
	ASSERT_GE(tag, 0);
	ASSERT_EQ(128 << 10, uzc_splice_from(&d.q, d.cdev_fd,
					     uzc_pos(0, tag, 0), 128 << 10, 0,
					     0));
	ASSERT_EQ(0, uzc_commit(&d, tag, 128 << 10));
	/* committed, still lent: the pages are not back yet */
	EXPECT_FALSE(uzc_io_done(&io, 200));

	uzc_queue_close(&d);
	EXPECT_TRUE(uzc_io_done(&io, UZC_DEADLINE_MS));
	if (io.done)
		EXPECT_EQ(128 << 10, uzc_io_wait(&io));
	EXPECT_TRUE(uzc_deleted_within(&d, UZC_DEADLINE_MS));
	free(buf);
}

/* the server dies instead: same outcome */
TEST_F_TIMEOUT(srv, same_ring_commit_then_sigkill, 90)
{
	struct uzc_srv *s = &self->s;

	ASSERT_EQ(0, server_start(s, UZC_ZC_FLAGS, LEND_COMMIT_SAME_RING));
	kill_then_expect(_metadata, s, 8192);
}

/* --- IORING_URING_CMD_FIXED on a ublk command -------------------------- */

/*
 * A COMMIT_AND_FETCH_REQ naming the slot that holds its own request's loan
 * as its IORING_URING_CMD_FIXED buffer.  6.12 looks a uring_cmd's fixed
 * buffer up at prep and holds the ring's rsrc node until the command
 * completes; a command that held the loan would hold its own request
 * while it waits as the tag's next FETCH, and ublk's cancel skips the
 * FETCH of a tag whose request is started: ring exit, STOP_DEV and daemon
 * death would wait forever (regbuf v4 had this).  io_uring_cmd_prep()
 * refuses a lent buffer (-EOPNOTSUPP) before the driver sees the command:
 * the tag is still the server's, its plain commit goes through, and the
 * ring's exit gives the pages back.
 */
TEST(fixed_flag_on_commit_refused)
{
	struct uzc_dev d;
	struct uzc_io io;
	void *buf;
	int tag, res;

	ASSERT_EQ(0, uzc_dev_create(&d, UZC_ZC_FLAGS, DEPTH, UZC_ZC_MAX_IO,
				    UZC_ZC_DEV_SIZE, false));
	ASSERT_EQ(0, io_uring_register_buffers_sparse(&d.q, SLOTS));
	buf = uzc_write_start(&d, &io, 8192, 51);
	ASSERT_NE(NULL, buf);
	tag = uzc_want_req(&d, UBLK_IO_OP_WRITE, 8192);
	ASSERT_GE(tag, 0);
	ASSERT_EQ(8192, uzc_splice_from(&d.q, d.cdev_fd, uzc_pos(0, tag, 0),
					8192, 3, 0));

	/*
	 * 7.3 looks a uring_cmd's fixed buffer up only when the driver
	 * imports it, which ublk's io commands never do: the command pins
	 * nothing, so it is taken like a plain one (parked as the FETCH),
	 * and a FETCH of a fetched tag gets ublk's own answer.
	 */
	res = commit_fixed(&d, tag, 8192, 3, 1000);
	EXPECT_EQ(UZC_V73 ? -ETIMEDOUT : -EOPNOTSUPP, res)
		TH_LOG("the FIXED commit: %s", res == -ETIMEDOUT ?
		       "taken, parked" : strerror(-res));
	/* any ublk command (a FETCH of a fetched tag: ublk says -EBUSY) */
	EXPECT_EQ(UZC_V73 ? -EBUSY : -EOPNOTSUPP,
		  io_cmd_fixed(&d, UBLK_U_IO_FETCH_REQ, tag, 0, 3, 1000));
	EXPECT_FALSE(uzc_io_done(&io, 200));
	if (res != -ETIMEDOUT)
		ASSERT_EQ(0, uzc_commit(&d, tag, 8192));
	/* committed, still lent on the queue ring */
	EXPECT_FALSE(uzc_io_done(&io, 200));

	uzc_queue_close(&d);
	EXPECT_TRUE(uzc_io_done(&io, UZC_DEADLINE_MS));
	if (io.done)
		EXPECT_EQ(8192, uzc_io_wait(&io));
	EXPECT_TRUE(uzc_deleted_within(&d, UZC_DEADLINE_MS));
	free(buf);
}

/* the same in a child server that is then killed */
TEST_F_TIMEOUT(srv, fixed_flag_on_commit_then_sigkill, 90)
{
	struct uzc_srv *s = &self->s;

	ASSERT_EQ(0, server_start(s, UZC_ZC_FLAGS,
				  LEND_COMMIT_SAME_RING | LEND_FIXED_COMMIT));
	EXPECT_EQ(UZC_V73 ? -ETIMEDOUT : -EOPNOTSUPP, s->out);
	kill_then_expect(_metadata, s, 8192);
}

/*
 * What IORING_URING_CMD_FIXED may name, an empty slot (or a user buffer),
 * pins no loan: the command takes the slot's empty entry and the ring's
 * rsrc node, and lent buffers never wait for rsrc nodes.  Tag a commits
 * with FIXED naming empty slot 3 and waits as a's FETCH (6.12 lets any
 * command name a fixed buffer; a kernel that refuses the flag is fine
 * too); request b is lent into slot 3 afterwards, removed and committed:
 * it completes while a's command still waits, and the ring's exit and
 * the device's delete do not wait for anything.
 */
TEST(fixed_flag_on_empty_slot_pins_no_loan)
{
	struct uzc_io io1, io2;
	struct iovec iov1, iov2;
	void *buf1, *buf2;
	struct uzc_dev d;
	int a, b, res;

	ASSERT_EQ(0, uzc_dev_create(&d, UZC_ZC_FLAGS, DEPTH, UZC_ZC_MAX_IO,
				    UZC_ZC_DEV_SIZE, false));
	ASSERT_EQ(0, io_uring_register_buffers_sparse(&d.q, SLOTS));
	buf1 = uzc_xalloc(4096);
	buf2 = uzc_xalloc(4096);
	ASSERT_NE(NULL, buf1);
	ASSERT_NE(NULL, buf2);
	uzc_fill(buf1, 4096, 52);
	uzc_fill(buf2, 4096, 53);
	iov1.iov_base = buf1;
	iov1.iov_len = 4096;
	iov2.iov_base = buf2;
	iov2.iov_len = 4096;
	ASSERT_EQ(0, uzc_io_start(&d, &io1, UZC_WRITE, &iov1, 1, 1 << 20));
	a = uzc_want_req(&d, UBLK_IO_OP_WRITE, 4096);
	ASSERT_GE(a, 0);
	ASSERT_EQ(0, uzc_io_start(&d, &io2, UZC_WRITE, &iov2, 1, 2 << 20));
	b = uzc_want_req(&d, UBLK_IO_OP_WRITE, 4096);
	ASSERT_GE(b, 0);

	res = commit_fixed(&d, a, 4096, 3, 1000);
	if (res != -ETIMEDOUT) {
		TH_LOG("FIXED on an empty slot refused: %s", strerror(-res));
		ASSERT_EQ(0, uzc_commit(&d, a, 4096));
	}
	EXPECT_TRUE(uzc_io_done(&io1, UZC_DEADLINE_MS));
	if (io1.done)
		EXPECT_EQ(4096, uzc_io_wait(&io1));

	ASSERT_EQ(4096, uzc_splice_from(&d.q, d.cdev_fd, uzc_pos(0, b, 0),
					4096, 3, 0));
	EXPECT_EQ(0, uzc_buf_remove(&d.q, 3, 0));
	ASSERT_EQ(0, uzc_commit(&d, b, 4096));
	EXPECT_TRUE(uzc_io_done(&io2, UZC_DEADLINE_MS));
	if (io2.done)
		EXPECT_EQ(4096, uzc_io_wait(&io2));

	uzc_queue_close(&d);
	EXPECT_TRUE(uzc_deleted_within(&d, UZC_DEADLINE_MS));
	free(buf1);
	free(buf2);
}

/* --- loans belong to the daemon ---------------------------------------- */

/*
 * The lending ring lives on in another process (inherited by fork) when
 * the daemon is killed: its loans are gone with it, the request fails,
 * the device deletes.  (7.3: kill_then_expect_held(), a known limit.)
 */
TEST_F_TIMEOUT(srv, ring_outlives_daemon, 90)
{
	struct uzc_srv *s = &self->s;

	ASSERT_EQ(0, server_start(s, UZC_ZC_FLAGS, LEND_FORK_HOLDER));
	kill_then_expect_held(_metadata, s, -EIO, NULL);
}

/*
 * and so does a leg of the buffer parked on a full pipe of that ring
 * (7.3: the request is held twice there, by the slot and by the leg,
 * which took its own node reference at issue and, a pipe write, is not
 * tracked for the daemon's exit to cancel; only the ring's teardown
 * cancels the leg and empties the slot)
 */
TEST_F_TIMEOUT(srv, parked_leg_dies_with_daemon, 90)
{
	struct uzc_srv *s = &self->s;

	ASSERT_EQ(0, server_start(s, UZC_ZC_FLAGS,
				  LEND_FORK_HOLDER | LEND_PARKED_LEG));
	kill_then_expect_held(_metadata, s, -EIO, NULL);
}

/*
 * and so does a zero-copy send of the buffer parked on a socket whose
 * peer never reads: nothing of it was sent, so its notification has no
 * data in the network to wait for
 */
TEST_F_TIMEOUT(srv, parked_send_zc_dies_with_daemon, 90)
{
	struct uzc_srv *s = &self->s;

	ASSERT_EQ(0, server_start(s, UZC_ZC_FLAGS,
				  LEND_FORK_HOLDER | LEND_PARKED_SEND));
	kill_then_expect_held(_metadata, s, -EIO, NULL);
}

/* --- a request dispatched while the daemon exits ------------------------ */

/*
 * The daemon's exit waits for its legs on lent pages (they are tracked
 * like requests on io_uring files), and while it waits it runs ublk's
 * cancel, which aborts the queue once, and then its own task work, all
 * before PF_EXITING is set. A request dispatched just before, whose task
 * work had not run yet, must be failed then, not handed to the dying
 * server after the abort: it would never complete, nor would the device
 * delete. To place the dispatch there, the daemon (a leg parked on a full
 * pipe) is traced and stops at PTRACE_EVENT_EXIT, in do_exit() before
 * io_uring's cancel; a READ dispatched while it is stopped queues task
 * work that only that cancel runs.
 */
TEST_F_TIMEOUT(srv, dispatch_pending_at_daemon_exit, 90)
{
	struct __kernel_timespec ts = { .tv_sec = UZC_DEADLINE_MS / 1000 };
	struct uzc_srv *s = &self->s;
	struct io_uring_cqe *cqe;
	struct io_uring_sqe *sqe;
	void *rbuf = uzc_xalloc(4096);
	struct io_uring ring;
	int fd, res = 1;

	ASSERT_NE(NULL, rbuf);
	ASSERT_EQ(0, server_start(s, UZC_ZC_FLAGS,
				  LEND_PARKED_LEG | LEND_EXIT_ON_USR1));
	ASSERT_EQ(0, uzc_stop_at_exit(s->pid));

	/* through io_uring: a stuck READ must not stall this process's exit */
	fd = open(s->d.bdev_path, O_RDONLY | O_DIRECT);
	ASSERT_LE(0, fd);
	ASSERT_EQ(0, io_uring_queue_init(4, &ring, 0));
	sqe = io_uring_get_sqe(&ring);
	io_uring_prep_read(sqe, fd, rbuf, 4096, 0);
	ASSERT_EQ(1, io_uring_submit(&ring));
	/* dispatched to the stopped daemon: its task work waits */
	EXPECT_TRUE(uzc_cq_quiet(&ring, 200));

	ASSERT_EQ(0, ptrace(PTRACE_DETACH, s->pid, 0, 0));
	if (io_uring_wait_cqe_timeout(&ring, &cqe, &ts) == 0) {
		res = cqe->res;
		io_uring_cqe_seen(&ring, cqe);
	}
	EXPECT_EQ(-EIO, res);
	EXPECT_TRUE(uzc_io_done(&s->io, UZC_DEADLINE_MS));
	if (s->io.done)
		EXPECT_EQ(-EIO, uzc_io_wait(&s->io));
	uzc_srv_kill_bounded(_metadata, s);
	/* an open /dev/ublkbN would keep the device */
	close(fd);
	EXPECT_TRUE(uzc_deleted_within(&s->d, UZC_DEADLINE_MS));
	io_uring_queue_exit(&ring);
	free(rbuf);
}

struct lend_try {
	struct io_uring *ring;
	int fd, tag, res;
};

static void *lend_thread(void *arg)
{
	struct lend_try *t = arg;

	t->res = uzc_splice_from(t->ring, t->fd, uzc_pos(0, t->tag, 0), 4096,
				 0, 0);
	return NULL;
}

/* only the queue's daemon lends: not another thread, not a forked child */
TEST(lend_only_for_daemon)
{
	struct io_uring ring;
	struct lend_try t;
	struct uzc_dev d;
	struct uzc_io io;
	pthread_t th;
	int status;
	pid_t pid;
	void *buf;

	ASSERT_EQ(0, uzc_serving_setup(&d, DEPTH, &ring, 8, 0, SLOTS));
	buf = uzc_write_start(&d, &io, 4096, 52);
	ASSERT_NE(NULL, buf);
	t.ring = &ring;
	t.fd = d.cdev_fd;
	t.tag = uzc_want_req(&d, UBLK_IO_OP_WRITE, 4096);
	ASSERT_GE(t.tag, 0);

	ASSERT_EQ(0, pthread_create(&th, NULL, lend_thread, &t));
	ASSERT_EQ(0, pthread_join(th, NULL));
	EXPECT_EQ(-EPERM, t.res);

	pid = fork();
	ASSERT_GE(pid, 0);
	if (pid == 0) {
		lend_thread(&t);
		_exit(t.res == -EPERM ? 0 : 1);
	}
	ASSERT_EQ(pid, waitpid(pid, &status, 0));
	EXPECT_TRUE(WIFEXITED(status) && !WEXITSTATUS(status));
	/* the child moved the shared SQ past this copy of liburing's view */
	io_uring_queue_exit(&ring);

	/* the daemon itself may */
	ASSERT_EQ(0, io_uring_queue_init(8, &ring, 0));
	ASSERT_EQ(0, io_uring_register_buffers_sparse(&ring, SLOTS));
	EXPECT_EQ(4096, uzc_splice_from(&ring, d.cdev_fd, uzc_pos(0, t.tag, 0),
					4096, 0, 0));
	EXPECT_EQ(0, uzc_buf_remove(&ring, 0, 0));
	ASSERT_EQ(0, uzc_commit(&d, t.tag, 4096));
	EXPECT_EQ(4096, uzc_io_wait(&io));
	EXPECT_EQ(0, uzc_serving_teardown(&d, &ring));
	free(buf);
}

/* --- every way out of a slot, with an unrelated request parked ---------- */

/* a READ on a fixed pipe holds the ring's current rsrc node for long */
static void park_fixed_pipe_read(struct __test_metadata *_metadata,
				 struct io_uring *ring, int pfd[2], char *dst)
{
	struct io_uring_sqe *sqe;

	ASSERT_EQ(0, pipe(pfd));
	ASSERT_EQ(0, io_uring_register_files(ring, &pfd[0], 1));
	sqe = io_uring_get_sqe(ring);
	io_uring_prep_read(sqe, 0, dst, 16, 0);
	sqe->flags = IOSQE_FIXED_FILE;
	sqe->user_data = 0x999;
	ASSERT_EQ(1, io_uring_submit(ring));
	ASSERT_TRUE(uzc_cq_quiet(ring, 50));
}

FIXTURE(parked) {
	struct uzc_dev d;
	struct io_uring ring;
	struct uzc_io io;
	int pfd[2], tag;
	char dst[16];
	void *buf;
};

FIXTURE_SETUP(parked)
{
	memset(self, 0, sizeof(*self));
	ASSERT_EQ(0, uzc_serving_setup(&self->d, DEPTH, &self->ring, 8, 0,
				       SLOTS));
	park_fixed_pipe_read(_metadata, &self->ring, self->pfd, self->dst);
	self->buf = uzc_write_start(&self->d, &self->io, 4096, 53);
	ASSERT_NE(NULL, self->buf);
	self->tag = uzc_want_req(&self->d, UBLK_IO_OP_WRITE, 4096);
	ASSERT_GE(self->tag, 0);
	ASSERT_EQ(4096, uzc_splice_from(&self->ring, self->d.cdev_fd,
					uzc_pos(0, self->tag, 0), 4096, 2, 0));
	ASSERT_EQ(0, uzc_commit(&self->d, self->tag, 4096));
	ASSERT_FALSE(uzc_io_done(&self->io, 100));
}

FIXTURE_TEARDOWN(parked)
{
	/* unpark the read, then everything goes */
	if (write(self->pfd[1], "x", 1) != 1)
		TH_LOG("cannot unpark the fixed-file read");
	EXPECT_EQ(0, uzc_serving_teardown(&self->d, &self->ring));
	close(self->pfd[0]);
	close(self->pfd[1]);
	free(self->buf);
}

/* IORING_REGISTER_BUFFERS_UPDATE over the lent slot */
TEST_F(parked, buffers_update_releases_at_once)
{
	struct iovec none = { NULL, 0 };
	__u64 utag = 0;

	EXPECT_EQ(1, io_uring_register_buffers_update_tag(&self->ring, 2,
							  &none, &utag, 1));
	EXPECT_TRUE(uzc_io_done(&self->io, 1000));
	if (self->io.done)
		EXPECT_EQ(4096, uzc_io_wait(&self->io));
	EXPECT_EQ(-EFAULT, uzc_write_fixed(&self->ring, self->pfd[1], 2, 0, 1,
					   0));
}

static void *unregister_thread(void *arg)
{
	return (void *)(long)io_uring_unregister_buffers(arg);
}

/*
 * IORING_UNREGISTER_BUFFERS waits for the parked read (it quiesces every
 * node), but the lent pages go back first.
 */
TEST_F(parked, unregister_releases_before_quiesce)
{
	pthread_t th;
	void *ret;

	ASSERT_EQ(0, pthread_create(&th, NULL, unregister_thread,
				    &self->ring));
	EXPECT_TRUE(uzc_io_done(&self->io, 1000));
	if (self->io.done)
		EXPECT_EQ(4096, uzc_io_wait(&self->io));
	ASSERT_EQ(1, write(self->pfd[1], "x", 1));
	ASSERT_EQ(0, pthread_join(th, &ret));
	EXPECT_EQ(0, (long)ret);
}

/* --- recovery ------------------------------------------------------------ */

/*
 * UBLK_F_USER_RECOVERY_REISSUE: the daemon dies with the test's WRITE lent
 * and a leg parked on it. Whichever of abort and the loan puts the last
 * reference, the request is requeued and a new daemon serves it again.
 * (The order is not controlled here, and in practice abort's put is the
 * last: the case passes on a kernel that reads the verdict only in abort's
 * release. The abort.put_after_abort_* cases make the loan's put the last.)
 */
TEST_F_TIMEOUT(srv, reissue_with_loan_outstanding, 90)
{
	const __u64 flags = UZC_ZC_FLAGS | UBLK_F_USER_RECOVERY |
			    UBLK_F_USER_RECOVERY_REISSUE;
	struct uzc_srv *s = &self->s;
	int tag;

	ASSERT_EQ(0, server_start(s, flags, LEND_PARKED_LEG));
	uzc_srv_kill_bounded(_metadata, s);
	/* requeued, not failed: the write waits for the next daemon */
	EXPECT_FALSE(uzc_io_done(&s->io, 1000));

	ASSERT_EQ(0, uzc_dev_recover(&s->d));
	tag = uzc_want_req(&s->d, UBLK_IO_OP_WRITE, 8192);
	ASSERT_GE(tag, 0);
	ASSERT_EQ(0, uzc_commit(&s->d, tag, 8192));
	EXPECT_TRUE(uzc_io_done(&s->io, UZC_DEADLINE_MS));
	if (s->io.done)
		EXPECT_EQ(8192, uzc_io_wait(&s->io));
	EXPECT_EQ(0, uzc_dev_destroy(&s->d));
}

/*
 * The same verdict at every last put after a queue abort.  The daemon
 * lives and closes its queue ring: the ring's exit cancels the FETCHes of
 * the free tags and ublk aborts the queue, putting the dispatch reference
 * of every request the server holds.  Request t is lent on another ring of
 * the daemon, so the loan's put is the last: BUF_REMOVE, a buffers update
 * over the slot, or that ring's exit.  With UBLK_F_USER_RECOVERY_REISSUE
 * the request is requeued, not failed (regbuf v4 failed it with -EIO when
 * a holder other than the registration put it last): ublk_complete_rq()
 * reads the abort's verdict for every put.  Request u, held but not lent,
 * tells when abort has run: SPLICE_FROM of it past its end fails with
 * -EOVERFLOW before and -ESRCH after.  No recovery (6.12 wants the old
 * daemon gone); deleting the device then fails both WRITEs.
 *
 * 7.3 aborts a queue only from the char device's release work, which
 * first waits until no loan holds a request: the loan's put cannot come
 * after the abort there.  The 7.3 branch closes the char device too
 * while t is lent and checks 7.3's order: no abort at the ring's exit
 * (u still lendable), none while the loan lives, and at the loan's put
 * the abort's verdict, the same as 6.12's: both WRITEs requeued.
 */
enum { PUT_BY_REMOVE, PUT_BY_UPDATE, PUT_BY_RING_EXIT };

UZC_TIMEOUT_FIXTURE(abort)

static void put_after_abort(struct __test_metadata *_metadata, int how)
{
	const __u64 flags = UZC_ZC_FLAGS | UBLK_F_USER_RECOVERY |
			    UBLK_F_USER_RECOVERY_REISSUE;
	struct iovec iov = { 0 }, iov2 = { 0 }, ubuf = { 0 };
	struct uzc_io io, io2;
	struct io_uring r2;
	struct uzc_dev d;
	__u64 utag = 0;
	int t, u, ret;
	pid_t pid;

	ASSERT_EQ(0, uzc_dev_create(&d, flags, DEPTH, UZC_ZC_MAX_IO,
				    UZC_ZC_DEV_SIZE, false));
	ASSERT_EQ(0, io_uring_queue_init(8, &r2, 0));
	ASSERT_EQ(0, io_uring_register_buffers_sparse(&r2, SLOTS));
	iov.iov_base = uzc_xalloc(8192);
	iov.iov_len = 8192;
	iov2.iov_base = uzc_xalloc(4096);
	iov2.iov_len = 4096;
	ubuf.iov_base = uzc_xalloc(4096);
	ubuf.iov_len = 4096;
	ASSERT_NE(NULL, iov.iov_base);
	ASSERT_NE(NULL, iov2.iov_base);
	ASSERT_NE(NULL, ubuf.iov_base);
	uzc_fill(iov.iov_base, 8192, 54);
	uzc_fill(iov2.iov_base, 4096, 55);
	ASSERT_EQ(0, uzc_io_start(&d, &io, UZC_WRITE, &iov, 1, 1 << 20));
	t = uzc_want_req(&d, UBLK_IO_OP_WRITE, 8192);
	ASSERT_GE(t, 0);
	ASSERT_EQ(0, uzc_io_start(&d, &io2, UZC_WRITE, &iov2, 1, 2 << 20));
	u = uzc_want_req(&d, UBLK_IO_OP_WRITE, 4096);
	ASSERT_GE(u, 0);
	ASSERT_EQ(8192, uzc_splice_from(&r2, d.cdev_fd, uzc_pos(0, t, 0), 8192,
					1, 0));
	EXPECT_EQ(-EOVERFLOW, uzc_splice_from(&r2, d.cdev_fd,
					      uzc_pos(0, u, 8192), 4096, 2, 0));

	/* the queue ring goes, the daemon lives: abort, t still lent */
	ASSERT_EQ(0, uzc_ring_exit_wait(&d.q, UZC_DEADLINE_MS));
	d.q_ready = false;
	if (UZC_V73) {
		/*
		 * 7.3: the ring's exit only cancels the idle FETCHes; u is
		 * still the server's (past its end: -EOVERFLOW).  The abort
		 * comes from the char device's release, whose work waits
		 * for every loan first: t's loan holds it off.
		 */
		EXPECT_EQ(-EOVERFLOW, uzc_splice_from(&r2, d.cdev_fd,
						      uzc_pos(0, u, 8192),
						      4096, 2, 0));
		uzc_queue_close(&d);
		EXPECT_EQ(-ETIMEDOUT, uzc_dev_wait_state(&d,
							 UBLK_S_DEV_QUIESCED,
							 500))
			TH_LOG("aborted while a loan held a request");
	} else {
		EXPECT_EQ(-ESRCH, uzc_splice_from(&r2, d.cdev_fd,
						  uzc_pos(0, u, 8192), 4096,
						  2, 0));
	}
	EXPECT_FALSE(uzc_io_done(&io, 300));

	/* the loan's put is the last one */
	switch (how) {
	case PUT_BY_REMOVE:
		EXPECT_EQ(0, uzc_buf_remove(&r2, 1, 0));
		break;
	case PUT_BY_UPDATE:
		EXPECT_EQ(1, io_uring_register_buffers_update_tag(&r2, 1, &ubuf,
								  &utag, 1));
		break;
	case PUT_BY_RING_EXIT:
		EXPECT_EQ(0, uzc_ring_exit_wait(&r2, UZC_DEADLINE_MS));
		break;
	}
	/* t is no longer started: the quiesce work, which waits for it, ends */
	EXPECT_EQ(0, uzc_dev_wait_state(&d, UBLK_S_DEV_QUIESCED,
					UZC_DEADLINE_MS));
	/* requeued for a recovered server, not failed */
	ret = uzc_io_done(&io, 500);
	EXPECT_FALSE(ret) TH_LOG("t's WRITE ended at the loan's put: %zd",
				 uzc_io_wait(&io));
	EXPECT_FALSE(uzc_io_done(&io2, 0));

	if (how != PUT_BY_RING_EXIT)
		io_uring_queue_exit(&r2);
	uzc_queue_close(&d);
	/*
	 * STOP_DEV fails the requeued WRITEs; DEL_DEV ends once they are
	 * reaped (their fds hold the disk)
	 */
	pid = uzc_delete_start(&d);
	EXPECT_LT(0, pid);
	EXPECT_TRUE(uzc_io_done(&io2, UZC_DEADLINE_MS));
	if (io2.done)
		EXPECT_EQ(-EIO, uzc_io_wait(&io2));
	if (!ret) {
		EXPECT_TRUE(uzc_io_done(&io, UZC_DEADLINE_MS));
		if (io.done)
			EXPECT_EQ(-EIO, uzc_io_wait(&io));
	}
	if (pid > 0)
		EXPECT_TRUE(uzc_delete_wait(&d, pid, UZC_DEADLINE_MS));
	free(iov.iov_base);
	free(iov2.iov_base);
	free(ubuf.iov_base);
}

TEST_F_TIMEOUT(abort, put_after_abort_by_remove_reissues, 90)
{
	put_after_abort(_metadata, PUT_BY_REMOVE);
}

TEST_F_TIMEOUT(abort, put_after_abort_by_update_reissues, 90)
{
	put_after_abort(_metadata, PUT_BY_UPDATE);
}

TEST_F_TIMEOUT(abort, put_after_abort_by_ring_exit_reissues, 90)
{
	put_after_abort(_metadata, PUT_BY_RING_EXIT);
}

/*
 * And the holder that is no loan: a pread() on the char device
 * (uzc_cases.h).  regbuf's review claimed the lending series keep 6.12's
 * -EIO at that put (base fails the request there); they do not.  While
 * the reader holds the aborted request, SPLICE_FROM of it fails with
 * -ESRCH: its count is alive, so this is the abort's check (v1 lent it).
 */
static int lend_aborted(struct uzc_dev *d, int tag)
{
	struct io_uring ring;
	int ret = uzc_sparse_ring(&ring, 4);

	if (ret)
		return ret;
	ret = uzc_splice_from(&ring, d->cdev_fd, uzc_pos(0, tag, 0), 4096, 0,
			      0);
	io_uring_queue_exit(&ring);
	return ret;
}

TEST_F_TIMEOUT(abort, user_copy_put_after_abort_reissues, 90)
{
	uzc_user_copy_put_after_abort(_metadata, UZC_ZC_FLAGS |
				      UBLK_F_USER_RECOVERY |
				      UBLK_F_USER_RECOVERY_REISSUE,
				      lend_aborted, -ESRCH);
}

/* --- lending again -------------------------------------------------------- */

/*
 * A request lets go of the pages when it completes, before its CQE: once
 * the server has reaped every CQE of a loan and emptied the slot, the same
 * request can be lent again at once. The legs go to io-wq (IOSQE_ASYNC),
 * whose completions post the CQE before the request is freed; their CQEs
 * are reaped without entering the kernel where the ring allows it, and the
 * removal and the new loan are submitted together, so no task_work runs in
 * between (on a COOP_TASKRUN ring none runs before the next kernel exit).
 *
 * The 7.3 series keeps 7.3's rule instead (cover letter): a request puts
 * its buffer node when it is freed, which for an io-wq completion is task
 * work after the CQE (on a DEFER_TASKRUN ring, run only when the task
 * asks for events).  There a relend may see -EALREADY until the legs are
 * freed; it is retried for about a second (running the task work), and
 * must then succeed.
 */
#define RELEND_LEN	65536
#define RELEND_LEGS	4
#define RELEND_ROUNDS	100

FIXTURE(relend) {
	struct uzc_dev d;
	struct io_uring ring;
};

FIXTURE_VARIANT(relend) {
	unsigned int ring_flags;
	bool peek;		/* CQEs appear without entering the kernel */
};

FIXTURE_VARIANT_ADD(relend, plain) {
	.ring_flags = 0,
	.peek = true,
};

FIXTURE_VARIANT_ADD(relend, coop_taskrun) {
	.ring_flags = IORING_SETUP_COOP_TASKRUN,
	.peek = true,
};

FIXTURE_VARIANT_ADD(relend, defer_taskrun) {
	.ring_flags = IORING_SETUP_DEFER_TASKRUN | IORING_SETUP_SINGLE_ISSUER,
	.peek = false,
};

FIXTURE_SETUP(relend)
{
	ASSERT_EQ(0, uzc_serving_setup(&self->d, DEPTH, &self->ring, 16,
				       variant->ring_flags, SLOTS));
}

FIXTURE_TEARDOWN(relend)
{
	EXPECT_EQ(0, uzc_serving_teardown(&self->d, &self->ring));
}

/* reap @nr CQEs into @res, busy-peeking if @peek; 0 or -ETIMEDOUT */
static int reap(struct io_uring *ring, unsigned int nr, int *res, bool peek)
{
	struct io_uring_cqe *cqe;
	unsigned int i;
	long spins;

	if (!peek)
		return uzc_submit_wait(ring, nr, res, NULL, UZC_WAIT_MS);
	for (i = 0; i < nr; i++) {
		for (spins = 0; io_uring_peek_cqe(ring, &cqe); spins++)
			if (spins > 2000000000L)
				return -ETIMEDOUT;
		res[i] = cqe->res;
		io_uring_cqe_seen(ring, cqe);
	}
	return 0;
}

TEST_F_TIMEOUT(relend, after_reaping_every_cqe, 120)
{
	struct io_uring *ring = &self->ring;
	char *pattern = uzc_xalloc(RELEND_LEN), *dst = uzc_xalloc(RELEND_LEN);
	struct iovec iov = { dst, RELEND_LEN };
	int res[RELEND_LEGS], file, tag, round, i, refused = 0;
	const unsigned int leg = RELEND_LEN / RELEND_LEGS;
	struct io_uring_sqe *sqe;
	struct uzc_io io;
	__u64 pos;

	ASSERT_NE(NULL, pattern);
	ASSERT_NE(NULL, dst);
	file = uzc_tmpfile();
	ASSERT_GE(file, 0);
	uzc_fill(pattern, RELEND_LEN, 31);
	ASSERT_EQ(RELEND_LEN, pwrite(file, pattern, RELEND_LEN, 0));
	ASSERT_EQ(0, uzc_io_start(&self->d, &io, UZC_READ, &iov, 1,
				  UZC_TEST_SECTOR * 512));
	tag = uzc_want_req(&self->d, UBLK_IO_OP_READ, RELEND_LEN);
	ASSERT_GE(tag, 0);
	pos = uzc_pos(0, tag, 0);
	ASSERT_EQ(RELEND_LEN, uzc_splice_from(ring, self->d.cdev_fd, pos,
					      RELEND_LEN, 0, 0));

	for (round = 0; round < RELEND_ROUNDS; round++) {
		for (i = 0; i < RELEND_LEGS; i++) {
			sqe = io_uring_get_sqe(ring);
			io_uring_prep_read_fixed(sqe, file,
						 (void *)(uintptr_t)(i * leg),
						 leg, i * leg, 0);
			sqe->flags = IOSQE_ASYNC;
			sqe->user_data = UZC_UD_LEG + i;
		}
		ASSERT_EQ(RELEND_LEGS, io_uring_submit(ring));
		ASSERT_EQ(0, reap(ring, RELEND_LEGS, res, variant->peek));
		for (i = 0; i < RELEND_LEGS; i++)
			ASSERT_EQ(leg, res[i]);

		sqe = io_uring_get_sqe(ring);
		uzc_prep_buf_remove(sqe, 0);
		sqe->user_data = UZC_UD_REMOVE;
		sqe = io_uring_get_sqe(ring);
		uzc_prep_splice_from(sqe, self->d.cdev_fd, pos, RELEND_LEN, 0);
		sqe->user_data = UZC_UD_SPLICE;
		ASSERT_EQ(0, uzc_submit_wait(ring, 2, res, NULL, UZC_WAIT_MS));
		ASSERT_EQ(0, res[0]);
		if (res[1] == RELEND_LEN)
			continue;
		if (!refused++)
			TH_LOG("round %d: lending again gave %d", round, res[1]);
		/* the pages come back later: lend once they are back */
		for (i = 0; i < 1000 && res[1] == -EALREADY; i++) {
			usleep(1000);
			/* 7.3 frees the legs in task work: let it run */
			if (UZC_V73)
				io_uring_get_events(ring);
			res[1] = uzc_splice_from(ring, self->d.cdev_fd, pos,
						 RELEND_LEN, 0, 0);
		}
		ASSERT_EQ(RELEND_LEN, res[1]);
	}
	/* 7.3's rule: a transient -EALREADY, bounded above, is allowed */
	if (UZC_V73)
		TH_LOG("%d of %d rounds saw -EALREADY first", refused,
		       RELEND_ROUNDS);
	else
		EXPECT_EQ(0, refused);

	ASSERT_EQ(0, uzc_buf_remove(ring, 0, 0));
	ASSERT_EQ(0, uzc_commit(&self->d, tag, RELEND_LEN));
	EXPECT_EQ(RELEND_LEN, uzc_io_wait(&io));
	EXPECT_EQ(0, uzc_cmp(dst, pattern, RELEND_LEN));
	close(file);
	free(pattern);
	free(dst);
}

/*
 * SPLICE_FROM(T) in io-wq races COMMIT_AND_FETCH(T) on the queue ring:
 * exactly one wins each round. Lent: the WRITE waits for BUF_REMOVE.
 * Committed first: the lend fails with -ESRCH and the WRITE completes.
 * Run on the debug kernel, the console shows any refcount mistake.
 */
#define RACE_ROUNDS	200

FIXTURE(lender) {
	struct uzc_dev d;
	struct io_uring ring;
};

FIXTURE_SETUP(lender)
{
	ASSERT_EQ(0, uzc_serving_setup(&self->d, DEPTH, &self->ring, 16, 0,
				       SLOTS));
}

FIXTURE_TEARDOWN(lender)
{
	EXPECT_EQ(0, uzc_serving_teardown(&self->d, &self->ring));
}

TEST_F_TIMEOUT(lender, lend_races_commit, 120)
{
	struct io_uring *ring = &self->ring;
	int round, tag, res, lent = 0, refused = 0;
	struct io_uring_sqe *sqe;
	struct uzc_io io;
	void *buf;

	for (round = 0; round < RACE_ROUNDS; round++) {
		buf = uzc_write_start(&self->d, &io, 4096, round);
		ASSERT_NE(NULL, buf);
		tag = uzc_want_req(&self->d, UBLK_IO_OP_WRITE, 4096);
		ASSERT_GE(tag, 0);
		sqe = io_uring_get_sqe(ring);
		uzc_prep_splice_from(sqe, self->d.cdev_fd, uzc_pos(0, tag, 0),
				     4096, 0);
		sqe->flags = IOSQE_ASYNC;
		sqe->user_data = UZC_UD_SPLICE;
		ASSERT_EQ(1, io_uring_submit(ring));
		ASSERT_EQ(0, uzc_commit(&self->d, tag, 4096));
		ASSERT_EQ(0, uzc_submit_wait(ring, 1, &res, NULL, UZC_WAIT_MS));
		if (res == 4096) {
			lent++;
			/* the loan holds the request: not done before removal */
			EXPECT_FALSE(uzc_io_done(&io, 0));
			ASSERT_EQ(0, uzc_buf_remove(ring, 0, 0));
		} else {
			ASSERT_EQ(-ESRCH, res);
			refused++;
		}
		ASSERT_EQ(4096, uzc_io_wait(&io));
		free(buf);
	}
	TH_LOG("%d rounds lent first, %d committed first", lent, refused);
}

/*
 * An SQPOLL ring's SQ thread is not the queue's daemon: no loan for it.
 * (A server whose FETCHes go through the same SQ thread lends there.)
 */
FIXTURE(sqpoll) {
	struct uzc_dev d;
	struct io_uring ring;
};

FIXTURE_SETUP(sqpoll)
{
	ASSERT_EQ(0, uzc_serving_setup(&self->d, DEPTH, &self->ring, 16,
				       IORING_SETUP_SQPOLL, SLOTS));
}

FIXTURE_TEARDOWN(sqpoll)
{
	EXPECT_EQ(0, uzc_serving_teardown(&self->d, &self->ring));
}

TEST_F(sqpoll, ring_is_not_the_daemon)
{
	struct uzc_io io;
	void *buf;
	int tag;

	buf = uzc_write_start(&self->d, &io, 4096, 3);
	ASSERT_NE(NULL, buf);
	tag = uzc_want_req(&self->d, UBLK_IO_OP_WRITE, 4096);
	ASSERT_GE(tag, 0);
	EXPECT_EQ(-EPERM, uzc_splice_from(&self->ring, self->d.cdev_fd,
					  uzc_pos(0, tag, 0), 4096, 0, 0));
	ASSERT_EQ(0, uzc_commit(&self->d, tag, 4096));
	EXPECT_EQ(4096, uzc_io_wait(&io));
	free(buf);
}

/* --- a queue on two rings, aborted by one ring's exit ------------------- */

/* COMMIT_AND_FETCH of @tag on @ring (user copy: addr 0), not waited for */
static int commit_on(struct io_uring *ring, int cfd, int tag, int res)
{
	struct io_uring_sqe *sqe = io_uring_get_sqe(ring);
	struct ublksrv_io_cmd *cmd = (struct ublksrv_io_cmd *)&sqe->addr3;

	io_uring_prep_rw(IORING_OP_URING_CMD, sqe, cfd, NULL, 0, 0);
	sqe->cmd_op = UBLK_U_IO_COMMIT_AND_FETCH_REQ;
	sqe->user_data = 0x8000;
	cmd->q_id = 0;
	cmd->tag = tag;
	cmd->result = res;
	return io_uring_submit(ring) == 1 ? 0 : -EIO;
}

/*
 * Not specific to lending: a user-copy device whose queue has commands on
 * two rings.  Tag a's COMMIT_AND_FETCH went through ring2; the server
 * holds request b on the queue ring.  ring2 closes, its exit work cancels
 * tag a's FETCH and ublk aborts the queue: abort puts b's dispatch
 * reference and fails it, but b stays "owned by the server".  The server
 * commits b: ublk_commit_completion() puts the reference again
 * (refcount_t underflow, v6).  With a loan (SPLICE_FROM, UBLK_F_AUTO_LEND)
 * the same double put happens when the loan goes.  Expected: the commit
 * is refused with -EINVAL and puts nothing.
 *
 * 7.3 has no such state: a ring's exit only cancels its commands and
 * marks the device canceling; the queue is aborted by the char device's
 * release, after which no ring can commit.  The 7.3 branch checks that:
 * b is not aborted, new requests fail, b's commit completes it, and the
 * kernel reports nothing.
 */
TEST_F_TIMEOUT(srv, user_copy_commit_after_queue_abort, 60)
{
	struct __kernel_timespec ts = { .tv_nsec = 300 * 1000000LL };
	struct io_uring_cqe *cqe;
	struct io_uring ring2;
	struct uzc_io io1, io2, io3, io4, *held;
	struct iovec iov;
	struct uzc_dev d;
	char line[512];
	int a, b, kfd;
	void *buf;

	memset(&d, 0, sizeof(d));
	d.dev_id = -1;
	uzc_auto_buf_slots = 0;
	ASSERT_EQ(0, uzc_dev_create(&d, UBLK_F_USER_COPY, DEPTH, 65536,
				    64 << 20, false));
	ASSERT_EQ(0, io_uring_queue_init(8, &ring2, 0));
	buf = uzc_xalloc(4096);
	ASSERT_NE(NULL, buf);
	iov.iov_base = buf;
	iov.iov_len = 4096;

	ASSERT_EQ(0, uzc_io_start(&d, &io1, UZC_WRITE, &iov, 1, 0));
	a = uzc_want_req(&d, UBLK_IO_OP_WRITE, 4096);
	ASSERT_GE(a, 0);
	ASSERT_EQ(0, commit_on(&ring2, d.cdev_fd, a, 4096));
	ASSERT_EQ(4096, uzc_io_wait(&io1));

	/* a request the server holds on the queue ring, tag a idle on ring2 */
	held = &io2;
	ASSERT_EQ(0, uzc_io_start(&d, &io2, UZC_WRITE, &iov, 1, 65536));
	if (!io_uring_wait_cqe_timeout(&ring2, &cqe, &ts)) {
		/* it went to tag a: hold it while the next one comes */
		io_uring_cqe_seen(&ring2, cqe);
		held = &io3;
		ASSERT_EQ(0, uzc_io_start(&d, &io3, UZC_WRITE, &iov, 1,
					  131072));
		b = uzc_want_req(&d, UBLK_IO_OP_WRITE, 4096);
		ASSERT_GE(b, 0);
		ASSERT_EQ(0, commit_on(&ring2, d.cdev_fd, a, 4096));
		ASSERT_EQ(4096, uzc_io_wait(&io2));
	} else {
		b = uzc_want_req(&d, UBLK_IO_OP_WRITE, 4096);
		ASSERT_GE(b, 0);
	}
	ASSERT_NE(a, b);

	kfd = uzc_kmsg_from_now();
	io_uring_queue_exit(&ring2);
	if (UZC_V73) {
		/*
		 * 7.3: ring2's exit cancels tag a's FETCH and marks the
		 * device canceling (ublk_start_cancel()); it aborts nothing,
		 * which only the char device's release does.  b stays the
		 * server's and the device live; a new request fails at once;
		 * b's commit completes it and waits as b's next FETCH.
		 */
		EXPECT_FALSE(uzc_io_done(held, 300));
		EXPECT_EQ(0, uzc_dev_wait_state(&d, UBLK_S_DEV_LIVE, 0));
		ASSERT_EQ(0, uzc_io_start(&d, &io4, UZC_WRITE, &iov, 1,
					  196608));
		EXPECT_TRUE(uzc_io_done(&io4, UZC_DEADLINE_MS))
			TH_LOG("a request after the cancel was not failed");
		if (io4.done)
			EXPECT_EQ(-EIO, uzc_io_wait(&io4));
		ASSERT_EQ(0, uzc_commit(&d, b, 4096));
		EXPECT_EQ(-ETIMEDOUT, uzc_commit_answer(&d, b, 1000));
		EXPECT_TRUE(uzc_io_done(held, UZC_DEADLINE_MS));
		if (held->done)
			EXPECT_EQ(4096, uzc_io_wait(held));
		goto settle;
	}
	/* abort fails b at once (no loan holds it) */
	EXPECT_TRUE(uzc_io_done(held, UZC_DEADLINE_MS));
	if (held->done)
		EXPECT_EQ(-EIO, uzc_io_wait(held));
	/*
	 * and has the device stopped: once del_gendisk() has freed the
	 * scheduler's requests, b is no longer in the driver tags
	 */
	ASSERT_EQ(0, uzc_dev_wait_state(&d, UBLK_S_DEV_DEAD, UZC_DEADLINE_MS));
	ASSERT_EQ(0, uzc_commit(&d, b, 4096));
	/* abort took the request from the server: refused, not queued */
	EXPECT_EQ(-EINVAL, uzc_commit_answer(&d, b, 1000));
settle:
	EXPECT_FALSE(uzc_kmsg_settle(kfd, 300, line, sizeof(line)))
		TH_LOG("kernel: %s", line);
	uzc_queue_close(&d);
	EXPECT_TRUE(uzc_deleted_within(&d, UZC_DEADLINE_MS));
	free(buf);
}

/* --- the lending ring taken by a process that is not the daemon's child - */

/*
 * SCM_RIGHTS does not carry io_uring files in 6.12 (-EINVAL, checked), so
 * the test process takes the daemon's lending ring with pidfd_getfd() (the
 * same open file) and holds it while the daemon is killed.  Returns the
 * fd, which the case closes at its end.
 */
static int take_ring(struct __test_metadata *_metadata, struct uzc_srv *s)
{
	int rfd = uzc_take_fd(s->pid, s->out);

	EXPECT_LE(0, rfd) TH_LOG("pidfd_getfd: %s", strerror(-rfd));
	if (rfd >= 0)
		EXPECT_EQ(-EINVAL, uzc_scm_pass(rfd));
	return rfd;
}

/* as ring_outlives_daemon: the loan goes with the daemon, -EIO */
TEST_F_TIMEOUT(srv, ring_taken_outlives_daemon, 90)
{
	struct uzc_srv *s = &self->s;
	int rfd;

	ASSERT_EQ(0, server_start(s, UZC_ZC_FLAGS, LEND_REPORT_RING));
	rfd = take_ring(_metadata, s);
	ASSERT_LE(0, rfd);
	kill_then_expect_held(_metadata, s, -EIO, &rfd);
	if (rfd >= 0)
		close(rfd);
}

/*
 * As same_ring_commit_then_sigkill, the lending ring (which holds the
 * queue's FETCHes) taken by the test: the committed request completes
 * with its committed length once the daemon's loan goes, the device
 * deletes.
 */
TEST_F_TIMEOUT(srv, same_ring_commit_then_sigkill_ring_taken, 90)
{
	struct uzc_srv *s = &self->s;
	int rfd;

	ASSERT_EQ(0, server_start(s, UZC_ZC_FLAGS,
				  LEND_COMMIT_SAME_RING | LEND_REPORT_RING));
	rfd = take_ring(_metadata, s);
	ASSERT_LE(0, rfd);
	kill_then_expect_held(_metadata, s, 8192, &rfd);
	if (rfd >= 0)
		close(rfd);
}

int main(int argc, char **argv)
{
	uzc_require(uzc_unsupported(), "splice");
	return test_harness_run(argc, argv);
}
