// SPDX-License-Identifier: GPL-2.0
/*
 * uAPI tests of the splice-rsrc series: IORING_OP_SPLICE_FROM installs the
 * pages of a ublk request (UBLK_F_USER_COPY | UBLK_F_SUPPORT_ZERO_COPY) in
 * an empty registered-buffer slot, READ_FIXED/WRITE_FIXED/SEND_ZC use it,
 * IORING_OP_BUF_REMOVE empties the slot.  The test process is the ublk
 * server (one queue); block I/O comes from a helper thread.
 *
 * Exit 4 (skip) when io_uring lacks op 58/59 or ublk does not advertise
 * UBLK_F_SUPPORT_ZERO_COPY, unless UBLK_ZC_VARIANT says the kernel is
 * splice-rsrc: then that fails (exit 1).
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <net/if.h>
#include <netinet/in.h>
#include <sys/eventfd.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>

#include "uzc_ring.h"
#include "kselftest_harness.h"

#define ZC_FLAGS	UZC_ZC_FLAGS
#define DEPTH		4
#define MAX_IO		(512 << 10)
#define DEV_SIZE	(64ULL << 20)
#define SLOTS		16
#define WAIT_MS		UZC_WAIT_MS
#define UD_SPLICE	UZC_UD_SPLICE
#define UD_REMOVE	UZC_UD_REMOVE
#define UD_LEG		UZC_UD_LEG

/* --- the fixture: one zero-copy device, one ring with a sparse table --- */

FIXTURE(zc) {
	struct uzc_dev d;
	struct io_uring ring;
	bool ring_open;
};

FIXTURE_SETUP(zc)
{
	memset(self, 0, sizeof(*self));
	self->d.dev_id = -1;
	ASSERT_EQ(0, uzc_dev_create(&self->d, ZC_FLAGS, DEPTH, MAX_IO,
				    DEV_SIZE, true));
	ASSERT_TRUE(self->d.flags & UZC_F_LEND);
	ASSERT_EQ(0, io_uring_queue_init(64, &self->ring, 0));
	self->ring_open = true;
	ASSERT_EQ(0, io_uring_register_buffers_sparse(&self->ring, SLOTS));
}

FIXTURE_TEARDOWN(zc)
{
	if (self->ring_open)
		io_uring_queue_exit(&self->ring);
	EXPECT_EQ(0, uzc_dev_destroy(&self->d));
}

/* start a block WRITE of @len pattern bytes (seed @seed) at @off */
#define START_WRITE(io, buf, len, seed, off) do {			\
	buf = uzc_xalloc(len);						\
	ASSERT_NE(NULL, buf);						\
	uzc_fill(buf, len, seed);					\
	struct iovec __iov = { buf, len };				\
	ASSERT_EQ(0, uzc_io_start(&self->d, io, UZC_WRITE, &__iov, 1,	\
				  off));				\
} while (0)

/* every field but the ones SPLICE_FROM uses must be zero */
TEST_F(zc, splice_from_bad_fields)
{
	struct io_uring *ring = &self->ring;
	int cfd = self->d.cdev_fd, tag, i;
	struct io_uring_sqe *sqe;
	struct uzc_io io;
	void *buf;

	START_WRITE(&io, buf, 8192, 1, 0);
	tag = uzc_want_req(&self->d, UBLK_IO_OP_WRITE, 8192);
	ASSERT_GE(tag, 0);

	for (i = 0; i < 6; i++) {
		sqe = io_uring_get_sqe(ring);
		uzc_prep_splice_from(sqe, cfd, uzc_pos(0, tag, 0), 8192, 0);
		switch (i) {
		case 0: sqe->ioprio = 1; break;
		case 1: sqe->addr = 1; break;
		case 2: sqe->rw_flags = 1; break;
		case 3: sqe->splice_fd_in = 1; break;
		case 4: sqe->addr3 = 1; break;
		case 5: sqe->__pad2[0] = 1; break;
		}
		EXPECT_EQ(-EINVAL, uzc_one(ring, sqe, UD_SPLICE)) {
			TH_LOG("field %d", i);
		}
	}
	/* len 0 */
	EXPECT_EQ(-EINVAL, uzc_splice_from(ring, cfd, uzc_pos(0, tag, 0), 0, 0,
					   0));
	/* none of that installed anything */
	EXPECT_EQ(-ENOENT, uzc_buf_remove(ring, 0, 0));

	EXPECT_EQ(8192, uzc_splice_from(ring, cfd, uzc_pos(0, tag, 0), 8192, 0,
					0));
	EXPECT_EQ(0, uzc_buf_remove(ring, 0, 0));
	ASSERT_EQ(0, uzc_commit(&self->d, tag, 8192));
	EXPECT_EQ(8192, uzc_io_wait(&io));
	free(buf);
}

/* table errors: no table, out of range, occupied; files without lending */
TEST_F(zc, splice_from_table_errors)
{
	struct io_uring *ring = &self->ring, bare;
	int cfd = self->d.cdev_fd, tag, rfd;
	struct iovec ubuf;
	__u64 pos;
	struct uzc_io io;
	void *buf;
	__u64 utag = 0;

	START_WRITE(&io, buf, 4096, 2, 0);
	tag = uzc_want_req(&self->d, UBLK_IO_OP_WRITE, 4096);
	ASSERT_GE(tag, 0);
	pos = uzc_pos(0, tag, 0);

	/* ring without a registered-buffer table */
	ASSERT_EQ(0, io_uring_queue_init(8, &bare, 0));
	EXPECT_EQ(-ENXIO, uzc_splice_from(&bare, cfd, pos, 4096, 0, 0));
	EXPECT_EQ(-ENXIO, uzc_buf_remove(&bare, 0, 0));
	io_uring_queue_exit(&bare);

	EXPECT_EQ(-ERANGE, uzc_splice_from(ring, cfd, pos, 4096, SLOTS, 0));
	EXPECT_EQ(-ERANGE, uzc_splice_from(ring, cfd, pos, 4096, 0xffff, 0));

	/* a regular file and a bad fd */
	rfd = uzc_tmpfile();
	ASSERT_GE(rfd, 0);
	EXPECT_EQ(-EOPNOTSUPP, uzc_splice_from(ring, rfd, 0, 4096, 1, 0));
	close(rfd);
	EXPECT_EQ(-EBADF, uzc_splice_from(ring, 12345, pos, 4096, 1, 0));

	/* slot holding a user buffer */
	ubuf.iov_base = uzc_xalloc(4096);
	ubuf.iov_len = 4096;
	ASSERT_EQ(1, io_uring_register_buffers_update_tag(ring, 5, &ubuf,
							  &utag, 1));
	EXPECT_EQ(-EBUSY, uzc_splice_from(ring, cfd, pos, 4096, 5, 0));

	/* fixed file; then the slot is occupied */
	ASSERT_EQ(0, io_uring_register_files(ring, &cfd, 1));
	EXPECT_EQ(4096, uzc_splice_from(ring, 0, pos, 4096, 2,
					IOSQE_FIXED_FILE));
	EXPECT_EQ(-EBUSY, uzc_splice_from(ring, 0, pos, 4096, 2,
					  IOSQE_FIXED_FILE));
	EXPECT_EQ(0, uzc_buf_remove(ring, 2, 0));
	ASSERT_EQ(0, uzc_commit(&self->d, tag, 4096));
	EXPECT_EQ(4096, uzc_io_wait(&io));
	free(buf);
	free(ubuf.iov_base);
}

/* every ublk-side refusal */
TEST_F(zc, ublk_position_errors)
{
	struct io_uring *ring = &self->ring;
	int cfd = self->d.cdev_fd, tag, idle;
	struct uzc_io io;
	void *buf;

	START_WRITE(&io, buf, 16384, 3, 4096);
	tag = uzc_want_req(&self->d, UBLK_IO_OP_WRITE, 16384);
	ASSERT_GE(tag, 0);
	idle = (tag + 1) % DEPTH;

	/* not a buffer position */
	EXPECT_EQ(-EINVAL, uzc_splice_from(ring, cfd, 0, 4096, 0, 0));
	EXPECT_EQ(-EINVAL, uzc_splice_from(ring, cfd, UBLKSRV_IO_BUF_OFFSET - 1,
				       4096, 0, 0));
	EXPECT_EQ(-EINVAL, uzc_splice_from(ring, cfd, (__u64)-1, 4096, 0, 0));
	/* queue and tag out of range */
	EXPECT_EQ(-ECHRNG, uzc_splice_from(ring, cfd, uzc_pos(1, tag, 0), 4096,
				       0, 0));
	EXPECT_EQ(-ECHRNG, uzc_splice_from(ring, cfd, uzc_pos(0, DEPTH, 0),
					   4096,
				       0, 0));
	/* a tag without a request owned by the server */
	EXPECT_EQ(-ESRCH, uzc_splice_from(ring, cfd, uzc_pos(0, idle, 0), 4096,
				      0, 0));
	/* offset / length beyond the request */
	EXPECT_EQ(-EOVERFLOW, uzc_splice_from(ring, cfd, uzc_pos(0, tag, 16384),
					  1, 0, 0));
	EXPECT_EQ(-EOVERFLOW, uzc_splice_from(ring, cfd, uzc_pos(0, tag, 1),
					  16384, 0, 0));
	EXPECT_EQ(-EOVERFLOW, uzc_splice_from(ring, cfd, uzc_pos(0, tag, 0),
					  16385, 0, 0));
	/* the last byte and the whole request are fine */
	EXPECT_EQ(1, uzc_splice_from(ring, cfd, uzc_pos(0, tag, 16383), 1, 0,
				     0));
	/* one loan per request at a time */
	EXPECT_EQ(-EALREADY, uzc_splice_from(ring, cfd, uzc_pos(0, tag, 0),
					     16384,
					 1, 0));
	EXPECT_EQ(0, uzc_buf_remove(ring, 0, 0));
	EXPECT_EQ(16384, uzc_splice_from(ring, cfd, uzc_pos(0, tag, 0), 16384,
				     1, 0));
	EXPECT_EQ(0, uzc_buf_remove(ring, 1, 0));

	/* after COMMIT the server does not own the request any more */
	ASSERT_EQ(0, uzc_commit(&self->d, tag, 16384));
	EXPECT_EQ(16384, uzc_io_wait(&io));
	EXPECT_EQ(-ESRCH, uzc_splice_from(ring, cfd, uzc_pos(0, tag, 0), 4096,
				      0, 0));
	free(buf);
}

/*
 * Ownership before the loan: a lend of a request the server committed
 * while its earlier loan is still installed is refused for ownership
 * (-ESRCH), not for the loan (-EALREADY), so that a stale lend never
 * holds the tag's loan bit against the lend of its next request.
 */
