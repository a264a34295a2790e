/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Case bodies more than one variant's test runs as is.  Include after
 * kselftest_harness.h: the bodies use its ASSERT/EXPECT macros, which
 * need the caller's _metadata.
 */
#ifndef UZC_CASES_H
#define UZC_CASES_H

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include "ublk_zc_lib.h"
#include "uzc_ring.h"

/*
 * A fixture with no state, for TEST_F_TIMEOUT(): cases that need more
 * than the harness's default timeout but nothing set up for them.
 */
#define UZC_TIMEOUT_FIXTURE(name)					\
	FIXTURE(name) {							\
		int unused;						\
	};								\
	FIXTURE_SETUP(name)						\
	{								\
	}								\
	FIXTURE_TEARDOWN(name)						\
	{								\
	}


/*
 * The 7.3 series does not carry the fill record (->written of a READ):
 * as with 7.3's own @mechanism, the COMMIT result is trusted.  The cases
 * that need the record skip there.
 */
#define UZC_SKIP_WITHOUT_FILL_RECORD(mechanism)				\
	do {								\
		if (UZC_V73)						\
			SKIP(return, "7.3 series: no fill record, the "	\
			     "COMMIT result is trusted (as 7.3's "	\
			     mechanism ")");				\
	} while (0)

/*
 * A case that held in every other respect ends XFAIL with @why: a known
 * limit, shown in the TAP line, never taken for a pass.
 */
static inline void uzc_known_limit(struct __test_metadata *_metadata,
				   const char *why)
{
	if (_metadata->exit_code != KSFT_PASS)
		return;
	snprintf(_metadata->results->reason,
		 sizeof(_metadata->results->reason), "%s", why);
	_metadata->exit_code = KSFT_XFAIL;
}
/*
 * Unregister the buffer table of every io_uring of @pid, from outside:
 * each ring is taken with pidfd_getfd() (a task in do_exit() keeps its
 * files until after io_uring's cancel, before PF_EXITING), and the loans
 * and registrations in it go back.  The number of rings emptied.
 */
static inline int uzc_empty_rings_of(pid_t pid)
{
	char path[320], link[64];
	struct dirent *e;
	int n = 0, rfd;
	ssize_t len;
	DIR *dir;

	snprintf(path, sizeof(path), "/proc/%d/fd", pid);
	dir = opendir(path);
	if (!dir)
		return -errno;
	while ((e = readdir(dir))) {
		if (e->d_name[0] < '0' || e->d_name[0] > '9')
			continue;
		snprintf(path, sizeof(path), "/proc/%d/fd/%s", pid, e->d_name);
		len = readlink(path, link, sizeof(link) - 1);
		if (len < 0)
			continue;
		link[len] = 0;
		if (strcmp(link, "anon_inode:[io_uring]"))
			continue;
		rfd = uzc_take_fd(pid, atoi(e->d_name));
		if (rfd < 0)
			continue;
		if (!syscall(__NR_io_uring_register, rfd,
			     IORING_UNREGISTER_BUFFERS, NULL, 0))
			n++;
		close(rfd);
	}
	closedir(dir);
	return n;
}

/*
 * SIGKILL a child server @pid and reap it within @ms: true if it died.
 * If not, its exit is stuck (io_uring's cancel at exit waiting for a
 * command that a buffer of its own rings holds, which only those rings'
 * teardown, after the cancel, would give back): the rings' buffers are
 * unregistered from outside and the child reaped within @ms more, so
 * that the case and the run go on; false all the same.
 */
static inline bool uzc_kill_reap(pid_t pid, int ms)
{
	int i, status, round;

	kill(pid, SIGKILL);
	for (round = 0; round < 2; round++) {
		for (i = 0; i <= ms / 20; i++) {
			if (waitpid(pid, &status, WNOHANG) == pid)
				return !round;
			usleep(20000);
		}
		if (!round)
			fprintf(stderr, "# pid %d stuck in its exit: %d rings emptied\n",
				pid, uzc_empty_rings_of(pid));
	}
	fprintf(stderr, "# pid %d: not reaped, left behind\n", pid);
	return false;
}

/*
 * SIGKILL the daemon of @s: it must be gone within the deadline.  A
 * daemon stuck in its exit fails the case and is freed from outside
 * (uzc_kill_reap()), so that the run goes on.
 */
