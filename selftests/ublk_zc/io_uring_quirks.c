// SPDX-License-Identifier: GPL-2.0
/*
 * io_uring behaviour of the stock kernel that the series' tests and
 * zc_fuzz rely on or work around.  No op of any series: these run on
 * every variant, base included, so that what they pin is shown to be
 * upstream's and not a series'.
 */
#include <limits.h>
#include <stdlib.h>
#include <sys/socket.h>
#include <sys/utsname.h>
#include <unistd.h>
#include <liburing.h>

#include "kselftest_harness.h"

/* the CQEs of @ring for @ms: res[ud] (ud < 8), INT_MIN if none came */
static void reap_for(struct io_uring *ring, int *res, int ms)
{
	struct __kernel_timespec ts = { .tv_nsec = 20 * 1000000LL };
	struct io_uring_cqe *cqe;
	int i;

	for (i = 0; i < ms / 20; i++) {
		if (io_uring_wait_cqe_timeout(ring, &cqe, &ts))
			continue;
		if (cqe->user_data < 8)
			res[cqe->user_data] = cqe->res;
		io_uring_cqe_seen(ring, cqe);
	}
}

/* a ring of 8 entries and @res[0..7] = INT_MIN (no CQE yet); 0 or -errno */
static int ring_init(struct io_uring *ring, int *res)
{
	int i;

	for (i = 0; i < 8; i++)
		res[i] = INT_MIN;
	return io_uring_queue_init(8, ring, 0);
}

/* NOPs @ud0.. in one submission, @flags[i] on the i-th */
static int submit_nops(struct io_uring *ring, int ud0, const __u8 *flags,
		       int n)
{
	int i;

	for (i = 0; i < n; i++) {
		struct io_uring_sqe *sqe = io_uring_get_sqe(ring);

		io_uring_prep_nop(sqe);
		sqe->flags = flags[i];
		sqe->user_data = ud0 + i;
	}
	return io_uring_submit(ring);
}

/*
 * Stock 6.12 (the base kernel has it too): a drained SQE deferred
 * behind an earlier one of its submission waits until cached_cq_tail is
 * exactly its sequence (+ cq_extra).  An SQE after it that fails in
 * io_init_req() completes at once, ahead of the drain: the CQ tail then
 * passes that sequence, and the drained SQE, and every later one, never
 * runs (ring exit frees them).  zc_fuzz met this in its drained groups
 * (seeds 101, 103, 201) and no longer puts an op that fails at prep after
 * a drain; this case pins the kernel behaviour the generator relies on,
 * and fails the day io_uring counts drains some other way.  7.3 (the
 * other base) strands nothing: the case pins that too.
 */
/* the running kernel's major version (6 for the 6.12 base, 7 for 7.3) */
static int kernel_major(void)
{
	struct utsname u;

	return uname(&u) ? 0 : atoi(u.release);
}

TEST(drain_stranded_by_failed_prep)
{
	static const __u8 ok[] = { 0, IOSQE_IO_DRAIN };
	static const __u8 bad[] = { 0, IOSQE_IO_DRAIN, 0x80 };
	int res[8];
	struct io_uring ring;

	/* the control: NOP, drained NOP: both complete */
	ASSERT_EQ(0, ring_init(&ring, res));
	ASSERT_EQ(2, submit_nops(&ring, 1, ok, 2));
	reap_for(&ring, res, 500);
	EXPECT_EQ(0, res[1]);
	EXPECT_EQ(0, res[2]);
	io_uring_queue_exit(&ring);

	/* NOP, drained NOP, NOP with a flag beyond SQE_VALID_FLAGS */
	ASSERT_EQ(0, ring_init(&ring, res));
	ASSERT_EQ(3, submit_nops(&ring, 1, bad, 3));
	reap_for(&ring, res, 500);
	EXPECT_EQ(0, res[1]);
	EXPECT_EQ(-EINVAL, res[3]);
	ASSERT_EQ(1, submit_nops(&ring, 4, ok, 1));
	reap_for(&ring, res, 500);
	/* 7.3 (measured on 7.3.4) completes both: nothing is stranded */
	if (kernel_major() >= 7) {
		EXPECT_EQ(0, res[2]);
		EXPECT_EQ(0, res[4]);
		io_uring_queue_exit(&ring);
		return;
	}
	/* 6.12: the drained NOP is stranded, and a plain NOP after it waits too */
	EXPECT_EQ(INT_MIN, res[2]) {
		TH_LOG("the drained NOP completed (%d): io_uring no longer strands a drain behind a failed prep; zc_fuzz_gen.c group_takes() may take such ops again",
		       res[2]);
	}
	EXPECT_EQ(INT_MIN, res[4]);
	io_uring_queue_exit(&ring);
}