TEST_F(zc, lend_after_commit_refused_before_loan)
{
	struct io_uring *ring = &self->ring;
	int cfd = self->d.cdev_fd, tag;
	struct uzc_io io;
	void *buf;
	int res;

	START_WRITE(&io, buf, 16384, 4, 4096);
	tag = uzc_want_req(&self->d, UBLK_IO_OP_WRITE, 16384);
	ASSERT_GE(tag, 0);
	EXPECT_EQ(16384, uzc_splice_from(ring, cfd, uzc_pos(0, tag, 0), 16384,
					 0, 0));
	ASSERT_EQ(0, uzc_commit(&self->d, tag, 16384));
	/* the loan holds the request: it completes at the removal */
	EXPECT_FALSE(uzc_io_done(&io, 100));
	res = uzc_splice_from(ring, cfd, uzc_pos(0, tag, 0), 4096, 1, 0);
	EXPECT_EQ(-ESRCH, res);
	if (res >= 0)	/* lent after all: give it back, or the I/O waits */
		EXPECT_EQ(0, uzc_buf_remove(ring, 1, 0));
	EXPECT_EQ(0, uzc_buf_remove(ring, 0, 0));
	EXPECT_EQ(16384, uzc_io_wait(&io));
	free(buf);
}

/* FLUSH carries no data: refused */
TEST_F(zc, non_rw_request_refused)
{
	struct io_uring *ring = &self->ring;
	struct uzc_io io;
	int tag;

	ASSERT_EQ(0, uzc_io_start(&self->d, &io, UZC_FSYNC, NULL, 0, 0));
	tag = uzc_next_req(&self->d, WAIT_MS);
	ASSERT_GE(tag, 0);
	ASSERT_EQ(UBLK_IO_OP_FLUSH, ublksrv_get_op(uzc_iod(&self->d, tag)));
	EXPECT_EQ(-ENODATA, uzc_splice_from(ring, self->d.cdev_fd,
					uzc_pos(0, tag, 0), 512, 0, 0));
	ASSERT_EQ(0, uzc_commit(&self->d, tag, 0));
	EXPECT_EQ(0, uzc_io_wait(&io));
}

/* BUF_REMOVE: fields, range, empty slot, user buffer, double remove */
TEST_F(zc, buf_remove_errors)
{
	struct io_uring *ring = &self->ring;
	struct io_uring_sqe *sqe;
	struct iovec ubuf;
	__u64 utag = 0;
	int i;

	for (i = 0; i < 9; i++) {
		sqe = io_uring_get_sqe(ring);
		uzc_prep_buf_remove(sqe, 0);
		switch (i) {
		case 0: sqe->fd = 0; break;
		case 1: sqe->ioprio = 1; break;
		case 2: sqe->off = 1; break;
		case 3: sqe->addr = 1; break;
		case 4: sqe->len = 1; break;
		case 5: sqe->rw_flags = 1; break;
		case 6: sqe->splice_fd_in = 1; break;
		case 7: sqe->addr3 = 1; break;
		case 8: sqe->flags = IOSQE_FIXED_FILE; sqe->fd = 0; break;
		}
		EXPECT_EQ(-EINVAL, uzc_one(ring, sqe, UD_REMOVE)) {
			TH_LOG("case %d", i);
		}
	}
	EXPECT_EQ(-ERANGE, uzc_buf_remove(ring, SLOTS, 0));
	EXPECT_EQ(-ENOENT, uzc_buf_remove(ring, 0, 0));

	ubuf.iov_base = uzc_xalloc(4096);
	ubuf.iov_len = 4096;
	ASSERT_EQ(1, io_uring_register_buffers_update_tag(ring, 3, &ubuf,
							  &utag, 1));
	EXPECT_EQ(-EPERM, uzc_buf_remove(ring, 3, 0));
	free(ubuf.iov_base);
}

/* the result of the CQE with user_data @want among @n */
static int res_of(const int *res, const __u64 *ud, int n, __u64 want)
{
	int i;

	for (i = 0; i < n; i++)
		if (ud[i] == want)
			return res[i];
	return -ENOENT;
}

/*
 * Both ops run wherever io_uring issues them and give the same result:
 * forced to io-wq (IOSQE_ASYNC, IOSQE_IO_DRAIN), behind an earlier drain,
 * and as a link member behind a head that went to io-wq. The only release
 * op must never fail on a valid slot for where it runs.
 */
TEST_F(zc, forced_async_ops)
{
	struct io_uring *ring = &self->ring;
	int cfd = self->d.cdev_fd, tag, res[2], fd;
	struct io_uring_sqe *sqe;
	struct uzc_io io;
	void *buf, *back;
	__u64 ud[2];

	START_WRITE(&io, buf, 16384, 41, 0);
	tag = uzc_want_req(&self->d, UBLK_IO_OP_WRITE, 16384);
	ASSERT_GE(tag, 0);
	fd = uzc_tmpfile();
	ASSERT_GE(fd, 0);

	EXPECT_EQ(16384, uzc_splice_from(ring, cfd, uzc_pos(0, tag, 0), 16384,
					 0, IOSQE_ASYNC));
	EXPECT_EQ(0, uzc_buf_remove(ring, 0, IOSQE_ASYNC));
	EXPECT_EQ(16384, uzc_splice_from(ring, cfd, uzc_pos(0, tag, 0), 16384,
					 1, IOSQE_IO_DRAIN));
	EXPECT_EQ(0, uzc_buf_remove(ring, 1, IOSQE_IO_DRAIN));

	/* a drained NOP, then the lend and the remove behind it */
	sqe = io_uring_get_sqe(ring);
	io_uring_prep_nop(sqe);
	sqe->flags = IOSQE_IO_DRAIN;
	sqe->user_data = 1;
	sqe = io_uring_get_sqe(ring);
	uzc_prep_splice_from(sqe, cfd, uzc_pos(0, tag, 0), 16384, 2);
	sqe->user_data = 2;
	ASSERT_EQ(0, uzc_submit_wait(ring, 2, res, ud, WAIT_MS));
	EXPECT_EQ(0, res_of(res, ud, 2, 1));
	EXPECT_EQ(16384, res_of(res, ud, 2, 2));
	sqe = io_uring_get_sqe(ring);
	io_uring_prep_nop(sqe);
	sqe->flags = IOSQE_IO_DRAIN;
	sqe->user_data = 1;
	sqe = io_uring_get_sqe(ring);
	uzc_prep_buf_remove(sqe, 2);
	sqe->user_data = 2;
	ASSERT_EQ(0, uzc_submit_wait(ring, 2, res, NULL, WAIT_MS));
	EXPECT_EQ(0, res[0]);	/* the NOP and the remove: both 0 */
	EXPECT_EQ(0, res[1]);

	/* a link member behind a head punted to io-wq; then a leg uses it */
	sqe = io_uring_get_sqe(ring);
	io_uring_prep_nop(sqe);
	sqe->flags = IOSQE_ASYNC | IOSQE_IO_LINK;
	sqe->user_data = 1;
	sqe = io_uring_get_sqe(ring);
	uzc_prep_splice_from(sqe, cfd, uzc_pos(0, tag, 0), 16384, 3);
	sqe->user_data = 2;
	ASSERT_EQ(0, uzc_submit_wait(ring, 2, res, ud, WAIT_MS));
	EXPECT_EQ(0, res_of(res, ud, 2, 1));
	EXPECT_EQ(16384, res_of(res, ud, 2, 2));
	EXPECT_EQ(16384, uzc_write_fixed(ring, fd, 3, 0, 16384, 0));
	EXPECT_EQ(0, uzc_buf_remove(ring, 3, IOSQE_ASYNC));

	back = uzc_xalloc(16384);
	ASSERT_NE(NULL, back);
	EXPECT_EQ(16384, pread(fd, back, 16384, 0));
	EXPECT_EQ(0, uzc_cmp(buf, back, 16384));
	ASSERT_EQ(0, uzc_commit(&self->d, tag, 16384));
	EXPECT_EQ(16384, uzc_io_wait(&io));
	close(fd);
	free(buf);
	free(back);
}

/*
 * A drained SQE behind a SPLICE_FROM of the same submission: the drain
 * waits for the SPLICE_FROM, which completes at once, so both CQEs must
 * come and the ring must not stay drained.  @remove: the drained op is a
 * BUF_REMOVE of the slot just filled, else a NOP; @lend: the first SQE is
 * a SPLICE_FROM, else a NOP.  (Written while chasing the stalls zc_fuzz
 * seeds 101 and 103 showed; those needed an SQE failing at prep behind
 * the drain: io_uring_quirks' drain_stranded_by_failed_prep.)
 */
static void drain_behind(struct __test_metadata *_metadata,
			 FIXTURE_DATA(zc) *self, bool lend, bool remove)
{
	struct io_uring *ring = &self->ring;
	int cfd = self->d.cdev_fd, tag, res[2] = { INT_MIN, INT_MIN }, ret;
	struct io_uring_sqe *sqe;
	struct uzc_io io;
	__u64 ud[2] = { 0, 0 };
	void *buf;

	START_WRITE(&io, buf, 8192, 43, 0);
	tag = uzc_want_req(&self->d, UBLK_IO_OP_WRITE, 8192);
	ASSERT_GE(tag, 0);
	sqe = io_uring_get_sqe(ring);
	if (lend)
		uzc_prep_splice_from(sqe, cfd, uzc_pos(0, tag, 0), 8192, 0);
	else
		io_uring_prep_nop(sqe);
	sqe->user_data = 1;
	sqe = io_uring_get_sqe(ring);
	if (remove)
		uzc_prep_buf_remove(sqe, 0);
	else
		io_uring_prep_nop(sqe);
	sqe->flags |= IOSQE_IO_DRAIN;
	sqe->user_data = 2;
	ret = uzc_submit_wait(ring, 2, res, ud, 3000);
	EXPECT_EQ(0, ret);
	EXPECT_EQ(lend ? 8192 : 0, res_of(res, ud, 2, 1));
	EXPECT_EQ(0, res_of(res, ud, 2, 2));
	if (ret) {
		TH_LOG("the drained SQE never completed: ring exit frees it");
		io_uring_queue_exit(ring);
		self->ring_open = false;
	} else if (lend && !remove) {
		EXPECT_EQ(0, uzc_buf_remove(ring, 0, 0));
	}
	ASSERT_EQ(0, uzc_commit(&self->d, tag, 8192));
	EXPECT_TRUE(uzc_io_done(&io, 5000));
	if (io.done)
		EXPECT_EQ(8192, uzc_io_wait(&io));
	free(buf);
}