static inline void uzc_srv_kill_bounded(struct __test_metadata *_metadata,
					struct uzc_srv *s)
{
	if (s->pid <= 0)
		return;
	EXPECT_TRUE(uzc_kill_reap(s->pid, UZC_DEADLINE_MS))
		TH_LOG("the daemon did not finish its exit within %d ms",
		       UZC_DEADLINE_MS);
	s->pid = 0;
}

/*
 * Let a ring's other owners go: the test's copy @rfd (if any, and open)
 * and the daemon's child, reparented to init when the daemon died (no
 * wait).  True if there was one.
 */
static inline bool uzc_srv_release_holders(struct uzc_srv *s, int *rfd)
{
	bool any = false;

	if (rfd && *rfd >= 0) {
		close(*rfd);
		*rfd = -1;
		any = true;
	}
	if (s->holder > 0) {
		kill(s->holder, SIGKILL);
		s->holder = 0;
		any = true;
	}
	return any;
}

/* a pread() of request @tag on @d's char device: bytes, or -errno */
static inline ssize_t uzc_copy_req(struct uzc_dev *d, int tag, void *buf,
				   size_t len)
{
	ssize_t ret = pread(d->cdev_fd, buf, len, uzc_pos(0, tag, 0));

	return ret < 0 ? -errno : ret;
}

/* long enough for a block I/O to reach ublk_queue_rq() in a TCG guest */
#define UZC_DISPATCH_MS		300

/*
 * Serve the 4096-byte WRITE @io of @data (tag 0: a queue of depth 1) whose
 * dispatch a DEFER_TASKRUN queue ring (uzc_defer_ring_init) holds back:
 * not copyable before the server waits on its ring (the hand-over),
 * copyable after, byte-exact; the COMMIT completes it.  The server waits
 * on its ring meanwhile: the last put of a loan may be task work.
 */
static inline void
uzc_serve_held_write(struct __test_metadata *_metadata, struct uzc_dev *d,
		     struct uzc_io *io, const void *data)
{
	char *back = uzc_xalloc(4096);
	int i, tag;

	ASSERT_NE(NULL, back);
	usleep(UZC_DISPATCH_MS * 1000);
	EXPECT_FALSE(uzc_io_done(io, 0));
	EXPECT_EQ(-EINVAL, uzc_copy_req(d, 0, back, 4096))
		TH_LOG("a request not handed over yet was copied");
	tag = uzc_want_req(d, UBLK_IO_OP_WRITE, 4096);
	ASSERT_EQ(0, tag);
	EXPECT_EQ(4096, uzc_copy_req(d, tag, back, 4096));
	EXPECT_EQ(0, uzc_cmp(data, back, 4096));
	ASSERT_EQ(0, uzc_commit(d, tag, 4096));
	for (i = 0; i < UZC_DEADLINE_MS / 20 && !uzc_io_done(io, 0); i++)
		uzc_cq_quiet(&d->q, 20);
	EXPECT_TRUE(uzc_io_done(io, 0));
	if (io->done)
		EXPECT_EQ(4096, uzc_io_wait(io));
	free(back);
}

/*
 * The abort verdict at a last put that is no loan, fused command or
 * registration: a pread() of the request on the char device
 * (UBLK_F_USER_COPY), parked in a fault on a private page of a second
 * device until the case serves that device's READ.  The queue ring's exit
 * (the daemon lives) aborts the queue first, and is waited for, so
 * abort's put is known to come first; the reader's put is the last and,
 * with UBLK_F_USER_RECOVERY_REISSUE in @flags, requeues the WRITE:
 * ublk_complete_rq() reads the abort's verdict at every last put (stock
 * 6.12 fails the request there).  No recovery (6.12 wants the old daemon
 * gone); deleting the device fails the requeued WRITE.
 *
 * While the reader holds the aborted WRITE, nothing else gets it: a
 * second pread() fails with -EINVAL, and @use, when not NULL, tries the
 * series' own way to the request's pages (a loan, a fused command, a
 * registration) on another ring of the daemon and must get @want.  The
 * request's count is alive then, so only the abort itself can refuse.
 *
 * On the 7.3 series (UZC_V73) a ring's exit aborts nothing: the abort
 * runs from the char device's release work, after every reference (the
 * reader's pread() holds the file itself).  There the WRITE stays the
 * server's (copied, and given out by @use with its 4096 bytes) through
 * the reader's put, and closing the char device aborts and requeues it.
 */