/*
 * Stock 6.12: once a ring has seen IOSQE_CQE_SKIP_SUCCESS, drains are
 * disabled and a later IOSQE_IO_DRAIN fails with -EOPNOTSUPP.  The
 * splice-rsrc letter's mirror recipe skips the CQEs of its lend and its
 * removal, so a server that uses it cannot drain that ring afterwards.
 */
TEST(drain_refused_after_cqe_skip)
{
	static const __u8 skip[] = { IOSQE_CQE_SKIP_SUCCESS };
	static const __u8 drain[] = { IOSQE_IO_DRAIN };
	int res[8];
	struct io_uring ring;

	ASSERT_EQ(0, ring_init(&ring, res));
	/* the control: a drain before any skip runs */
	ASSERT_EQ(1, submit_nops(&ring, 1, drain, 1));
	ASSERT_EQ(1, submit_nops(&ring, 2, skip, 1));
	ASSERT_EQ(1, submit_nops(&ring, 3, drain, 1));
	reap_for(&ring, res, 500);
	EXPECT_EQ(0, res[1]);
	EXPECT_EQ(INT_MIN, res[2]);	/* succeeded, CQE skipped */
	EXPECT_EQ(-EOPNOTSUPP, res[3]);
	io_uring_queue_exit(&ring);
}

/* a SEND_ZC of 64 bytes on @fd as @ud, with @flags; 1 or -errno */
static int submit_send_zc(struct io_uring *ring, int fd, int ud, __u8 flags)
{
	static char buf[64];
	struct io_uring_sqe *sqe = io_uring_get_sqe(ring);

	io_uring_prep_send_zc(sqe, fd, buf, sizeof(buf), 0, 0);
	sqe->flags = flags;
	sqe->user_data = ud;
	return io_uring_submit(ring);
}

/*
 * Stock 7.3: a SEND_ZC with IOSQE_IO_DRAIN never runs.  The drain waits
 * until every live request of the ring is a drained one
 * (io_queue_deferred(): nr_req_allocated == nr_drained), and the
 * SEND_ZC's prep has already allocated its notification, a second live
 * request (docs/upstream-findings.md).  6.12 runs it (6.18, where this
 * was written, holds it too: the drain counting came in between; the
 * case knows the project's two bases only).  The socket is an
 * AF_UNIX pair, which refuses zero copy with -EOPNOTSUPP at issue: a
 * CQE means the request ran.  zc_fuzz's generator drains no SEND_ZC on
 * 7.3; this case fails the day 7.3 runs one.
 */
TEST(drained_send_zc)
{
	struct io_uring ring;
	int sv[2], res[8];

	ASSERT_EQ(0, socketpair(AF_UNIX, SOCK_DGRAM, 0, sv));
	/* the control: not drained, it runs (and is refused) */
	ASSERT_EQ(0, ring_init(&ring, res));
	ASSERT_EQ(1, submit_send_zc(&ring, sv[0], 1, 0));
	reap_for(&ring, res, 500);
	EXPECT_NE(INT_MIN, res[1]);
	io_uring_queue_exit(&ring);

	ASSERT_EQ(0, ring_init(&ring, res));
	ASSERT_EQ(1, submit_send_zc(&ring, sv[0], 1, IOSQE_IO_DRAIN));
	reap_for(&ring, res, 500);
	if (kernel_major() >= 7) {
		EXPECT_EQ(INT_MIN, res[1]) {
			TH_LOG("the drained SEND_ZC completed (%d): 7.3 no longer holds it; zc_fuzz_gen.c may drain SEND_ZC there again",
			       res[1]);
		}
	} else {
		EXPECT_NE(INT_MIN, res[1]);
	}
	io_uring_queue_exit(&ring);
	close(sv[0]);
	close(sv[1]);
}

TEST_HARNESS_MAIN