TEST_F(zc, drained_remove_behind_lend)
{
	drain_behind(_metadata, self, true, true);
}

TEST_F(zc, drained_nop_behind_lend)
{
	drain_behind(_metadata, self, true, false);
}

/* as zc_fuzz met it: a fresh ring (@flags), the lend, then alone the drain */
static void drain_after(struct __test_metadata *_metadata,
			FIXTURE_DATA(zc) *self, unsigned int flags, bool sep)
{
	struct io_uring_params p = { .flags = flags | IORING_SETUP_CQSIZE,
				     .cq_entries = 256 };
	int cfd = self->d.cdev_fd, tag, res[2] = { INT_MIN, INT_MIN }, ret;
	int files[3] = { -1, -1, -1 };
	struct io_uring ring;
	struct io_uring_sqe *sqe;
	struct uzc_io io;
	__u64 ud[2] = { 0, 0 };
	void *buf;

	ASSERT_EQ(0, io_uring_queue_init_params(32, &ring, &p));
	ASSERT_EQ(0, io_uring_register_buffers_sparse(&ring, 7));
	files[0] = cfd;
	files[2] = self->d.ctrl_fd;
	ASSERT_EQ(0, io_uring_register_files(&ring, files, 3));
	START_WRITE(&io, buf, 8192, 44, 0);
	tag = uzc_want_req(&self->d, UBLK_IO_OP_WRITE, 8192);
	ASSERT_GE(tag, 0);
	sqe = io_uring_get_sqe(&ring);
	uzc_prep_splice_from(sqe, cfd, uzc_pos(0, tag, 0), 8192, 2);
	sqe->user_data = 1;
	if (sep) {
		ASSERT_EQ(0, uzc_submit_wait(&ring, 1, res, ud, 3000));
		EXPECT_EQ(8192, res[0]);
	}
	sqe = io_uring_get_sqe(&ring);
	uzc_prep_buf_remove(sqe, 2);
	sqe->flags |= IOSQE_IO_DRAIN;
	sqe->user_data = 2;
	ret = uzc_submit_wait(&ring, sep ? 1 : 2, res, ud, 3000);
	EXPECT_EQ(0, ret);
	EXPECT_EQ(0, res_of(res, ud, sep ? 1 : 2, 2));
	io_uring_queue_exit(&ring);
	ASSERT_EQ(0, uzc_commit(&self->d, tag, 8192));
	EXPECT_TRUE(uzc_io_done(&io, 5000));
	if (io.done)
		EXPECT_EQ(8192, uzc_io_wait(&io));
	free(buf);
}

/*
 * zc_fuzz's history before the stall: an earlier ring of the task torn
 * down with a loan and a READ parked on a fixed pipe; then, on a new
 * ring, a lend and a drained BUF_REMOVE.
 */
TEST_F(zc, drain_after_ring_exit_with_parked_read)
{
	struct io_uring old;
	struct io_uring_sqe *sqe;
	char dst[16];
	int pfd[2], tag, res, tries;
	struct uzc_io io;
	void *buf;

	ASSERT_EQ(0, pipe(pfd));
	ASSERT_EQ(0, io_uring_queue_init(32, &old, IORING_SETUP_SUBMIT_ALL));
	ASSERT_EQ(0, io_uring_register_buffers_sparse(&old, 4));
	ASSERT_EQ(0, io_uring_register_files(&old, &pfd[0], 1));
	START_WRITE(&io, buf, 8192, 45, 0);
	tag = uzc_want_req(&self->d, UBLK_IO_OP_WRITE, 8192);
	ASSERT_GE(tag, 0);
	EXPECT_EQ(8192, uzc_splice_from(&old, self->d.cdev_fd,
					uzc_pos(0, tag, 0), 8192, 0, 0));
	sqe = io_uring_get_sqe(&old);
	io_uring_prep_read(sqe, 0, dst, sizeof(dst), 0);
	sqe->flags = IOSQE_FIXED_FILE;
	sqe->user_data = 0x999;
	ASSERT_EQ(1, io_uring_submit(&old));
	EXPECT_TRUE(uzc_cq_quiet(&old, 50));
	io_uring_queue_exit(&old);
	/* as zc_fuzz: the next ring is made after the old one went */
	io_uring_queue_exit(&self->ring);
	ASSERT_EQ(0, io_uring_queue_init(32, &self->ring,
					 IORING_SETUP_SUBMIT_ALL));
	ASSERT_EQ(0, io_uring_register_buffers_sparse(&self->ring, SLOTS));
	ASSERT_EQ(0, io_uring_register_files(&self->ring, &pfd[0], 1));
	/* the loan comes back with the exit: wait for it */
	for (tries = 0; tries < 200; tries++) {
		res = uzc_splice_from(&self->ring, self->d.cdev_fd,
				      uzc_pos(0, tag, 0), 8192, 2, 0);
		if (res != -EALREADY)
			break;
		usleep(10000);
	}
	EXPECT_EQ(8192, res);
	sqe = io_uring_get_sqe(&self->ring);
	uzc_prep_buf_remove(sqe, 2);
	sqe->flags |= IOSQE_IO_DRAIN;
	EXPECT_EQ(0, uzc_submit_wait(&self->ring, 1, &res, NULL, 3000));
	EXPECT_EQ(0, res);
	ASSERT_EQ(0, uzc_commit(&self->d, tag, 8192));
	EXPECT_TRUE(uzc_io_done(&io, 5000));
	if (io.done)
		EXPECT_EQ(8192, uzc_io_wait(&io));
	close(pfd[0]);
	close(pfd[1]);
	free(buf);
}

TEST_F(zc, drain_after_lend_submit_all_sep)
{
	drain_after(_metadata, self, IORING_SETUP_SUBMIT_ALL, true);
}

/* the ring of seed 101's stall: SQE128, SUBMIT_ALL, files, one submission */
TEST_F(zc, drain_after_lend_fuzz_ring_one)
{
	drain_after(_metadata, self, IORING_SETUP_SUBMIT_ALL |
		    IORING_SETUP_SQE128, false);
}

/*
 * Files with only ->read()/->write() get a user pointer from io_uring,
 * and a lent buffer has none: its sqe->addr is an offset. With server
 * memory mapped at that address (inside a 128 KiB request), WRITE_FIXED
 * to an eventfd (->write only) must not send it, and READ_FIXED from
 * /dev/kmsg (->read only) must not write it.
 */
TEST_F(zc, read_write_only_files_refused)
{
	struct io_uring *ring = &self->ring;
	int cfd = self->d.cdev_fd, tag, efd, kfd;
	const __u64 addr = 0x10000;
	const size_t len = 128 << 10;
	struct iovec iov;
	struct uzc_io io;
	__u64 *mem, val;
	void *buf;

	mem = mmap((void *)addr, 4096, PROT_READ | PROT_WRITE,
		   MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED_NOREPLACE, -1, 0);
	if (mem == MAP_FAILED)
		SKIP(return, "cannot map 0x%llx: %s",
		     (unsigned long long)addr, strerror(errno));
	ASSERT_EQ((void *)addr, (void *)mem);
	mem[0] = 42;

	START_WRITE(&io, buf, len, 42, 0);
	tag = uzc_want_req(&self->d, UBLK_IO_OP_WRITE, len);
	ASSERT_GE(tag, 0);
	ASSERT_EQ(len, uzc_splice_from(ring, cfd, uzc_pos(0, tag, 0), len, 0,
				       0));
	efd = eventfd(0, EFD_NONBLOCK);
	ASSERT_GE(efd, 0);
	/*
	 * 6.12 series: -EOPNOTSUPP; 7.3's loop_rw_iter() refuses every
	 * kernel buffer with -EFAULT.  Either way sqe->addr is no pointer.
	 */
	EXPECT_EQ(UZC_V73 ? -EFAULT : -EOPNOTSUPP,
		  uzc_write_fixed(ring, efd, 0, addr, 8, 0));
	EXPECT_EQ(-1, read(efd, &val, sizeof(val)));	/* counter still 0 */
	EXPECT_EQ(EAGAIN, errno);
	EXPECT_EQ(0, uzc_buf_remove(ring, 0, 0));
	ASSERT_EQ(0, uzc_commit(&self->d, tag, len));
	EXPECT_EQ(len, uzc_io_wait(&io));
	free(buf);

	kfd = open("/dev/kmsg", O_RDONLY | O_NONBLOCK);
	ASSERT_GE(kfd, 0);
	buf = uzc_xalloc(len);
	ASSERT_NE(NULL, buf);
	iov.iov_base = buf;
	iov.iov_len = len;
	ASSERT_EQ(0, uzc_io_start(&self->d, &io, UZC_READ, &iov, 1, 0));
	tag = uzc_want_req(&self->d, UBLK_IO_OP_READ, len);
	ASSERT_GE(tag, 0);
	ASSERT_EQ(len, uzc_splice_from(ring, cfd, uzc_pos(0, tag, 0), len, 1,
				       0));
	EXPECT_EQ(UZC_V73 ? -EFAULT : -EOPNOTSUPP,
		  uzc_read_fixed(ring, kfd, 1, addr, 4096, 0));
	EXPECT_EQ(42, mem[0]);
	EXPECT_EQ(0, uzc_buf_remove(ring, 1, 0));
	/* the pages were not filled: fail the read instead of exposing them */
	ASSERT_EQ(0, uzc_commit(&self->d, tag, -EIO));
	EXPECT_EQ(-EIO, uzc_io_wait(&io));

	close(kfd);
	close(efd);
	free(buf);
	munmap(mem, 4096);
}

/*
 * No lending into an IOPOLL ring: a task's exit does not reap polled
 * requests, which could then keep the pages after the daemon died.
 */
TEST_F(zc, iopoll_ring_refuses_lend)
{
	struct io_uring ring;
	struct io_uring_sqe *sqe;
	struct uzc_io io;
	void *buf;
	int tag;

	ASSERT_EQ(0, io_uring_queue_init(4, &ring, IORING_SETUP_IOPOLL));
	ASSERT_EQ(0, io_uring_register_buffers_sparse(&ring, 2));
	START_WRITE(&io, buf, 4096, 9, 0);
	tag = uzc_want_req(&self->d, UBLK_IO_OP_WRITE, 4096);
	ASSERT_GE(tag, 0);
	sqe = io_uring_get_sqe(&ring);
	uzc_prep_splice_from(sqe, self->d.cdev_fd, uzc_pos(0, tag, 0), 4096,
			     0);
	EXPECT_EQ(-EINVAL, uzc_one(&ring, sqe, UD_LEG));
	io_uring_queue_exit(&ring);
	ASSERT_EQ(0, uzc_commit(&self->d, tag, 4096));
	EXPECT_EQ(4096, uzc_io_wait(&io));
	free(buf);
}