typedef int (*uzc_use_fn)(struct uzc_dev *d, int tag);

static inline void
uzc_user_copy_put_after_abort(struct __test_metadata *_metadata, __u64 flags,
			      uzc_use_fn use, int want)
{
	struct uzc_dev d = { .dev_id = -1 }, d2 = { .dev_id = -1 };
	struct uzc_pread_holder r = { .d = &d };
	pthread_t reader;
	struct uzc_io io;
	char back[4096];
	int tag2, fd2, ret;
	pid_t pid;
	void *buf;

	ASSERT_EQ(0, uzc_dev_create(&d, flags, 2, UZC_ZC_MAX_IO,
				    UZC_ZC_DEV_SIZE, false));
	ASSERT_EQ(0, uzc_dev_create(&d2, UBLK_F_USER_COPY, 1, UZC_ZC_MAX_IO,
				    UZC_ZC_DEV_SIZE, false));
	buf = uzc_write_start(&d, &io, 4096, 56);
	ASSERT_NE(NULL, buf);
	r.tag = uzc_next_req(&d, UZC_DEADLINE_MS);
	ASSERT_LE(0, r.tag);
	ASSERT_EQ(UBLK_IO_OP_WRITE, ublksrv_get_op(uzc_iod(&d, r.tag)));
	fd2 = open(d2.bdev_path, O_RDWR);
	ASSERT_LE(0, fd2);
	/* private: the copy faults the page in (d2's READ), dirties no cache */
	r.area = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE, fd2, 0);
	ASSERT_NE(MAP_FAILED, r.area);
	madvise(r.area, 4096, MADV_RANDOM);
	ASSERT_EQ(0, pthread_create(&reader, NULL, uzc_pread_holder_fn, &r));
	tag2 = uzc_next_req(&d2, UZC_DEADLINE_MS);
	ASSERT_LE(0, tag2);

	/* abort puts its reference and is done; the reader holds the WRITE */
	ASSERT_EQ(0, uzc_ring_exit_wait(&d.q, UZC_DEADLINE_MS));
	d.q_ready = false;
	EXPECT_FALSE(uzc_io_done(&io, 300));
	if (UZC_V73) {
		/* 7.3: no abort at a ring's exit, the WRITE is the server's */
		EXPECT_EQ(4096, uzc_copy_req(&d, r.tag, back, sizeof(back)));
		if (use)
			EXPECT_EQ(4096, use(&d, r.tag));
	} else {
		EXPECT_EQ(-EINVAL, uzc_copy_req(&d, r.tag, back, sizeof(back)))
			TH_LOG("an aborted request was copied");
		if (use)
			EXPECT_EQ(want, use(&d, r.tag))
				TH_LOG("an aborted request was given out");
	}
	/* the reader finishes and puts the last reference: requeued */
	ASSERT_EQ(0, uzc_commit(&d2, tag2,
				uzc_iod(&d2, tag2)->nr_sectors << 9));
	pthread_join(reader, NULL);
	EXPECT_EQ(4096, r.ret);
	if (UZC_V73) {
		/* still the server's; the char device's release aborts it */
		EXPECT_FALSE(uzc_io_done(&io, 300));
		EXPECT_EQ(-ETIMEDOUT, uzc_dev_wait_state(&d,
							 UBLK_S_DEV_QUIESCED,
							 0));
		uzc_queue_close(&d);
	}
	EXPECT_EQ(0, uzc_dev_wait_state(&d, UBLK_S_DEV_QUIESCED,
					UZC_DEADLINE_MS));
	ret = uzc_io_done(&io, 500);
	EXPECT_FALSE(ret) TH_LOG("the WRITE ended at the reader's put: %zd",
				 uzc_io_wait(&io));

	munmap(r.area, 4096);
	close(fd2);
	EXPECT_EQ(0, uzc_dev_destroy(&d2));
	uzc_queue_close(&d);
	/* STOP_DEV fails the requeued WRITE; reaped, DEL_DEV can end */
	pid = uzc_delete_start(&d);
	EXPECT_LT(0, pid);
	if (!ret) {
		EXPECT_TRUE(uzc_io_done(&io, UZC_DEADLINE_MS));
		if (io.done)
			EXPECT_EQ(-EIO, uzc_io_wait(&io));
	}
	if (pid > 0)
		EXPECT_TRUE(uzc_delete_wait(&d, pid, UZC_DEADLINE_MS));
	free(buf);
}

#endif