/*
 * A command with IORING_URING_CMD_FIXED may not use a lent buffer: the
 * driver alone would name the direction. Refused at prep, whatever the
 * file (here the char device itself), for both kinds of request.
 */
TEST_F(zc, uring_cmd_refuses_lent_buffer)
{
	struct io_uring *ring = &self->ring;
	int cfd = self->d.cdev_fd, tag, i, res;
	struct io_uring_sqe *sqe;
	struct uzc_io io;
	void *buf;

	for (i = 0; i < 2; i++) {
		struct iovec iov;

		if (i == 0) {
			START_WRITE(&io, buf, 4096, 8, 0);
		} else {
			buf = uzc_xalloc(4096);
			ASSERT_NE(NULL, buf);
			iov.iov_base = buf;
			iov.iov_len = 4096;
			ASSERT_EQ(0, uzc_io_start(&self->d, &io, UZC_READ,
						  &iov, 1, 0));
		}
		tag = uzc_want_req(&self->d, i ? UBLK_IO_OP_READ :
				   UBLK_IO_OP_WRITE, 4096);
		ASSERT_GE(tag, 0);
		ASSERT_EQ(4096, uzc_splice_from(ring, cfd, uzc_pos(0, tag, 0),
						4096, 3, 0));
		sqe = io_uring_get_sqe(ring);
		ASSERT_NE(NULL, sqe);
		memset(sqe, 0, sizeof(*sqe));
		sqe->opcode = IORING_OP_URING_CMD;
		sqe->fd = cfd;
		sqe->uring_cmd_flags = IORING_URING_CMD_FIXED;
		sqe->buf_index = 3;
		sqe->cmd_op = 0;	/* never reaches the driver */
		/*
		 * 7.3 refuses nothing at prep: a uring_cmd imports its fixed
		 * buffer only when the driver asks, naming the direction,
		 * which io_import_fixed() checks.  The command reaches ublk,
		 * which refuses op 0 for tag 0 (-EINVAL, or -EBUSY: a FETCH
		 * of a ready device, depending on the tag's state).
		 */
		res = uzc_one(ring, sqe, UD_LEG);
		if (UZC_V73) {
			EXPECT_TRUE(res == -EINVAL || res == -EBUSY)
				TH_LOG("op 0 through ublk: %d", res);
		} else {
			EXPECT_EQ(-EOPNOTSUPP, res);
		}
		EXPECT_EQ(0, uzc_buf_remove(ring, 3, 0));
		if (i == 1)	/* fill it: an unfilled READ fails */
			ASSERT_EQ(4096, pwrite(cfd, buf, 4096,
					       uzc_pos(0, tag, 0)));
		ASSERT_EQ(0, uzc_commit(&self->d, tag, 4096));
		EXPECT_EQ(4096, uzc_io_wait(&io));
		free(buf);
	}
}

/* a WRITE request's buffer: source only; removal; use after removal */
TEST_F(zc, write_buffer_direction_and_remove)
{
	struct io_uring *ring = &self->ring;
	int cfd = self->d.cdev_fd, tag, fd;
	void *buf, *back;
	struct uzc_io io;

	START_WRITE(&io, buf, 65536, 4, 0);
	tag = uzc_want_req(&self->d, UBLK_IO_OP_WRITE, 65536);
	ASSERT_GE(tag, 0);
	fd = uzc_tmpfile();
	ASSERT_GE(fd, 0);
	back = uzc_xalloc(65536);

	ASSERT_EQ(65536, uzc_splice_from(ring, cfd, uzc_pos(0, tag, 0), 65536,
					 7,
				     0));
	/* the pages hold data: they may not be overwritten */
	EXPECT_EQ(UZC_EDIR, uzc_read_fixed(ring, fd, 7, 0, 4096, 0));
	EXPECT_EQ(65536, uzc_write_fixed(ring, fd, 7, 0, 65536, 0));
	EXPECT_EQ(65536, pread(fd, back, 65536, 0));
	EXPECT_EQ(0, uzc_cmp(buf, back, 65536));

	/* double remove, then use after remove */
	EXPECT_EQ(0, uzc_buf_remove(ring, 7, 0));
	EXPECT_EQ(-ENOENT, uzc_buf_remove(ring, 7, 0));
	EXPECT_EQ(-EFAULT, uzc_write_fixed(ring, fd, 7, 0, 4096, 0));

	/* the slot can be filled again */
	EXPECT_EQ(4096, uzc_splice_from(ring, cfd, uzc_pos(0, tag, 4096), 4096,
					7,
				    0));
	EXPECT_EQ(4096, uzc_write_fixed(ring, fd, 7, 0, 4096, 65536));
	EXPECT_EQ(4096, pread(fd, back, 4096, 65536));
	EXPECT_EQ(0, uzc_cmp((char *)buf + 4096, back, 4096));
	EXPECT_EQ(0, uzc_buf_remove(ring, 7, 0));

	ASSERT_EQ(0, uzc_commit(&self->d, tag, 65536));
	EXPECT_EQ(65536, uzc_io_wait(&io));
	close(fd);
	free(buf);
	free(back);
}

/*
 * A READ request's buffer can never be read out: WRITE_FIXED and SEND_ZC
 * from it fail; READ_FIXED into it fills the reader's buffer.
 */
TEST_F(zc, read_buffer_direction)
{
	struct io_uring *ring = &self->ring;
	int cfd = self->d.cdev_fd, tag, fd, s, res[2];
	struct io_uring_sqe *sqe;
	struct iovec iov;
	struct uzc_io io;
	void *src, *dst;

	src = uzc_xalloc(32768);
	dst = uzc_xalloc(32768);
	uzc_fill(src, 32768, 5);
	fd = uzc_tmpfile();
	ASSERT_GE(fd, 0);
	ASSERT_EQ(32768, pwrite(fd, src, 32768, 0));

	iov.iov_base = dst;
	iov.iov_len = 32768;
	ASSERT_EQ(0, uzc_io_start(&self->d, &io, UZC_READ, &iov, 1, 1 << 20));
	tag = uzc_want_req(&self->d, UBLK_IO_OP_READ, 32768);
	ASSERT_GE(tag, 0);
	ASSERT_EQ(32768, uzc_splice_from(ring, cfd, uzc_pos(0, tag, 0), 32768,
					 0,
				     0));

	EXPECT_EQ(UZC_EDIR, uzc_write_fixed(ring, fd, 0, 0, 32768, 65536));
	EXPECT_EQ(UZC_EDIR, uzc_write_fixed(ring, fd, 0, 100, 1, 65536));

	s = socket(AF_INET, SOCK_DGRAM, 0);
	ASSERT_GE(s, 0);
	sqe = io_uring_get_sqe(ring);
	io_uring_prep_send_zc_fixed(sqe, s, NULL, 4096, 0, 0, 0);
	sqe->user_data = UD_LEG;
	ASSERT_EQ(0, uzc_submit_wait(ring, 1, res, NULL, WAIT_MS));
	EXPECT_EQ(UZC_EDIR, res[0]);
	while (!uzc_cq_quiet(ring, 50))
		uzc_submit_wait(ring, 1, NULL, NULL, WAIT_MS);
	close(s);

	EXPECT_EQ(32768, uzc_read_fixed(ring, fd, 0, 0, 32768, 0));
	EXPECT_EQ(0, uzc_buf_remove(ring, 0, 0));
	ASSERT_EQ(0, uzc_commit(&self->d, tag, 32768));
	EXPECT_EQ(32768, uzc_io_wait(&io));
	EXPECT_EQ(0, uzc_cmp(src, dst, 32768));
	close(fd);
	free(src);
	free(dst);
}

/* SEND_ZC from a WRITE request's buffer, byte-exact over UDP loopback */
TEST_F(zc, send_zc_from_write_buffer)
{
	struct io_uring *ring = &self->ring;
	int cfd = self->d.cdev_fd, tag, tx, rx, res;
	struct sockaddr_in addr = { .sin_family = AF_INET };
	socklen_t alen = sizeof(addr);
	struct io_uring_sqe *sqe;
	struct io_uring_cqe *cqe;
	char got[8192];
	struct uzc_io io;
	void *buf;
	int seen = 0;

	if (uzc_loopback_up()) {
		/* the suite's guests (UBLK_ZC_VARIANT set) have a loopback */
		ASSERT_EQ(0, uzc_variant() != NULL) TH_LOG("cannot bring lo up");
		SKIP(return, "cannot bring lo up");
	}
	rx = socket(AF_INET, SOCK_DGRAM, 0);
	tx = socket(AF_INET, SOCK_DGRAM, 0);
	ASSERT_GE(rx, 0);
	ASSERT_GE(tx, 0);
	addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	ASSERT_EQ(0, bind(rx, (void *)&addr, sizeof(addr)));
	ASSERT_EQ(0, getsockname(rx, (void *)&addr, &alen));
	ASSERT_EQ(0, connect(tx, (void *)&addr, sizeof(addr)));

	START_WRITE(&io, buf, 16384, 6, 0);
	tag = uzc_want_req(&self->d, UBLK_IO_OP_WRITE, 16384);
	ASSERT_GE(tag, 0);
	ASSERT_EQ(16384, uzc_splice_from(ring, cfd, uzc_pos(0, tag, 0), 16384,
					 1,
				     0));
	/* an odd window of the buffer */
	sqe = io_uring_get_sqe(ring);
	io_uring_prep_send_zc_fixed(sqe, tx, (void *)(uintptr_t)1001, 5000, 0,
				    0, 1);
	sqe->user_data = UD_LEG;
	ASSERT_EQ(1, io_uring_submit(ring));
	/* the send CQE (F_MORE) and its notification */
	while (seen < 2) {
		ASSERT_EQ(0, io_uring_wait_cqe(ring, &cqe));
		if (cqe->flags & IORING_CQE_F_NOTIF) {
			seen++;
		} else {
			EXPECT_EQ(5000, cqe->res);
			seen++;
		}
		io_uring_cqe_seen(ring, cqe);
	}
	res = recv(rx, got, sizeof(got), 0);
	EXPECT_EQ(5000, res);
	EXPECT_EQ(0, uzc_cmp((char *)buf + 1001, got, 5000));
	EXPECT_EQ(0, uzc_buf_remove(ring, 1, 0));
	ASSERT_EQ(0, uzc_commit(&self->d, tag, 16384));
	EXPECT_EQ(16384, uzc_io_wait(&io));
	close(rx);
	close(tx);
	free(buf);
}

/*
 * SEND_ZC of a lent buffer whose request pages are physically contiguous
 * (an O_DIRECT WRITE from them: the bio has one multi-page bvec) is
 * charged to the socket for the pages its bytes are in, as the same send
 * from user memory is: 64 KiB fit a 416 KiB send buffer at once with the
 * receiver's window closed.  (Charged PAGE_ALIGN(bv_len + bv_offset) per
 * frag of the multi-page bvec, whose bv_offset grows along the request,
 * the send stalls short of its length until the reader reads.)
 */
TEST_F(zc, send_zc_contiguous_charge)
{
	const size_t area_len = 8 << 20;
	const int len = 64 << 10;
	struct io_uring *ring = &self->ring;
	int cfd = self->d.cdev_fd, tag, tx, rx, n, w_plain, w_lent;
	struct io_uring_sqe *sqe;
	int res[2];
	__u64 ud[2];
	struct uzc_io io;
	struct iovec iov;
	char *area, *p, *got;

	area = uzc_xalloc(area_len);
	got = uzc_xalloc(len);
	ASSERT_NE(NULL, area);
	ASSERT_NE(NULL, got);
	memset(area, 1, area_len);
	p = uzc_contiguous_run(area, area_len, len);
	if (!p) {
		free(area);
		free(got);
		SKIP(return, "no 64 KiB of physically contiguous pages found");
	}
	uzc_fill(p, len, 31);

	/* from user memory: all of it queued at once */
	ASSERT_EQ(0, uzc_tcp_pair(&tx, &rx, 1 << 20, 4096));
	io_uring_prep_send_zc(io_uring_get_sqe(ring), tx, p, len, MSG_WAITALL,
			      0);
	ASSERT_EQ(1, io_uring_submit(ring));
	n = uzc_tcp_wait_queued(tx, rx, len, 3000);
	w_plain = uzc_wmem_queued(tx);
	EXPECT_EQ(len, n);
	ASSERT_TRUE(uzc_read_full(rx, got, len));
	EXPECT_EQ(0, uzc_cmp(p, got, len));
	/* the send CQE and the notification */
	EXPECT_EQ(0, uzc_submit_wait(ring, 2, NULL, NULL, WAIT_MS));
	close(tx);
	close(rx);

	/* the same pages as a WRITE request, lent and sent */
	ASSERT_EQ(0, uzc_tcp_pair(&tx, &rx, 1 << 20, 4096));
	iov.iov_base = p;
	iov.iov_len = len;
	ASSERT_EQ(0, uzc_io_start(&self->d, &io, UZC_WRITE, &iov, 1, 2 << 20));
	tag = uzc_want_req(&self->d, UBLK_IO_OP_WRITE, len);
	ASSERT_GE(tag, 0);
	ASSERT_EQ(len, uzc_splice_from(ring, cfd, uzc_pos(0, tag, 0), len, 2,
				       0));
	sqe = io_uring_get_sqe(ring);
	io_uring_prep_send_zc_fixed(sqe, tx, NULL, len, MSG_WAITALL, 0, 2);
	sqe->user_data = UD_LEG;
	ASSERT_EQ(1, io_uring_submit(ring));
	n = uzc_tcp_wait_queued(tx, rx, len, 3000);
	w_lent = uzc_wmem_queued(tx);
	TH_LOG("user memory: %d bytes charged; lent: %d of %d bytes queued, %d charged",
	       w_plain, n, len, w_lent);
	EXPECT_EQ(len, n);
	EXPECT_GE(2 * w_plain, w_lent);
	memset(got, 0, len);
	ASSERT_TRUE(uzc_read_full(rx, got, len));
	EXPECT_EQ(0, uzc_cmp(p, got, len));
	/* the send CQE (F_MORE) and, the skbs freed, its notification */
	ASSERT_EQ(0, uzc_submit_wait(ring, 2, res, ud, WAIT_MS));
	EXPECT_EQ(UD_LEG, ud[0]);
	EXPECT_EQ(UD_LEG, ud[1]);
	/* the send's res; the notification's is 0 */
	EXPECT_EQ(len, res[0] + res[1]);
	EXPECT_TRUE(!res[0] || !res[1]);
	EXPECT_EQ(0, uzc_buf_remove(ring, 2, 0));
	ASSERT_EQ(0, uzc_commit(&self->d, tag, len));
	EXPECT_EQ(len, uzc_io_wait(&io));
	close(tx);
	close(rx);
	free(area);
	free(got);
}

/*
 * Request bvecs are arbitrary: O_DIRECT buffers only need 4-byte alignment
 * on ublk, so sub-page and sub-sector bvecs appear. Every window, at odd
 * offsets, must come out byte-exact; bounds are checked.
 */
TEST_F(zc, odd_layout_offsets_and_bounds)
{
	static const size_t offs[] = { 0, 1, 3, 4, 5, 511, 512, 513, 1023,
				       1024, 1025, 1536, 4091, 4095, 4096, 4097,
				       8191, 8192, 9000, 12287 };
	static const size_t lens[] = { 1, 7, 512, 513, 4096, 5000 };
	struct io_uring *ring = &self->ring;
	int cfd = self->d.cdev_fd, tag, fd, i, j;
	char *p[4], *flat, *back;
	struct iovec iov[4];
	size_t total = 0;
	struct uzc_io io;

	/* 1024 @ +4092, 512 @ +100, 4608 @ +3588, 8192 @ +8 */
	static const size_t at[4] = { 4092, 100, 3588, 8 };
	static const size_t sz[4] = { 1024, 512, 4608, 8192 };

	flat = uzc_xalloc(16384);
	back = uzc_xalloc(16384);
	for (i = 0; i < 4; i++) {
		p[i] = uzc_xalloc(3 * 4096 + 8192);
		iov[i].iov_base = p[i] + at[i];
		iov[i].iov_len = sz[i];
		uzc_fill(iov[i].iov_base, sz[i], 70 + i);
		memcpy(flat + total, iov[i].iov_base, sz[i]);
		total += sz[i];
	}
	ASSERT_EQ(14336, total);
	ASSERT_EQ(0, uzc_io_start(&self->d, &io, UZC_WRITE, iov, 4, 0));
	tag = uzc_want_req(&self->d, UBLK_IO_OP_WRITE, total);
	ASSERT_GE(tag, 0);
	fd = uzc_tmpfile();
	ASSERT_GE(fd, 0);

	ASSERT_EQ(total, uzc_splice_from(ring, cfd, uzc_pos(0, tag, 0), total,
					 0,
				     0));
	for (i = 0; i < (int)(sizeof(offs) / sizeof(offs[0])); i++) {
		for (j = 0; j < (int)(sizeof(lens) / sizeof(lens[0])); j++) {
			size_t o = offs[i], l = lens[j];

			if (o + l > total)
				l = total - o;
			ASSERT_EQ(0, ftruncate(fd, 0));
			ASSERT_EQ(l, uzc_write_fixed(ring, fd, 0, o, l, 0)) {
				TH_LOG("window %zu+%zu", o, l);
			}
			ASSERT_EQ(l, pread(fd, back, l, 0));
			EXPECT_EQ(0, uzc_cmp(flat + o, back, l)) {
				TH_LOG("window %zu+%zu differs", o, l);
			}
		}
	}
	/* bounds */
	EXPECT_EQ(1, uzc_write_fixed(ring, fd, 0, total - 1, 1, 0));
	EXPECT_EQ(-EFAULT, uzc_write_fixed(ring, fd, 0, total, 1, 0));
	EXPECT_EQ(-EFAULT, uzc_write_fixed(ring, fd, 0, total - 1, 2, 0));
	EXPECT_EQ(-EFAULT, uzc_write_fixed(ring, fd, 0, 0, total + 1, 0));
	EXPECT_EQ(-EFAULT, uzc_write_fixed(ring, fd, 0, (__u64)-4096, 8192, 0));
	EXPECT_EQ(0, uzc_buf_remove(ring, 0, 0));

	/* a partial loan at an odd byte offset is addressed from 0 */
	ASSERT_EQ(5000, uzc_splice_from(ring, cfd, uzc_pos(0, tag, 1001), 5000,
					0,
				    0));
	ASSERT_EQ(0, ftruncate(fd, 0));
	EXPECT_EQ(4999, uzc_write_fixed(ring, fd, 0, 1, 4999, 0));
	EXPECT_EQ(4999, pread(fd, back, 4999, 0));
	EXPECT_EQ(0, uzc_cmp(flat + 1002, back, 4999));
	EXPECT_EQ(-EFAULT, uzc_write_fixed(ring, fd, 0, 1, 5000, 0));
	EXPECT_EQ(0, uzc_buf_remove(ring, 0, 0));

	ASSERT_EQ(0, uzc_commit(&self->d, tag, total));
	EXPECT_EQ(total, uzc_io_wait(&io));
	close(fd);
	for (i = 0; i < 4; i++)
		free(p[i]);
	free(flat);
	free(back);
}

/* a READ with an odd layout, filled through READ_FIXED */
TEST_F(zc, odd_layout_read)
{
	struct io_uring *ring = &self->ring;
	static const size_t at[3] = { 4, 2052, 4088 };
	static const size_t sz[3] = { 4608, 512, 7168 };
	int cfd = self->d.cdev_fd, tag, fd, i;
	char *p[3], *src;
	struct iovec iov[3];
	size_t total = 12288, done = 0;
	struct uzc_io io;

	src = uzc_xalloc(total);
	uzc_fill(src, total, 9);
	fd = uzc_tmpfile();
	ASSERT_GE(fd, 0);
	ASSERT_EQ(total, pwrite(fd, src, total, 0));
	for (i = 0; i < 3; i++) {
		p[i] = uzc_xalloc(4 * 4096);
		iov[i].iov_base = p[i] + at[i];
		iov[i].iov_len = sz[i];
	}
	ASSERT_EQ(0, uzc_io_start(&self->d, &io, UZC_READ, iov, 3, 8192));
	tag = uzc_want_req(&self->d, UBLK_IO_OP_READ, total);
	ASSERT_GE(tag, 0);
	ASSERT_EQ(total, uzc_splice_from(ring, cfd, uzc_pos(0, tag, 0), total,
					 0,
				     0));
	/* in three odd pieces */
	EXPECT_EQ(1001, uzc_read_fixed(ring, fd, 0, 0, 1001, 0));
	EXPECT_EQ(5003, uzc_read_fixed(ring, fd, 0, 1001, 5003, 1001));
	EXPECT_EQ(total - 6004, uzc_read_fixed(ring, fd, 0, 6004, total - 6004,
					   6004));
	EXPECT_EQ(0, uzc_buf_remove(ring, 0, 0));
	ASSERT_EQ(0, uzc_commit(&self->d, tag, total));
	EXPECT_EQ(total, uzc_io_wait(&io));
	for (i = 0; i < 3; i++) {
		EXPECT_EQ(0, uzc_cmp(src + done, iov[i].iov_base, sz[i]));
		done += sz[i];
		free(p[i]);
	}
	close(fd);
	free(src);
}

/*
 * Remove while a user is in flight: the slot is empty at once, but the
 * block request completes only after COMMIT and after the in-flight
 * WRITE_FIXED (to a full pipe) finished with the right bytes.
 */
TEST_F(zc, remove_while_in_flight)
{
	struct io_uring *ring = &self->ring;
	int cfd = self->d.cdev_fd, tag, pfd[2], res[2], i;
	struct io_uring_sqe *sqe;
	char fill[4096], got[4096];
	__u64 ud[2];
	struct uzc_io io;
	void *buf;

	ASSERT_EQ(0, pipe2(pfd, O_NONBLOCK));
	ASSERT_EQ(4096, fcntl(pfd[1], F_SETPIPE_SZ, 4096));
	memset(fill, 'f', sizeof(fill));
	ASSERT_EQ(4096, write(pfd[1], fill, 4096));

	START_WRITE(&io, buf, 8192, 10, 0);
	tag = uzc_want_req(&self->d, UBLK_IO_OP_WRITE, 8192);
	ASSERT_GE(tag, 0);

	sqe = io_uring_get_sqe(ring);
	uzc_prep_splice_from(sqe, cfd, uzc_pos(0, tag, 0), 8192, 4);
	sqe->user_data = UD_SPLICE;
	sqe = io_uring_get_sqe(ring);
	io_uring_prep_write_fixed(sqe, pfd[1], (void *)(uintptr_t)4096, 4096,
				  0, 4);
	sqe->user_data = UD_LEG;
	sqe = io_uring_get_sqe(ring);
	uzc_prep_buf_remove(sqe, 4);
	sqe->user_data = UD_REMOVE;
	ASSERT_EQ(0, uzc_submit_wait(ring, 2, res, ud, WAIT_MS));
	EXPECT_EQ(UD_SPLICE, ud[0]);
	EXPECT_EQ(8192, res[0]);
	EXPECT_EQ(UD_REMOVE, ud[1]);
	EXPECT_EQ(0, res[1]);
	/* the slot is empty, the write still holds the pages */
	EXPECT_EQ(-ENOENT, uzc_buf_remove(ring, 4, 0));
	EXPECT_TRUE(uzc_cq_quiet(ring, 100));

	ASSERT_EQ(0, uzc_commit(&self->d, tag, 8192));
	EXPECT_FALSE(uzc_io_done(&io, 300));

	/* let the write go */
	ASSERT_EQ(4096, read(pfd[0], got, 4096));
	ASSERT_EQ(0, uzc_submit_wait(ring, 1, res, ud, WAIT_MS));
	EXPECT_EQ(UD_LEG, ud[0]);
	EXPECT_EQ(4096, res[0]);
	for (i = 0; i < 100 && read(pfd[0], got, 4096) != 4096; i++)
		usleep(10000);
	EXPECT_EQ(0, uzc_cmp((char *)buf + 4096, got, 4096));
	EXPECT_EQ(8192, uzc_io_wait(&io));
	close(pfd[0]);
	close(pfd[1]);
	free(buf);
}

/*
 * Release does not wait for unrelated requests: a READ parked on a fixed
 * file (it holds the ring's current rsrc node) must not keep the pages,
 * and so the block request, hostage.
 */
TEST_F(zc, release_not_held_by_unrelated_fixed_file)
{
	struct io_uring *ring = &self->ring;
	int cfd = self->d.cdev_fd, tag, pfd[2], fd, res;
	struct io_uring_sqe *sqe;
	char parked[16];
	struct uzc_io io;
	void *buf;

	ASSERT_EQ(0, pipe(pfd));
	ASSERT_EQ(0, io_uring_register_files(ring, &pfd[0], 1));
	sqe = io_uring_get_sqe(ring);
	io_uring_prep_read(sqe, 0, parked, sizeof(parked), 0);
	sqe->flags = IOSQE_FIXED_FILE;
	sqe->user_data = 0x999;
	ASSERT_EQ(1, io_uring_submit(ring));
	EXPECT_TRUE(uzc_cq_quiet(ring, 50));

	fd = uzc_tmpfile();
	ASSERT_GE(fd, 0);
	START_WRITE(&io, buf, 4096, 11, 0);
	tag = uzc_want_req(&self->d, UBLK_IO_OP_WRITE, 4096);
	ASSERT_GE(tag, 0);
	EXPECT_EQ(4096, uzc_splice_from(ring, cfd, uzc_pos(0, tag, 0), 4096, 0,
				    0));
	EXPECT_EQ(4096, uzc_write_fixed(ring, fd, 0, 0, 4096, 0));
	EXPECT_EQ(0, uzc_buf_remove(ring, 0, 0));
	ASSERT_EQ(0, uzc_commit(&self->d, tag, 4096));
	EXPECT_TRUE(uzc_io_done(&io, 5000));
	EXPECT_EQ(4096, uzc_io_wait(&io));

	ASSERT_EQ(1, write(pfd[1], "x", 1));
	ASSERT_EQ(0, uzc_submit_wait(ring, 1, &res, NULL, WAIT_MS));
	EXPECT_EQ(1, res);
	close(pfd[0]);
	close(pfd[1]);
	close(fd);
	free(buf);
}

/* closing the ring releases installed buffers; then the device goes */
TEST_F(zc, ring_exit_releases)
{
	int cfd = self->d.cdev_fd, tag[2];
	struct uzc_io io[2];
	void *buf[2];

	START_WRITE(&io[0], buf[0], 4096, 12, 0);
	tag[0] = uzc_want_req(&self->d, UBLK_IO_OP_WRITE, 4096);
	ASSERT_GE(tag[0], 0);
	START_WRITE(&io[1], buf[1], 8192, 13, 1 << 20);
	tag[1] = uzc_want_req(&self->d, UBLK_IO_OP_WRITE, 8192);
	ASSERT_GE(tag[1], 0);

	EXPECT_EQ(4096, uzc_splice_from(&self->ring, cfd, uzc_pos(0, tag[0], 0),
				    4096, 0, 0));
	EXPECT_EQ(8192, uzc_splice_from(&self->ring, cfd, uzc_pos(0, tag[1], 0),
				    8192, 9, 0));
	/* committed, but the ring still holds the pages */
	ASSERT_EQ(0, uzc_commit(&self->d, tag[0], 4096));
	EXPECT_FALSE(uzc_io_done(&io[0], 300));

	io_uring_queue_exit(&self->ring);
	self->ring_open = false;
	EXPECT_EQ(4096, uzc_io_wait(&io[0]));
	/* released before the commit: completes at commit */
	ASSERT_EQ(0, uzc_commit(&self->d, tag[1], 8192));
	EXPECT_EQ(8192, uzc_io_wait(&io[1]));
	free(buf[0]);
	free(buf[1]);
	/* teardown deletes the device */
}

/* unregistering the table releases installed buffers too */
TEST_F(zc, unregister_releases)
{
	int cfd = self->d.cdev_fd, tag;
	struct uzc_io io;
	void *buf;

	START_WRITE(&io, buf, 4096, 14, 0);
	tag = uzc_want_req(&self->d, UBLK_IO_OP_WRITE, 4096);
	ASSERT_GE(tag, 0);
	EXPECT_EQ(4096, uzc_splice_from(&self->ring, cfd, uzc_pos(0, tag, 0),
					4096,
				    3, 0));
	ASSERT_EQ(0, uzc_commit(&self->d, tag, 4096));
	EXPECT_FALSE(uzc_io_done(&io, 200));
	EXPECT_EQ(0, io_uring_unregister_buffers(&self->ring));
	EXPECT_EQ(4096, uzc_io_wait(&io));
	free(buf);
}

/* splice(2) from the char device stays refused: pages never reach a pipe */
TEST_F(zc, plain_splice_refused)
{
	int tag, pfd[2];
	loff_t pos;
	struct uzc_io io;
	void *buf;

	ASSERT_EQ(0, pipe(pfd));
	START_WRITE(&io, buf, 4096, 15, 0);
	tag = uzc_want_req(&self->d, UBLK_IO_OP_WRITE, 4096);
	ASSERT_GE(tag, 0);
	pos = uzc_pos(0, tag, 0);
	EXPECT_EQ(-1, splice(self->d.cdev_fd, &pos, pfd[1], NULL, 4096, 0));
	EXPECT_EQ(EINVAL, errno);
	ASSERT_EQ(0, uzc_commit(&self->d, tag, 4096));
	EXPECT_EQ(4096, uzc_io_wait(&io));
	close(pfd[0]);
	close(pfd[1]);
	free(buf);
}

static void queue_mirror(struct io_uring *ring, int cfd, __u64 pos, int fd,
			 int legs, __u16 slot)
{
	struct io_uring_sqe *sqe;
	int i;

	sqe = io_uring_get_sqe(ring);
	uzc_prep_splice_from(sqe, cfd, pos, 4096, slot);
	sqe->flags = IOSQE_CQE_SKIP_SUCCESS;
	sqe->user_data = UD_SPLICE;
	for (i = 0; i < legs; i++) {
		sqe = io_uring_get_sqe(ring);
		io_uring_prep_write_fixed(sqe, fd, NULL, 4096, 0, slot);
		sqe->user_data = UD_LEG + i;
	}
	sqe = io_uring_get_sqe(ring);
	uzc_prep_buf_remove(sqe, slot);
	sqe->flags = IOSQE_CQE_SKIP_SUCCESS;
	sqe->user_data = UD_REMOVE;
}

/*
 * The documented failure mode of a mirror submission: SPLICE_FROM fails
 * (its CQE is posted despite IOSQE_CQE_SKIP_SUCCESS) and the legs, prepped
 * after it, see an empty slot (-EFAULT). A failed prep ends the submission
 * unless the ring has IORING_SETUP_SUBMIT_ALL: with it, every SQE runs and
 * BUF_REMOVE finds nothing (-ENOENT); without it, io_uring_submit()
 * returns early and the rest stays queued.
 */
TEST_F(zc, mirror_failed_install)
{
	struct io_uring all, *ring = &self->ring;
	int res[4], i, fd, idle, tag, want;
	struct uzc_io io;
	__u64 ud[4];
	void *buf;

	START_WRITE(&io, buf, 4096, 17, 0);
	tag = uzc_want_req(&self->d, UBLK_IO_OP_WRITE, 4096);
	ASSERT_GE(tag, 0);
	idle = (tag + 1) % DEPTH;
	fd = uzc_tmpfile();
	ASSERT_GE(fd, 0);

	ASSERT_EQ(0, io_uring_queue_init(16, &all, IORING_SETUP_SUBMIT_ALL));
	ASSERT_EQ(0, io_uring_register_buffers_sparse(&all, 4));
	queue_mirror(&all, self->d.cdev_fd, uzc_pos(0, idle, 0), fd, 2, 1);
	ASSERT_EQ(0, uzc_submit_wait(&all, 4, res, ud, WAIT_MS));
	for (i = 0; i < 4; i++) {
		want = -EFAULT;
		if (ud[i] == UD_SPLICE)
			want = -ESRCH;
		else if (ud[i] == UD_REMOVE)
			want = -ENOENT;
		EXPECT_EQ(want, res[i]);
	}
	EXPECT_TRUE(uzc_cq_quiet(&all, 50));
	io_uring_queue_exit(&all);

	/*
	 * Without SUBMIT_ALL the submission stops after the first failed
	 * prep; the rest goes in with the next io_uring_enter() (each
	 * uzc_submit_wait() call submits what is queued).
	 */
	queue_mirror(ring, self->d.cdev_fd, uzc_pos(0, idle, 0), fd, 2, 1);
	/*
	 * On 7.3 the legs import their buffer at issue, so their prep does
	 * not fail and all four go in; their issue fails as before.
	 */
	EXPECT_EQ(UZC_V73 ? 4 : 2, io_uring_submit(ring));
	for (i = 0; i < 4; i++) {
		ASSERT_EQ(0, uzc_submit_wait(ring, 1, &res[i], &ud[i],
					     WAIT_MS));
		want = -EFAULT;
		if (ud[i] == UD_SPLICE)
			want = -ESRCH;
		else if (ud[i] == UD_REMOVE)
			want = -ENOENT;
		EXPECT_EQ(want, res[i]);
	}
	EXPECT_TRUE(uzc_cq_quiet(ring, 50));

	ASSERT_EQ(0, uzc_commit(&self->d, tag, 4096));
	EXPECT_EQ(4096, uzc_io_wait(&io));
	close(fd);
	free(buf);
}

/* two requests lent at once, their legs interleaved in one submission */
TEST_F(zc, two_requests_interleaved)
{
	struct io_uring *ring = &self->ring;
	int tag[2], fd[2], res[4], i, k;
	struct io_uring_sqe *sqe;
	struct uzc_io io[2];
	void *buf[2], *back;
	__u64 ud[4];

	back = uzc_xalloc(12288);
	START_WRITE(&io[0], buf[0], 8192, 18, 0);
	tag[0] = uzc_want_req(&self->d, UBLK_IO_OP_WRITE, 8192);
	ASSERT_GE(tag[0], 0);
	START_WRITE(&io[1], buf[1], 12288, 19, 1 << 20);
	tag[1] = uzc_want_req(&self->d, UBLK_IO_OP_WRITE, 12288);
	ASSERT_GE(tag[1], 0);
	for (k = 0; k < 2; k++) {
		fd[k] = uzc_tmpfile();
		ASSERT_GE(fd[k], 0);
	}
	for (k = 0; k < 2; k++) {
		sqe = io_uring_get_sqe(ring);
		uzc_prep_splice_from(sqe, self->d.cdev_fd,
				     uzc_pos(0, tag[k], 0), k ? 12288 : 8192,
				     12 + k);
		sqe->flags = IOSQE_CQE_SKIP_SUCCESS;
	}
	for (i = 0; i < 4; i++) {
		k = i & 1;
		sqe = io_uring_get_sqe(ring);
		/* each file gets its request twice, second copy after it */
		io_uring_prep_write_fixed(sqe, fd[k], NULL, k ? 12288 : 8192,
					  (i >> 1) * 12288, 12 + k);
		sqe->user_data = UD_LEG + i;
	}
	for (k = 0; k < 2; k++) {
		sqe = io_uring_get_sqe(ring);
		uzc_prep_buf_remove(sqe, 12 + k);
		sqe->flags = IOSQE_CQE_SKIP_SUCCESS;
	}
	ASSERT_EQ(0, uzc_submit_wait(ring, 4, res, ud, WAIT_MS));
	for (i = 0; i < 4; i++)
		EXPECT_EQ((ud[i] - UD_LEG) & 1 ? 12288 : 8192, res[i]);
	EXPECT_TRUE(uzc_cq_quiet(ring, 50));
	for (i = 0; i < 4; i++) {
		size_t len = (i & 1) ? 12288 : 8192;

		k = i & 1;
		EXPECT_EQ(len, pread(fd[k], back, len, (i >> 1) * 12288));
		EXPECT_EQ(0, uzc_cmp(buf[k], back, len));
	}
	ASSERT_EQ(0, uzc_commit(&self->d, tag[1], 12288));
	ASSERT_EQ(0, uzc_commit(&self->d, tag[0], 8192));
	EXPECT_EQ(8192, uzc_io_wait(&io[0]));
	EXPECT_EQ(12288, uzc_io_wait(&io[1]));
	for (k = 0; k < 2; k++) {
		close(fd[k]);
		free(buf[k]);
	}
	free(back);
}

/* a device without UBLK_F_SUPPORT_ZERO_COPY does not lend */
TEST(no_zero_copy_device)
{
	struct uzc_dev d;
	struct io_uring ring;
	int cfd;

	ASSERT_EQ(0, uzc_dev_add(&d, UBLK_F_USER_COPY, 2, 65536, 1 << 20,
				 false));
	EXPECT_FALSE(d.flags & UZC_F_LEND);
	cfd = open(d.cdev_path, O_RDWR);
	ASSERT_GE(cfd, 0);
	ASSERT_EQ(0, io_uring_queue_init(8, &ring, 0));
	ASSERT_EQ(0, io_uring_register_buffers_sparse(&ring, 2));
	EXPECT_EQ(-EOPNOTSUPP, uzc_splice_from(&ring, cfd, uzc_pos(0, 0, 0),
					       4096,
					   0, 0));
	io_uring_queue_exit(&ring);
	close(cfd);
	EXPECT_EQ(0, uzc_dev_del(&d));

	/* zero copy needs user copy: the flag is dropped without it */
	ASSERT_EQ(0, uzc_dev_add(&d, UZC_F_LEND, 2, 65536,
				 1 << 20, false));
	EXPECT_FALSE(d.flags & UZC_F_LEND);
	EXPECT_EQ(0, uzc_dev_del(&d));
}

/*
 * A loan is checked as read(2) or write(2) of the range would be: a daemon
 * whose /dev/ublkcN is open O_RDONLY lends a WRITE request's pages (the
 * ring only reads them) but not a READ request's, which the ring would
 * write: -EBADF, as pwrite() there.  (O_WRONLY cannot serve at all: the
 * descriptors are mapped for reading.)
 */
TEST(lend_respects_open_mode)
{
	const size_t len = 16384;
	struct uzc_io rd, wr;
	struct io_uring ring;
	struct iovec iov;
	void *rbuf, *wbuf;
	struct uzc_dev d;
	int tag;

	ASSERT_EQ(0, uzc_dev_add(&d, ZC_FLAGS, DEPTH, MAX_IO, DEV_SIZE, true));
	ASSERT_TRUE(d.flags & UZC_F_LEND);
	d.cdev_read_only = true;
	ASSERT_EQ(0, uzc_queue_open(&d));
	ASSERT_EQ(0, uzc_dev_start(&d));
	ASSERT_EQ(0, io_uring_queue_init(8, &ring, 0));
	ASSERT_EQ(0, io_uring_register_buffers_sparse(&ring, 2));

	rbuf = uzc_xalloc(len);
	wbuf = uzc_xalloc(len);
	ASSERT_NE(NULL, rbuf);
	ASSERT_NE(NULL, wbuf);
	iov.iov_base = rbuf;
	iov.iov_len = len;
	ASSERT_EQ(0, uzc_io_start(&d, &rd, UZC_READ, &iov, 1, 0));
	tag = uzc_want_req(&d, UBLK_IO_OP_READ, len);
	ASSERT_GE(tag, 0);
	EXPECT_EQ(-1, pwrite(d.cdev_fd, wbuf, len, uzc_pos(0, tag, 0)));
	EXPECT_EQ(EBADF, errno);
	EXPECT_EQ(-EBADF, uzc_splice_from(&ring, d.cdev_fd, uzc_pos(0, tag, 0),
					  len, 0, 0));
	/* nothing was left behind: the slot is empty, the request unlent */
	EXPECT_EQ(-ENOENT, uzc_buf_remove(&ring, 0, 0));
	ASSERT_EQ(0, uzc_commit(&d, tag, -EIO));
	EXPECT_EQ(-EIO, uzc_io_wait(&rd));

	uzc_fill(wbuf, len, 7);
	iov.iov_base = wbuf;
	ASSERT_EQ(0, uzc_io_start(&d, &wr, UZC_WRITE, &iov, 1, 0));
	tag = uzc_want_req(&d, UBLK_IO_OP_WRITE, len);
	ASSERT_GE(tag, 0);
	EXPECT_EQ(len, uzc_splice_from(&ring, d.cdev_fd, uzc_pos(0, tag, 0),
				       len, 1, 0));
	EXPECT_EQ(0, uzc_buf_remove(&ring, 1, 0));
	ASSERT_EQ(0, uzc_commit(&d, tag, len));
	EXPECT_EQ(len, uzc_io_wait(&wr));

	io_uring_queue_exit(&ring);
	EXPECT_EQ(0, uzc_dev_destroy(&d));
	free(rbuf);
	free(wbuf);
}

/* the server dies with a buffer installed and a user in flight */
TEST_F_TIMEOUT(zc, daemon_killed_mid_io, 90)
{
	/* uses its own device served by a child; the fixture's stays idle */
	int ready[2], pfd[2], status, tag;
	struct pollfd pf;
	struct uzc_dev d;
	struct uzc_io io;
	char c = 0, fill[4096];
	pid_t pid;
	void *buf;

	ASSERT_EQ(0, pipe(ready));
	ASSERT_EQ(0, pipe2(pfd, O_NONBLOCK));
	ASSERT_EQ(4096, fcntl(pfd[1], F_SETPIPE_SZ, 4096));
	memset(fill, 'f', sizeof(fill));
	ASSERT_EQ(4096, write(pfd[1], fill, 4096));
	ASSERT_EQ(0, uzc_dev_add(&d, ZC_FLAGS, 2, 65536, 8 << 20, false));

	pid = fork();
	ASSERT_GE(pid, 0);
	if (pid == 0) {
		struct io_uring ring;
		struct io_uring_sqe *sqe;
		char st = 'r';

		close(ready[0]);
		d.ctrl_ready = false;	/* the parent's */
		if (uzc_queue_open(&d) ||
		    io_uring_queue_init(8, &ring, 0) ||
		    io_uring_register_buffers_sparse(&ring, 4))
			st = '1';
		while (st == 'r') {
			tag = uzc_next_req(&d, 60000);
			if (tag < 0) {
				st = '2';
				break;
			}
			if (ublksrv_get_op(uzc_iod(&d, tag)) ==
			    UBLK_IO_OP_WRITE &&
			    uzc_iod(&d, tag)->start_sector == 2048)
				break;
			uzc_serve_default(&d, tag);
		}
		if (st == 'r') {
			sqe = io_uring_get_sqe(&ring);
			uzc_prep_splice_from(sqe, d.cdev_fd, uzc_pos(0, tag, 0),
					     8192, 1);
			sqe->flags = IOSQE_CQE_SKIP_SUCCESS;
			sqe = io_uring_get_sqe(&ring);
			io_uring_prep_write_fixed(sqe, pfd[1], NULL, 4096, 0,
						  1);
			if (io_uring_submit(&ring) != 2)
				st = '3';
		}
		if (write(ready[1], &st, 1) != 1)
			_exit(4);
		pause();
		_exit(0);
	}
	close(ready[1]);

	/* START_DEV while the child serves the partition scan */
	ASSERT_EQ(0, uzc_ctrl_cmd(&d, UBLK_U_CMD_START_DEV, pid, NULL, 0));
	buf = uzc_xalloc(8192);
	ASSERT_NE(NULL, buf);
	uzc_fill(buf, 8192, 16);
	struct iovec iov = { buf, 8192 };
	ASSERT_EQ(0, uzc_io_start(&d, &io, UZC_WRITE, &iov, 1, 2048 * 512));
	pf.fd = ready[0];
	pf.events = POLLIN;
	EXPECT_EQ(1, poll(&pf, 1, 30000));
	EXPECT_EQ(1, read(ready[0], &c, 1));
	EXPECT_EQ('r', c);
	/* the write stays blocked on the full pipe: the request is held */
	EXPECT_FALSE(uzc_io_done(&io, 200));
	kill(pid, SIGKILL);
	ASSERT_EQ(pid, waitpid(pid, &status, 0));
	EXPECT_TRUE(uzc_io_done(&io, 30000));
	if (io.done)
		EXPECT_EQ(-EIO, uzc_io_wait(&io));
	EXPECT_EQ(0, uzc_dev_del(&d));
	close(pfd[0]);
	close(pfd[1]);
	close(ready[0]);
	free(buf);
}

/*
 * Mirror: SPLICE_FROM(skip) ; WRITE_FIXED x N ; BUF_REMOVE(skip), unlinked,
 * in one submission: exactly N CQEs, every file byte-exact; optionally
 * with the legs forced to io-wq.
 */
FIXTURE(mirror) {
	struct uzc_dev d;
	struct io_uring ring;
};

FIXTURE_VARIANT(mirror) {
	int legs;
	bool async;
	unsigned int ring_flags;	/* of the lending ring */
};

FIXTURE_VARIANT_ADD(mirror, legs1) { .legs = 1 };
FIXTURE_VARIANT_ADD(mirror, legs2) { .legs = 2 };
FIXTURE_VARIANT_ADD(mirror, legs4) { .legs = 4 };
FIXTURE_VARIANT_ADD(mirror, legs8) { .legs = 8 };
FIXTURE_VARIANT_ADD(mirror, legs1_iowq) { .legs = 1, .async = true };
FIXTURE_VARIANT_ADD(mirror, legs4_iowq) { .legs = 4, .async = true };
FIXTURE_VARIANT_ADD(mirror, legs8_iowq) { .legs = 8, .async = true };
/* completions run only when the server waits: same N CQEs, same bytes */
FIXTURE_VARIANT_ADD(mirror, legs4_defer_taskrun) {
	.legs = 4,
	.ring_flags = IORING_SETUP_DEFER_TASKRUN | IORING_SETUP_SINGLE_ISSUER,
};

FIXTURE_SETUP(mirror)
{
	memset(self, 0, sizeof(*self));
	self->d.dev_id = -1;
	ASSERT_EQ(0, uzc_dev_create(&self->d, ZC_FLAGS, DEPTH, MAX_IO,
				    DEV_SIZE, false));
	ASSERT_EQ(0, io_uring_queue_init(64, &self->ring,
					 variant->ring_flags));
	ASSERT_EQ(0, io_uring_register_buffers_sparse(&self->ring, SLOTS));
}

FIXTURE_TEARDOWN(mirror)
{
	io_uring_queue_exit(&self->ring);
	EXPECT_EQ(0, uzc_dev_destroy(&self->d));
}

TEST_F_TIMEOUT(mirror, write_legs, 90)
{
	const size_t len = 69632;	/* 68K: not a power of two */
	struct io_uring *ring = &self->ring;
	int fds[8], res[8], round, i, tag;
	char *back = uzc_xalloc(len);
	struct io_uring_sqe *sqe;
	__u64 ud[8];

	/*
	 * IOSQE_ASYNC on a leg is outside the ordering promise: its first
	 * issue is in io-wq, after BUF_REMOVE.  The 6.12 series imports at
	 * prep, so it works there; 7.3 imports at issue.
	 */
	if (variant->async && UZC_V73)
		SKIP(return, "IOSQE_ASYNC legs: not promised with issue-time import (7.3)");
	for (i = 0; i < variant->legs; i++) {
		fds[i] = uzc_tmpfile();
		ASSERT_GE(fds[i], 0);
	}
	/* a few rounds, reusing the slot each time */
	for (round = 0; round < 3; round++) {
		struct uzc_io io;
		void *buf;

		START_WRITE(&io, buf, len, 100 + round, round * len);
		tag = uzc_want_req(&self->d, UBLK_IO_OP_WRITE, len);
		ASSERT_GE(tag, 0);

		sqe = io_uring_get_sqe(ring);
		uzc_prep_splice_from(sqe, self->d.cdev_fd, uzc_pos(0, tag, 0),
				     len, 11);
		sqe->flags = IOSQE_CQE_SKIP_SUCCESS;
		sqe->user_data = UD_SPLICE;
		for (i = 0; i < variant->legs; i++) {
			sqe = io_uring_get_sqe(ring);
			io_uring_prep_write_fixed(sqe, fds[i], NULL, len,
						  round * len, 11);
			if (variant->async)
				sqe->flags = IOSQE_ASYNC;
			sqe->user_data = UD_LEG + i;
		}
		sqe = io_uring_get_sqe(ring);
		uzc_prep_buf_remove(sqe, 11);
		sqe->flags = IOSQE_CQE_SKIP_SUCCESS;
		sqe->user_data = UD_REMOVE;

		ASSERT_EQ(0, uzc_submit_wait(ring, variant->legs, res, ud,
					     WAIT_MS));
		for (i = 0; i < variant->legs; i++) {
			EXPECT_EQ(len, res[i]) {
				TH_LOG("ud %llx", (unsigned long long)ud[i]);
			}
			EXPECT_GE(ud[i], UD_LEG);
			EXPECT_LT(ud[i], UD_LEG + variant->legs);
		}
		EXPECT_TRUE(uzc_cq_quiet(ring, 50));
		for (i = 0; i < variant->legs; i++) {
			memset(back, 0, len);
			EXPECT_EQ(len, pread(fds[i], back, len, round * len));
			EXPECT_EQ(0, uzc_cmp(buf, back, len)) {
				TH_LOG("leg %d round %d", i, round);
			}
		}
		/* the slot is free again */
		EXPECT_EQ(-ENOENT, uzc_buf_remove(ring, 11, 0));
		ASSERT_EQ(0, uzc_commit(&self->d, tag, len));
		EXPECT_EQ(len, uzc_io_wait(&io));
		free(buf);
	}
	for (i = 0; i < variant->legs; i++)
		close(fds[i]);
	free(back);
}

/*
 * Unprivileged devices (UBLK_F_UNPRIVILEGED_DEV, added by a task without
 * CAP_SYS_ADMIN) get no zero copy: 6.12 refuses user copy for them
 * (-EINVAL: its pwrite() would let an untrusted server fill request
 * pages) and zero copy needs user copy, so with it the zero-copy flags
 * are refused too, and without it UBLK_F_SUPPORT_ZERO_COPY is dropped (as
 * for root, no_zero_copy_device) and UBLK_F_AUTO_LEND refused.  The same
 * ADD_DEV without them is accepted (the device is deleted again).
 */
TEST(unprivileged_device_refuses_zero_copy)
{
	const struct {
		__u64 flags;
		int res;
	} t[] = {
		{ ZC_FLAGS, -EINVAL },
		{ ZC_FLAGS | UZC_F_AUTO_LEND, -EINVAL },
		{ UZC_F_LEND | UZC_F_AUTO_LEND, -EINVAL },
		{ UBLK_F_USER_COPY, -EINVAL },
		{ UZC_F_LEND, 0 },
		{ 0, 0 },		/* the control */
	};
	unsigned int i;
	__u64 got;
	int del;

	for (i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
		EXPECT_EQ(t[i].res, uzc_unprivileged_add(t[i].flags, &got, &del))
			TH_LOG("unprivileged ADD_DEV of flags %#llx",
			       (unsigned long long)t[i].flags);
		if (t[i].res)
			continue;
		EXPECT_TRUE(got & UBLK_F_UNPRIVILEGED_DEV);
		EXPECT_FALSE(got & (UZC_F_LEND |
				    UBLK_F_USER_COPY | UZC_F_AUTO_LEND))
			TH_LOG("flags %#llx got %#llx",
			       (unsigned long long)t[i].flags,
			       (unsigned long long)got);
		EXPECT_EQ(0, del) TH_LOG("DEL_DEV: %s", strerror(-del));
	}
}

/*
 * What a server detects the series by: ops 58 and 59 in the probe, and
 * GET_FEATURES with zero copy (bit 0) and UBLK_F_AUTO_LEND (bit 49), but
 * not the regbuf port's UBLK_F_REG_IO_BUF (bit 48, which regbuf_uapi's
 * gate requires on that kernel).
 */
TEST(features_tell_kernels_apart)
{
	__u64 f;

	ASSERT_EQ(0, uzc_get_features(&f));
	EXPECT_TRUE(uzc_have_ops());
	EXPECT_TRUE(f & UZC_F_LEND);
	EXPECT_TRUE(f & UZC_F_AUTO_LEND);
	EXPECT_FALSE(f & UBLK_F_REG_IO_BUF);
}

int main(int argc, char **argv)
{
	uzc_require(uzc_unsupported(), "splice");
	return test_harness_run(argc, argv);
}
