// SPDX-License-Identifier: GPL-2.0
/*
 * uAPI tests of the regbuf series, the design Linux merged (6.15, 6.16),
 * on 6.12:
 *
 *  - UBLK_U_IO_REGISTER_IO_BUF {q_id, tag, addr = slot} installs the pages
 *    of a request the server owns in an empty slot of the issuing ring's
 *    buffer table; READ_FIXED/WRITE_FIXED/SEND_ZC use it in the request's
 *    direction only (-EFAULT otherwise); UBLK_U_IO_UNREGISTER_IO_BUF
 *    empties it.  Device flag UBLK_F_REG_IO_BUF.
 *  - UBLK_F_AUTO_BUF_REG: FETCH/COMMIT_AND_FETCH name a slot of the queue
 *    ring in sqe->addr; the request arrives registered there and the next
 *    COMMIT_AND_FETCH empties it; UBLK_AUTO_BUF_REG_FALLBACK delivers a
 *    request whose registration failed with UBLK_IO_F_NEED_REG_BUF.
 *
 * The test process is the ublk server (one queue); block I/O comes from a
 * helper thread.  Exit 4 (skip) when ublk lacks the flags, unless
 * UBLK_ZC_VARIANT=regbuf: then that fails.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <poll.h>
#include <signal.h>
#include <netinet/in.h>
#include <sys/eventfd.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <sys/wait.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sched.h>

#include "uzc_ring.h"
#include "kselftest_harness.h"
#include "uzc_cases.h"

#define RB_FLAGS	UBLK_F_REG_IO_BUF
#define DEPTH		4
#define MAX_IO		(512 << 10)
#define DEV_SIZE	(64ULL << 20)
#define SLOTS		16
#define WAIT_MS		UZC_WAIT_MS
#define UD_BUFCMD	0x8000
#define UD_LEG		UZC_UD_LEG

/* 6.12's IORING_REGISTER_CLONE_BUFFERS; liburing 2.3 predates it */
#define RB_REGISTER_CLONE_BUFFERS	30
struct rb_clone_buffers {
	__u32 src_fd;
	__u32 flags;
	__u32 pad[6];
};

/* --- helpers --- */

static void prep_buf_cmd(struct io_uring_sqe *sqe, int cfd, __u32 op,
			 __u16 q_id, __u16 tag, __u64 slot)
{
	struct ublksrv_io_cmd *cmd = (struct ublksrv_io_cmd *)&sqe->addr3;

	/* clears addr3 and __pad2: the 16 bytes of the ublk command */
	io_uring_prep_rw(IORING_OP_URING_CMD, sqe, cfd, NULL, 0, 0);
	sqe->cmd_op = op;
	cmd->q_id = q_id;
	cmd->tag = tag;
	cmd->addr = slot;
}

/* REGISTER_IO_BUF / UNREGISTER_IO_BUF on @ring: cqe->res or -errno */
static int buf_cmd(struct io_uring *ring, int cfd, __u32 op, __u16 q_id,
		   __u16 tag, __u64 slot)
{
	struct io_uring_sqe *sqe = io_uring_get_sqe(ring);

	prep_buf_cmd(sqe, cfd, op, q_id, tag, slot);
	return uzc_one(ring, sqe, UD_BUFCMD);
}

static int reg(struct io_uring *ring, int cfd, __u16 tag, __u64 slot)
{
	return buf_cmd(ring, cfd, UBLK_U_IO_REGISTER_IO_BUF, 0, tag, slot);
}

static int unreg(struct io_uring *ring, int cfd, __u64 slot)
{
	return buf_cmd(ring, cfd, UBLK_U_IO_UNREGISTER_IO_BUF, 0, 0, slot);
}

/* put a user buffer into @slot of @ring (sparse table), or empty it */
static int slot_set(struct io_uring *ring, unsigned int slot, void *buf,
		    size_t len)
{
	struct iovec iov = { buf, len };
	__u64 tag = 0;

	return io_uring_register_buffers_update_tag(ring, slot, &iov, &tag, 1);
}

/*
 * One SQE on the queue ring of @d, waited for; ublk completions that come
 * meanwhile are kept for uzc_next_req().  cqe->res or -errno.
 */
static int q_one(struct uzc_dev *d, struct io_uring_sqe *sqe, __u64 ud)
{
	struct __kernel_timespec ts = { .tv_sec = WAIT_MS / 1000 };
	struct io_uring_cqe *cqe;
	__u64 got;
	int ret, res;

	sqe->user_data = ud;
	ret = io_uring_submit(&d->q);
	if (ret < 0)
		return ret;
	for (;;) {
		ret = io_uring_wait_cqe_timeout(&d->q, &cqe, &ts);
		if (ret)
			return ret == -ETIME ? -ETIMEDOUT : ret;
		got = cqe->user_data;
		res = cqe->res;
		io_uring_cqe_seen(&d->q, cqe);
		if (got == ud)
			return res;
		if (got & UZC_UD_IO) {
			d->nr_active--;
			if (res == UBLK_IO_RES_OK && d->nr_pending < UZC_MAX_DEPTH)
				d->pending[d->nr_pending++] = got & 0xffff;
		}
	}
}

/* REGISTER/UNREGISTER_IO_BUF on the queue ring itself */
static int q_buf_cmd(struct uzc_dev *d, __u32 op, __u16 tag, __u64 slot)
{
	struct io_uring_sqe *sqe = io_uring_get_sqe(&d->q);

	prep_buf_cmd(sqe, d->cdev_fd, op, 0, tag, slot);
	return q_one(d, sqe, UD_BUFCMD);
}

static int q_write_fixed(struct uzc_dev *d, int fd, __u16 slot, __u64 addr,
			 __u32 len, off_t off)
{
	struct io_uring_sqe *sqe = io_uring_get_sqe(&d->q);

	io_uring_prep_write_fixed(sqe, fd, (void *)(uintptr_t)addr, len, off,
				  slot);
	return q_one(d, sqe, UD_LEG);
}

static int q_read_fixed(struct uzc_dev *d, int fd, __u16 slot, __u64 addr,
			__u32 len, off_t off)
{
	struct io_uring_sqe *sqe = io_uring_get_sqe(&d->q);

	io_uring_prep_read_fixed(sqe, fd, (void *)(uintptr_t)addr, len, off,
				 slot);
	return q_one(d, sqe, UD_LEG);
}

/*
 * COMMIT_AND_FETCH of @tag that carries IORING_URING_CMD_FIXED on @slot of
 * the queue ring (and @auto_addr in sqe->addr): cqe->res, or -ETIMEDOUT
 * if it was taken as the tag's next FETCH and parked.
 */
static int q_commit_fixed(struct uzc_dev *d, int tag, int res, __u16 slot,
			  __u64 auto_addr)
{
	struct io_uring_sqe *sqe = io_uring_get_sqe(&d->q);
	struct ublksrv_io_cmd *cmd;

	prep_buf_cmd(sqe, d->cdev_fd, UBLK_U_IO_COMMIT_AND_FETCH_REQ, 0, tag,
		     0);
	cmd = (struct ublksrv_io_cmd *)&sqe->addr3;
	cmd->result = res;
	sqe->addr = auto_addr;
	sqe->uring_cmd_flags = IORING_URING_CMD_FIXED;
	sqe->buf_index = slot;
	return q_one(d, sqe, UD_BUFCMD);
}

/*
 * What a refused (or wrongly accepted) fixed COMMIT leaves: if refused,
 * the request is still the server's and a plain COMMIT ends it.  If it
 * was accepted, it holds its own request's pages while it waits for the
 * tag's next request; closing the ring must still end the WRITE and let
 * the device go (on v4 it did not: ublk's cancel skips a tag whose
 * request is started, and the request waited for the command).
 */
static void fixed_commit_outcome(struct __test_metadata *_metadata,
				 struct uzc_dev *d, struct uzc_io *io,
				 int tag, int res)
{
	EXPECT_EQ(-EINVAL, res);
	if (res == -EINVAL) {
		EXPECT_FALSE(uzc_io_done(io, 100));
		ASSERT_EQ(0, uzc_commit(d, tag, 4096));
		EXPECT_EQ(4096, uzc_io_wait(io));
		return;
	}
	uzc_queue_close(d);
	EXPECT_TRUE(uzc_io_done(io, UZC_DEADLINE_MS));
	EXPECT_TRUE(uzc_deleted_within(d, UZC_DEADLINE_MS));
}

/* start a block WRITE of @len pattern bytes (seed @seed) at @off */
#define START_WRITE(d, io, buf, len, seed, off) do {			\
	buf = uzc_xalloc(len);						\
	ASSERT_NE(NULL, buf);						\
	uzc_fill(buf, len, seed);					\
	struct iovec __iov = { buf, len };				\
	ASSERT_EQ(0, uzc_io_start(d, io, UZC_WRITE, &__iov, 1, off));	\
} while (0)

/* --- REGISTER_IO_BUF: one device, one extra ring with a sparse table --- */

FIXTURE(rb) {
	struct uzc_dev d;
	struct io_uring ring;
	bool ring_open;
};

FIXTURE_SETUP(rb)
{
	memset(self, 0, sizeof(*self));
	self->d.dev_id = -1;
	ASSERT_EQ(0, uzc_dev_create(&self->d, RB_FLAGS, DEPTH, MAX_IO,
				    DEV_SIZE, true));
	ASSERT_TRUE(self->d.flags & UBLK_F_REG_IO_BUF);
	ASSERT_EQ(0, io_uring_queue_init(64, &self->ring, 0));
	self->ring_open = true;
	ASSERT_EQ(0, io_uring_register_buffers_sparse(&self->ring, SLOTS));
}

FIXTURE_TEARDOWN(rb)
{
	if (self->ring_open)
		io_uring_queue_exit(&self->ring);
	EXPECT_EQ(0, uzc_dev_destroy(&self->d));
}

/* GET_FEATURES and ADD_DEV agree on both flags */
TEST_F(rb, features)
{
	__u64 features;

	ASSERT_EQ(0, uzc_get_features(&features));
	EXPECT_TRUE(features & UBLK_F_REG_IO_BUF);
	EXPECT_TRUE(features & UBLK_F_AUTO_BUF_REG);
	/* bit 0 stays reserved in this series */
	EXPECT_FALSE(features & UBLK_F_SUPPORT_ZERO_COPY);
	/* no per-tag buffer: no NEED_GET_DATA */
	EXPECT_FALSE(self->d.flags & UBLK_F_NEED_GET_DATA);
}

/* every errno of REGISTER_IO_BUF and UNREGISTER_IO_BUF */
TEST_F(rb, register_errors)
{
	struct io_uring *ring = &self->ring, bare;
	int cfd = self->d.cdev_fd, tag, other;
	void *buf, *ubuf;
	struct uzc_io io;

	/* no request on any tag yet: every FETCH is pending */
	EXPECT_EQ(-EBUSY, reg(ring, cfd, 0, 0));

	START_WRITE(&self->d, &io, buf, 8192, 1, 0);
	tag = uzc_want_req(&self->d, UBLK_IO_OP_WRITE, 8192);
	ASSERT_GE(tag, 0);
	other = (tag + 1) % DEPTH;

	/* bad queue, tag, slot encodings */
	EXPECT_EQ(-EINVAL, buf_cmd(ring, cfd, UBLK_U_IO_REGISTER_IO_BUF, 1,
				   tag, 0));
	EXPECT_EQ(-EINVAL, reg(ring, cfd, DEPTH, 0));
	EXPECT_EQ(-EINVAL, reg(ring, cfd, tag, 1ULL << 32));
	EXPECT_EQ(-EINVAL, reg(ring, cfd, tag, 0x10000));
	/* another tag's command is still pending */
	EXPECT_EQ(-EBUSY, reg(ring, cfd, other, 0));
	/* the table: past its end, or none at all */
	EXPECT_EQ(-EINVAL, reg(ring, cfd, tag, SLOTS));
	ASSERT_EQ(0, io_uring_queue_init(8, &bare, 0));
	EXPECT_EQ(-EINVAL, reg(&bare, cfd, tag, 0));
	EXPECT_EQ(-EINVAL, unreg(&bare, cfd, 0));
	io_uring_queue_exit(&bare);

	/* one registration per slot; a request may be in two slots */
	EXPECT_EQ(0, reg(ring, cfd, tag, 3));
	EXPECT_EQ(-EBUSY, reg(ring, cfd, tag, 3));
	EXPECT_EQ(0, reg(ring, cfd, tag, 4));
	/* a slot that holds a user buffer is occupied too */
	ubuf = uzc_xalloc(4096);
	ASSERT_EQ(1, slot_set(ring, 5, ubuf, 4096));
	EXPECT_EQ(-EBUSY, reg(ring, cfd, tag, 5));
	/* ... and UNREGISTER does not take it (upstream's errno: occupied) */
	EXPECT_EQ(-EBUSY, unreg(ring, cfd, 5));

	/* UNREGISTER: empty slot, past the end, twice */
	EXPECT_EQ(-EINVAL, unreg(ring, cfd, 6));
	EXPECT_EQ(-EINVAL, unreg(ring, cfd, SLOTS));
	EXPECT_EQ(-EINVAL, unreg(ring, cfd, 1ULL << 32));
	EXPECT_EQ(0, unreg(ring, cfd, 3));
	EXPECT_EQ(-EINVAL, unreg(ring, cfd, 3));
	EXPECT_EQ(0, unreg(ring, cfd, 4));

	ASSERT_EQ(0, uzc_commit(&self->d, tag, 8192));
	EXPECT_EQ(8192, uzc_io_wait(&io));
	/* committed: the request is gone */
	EXPECT_EQ(-EBUSY, reg(ring, cfd, tag, 3));
	free(buf);
	free(ubuf);
}

/* requests without data (FLUSH) are refused */
TEST_F(rb, flush_refused)
{
	struct uzc_io io;
	int tag;

	ASSERT_EQ(0, uzc_io_start(&self->d, &io, UZC_FSYNC, NULL, 0, 0));
	tag = uzc_next_req(&self->d, WAIT_MS);
	ASSERT_GE(tag, 0);
	ASSERT_EQ(UBLK_IO_OP_FLUSH, ublksrv_get_op(uzc_iod(&self->d, tag)));
	EXPECT_EQ(-EINVAL, reg(&self->ring, self->d.cdev_fd, tag, 0));
	ASSERT_EQ(0, uzc_commit(&self->d, tag, 0));
	EXPECT_EQ(0, uzc_io_wait(&io));
}

struct other_task {
	struct io_uring *ring;
	int cfd, tag, res;
};

static void *register_elsewhere(void *arg)
{
	struct other_task *t = arg;
	struct io_uring ring;

	t->res = -ENOMEM;
	if (io_uring_queue_init(4, &ring, 0))
		return NULL;
	if (!io_uring_register_buffers_sparse(&ring, 2)) {
		t->res = reg(&ring, t->cfd, t->tag, 0);
		if (!t->res)
			unreg(&ring, t->cfd, 0);
	}
	io_uring_queue_exit(&ring);
	return NULL;
}

static void *unregister_elsewhere(void *arg)
{
	struct other_task *t = arg;

	t->res = unreg(t->ring, t->cfd, 0);
	return NULL;
}

/* only the queue's daemon registers, or unregisters */
TEST_F(rb, not_the_daemon)
{
	struct other_task t = { .cfd = self->d.cdev_fd };
	struct uzc_io io;
	pthread_t th;
	void *buf;

	START_WRITE(&self->d, &io, buf, 4096, 2, 0);
	t.tag = uzc_want_req(&self->d, UBLK_IO_OP_WRITE, 4096);
	ASSERT_GE(t.tag, 0);
	ASSERT_EQ(0, pthread_create(&th, NULL, register_elsewhere, &t));
	pthread_join(th, NULL);
	EXPECT_EQ(-EINVAL, t.res);
	/* the daemon's registration, on the same ring: the thread may not */
	ASSERT_EQ(0, reg(&self->ring, t.cfd, t.tag, 0));
	t.ring = &self->ring;
	ASSERT_EQ(0, pthread_create(&th, NULL, unregister_elsewhere, &t));
	pthread_join(th, NULL);
	EXPECT_EQ(-EINVAL, t.res);
	EXPECT_EQ(0, unreg(&self->ring, t.cfd, 0));
	ASSERT_EQ(0, uzc_commit(&self->d, t.tag, 4096));
	EXPECT_EQ(4096, uzc_io_wait(&io));
	free(buf);
}

/* a device without UBLK_F_REG_IO_BUF registers nothing */
TEST(no_reg_io_buf_device)
{
	struct io_uring ring;
	struct uzc_dev d;
	struct uzc_io io;
	void *buf;
	int tag;

	ASSERT_EQ(0, uzc_dev_create(&d, UBLK_F_USER_COPY, 2, 65536, 1 << 20,
				    false));
	ASSERT_EQ(0, io_uring_queue_init(8, &ring, 0));
	ASSERT_EQ(0, io_uring_register_buffers_sparse(&ring, 2));
	START_WRITE(&d, &io, buf, 4096, 3, 0);
	tag = uzc_want_req(&d, UBLK_IO_OP_WRITE, 4096);
	ASSERT_GE(tag, 0);
	EXPECT_EQ(-EINVAL, reg(&ring, d.cdev_fd, tag, 0));
	EXPECT_EQ(-EINVAL, unreg(&ring, d.cdev_fd, 0));
	ASSERT_EQ(0, uzc_commit(&d, tag, 4096));
	EXPECT_EQ(4096, uzc_io_wait(&io));
	io_uring_queue_exit(&ring);
	EXPECT_EQ(0, uzc_dev_destroy(&d));
	free(buf);
}

/*
 * A WRITE request's pages may only be read: READ_FIXED into them fails
 * with -EFAULT, WRITE_FIXED from them is byte-exact, at any offset;
 * bounds are checked.
 */
TEST_F(rb, write_direction_and_bounds)
{
	struct io_uring *ring = &self->ring;
	int cfd = self->d.cdev_fd, tag, fd;
	void *buf, *back;
	struct uzc_io io;

	START_WRITE(&self->d, &io, buf, 65536, 4, 0);
	tag = uzc_want_req(&self->d, UBLK_IO_OP_WRITE, 65536);
	ASSERT_GE(tag, 0);
	fd = uzc_tmpfile();
	ASSERT_GE(fd, 0);
	back = uzc_xalloc(65536);

	ASSERT_EQ(0, reg(ring, cfd, tag, 7));
	EXPECT_EQ(-EFAULT, uzc_read_fixed(ring, fd, 7, 0, 4096, 0));
	EXPECT_EQ(65536, uzc_write_fixed(ring, fd, 7, 0, 65536, 0));
	EXPECT_EQ(65536, pread(fd, back, 65536, 0));
	EXPECT_EQ(0, uzc_cmp(buf, back, 65536));
	/* an offset that is not page aligned */
	EXPECT_EQ(1000, uzc_write_fixed(ring, fd, 7, 5000, 1000, 1 << 20));
	EXPECT_EQ(1000, pread(fd, back, 1000, 1 << 20));
	EXPECT_EQ(0, uzc_cmp((char *)buf + 5000, back, 1000));
	/* bounds */
	EXPECT_EQ(-EFAULT, uzc_write_fixed(ring, fd, 7, 65536 - 100, 101, 0));
	EXPECT_EQ(-EFAULT, uzc_write_fixed(ring, fd, 7, 65536, 1, 0));
	EXPECT_EQ(0, unreg(ring, cfd, 7));
	/* use after unregister */
	EXPECT_EQ(-EFAULT, uzc_write_fixed(ring, fd, 7, 0, 4096, 0));

	ASSERT_EQ(0, uzc_commit(&self->d, tag, 65536));
	EXPECT_EQ(65536, uzc_io_wait(&io));
	close(fd);
	free(buf);
	free(back);
}

/*
 * A READ request's pages may only be written: WRITE_FIXED and SEND_ZC
 * from them fail with -EFAULT; READ_FIXED fills the reader's buffer.
 */
TEST_F(rb, read_direction)
{
	struct io_uring *ring = &self->ring;
	int cfd = self->d.cdev_fd, tag, fd, s, res;
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
	ASSERT_EQ(0, reg(ring, cfd, tag, 0));

	EXPECT_EQ(-EFAULT, uzc_write_fixed(ring, fd, 0, 0, 32768, 65536));
	EXPECT_EQ(-EFAULT, uzc_write_fixed(ring, fd, 0, 100, 1, 65536));
	s = socket(AF_INET, SOCK_DGRAM, 0);
	ASSERT_GE(s, 0);
	sqe = io_uring_get_sqe(ring);
	io_uring_prep_send_zc_fixed(sqe, s, NULL, 4096, 0, 0, 0);
	sqe->user_data = UD_LEG;
	ASSERT_EQ(0, uzc_submit_wait(ring, 1, &res, NULL, WAIT_MS));
	EXPECT_EQ(-EFAULT, res);
	while (!uzc_cq_quiet(ring, 50))
		uzc_submit_wait(ring, 1, NULL, NULL, WAIT_MS);
	close(s);

	EXPECT_EQ(32768, uzc_read_fixed(ring, fd, 0, 0, 32768, 0));
	EXPECT_EQ(0, unreg(ring, cfd, 0));
	ASSERT_EQ(0, uzc_commit(&self->d, tag, 32768));
	EXPECT_EQ(32768, uzc_io_wait(&io));
	EXPECT_EQ(0, uzc_cmp(src, dst, 32768));
	close(fd);
	free(src);
	free(dst);
}

/* files with only ->write (eventfd) would take the offset as an address */
TEST_F(rb, write_only_file_refused)
{
	struct io_uring *ring = &self->ring;
	int cfd = self->d.cdev_fd, tag, efd;
	struct uzc_io io;
	__u64 val = 0;
	void *buf;

	START_WRITE(&self->d, &io, buf, 4096, 6, 0);
	tag = uzc_want_req(&self->d, UBLK_IO_OP_WRITE, 4096);
	ASSERT_GE(tag, 0);
	efd = eventfd(0, EFD_NONBLOCK);
	ASSERT_GE(efd, 0);
	ASSERT_EQ(0, reg(ring, cfd, tag, 1));
	EXPECT_EQ(-EFAULT, uzc_write_fixed(ring, efd, 1, 0, 8, 0));
	EXPECT_EQ(-1, read(efd, &val, sizeof(val)));
	EXPECT_EQ(0, unreg(ring, cfd, 1));
	ASSERT_EQ(0, uzc_commit(&self->d, tag, 4096));
	EXPECT_EQ(4096, uzc_io_wait(&io));
	close(efd);
	free(buf);
}

/*
 * Bvecs of odd sizes (512-byte pieces from different pages): offsets into
 * the buffer still land on the right bytes.
 */
TEST_F(rb, odd_layout_offsets)
{
	static const size_t piece[] = { 512, 3584, 1024, 8192, 3072 };
	struct io_uring *ring = &self->ring;
	int cfd = self->d.cdev_fd, tag, fd, i;
	size_t total = 0, off;
	struct iovec iov[5];
	struct uzc_io io;
	char *flat, *back;

	for (i = 0; i < 5; i++) {
		/* start each piece mid-page where it can */
		char *p = uzc_xalloc(piece[i] + 4096);

		ASSERT_NE(NULL, p);
		iov[i].iov_base = p + (piece[i] % 4096 ? 4096 - piece[i] % 4096 : 0);
		iov[i].iov_len = piece[i];
		uzc_fill(iov[i].iov_base, piece[i], 10 + i);
		total += piece[i];
	}
	flat = uzc_xalloc(total);
	back = uzc_xalloc(total);
	for (i = 0, off = 0; i < 5; off += piece[i++])
		memcpy(flat + off, iov[i].iov_base, piece[i]);
	ASSERT_EQ(0, uzc_io_start(&self->d, &io, UZC_WRITE, iov, 5, 0));
	tag = uzc_want_req(&self->d, UBLK_IO_OP_WRITE, total);
	ASSERT_GE(tag, 0);
	fd = uzc_tmpfile();
	ASSERT_GE(fd, 0);
	ASSERT_EQ(0, reg(ring, cfd, tag, 2));
	for (off = 0; off < total; off += 1536) {
		size_t len = total - off < 2000 ? total - off : 2000;

		ASSERT_EQ((int)len, uzc_write_fixed(ring, fd, 2, off, len, 0));
		ASSERT_EQ((ssize_t)len, pread(fd, back, len, 0));
		ASSERT_EQ(0, uzc_cmp(flat + off, back, len));
	}
	EXPECT_EQ(0, unreg(ring, cfd, 2));
	ASSERT_EQ(0, uzc_commit(&self->d, tag, total));
	EXPECT_EQ((ssize_t)total, uzc_io_wait(&io));
	close(fd);
	free(flat);
	free(back);
}

/* a mirror: one registration, four concurrent legs, each byte-exact */
TEST_F(rb, mirror_four_legs)
{
	struct io_uring *ring = &self->ring;
	int cfd = self->d.cdev_fd, tag, fds[4], res[4], i;
	struct io_uring_sqe *sqe;
	struct uzc_io io;
	void *buf, *back;

	START_WRITE(&self->d, &io, buf, 131072, 7, 0);
	tag = uzc_want_req(&self->d, UBLK_IO_OP_WRITE, 131072);
	ASSERT_GE(tag, 0);
	ASSERT_EQ(0, reg(ring, cfd, tag, 9));
	for (i = 0; i < 4; i++) {
		fds[i] = uzc_tmpfile();
		ASSERT_GE(fds[i], 0);
		sqe = io_uring_get_sqe(ring);
		io_uring_prep_write_fixed(sqe, fds[i], NULL, 131072, 0, 9);
		sqe->user_data = UD_LEG + i;
	}
	ASSERT_EQ(0, uzc_submit_wait(ring, 4, res, NULL, WAIT_MS));
	back = uzc_xalloc(131072);
	for (i = 0; i < 4; i++) {
		EXPECT_EQ(131072, res[i]);
		EXPECT_EQ(131072, pread(fds[i], back, 131072, 0));
		EXPECT_EQ(0, uzc_cmp(buf, back, 131072));
		close(fds[i]);
	}
	EXPECT_EQ(0, unreg(ring, cfd, 9));
	ASSERT_EQ(0, uzc_commit(&self->d, tag, 131072));
	EXPECT_EQ(131072, uzc_io_wait(&io));
	free(buf);
	free(back);
}

/*
 * The 6.12 recipe for one submission: REGISTER, two WRITE_FIXED legs and
 * UNREGISTER, unlinked, in that order (*_FIXED import at prep, after the
 * REGISTER before them ran inline); forced to io-wq, REGISTER still
 * works, and a leg prepped before it ran finds the slot empty.
 */
TEST_F(rb, one_submission_recipe)
{
	struct io_uring *ring = &self->ring;
	int cfd = self->d.cdev_fd, tag, fd[2], res[4], i;
	struct io_uring_sqe *sqe;
	__u64 ud[4];
	struct uzc_io io;
	void *buf, *back;

	START_WRITE(&self->d, &io, buf, 16384, 9, 0);
	tag = uzc_want_req(&self->d, UBLK_IO_OP_WRITE, 16384);
	ASSERT_GE(tag, 0);
	back = uzc_xalloc(16384);
	sqe = io_uring_get_sqe(ring);
	prep_buf_cmd(sqe, cfd, UBLK_U_IO_REGISTER_IO_BUF, 0, tag, 11);
	sqe->user_data = UD_BUFCMD;
	for (i = 0; i < 2; i++) {
		fd[i] = uzc_tmpfile();
		ASSERT_GE(fd[i], 0);
		sqe = io_uring_get_sqe(ring);
		io_uring_prep_write_fixed(sqe, fd[i], NULL, 16384, 0, 11);
		sqe->user_data = UD_LEG + i;
	}
	sqe = io_uring_get_sqe(ring);
	prep_buf_cmd(sqe, cfd, UBLK_U_IO_UNREGISTER_IO_BUF, 0, 0, 11);
	sqe->user_data = UD_BUFCMD + 1;
	ASSERT_EQ(0, uzc_submit_wait(ring, 4, res, ud, WAIT_MS));
	for (i = 0; i < 4; i++) {
		bool leg = ud[i] == UD_LEG || ud[i] == UD_LEG + 1;

		EXPECT_EQ(leg ? 16384 : 0, res[i]);
	}
	for (i = 0; i < 2; i++) {
		EXPECT_EQ(16384, pread(fd[i], back, 16384, 0));
		EXPECT_EQ(0, uzc_cmp(buf, back, 16384));
	}

	/* REGISTER forced to io-wq: done later, from the daemon's task work */
	sqe = io_uring_get_sqe(ring);
	prep_buf_cmd(sqe, cfd, UBLK_U_IO_REGISTER_IO_BUF, 0, tag, 12);
	sqe->flags = IOSQE_ASYNC;
	EXPECT_EQ(0, uzc_one(ring, sqe, UD_BUFCMD));
	EXPECT_EQ(16384, uzc_write_fixed(ring, fd[0], 12, 0, 16384, 16384));
	EXPECT_EQ(0, unreg(ring, cfd, 12));

	/*
	 * linked: the leg is prepped before the head runs and finds the
	 * slot empty; its failure cancels the head
	 */
	sqe = io_uring_get_sqe(ring);
	prep_buf_cmd(sqe, cfd, UBLK_U_IO_REGISTER_IO_BUF, 0, tag, 13);
	sqe->user_data = UD_BUFCMD;
	sqe->flags = IOSQE_IO_LINK;
	sqe = io_uring_get_sqe(ring);
	io_uring_prep_write_fixed(sqe, fd[1], NULL, 4096, 0, 13);
	sqe->user_data = UD_LEG;
	ASSERT_EQ(0, uzc_submit_wait(ring, 2, res, ud, WAIT_MS));
	for (i = 0; i < 2; i++)
		EXPECT_EQ(ud[i] == UD_LEG ? -EFAULT : -ECANCELED, res[i]);
	EXPECT_EQ(-EINVAL, unreg(ring, cfd, 13));

	ASSERT_EQ(0, uzc_commit(&self->d, tag, 16384));
	EXPECT_EQ(16384, uzc_io_wait(&io));
	close(fd[0]);
	close(fd[1]);
	free(buf);
	free(back);
}

/*
 * The request completes only when it was committed and its buffer is
 * back: commit first, then unregister while a user is still parked on a
 * full pipe; the block I/O ends when that user does.
 */
TEST_F(rb, commit_then_unregister_with_user_in_flight)
{
	struct io_uring *ring = &self->ring;
	int cfd = self->d.cdev_fd, tag, p[2], res;
	struct io_uring_sqe *sqe;
	struct uzc_io io;
	char drain[8192];
	void *buf;

	ASSERT_EQ(0, uzc_full_pipe(p));
	START_WRITE(&self->d, &io, buf, 4096, 8, 0);
	tag = uzc_want_req(&self->d, UBLK_IO_OP_WRITE, 4096);
	ASSERT_GE(tag, 0);
	ASSERT_EQ(0, reg(ring, cfd, tag, 0));
	sqe = io_uring_get_sqe(ring);
	io_uring_prep_write_fixed(sqe, p[1], NULL, 4096, 0, 0);
	sqe->user_data = UD_LEG;
	ASSERT_EQ(1, io_uring_submit(ring));
	EXPECT_TRUE(uzc_cq_quiet(ring, 100));

	ASSERT_EQ(0, uzc_commit(&self->d, tag, 4096));
	EXPECT_FALSE(uzc_io_done(&io, 200));
	EXPECT_EQ(0, unreg(ring, cfd, 0));
	/* the slot is free at once, the pages are still in use */
	EXPECT_FALSE(uzc_io_done(&io, 200));
	/* the tag fetches again meanwhile: the next request works */
	EXPECT_EQ(4096, read(p[0], drain, 4096));
	ASSERT_EQ(0, uzc_submit_wait(ring, 1, &res, NULL, WAIT_MS));
	EXPECT_EQ(4096, res);
	EXPECT_EQ(4096, uzc_io_wait(&io));
	EXPECT_EQ(4096, read(p[0], drain, sizeof(drain)));
	EXPECT_EQ(0, uzc_cmp(buf, drain, 4096));
	close(p[0]);
	close(p[1]);
	free(buf);
}

/*
 * UNREGISTER_IO_BUF of a slot that holds a user buffer: upstream's
 * io_buffer_unregister_bvec() answers -EBUSY (occupied, not by a kernel
 * buffer), -EINVAL only for an empty slot or one past the end.
 */
TEST_F(rb, unregister_user_buffer_busy)
{
	void *ubuf = uzc_xalloc(4096);

	ASSERT_NE(NULL, ubuf);
	ASSERT_EQ(1, slot_set(&self->ring, 5, ubuf, 4096));
	EXPECT_EQ(-EBUSY, unreg(&self->ring, self->d.cdev_fd, 5));
	/* still the user buffer */
	EXPECT_EQ(1, slot_set(&self->ring, 5, NULL, 0));
	free(ubuf);
}

/*
 * An UNREGISTER_IO_BUF linked behind a leg is issued after
 * io_uring_enter() returned, when the SQ entries it came from belong to
 * the application again.  It must act on the slot it was submitted with.
 * Here the application reuses the entry for the next request's REGISTER
 * (slot 1) while the leg is parked on a full pipe; 6.12 reads a
 * uring_cmd's SQE at issue time (io_uring_cmd_prep_setup() defers the
 * copy), so the UNREGISTER empties slot 1 and leaves slot 0 - and with it
 * the first request - registered for good.  Upstream copies at prep
 * (d6211ebbdaa5 "io_uring/uring_cmd: unconditionally copy SQEs at prep
 * time", 6.14-rc; not in 6.12.y; 6.16 copies only for commands not
 * issued inline), and so does regbuf 3/7 (v4: the same patch as
 * splice-rsrc's 3/10) for every request of a link and every forced-async
 * (or drained) one.
 */
TEST_F(rb, linked_unregister_uses_its_own_sqe)
{
	int cfd = self->d.cdev_fd, tag[2], p[2], res[2], i;
	struct io_uring_sqe *sqe;
	struct io_uring small;
	struct uzc_io io[2];
	char drain[8192];
	void *buf[2];
	__u64 ud[2];

	/* two SQ entries: the next two SQEs reuse the ones just submitted */
	ASSERT_EQ(0, io_uring_queue_init(2, &small, 0));
	ASSERT_EQ(0, io_uring_register_buffers_sparse(&small, SLOTS));
	ASSERT_EQ(0, uzc_full_pipe(p));
	START_WRITE(&self->d, &io[0], buf[0], 4096, 41, 0);
	tag[0] = uzc_want_req(&self->d, UBLK_IO_OP_WRITE, 4096);
	ASSERT_GE(tag[0], 0);
	START_WRITE(&self->d, &io[1], buf[1], 4096, 42, 1 << 20);
	tag[1] = uzc_want_req(&self->d, UBLK_IO_OP_WRITE, 4096);
	ASSERT_GE(tag[1], 0);
	ASSERT_EQ(0, reg(&small, cfd, tag[0], 0));

	/* the leg parks on the pipe, UNREGISTER of slot 0 waits behind it */
	sqe = io_uring_get_sqe(&small);
	io_uring_prep_write_fixed(sqe, p[1], NULL, 4096, 0, 0);
	sqe->flags = IOSQE_IO_LINK;
	sqe->user_data = UD_LEG;
	sqe = io_uring_get_sqe(&small);
	prep_buf_cmd(sqe, cfd, UBLK_U_IO_UNREGISTER_IO_BUF, 0, 0, 0);
	sqe->user_data = UD_BUFCMD + 1;
	ASSERT_EQ(2, io_uring_submit(&small));
	EXPECT_TRUE(uzc_cq_quiet(&small, 100));

	/* the application moves on: the same two entries, the next request */
	sqe = io_uring_get_sqe(&small);
	ASSERT_NE(NULL, sqe);
	io_uring_prep_nop(sqe);
	sqe->user_data = UD_BUFCMD + 2;
	sqe = io_uring_get_sqe(&small);
	ASSERT_NE(NULL, sqe);
	prep_buf_cmd(sqe, cfd, UBLK_U_IO_REGISTER_IO_BUF, 0, tag[1], 1);
	sqe->user_data = UD_BUFCMD + 3;
	ASSERT_EQ(0, uzc_submit_wait(&small, 2, res, ud, WAIT_MS));
	EXPECT_EQ(0, res[0]);
	EXPECT_EQ(0, res[1]);

	/* the leg goes through, then the linked UNREGISTER runs */
	EXPECT_EQ(4096, read(p[0], drain, 4096));
	ASSERT_EQ(0, uzc_submit_wait(&small, 2, res, ud, WAIT_MS));
	for (i = 0; i < 2; i++)
		EXPECT_EQ(ud[i] == UD_LEG ? 4096 : 0, res[i]);

	/* slot 0 is empty, slot 1 still holds the second request */
	EXPECT_EQ(-EINVAL, unreg(&small, cfd, 0));
	EXPECT_EQ(0, unreg(&small, cfd, 1));

	/* either way both slots are empty now: both requests complete */
	ASSERT_EQ(0, uzc_commit(&self->d, tag[0], 4096));
	ASSERT_EQ(0, uzc_commit(&self->d, tag[1], 4096));
	EXPECT_EQ(4096, uzc_io_wait(&io[0]));
	EXPECT_EQ(4096, uzc_io_wait(&io[1]));
	EXPECT_EQ(4096, read(p[0], drain, sizeof(drain)));
	EXPECT_EQ(0, uzc_cmp(buf[0], drain, 4096));
	io_uring_queue_exit(&small);
	close(p[0]);
	close(p[1]);
	free(buf[0]);
	free(buf[1]);
}

/*
 * pread()/pwrite() on the char device is user copy, which upstream
 * allows only with UBLK_F_USER_COPY (ublk_check_and_get_req(): -EACCES,
 * added by the 6.15 zero-copy series); this device has only
 * UBLK_F_REG_IO_BUF.
 */
TEST_F(rb, user_copy_refused_without_flag)
{
	struct uzc_io io;
	void *buf, *back;
	ssize_t ret;
	int tag;

	START_WRITE(&self->d, &io, buf, 4096, 43, 0);
	tag = uzc_want_req(&self->d, UBLK_IO_OP_WRITE, 4096);
	ASSERT_GE(tag, 0);
	back = uzc_xalloc(4096);
	ASSERT_NE(NULL, back);
	ret = pread(self->d.cdev_fd, back, 4096, uzc_pos(0, tag, 0));
	EXPECT_EQ(-1, ret);
	EXPECT_EQ(EACCES, errno);
	ret = pwrite(self->d.cdev_fd, back, 4096, uzc_pos(0, tag, 0));
	EXPECT_EQ(-1, ret);
	EXPECT_EQ(EACCES, errno);
	ASSERT_EQ(0, uzc_commit(&self->d, tag, 4096));
	EXPECT_EQ(4096, uzc_io_wait(&io));
	free(buf);
	free(back);
}

/*
 * The daemon closes the ring that holds its FETCHes while it owns a
 * request whose pages are registered in another of its rings: cancel
 * aborts the queue and puts the request's dispatch reference.  A
 * COMMIT_AND_FETCH of that tag through the other ring must not put it
 * again: the registration still holds the request, which may complete
 * only when the slot is emptied.  (Base 6.12 shares the double put for
 * user copy; the registration makes the state easy to reach.)
 */
TEST_F(rb, commit_after_abort_keeps_registration)
{
	struct __kernel_timespec ts = { .tv_sec = WAIT_MS / 1000 };
	struct io_uring_cqe *cqe;
	struct ublksrv_io_cmd *cmd;
	struct io_uring_sqe *sqe;
	struct uzc_io io;
	int tag, cfd, res;
	void *buf;

	START_WRITE(&self->d, &io, buf, 4096, 46, 0);
	tag = uzc_want_req(&self->d, UBLK_IO_OP_WRITE, 4096);
	ASSERT_GE(tag, 0);
	cfd = self->d.cdev_fd;
	ASSERT_EQ(0, reg(&self->ring, cfd, tag, 0));

	/* the queue ring goes: cancel aborts the queue */
	io_uring_queue_exit(&self->d.q);
	self->d.q_ready = false;
	EXPECT_FALSE(uzc_io_done(&io, 500));

	sqe = io_uring_get_sqe(&self->ring);
	prep_buf_cmd(sqe, cfd, UBLK_U_IO_COMMIT_AND_FETCH_REQ, 0, tag, 0);
	cmd = (struct ublksrv_io_cmd *)&sqe->addr3;
	cmd->result = 4096;
	sqe->user_data = UD_BUFCMD + 5;
	res = io_uring_submit(&self->ring);
	EXPECT_EQ(1, res);
	/*
	 * Refused at once (-EINVAL, as for a tag the server does not own):
	 * abort has decided the request's end.  Reap the CQE here, or the
	 * UNREGISTER below would read it as its own.
	 */
	ASSERT_EQ(0, io_uring_wait_cqe_timeout(&self->ring, &cqe, &ts));
	EXPECT_EQ(UD_BUFCMD + 5, cqe->user_data);
	EXPECT_EQ(-EINVAL, cqe->res);
	io_uring_cqe_seen(&self->ring, cqe);
	/* still registered: the request must not have ended */
	EXPECT_FALSE(uzc_io_done(&io, 300));
	EXPECT_EQ(0, unreg(&self->ring, cfd, 0));
	EXPECT_TRUE(uzc_io_done(&io, WAIT_MS));
	EXPECT_EQ(-EIO, uzc_io_wait(&io));
	io_uring_queue_exit(&self->ring);
	self->ring_open = false;
	free(buf);
}

/* closing the ring gives registered buffers back */
TEST_F(rb, ring_exit_releases)
{
	int cfd = self->d.cdev_fd, tag[2];
	struct uzc_io io[2];
	void *buf[2];

	START_WRITE(&self->d, &io[0], buf[0], 4096, 12, 0);
	tag[0] = uzc_want_req(&self->d, UBLK_IO_OP_WRITE, 4096);
	ASSERT_GE(tag[0], 0);
	START_WRITE(&self->d, &io[1], buf[1], 8192, 13, 1 << 20);
	tag[1] = uzc_want_req(&self->d, UBLK_IO_OP_WRITE, 8192);
	ASSERT_GE(tag[1], 0);
	EXPECT_EQ(0, reg(&self->ring, cfd, tag[0], 0));
	EXPECT_EQ(0, reg(&self->ring, cfd, tag[1], 9));
	/* committed, but the ring still holds the pages */
	ASSERT_EQ(0, uzc_commit(&self->d, tag[0], 4096));
	EXPECT_FALSE(uzc_io_done(&io[0], 300));

	io_uring_queue_exit(&self->ring);
	self->ring_open = false;
	EXPECT_EQ(4096, uzc_io_wait(&io[0]));
	/* given back before the commit: completes at commit */
	ASSERT_EQ(0, uzc_commit(&self->d, tag[1], 8192));
	EXPECT_EQ(8192, uzc_io_wait(&io[1]));
	free(buf[0]);
	free(buf[1]);
}

/* unregistering the table, or updating the slot, gives them back too */
TEST_F(rb, table_unregister_and_update_release)
{
	int cfd = self->d.cdev_fd, tag[2];
	struct uzc_io io[2];
	void *buf[2];

	START_WRITE(&self->d, &io[0], buf[0], 4096, 14, 0);
	tag[0] = uzc_want_req(&self->d, UBLK_IO_OP_WRITE, 4096);
	ASSERT_GE(tag[0], 0);
	EXPECT_EQ(0, reg(&self->ring, cfd, tag[0], 3));
	ASSERT_EQ(0, uzc_commit(&self->d, tag[0], 4096));
	EXPECT_FALSE(uzc_io_done(&io[0], 200));
	/* BUFFERS_UPDATE over the slot (to empty) */
	EXPECT_EQ(1, slot_set(&self->ring, 3, NULL, 0));
	EXPECT_EQ(4096, uzc_io_wait(&io[0]));

	START_WRITE(&self->d, &io[1], buf[1], 4096, 15, 4096);
	tag[1] = uzc_want_req(&self->d, UBLK_IO_OP_WRITE, 4096);
	ASSERT_GE(tag[1], 0);
	EXPECT_EQ(0, reg(&self->ring, cfd, tag[1], 3));
	ASSERT_EQ(0, uzc_commit(&self->d, tag[1], 4096));
	EXPECT_FALSE(uzc_io_done(&io[1], 200));
	EXPECT_EQ(0, io_uring_unregister_buffers(&self->ring));
	EXPECT_EQ(4096, uzc_io_wait(&io[1]));
	free(buf[0]);
	free(buf[1]);
}

/*
 * IORING_REGISTER_CLONE_BUFFERS copies user buffers, but a request's
 * pages are lent to one ring: the clone's slot is empty, and can take a
 * registration of its own.
 */
TEST_F(rb, clone_gives_empty_slot)
{
	struct rb_clone_buffers arg = { .src_fd = self->ring.ring_fd };
	struct io_uring *ring = &self->ring, clone;
	int cfd = self->d.cdev_fd, tag, fd;
	void *buf, *ubuf, *back;
	struct uzc_io io;

	START_WRITE(&self->d, &io, buf, 8192, 26, 0);
	tag = uzc_want_req(&self->d, UBLK_IO_OP_WRITE, 8192);
	ASSERT_GE(tag, 0);
	ubuf = uzc_xalloc(4096);
	back = uzc_xalloc(8192);
	uzc_fill(ubuf, 4096, 27);
	ASSERT_EQ(1, slot_set(ring, 5, ubuf, 4096));
	ASSERT_EQ(0, reg(ring, cfd, tag, 3));
	fd = uzc_tmpfile();
	ASSERT_GE(fd, 0);

	ASSERT_EQ(0, io_uring_queue_init(8, &clone, 0));
	ASSERT_EQ(0, syscall(__NR_io_uring_register, clone.ring_fd,
			     RB_REGISTER_CLONE_BUFFERS, &arg, 1));
	EXPECT_EQ(4096, uzc_write_fixed(&clone, fd, 5, (uintptr_t)ubuf, 4096,
					0));
	EXPECT_EQ(-EFAULT, uzc_write_fixed(&clone, fd, 3, 0, 4096, 8192));
	EXPECT_EQ(0, reg(&clone, cfd, tag, 3));
	EXPECT_EQ(8192, uzc_write_fixed(&clone, fd, 3, 0, 8192, 8192));
	EXPECT_EQ(8192, pread(fd, back, 8192, 8192));
	EXPECT_EQ(0, uzc_cmp(buf, back, 8192));
	EXPECT_EQ(0, unreg(&clone, cfd, 3));
	io_uring_queue_exit(&clone);

	/* the source ring's registration is untouched */
	EXPECT_EQ(8192, uzc_write_fixed(ring, fd, 3, 0, 8192, 0));
	EXPECT_EQ(0, unreg(ring, cfd, 3));
	ASSERT_EQ(0, uzc_commit(&self->d, tag, 8192));
	EXPECT_EQ(8192, uzc_io_wait(&io));
	close(fd);
	free(buf);
	free(ubuf);
	free(back);
}

/*
 * SEND_ZC of a WRITE request's pages on a TCP socket whose peer does not
 * read yet (MSG_WAITALL, so the send waits instead of completing short):
 * the slot is emptied and the request committed while the send is parked; the block WRITE completes only after the send's notification
 * (which holds the pages while the network does) has been posted, and
 * the peer reads the request's bytes.
 */
TEST_F(rb, send_zc_of_write_request)
{
	struct io_uring *ring = &self->ring;
	int cfd = self->d.cdev_fd, tag, tx, rx, got = 0, sent = -1;
	struct io_uring_cqe *cqe;
	struct io_uring_sqe *sqe;
	bool notif = false;
	struct uzc_io io;
	void *buf, *back;

	ASSERT_EQ(0, uzc_loopback_up());
	/* small buffers both ways: 64 KiB does not fit */
	ASSERT_EQ(0, uzc_tcp_pair(&tx, &rx, 4096, 4096));
	START_WRITE(&self->d, &io, buf, 65536, 28, 0);
	tag = uzc_want_req(&self->d, UBLK_IO_OP_WRITE, 65536);
	ASSERT_GE(tag, 0);
	ASSERT_EQ(0, reg(ring, cfd, tag, 4));
	sqe = io_uring_get_sqe(ring);
	io_uring_prep_send_zc_fixed(sqe, tx, NULL, 65536, MSG_WAITALL, 0, 4);
	sqe->user_data = UD_LEG;
	ASSERT_EQ(1, io_uring_submit(ring));
	EXPECT_TRUE(uzc_cq_quiet(ring, 200));

	EXPECT_EQ(0, unreg(ring, cfd, 4));
	ASSERT_EQ(0, uzc_commit(&self->d, tag, 65536));
	EXPECT_FALSE(uzc_io_done(&io, 300));

	back = uzc_xalloc(65536);
	EXPECT_TRUE(uzc_read_full(rx, back, 65536));
	EXPECT_EQ(0, uzc_cmp(buf, back, 65536));
	EXPECT_EQ(65536, uzc_io_wait(&io));
	/* both CQEs are there by now: the notification came first */
	while (got < 2 && !io_uring_peek_cqe(ring, &cqe)) {
		if (cqe->flags & IORING_CQE_F_NOTIF)
			notif = true;
		else
			sent = cqe->res;
		io_uring_cqe_seen(ring, cqe);
		got++;
	}
	EXPECT_EQ(65536, sent);
	EXPECT_TRUE(notif);
	close(tx);
	close(rx);
	free(buf);
	free(back);
}

/* --- the server dies: the I/O ends, the device can be deleted --- */

/* the daemon's callbacks (uzc_srv_start), in the child */
static struct io_uring srv_ring;

/* register the test's WRITE, park a WRITE_FIXED of it on a full pipe */
static char srv_register_and_park(struct uzc_srv *s, int tag, __u32 len)
{
	struct io_uring_sqe *sqe;

	if (io_uring_queue_init(8, &srv_ring, 0) ||
	    io_uring_register_buffers_sparse(&srv_ring, 4))
		return '3';
	if (reg(&srv_ring, s->d.cdev_fd, tag, 1))
		return '4';
	sqe = io_uring_get_sqe(&srv_ring);
	io_uring_prep_write_fixed(sqe, s->pipe[1], NULL, 4096, 0, 1);
	if (io_uring_submit(&srv_ring) != 1)
		return '5';
	/* mode 1: a child keeps the ring open after the daemon dies */
	if (s->mode == 1 && uzc_srv_fork_holder(s, false))
		return '6';
	return 'r';
}

TEST_F_TIMEOUT(rb, daemon_killed_mid_io, 90)
{
	struct uzc_srv s;

	/* the fixture's device stays idle; this one is served by a child */
	ASSERT_EQ(0, uzc_srv_start(&s, RB_FLAGS, 2, srv_register_and_park, 0,
				   8192));
	EXPECT_FALSE(uzc_io_done(&s.io, 200));
	uzc_srv_kill(&s);
	EXPECT_TRUE(uzc_io_done(&s.io, UZC_DEADLINE_MS));
	if (s.io.done)
		EXPECT_EQ(-EIO, uzc_io_wait(&s.io));
	EXPECT_TRUE(uzc_srv_close(&s));
}

/*
 * The ring outlives the daemon (a forked child holds it): the request
 * stays registered, as upstream, until the last owner of the ring is
 * gone; then the I/O ends and the device goes.
 */
TEST_F_TIMEOUT(rb, ring_outlives_daemon, 90)
{
	struct uzc_srv s;
	int status;

	ASSERT_EQ(0, uzc_srv_start(&s, RB_FLAGS, 2, srv_register_and_park, 1,
				   8192));
	ASSERT_GT(s.holder, 0);
	uzc_srv_kill(&s);
	EXPECT_FALSE(uzc_io_done(&s.io, 500));
	kill(s.holder, SIGKILL);
	/* reparented to us? then reap it, else init does */
	waitpid(s.holder, &status, WNOHANG);
	s.holder = 0;
	EXPECT_TRUE(uzc_io_done(&s.io, UZC_DEADLINE_MS));
	if (s.io.done)
		EXPECT_EQ(-EIO, uzc_io_wait(&s.io));
	EXPECT_TRUE(uzc_srv_close(&s));
}

/*
 * The daemon commits the test's WRITE while its pages are still
 * registered (REGISTER_IO_BUF, no UNREGISTER_IO_BUF yet), then dies.  The
 * tag's COMMIT_AND_FETCH waits, as the tag's next FETCH, in the queue
 * ring; the request completes only when the registration goes, which the
 * daemon's ring teardown (exit_files()) does.  With the FETCHes tracked in
 * flight (5/9), the exit's cancel loop runs before that teardown and waits
 * for this FETCH; ublk's cancel must then cancel it although its tag's
 * committed request is still started, or the daemon spins in do_exit()
 * for ever.  Mode 0 registers in the queue ring itself, mode 1 in another
 * ring of the daemon.  The commit was accepted: the WRITE ends with the
 * committed length once the registration goes, and the device deletes.
 */
static char srv_register_then_commit(struct uzc_srv *s, int tag, __u32 len)
{
	struct uzc_dev *d = &s->d;

	if (s->mode == 0) {
		if (io_uring_register_buffers_sparse(&d->q, 4) ||
		    q_buf_cmd(d, UBLK_U_IO_REGISTER_IO_BUF, tag, 1))
			return '3';
	} else {
		if (io_uring_queue_init(8, &srv_ring, 0) ||
		    io_uring_register_buffers_sparse(&srv_ring, 4) ||
		    reg(&srv_ring, d->cdev_fd, tag, 1))
			return '4';
	}
	/* the COMMIT_AND_FETCH parks as the tag's next FETCH: no CQE */
	if (uzc_commit(d, tag, len) || !uzc_cq_quiet(&d->q, 50))
		return '5';
	return 'r';
}

/*
 * UBLK_F_AUTO_BUF_REG: the WRITE arrived registered at slot tag of the
 * queue ring; the daemon commits it through another ring of its own, so
 * the commit empties no slot (only the ring the request is registered in
 * can) and the request waits for the queue ring's teardown.
 */
static char srv_auto_commit_elsewhere(struct uzc_srv *s, int tag, __u32 len)
{
	struct ublksrv_io_cmd *cmd;
	struct io_uring_sqe *sqe;

	if (io_uring_queue_init(8, &srv_ring, 0) ||
	    io_uring_register_buffers_sparse(&srv_ring, 4))
		return '3';
	sqe = io_uring_get_sqe(&srv_ring);
	prep_buf_cmd(sqe, s->d.cdev_fd, UBLK_U_IO_COMMIT_AND_FETCH_REQ, 0, tag,
		     0);
	cmd = (struct ublksrv_io_cmd *)&sqe->addr3;
	cmd->result = len;
	/* the tag's next request goes to slot 0 of this ring */
	sqe->addr = (__u64)uzc_auto_buf_flags << 16;
	sqe->user_data = UZC_UD_IO | tag;
	if (io_uring_submit(&srv_ring) != 1 || !uzc_cq_quiet(&srv_ring, 50))
		return '4';
	return 'r';
}

static void commit_registered_then_sigkill(struct __test_metadata *_metadata,
					   __u64 flags, uzc_srv_fn fn,
					   unsigned int mode)
{
	struct uzc_srv s;
	int ret;

	ret = uzc_srv_start(&s, flags, 2, fn, mode, 8192);
	if (ret) {
		/* never leave a daemon (or a device) behind, never wait long */
		if (s.pid > 0)
			uzc_kill_reap(s.pid, UZC_DEADLINE_MS);
		s.pid = 0;
		uzc_srv_close(&s);
		ASSERT_EQ(0, ret);
	}
	/* committed, still registered: the pages are not back yet */
	EXPECT_FALSE(uzc_io_done(&s.io, 200));
	/* a daemon spinning in its exit is freed from outside, and fails */
	uzc_srv_kill_bounded(_metadata, &s);
	EXPECT_TRUE(uzc_io_done(&s.io, UZC_DEADLINE_MS));
	if (s.io.done)
		EXPECT_EQ(8192, uzc_io_wait(&s.io));
	EXPECT_TRUE(uzc_srv_close(&s));
}

TEST_F_TIMEOUT(rb, commit_registered_then_sigkill, 90)
{
	commit_registered_then_sigkill(_metadata, RB_FLAGS,
				       srv_register_then_commit, 0);
}

TEST_F_TIMEOUT(rb, commit_registered_elsewhere_then_sigkill, 90)
{
	commit_registered_then_sigkill(_metadata, RB_FLAGS,
				       srv_register_then_commit, 1);
}

/*
 * User recovery with a registration outstanding: the ring outlives the
 * daemon in a holder, with the test's WRITE registered and in use.  The
 * request was aborted but stays started until the registration is
 * released, and the device is not QUIESCED before (6.12's quiesce waits
 * for every started request), so recovery, which resets the tags'
 * flags, cannot start; the release then ends the request as abort
 * would (-EIO without REISSUE), never as a success, and a new daemon
 * takes over.
 */
TEST_F_TIMEOUT(rb, recovery_waits_for_registration, 90)
{
	struct uzc_srv s;
	int status;

	ASSERT_EQ(0, uzc_srv_start(&s, RB_FLAGS | UBLK_F_USER_RECOVERY, 2,
				   srv_register_and_park, 1, 8192));
	ASSERT_GT(s.holder, 0);
	uzc_srv_kill(&s);
	/* waits up to 5 s for QUIESCED */
	EXPECT_EQ(-ETIMEDOUT, uzc_dev_recover(&s.d));
	EXPECT_FALSE(uzc_io_done(&s.io, 200));

	kill(s.holder, SIGKILL);
	waitpid(s.holder, &status, WNOHANG);
	s.holder = 0;
	EXPECT_TRUE(uzc_io_done(&s.io, UZC_DEADLINE_MS));
	if (s.io.done)
		EXPECT_EQ(-EIO, uzc_io_wait(&s.io));
	EXPECT_EQ(0, uzc_dev_recover(&s.d));
	EXPECT_TRUE(uzc_srv_close(&s));
}

/*
 * --- a request dispatched while its server's ring is closed ---
 *
 * Another process closes the daemon's queue ring while the daemon lives:
 * the ring's exit work cancels, the queue is aborted once, and a request
 * dispatched just before, whose task work has not run yet, is left to
 * that task work.  Run by the live daemon, it must fail the request, not
 * hand it to a server that will never commit it (nor, with
 * UBLK_F_AUTO_BUF_REG, register it in the dying ring).  The daemon is
 * stopped (SIGSTOP: no task work runs) while the READ is dispatched and
 * the ring closed, and continued once the cancel had time to run.
 */
static struct io_uring *ring_to_close;
static int ring_closed_fd = -1;

/* in the daemon, on SIGUSR2: drop its own mapping and fd of the ring */
static void close_ring_on_usr2(int sig)
{
	char c = 'c';

	(void)sig;
	io_uring_queue_exit(ring_to_close);
	if (write(ring_closed_fd, &c, 1) != 1)
		_exit(7);
}

/* serve the test's WRITE, report the queue ring's fd, close it on cue */
static char srv_serve_then_close(struct uzc_srv *s, int tag, __u32 len)
{
	struct sigaction sa = { .sa_handler = close_ring_on_usr2 };

	(void)len;
	ring_to_close = &s->d.q;
	ring_closed_fd = s->ready[1];
	if (sigaction(SIGUSR2, &sa, NULL))
		return '3';
	if (uzc_serve_default(&s->d, tag))
		return '4';
	s->out = s->d.q.ring_fd;
	return 'r';
}

static void dispatch_pending_at_ring_close(struct __test_metadata *_metadata,
					   __u64 flags)
{
	struct __kernel_timespec ts = { .tv_sec = UZC_DEADLINE_MS / 1000 };
	struct io_uring_cqe *cqe;
	struct io_uring ring;
	int pidfd, rfd, fd, status, res = 1;
	struct pollfd pf;
	struct uzc_srv s;
	void *rbuf;
	char c;

	ASSERT_EQ(0, uzc_srv_start(&s, flags, 2, srv_serve_then_close, 0,
				   4096));
	EXPECT_EQ(4096, uzc_io_wait(&s.io));
	/* take the daemon's queue ring, then let the daemon drop its own */
	pidfd = syscall(SYS_pidfd_open, s.pid, 0);
	ASSERT_LE(0, pidfd);
	rfd = syscall(SYS_pidfd_getfd, pidfd, s.out, 0);
	ASSERT_LE(0, rfd);
	close(pidfd);
	ASSERT_EQ(0, kill(s.pid, SIGUSR2));
	pf.fd = s.ready[0];
	pf.events = POLLIN;
	ASSERT_EQ(1, poll(&pf, 1, WAIT_MS));
	ASSERT_EQ(1, read(s.ready[0], &c, 1));
	ASSERT_EQ(0, kill(s.pid, SIGSTOP));
	ASSERT_EQ(s.pid, waitpid(s.pid, &status, WUNTRACED));
	ASSERT_TRUE(WIFSTOPPED(status));

	/* through io_uring: a stuck READ must not stall this process's exit */
	rbuf = uzc_xalloc(4096);
	fd = open(s.d.bdev_path, O_RDONLY | O_DIRECT);
	ASSERT_LE(0, fd);
	ASSERT_EQ(0, io_uring_queue_init(4, &ring, 0));
	io_uring_prep_read(io_uring_get_sqe(&ring), fd, rbuf, 4096, 0);
	ASSERT_EQ(1, io_uring_submit(&ring));
	/* dispatched to the stopped daemon: its task work waits */
	EXPECT_TRUE(uzc_cq_quiet(&ring, 200));

	/* the ring's last reference: teardown starts, its exit work cancels */
	close(rfd);
	usleep(500000);
	ASSERT_EQ(0, kill(s.pid, SIGCONT));
	if (io_uring_wait_cqe_timeout(&ring, &cqe, &ts) == 0) {
		res = cqe->res;
		io_uring_cqe_seen(&ring, cqe);
	}
	EXPECT_EQ(-EIO, res) TH_LOG("the READ dispatched at ring close: %s",
				    res == 1 ? "no completion in 10 s" :
				    strerror(-res));
	uzc_srv_kill(&s);
	/* an open /dev/ublkbN would keep the device */
	close(fd);
	EXPECT_TRUE(uzc_srv_close(&s));
	io_uring_queue_exit(&ring);
	free(rbuf);
}

TEST_F_TIMEOUT(rb, dispatch_pending_at_ring_close, 90)
{
	dispatch_pending_at_ring_close(_metadata, RB_FLAGS);
}

/* --- UBLK_F_AUTO_BUF_REG: slot = tag on the queue ring --- */

/*
 * A ublk command imports no buffer: IORING_URING_CMD_FIXED on one is
 * refused (-EINVAL).  6.12 imports a uring_cmd's fixed buffer at prep and
 * holds it until the command completes, so a COMMIT_AND_FETCH naming the
 * slot of its own request (registered on the queue ring) would hold that
 * request while it waits for the tag's next one.
 */
TEST_F_TIMEOUT(rb, fixed_flag_on_commit_refused, 60)
{
	struct uzc_dev *d = &self->d;
	struct uzc_io io;
	void *buf;
	int tag, res;

	ASSERT_EQ(0, io_uring_register_buffers_sparse(&d->q, 2));
	START_WRITE(d, &io, buf, 4096, 40, 0);
	tag = uzc_want_req(d, UBLK_IO_OP_WRITE, 4096);
	ASSERT_GE(tag, 0);
	ASSERT_EQ(0, q_buf_cmd(d, UBLK_U_IO_REGISTER_IO_BUF, tag, 1));
	res = q_commit_fixed(d, tag, 4096, 1, 0);
	/* refused or parked: the slot is emptied either way */
	EXPECT_EQ(0, q_buf_cmd(d, UBLK_U_IO_UNREGISTER_IO_BUF, 0, 1));
	fixed_commit_outcome(_metadata, d, &io, tag, res);
	free(buf);
}

/*
 * A release op does not fail because of where it runs: UNREGISTER_IO_BUF
 * forced to io-wq (IOSQE_ASYNC) or drained (IOSQE_IO_DRAIN) empties its
 * slot; the request then completes at its commit.
 */
TEST_F(rb, release_runs_anywhere)
{
	struct io_uring *ring = &self->ring;
	int cfd = self->d.cdev_fd, tag;
	struct io_uring_sqe *sqe;
	struct uzc_io io;
	void *buf;

	START_WRITE(&self->d, &io, buf, 8192, 41, 0);
	tag = uzc_want_req(&self->d, UBLK_IO_OP_WRITE, 8192);
	ASSERT_GE(tag, 0);
	ASSERT_EQ(0, reg(ring, cfd, tag, 0));
	ASSERT_EQ(0, reg(ring, cfd, tag, 1));

	sqe = io_uring_get_sqe(ring);
	prep_buf_cmd(sqe, cfd, UBLK_U_IO_UNREGISTER_IO_BUF, 0, 0, 0);
	sqe->flags |= IOSQE_ASYNC;
	EXPECT_EQ(0, uzc_one(ring, sqe, UD_BUFCMD));
	sqe = io_uring_get_sqe(ring);
	prep_buf_cmd(sqe, cfd, UBLK_U_IO_UNREGISTER_IO_BUF, 0, 0, 1);
	sqe->flags |= IOSQE_IO_DRAIN;
	EXPECT_EQ(0, uzc_one(ring, sqe, UD_BUFCMD));
	/* both empty */
	EXPECT_EQ(-EINVAL, unreg(ring, cfd, 0));
	EXPECT_EQ(-EINVAL, unreg(ring, cfd, 1));

	ASSERT_EQ(0, uzc_commit(&self->d, tag, 8192));
	EXPECT_TRUE(uzc_io_done(&io, WAIT_MS));
	EXPECT_EQ(8192, uzc_io_wait(&io));
	free(buf);
}

FIXTURE(ab) {
	struct uzc_dev d;
};

FIXTURE_VARIANT(ab) {
	__u8 flags;		/* UBLK_AUTO_BUF_REG_* in every FETCH/COMMIT */
};
FIXTURE_VARIANT_ADD(ab, plain) { .flags = 0 };
FIXTURE_VARIANT_ADD(ab, fallback) { .flags = UBLK_AUTO_BUF_REG_FALLBACK };

FIXTURE_SETUP(ab)
{
	memset(self, 0, sizeof(*self));
	self->d.dev_id = -1;
	uzc_auto_buf_slots = SLOTS;
	uzc_auto_buf_flags = variant->flags;
	ASSERT_EQ(0, uzc_dev_create(&self->d,
				    UBLK_F_AUTO_BUF_REG | UBLK_F_REG_IO_BUF,
				    DEPTH, MAX_IO, DEV_SIZE, true));
	ASSERT_TRUE(self->d.flags & UBLK_F_AUTO_BUF_REG);
}

FIXTURE_TEARDOWN(ab)
{
	EXPECT_EQ(0, uzc_dev_destroy(&self->d));
}

/* a WRITE arrives registered at its tag's slot, read-only; COMMIT empties it */
TEST_F(ab, write_registered_at_delivery)
{
	struct uzc_dev *d = &self->d;
	struct uzc_io io;
	void *buf, *back;
	int tag, fd;

	START_WRITE(d, &io, buf, 65536, 20, 0);
	tag = uzc_want_req(d, UBLK_IO_OP_WRITE, 65536);
	ASSERT_GE(tag, 0);
	EXPECT_FALSE(uzc_iod(d, tag)->op_flags & UBLK_IO_F_NEED_REG_BUF);
	fd = uzc_tmpfile();
	ASSERT_GE(fd, 0);
	back = uzc_xalloc(65536);
	EXPECT_EQ(-EFAULT, q_read_fixed(d, fd, tag, 0, 4096, 0));
	EXPECT_EQ(65536, q_write_fixed(d, fd, tag, 0, 65536, 0));
	EXPECT_EQ(65536, pread(fd, back, 65536, 0));
	EXPECT_EQ(0, uzc_cmp(buf, back, 65536));
	/* the slot is taken until the commit */
	EXPECT_EQ(-EBUSY, q_buf_cmd(d, UBLK_U_IO_REGISTER_IO_BUF, tag, tag));
	ASSERT_EQ(0, uzc_commit(d, tag, 65536));
	EXPECT_EQ(65536, uzc_io_wait(&io));
	/* empty now */
	EXPECT_EQ(-EFAULT, q_write_fixed(d, fd, tag, 0, 4096, 0));
	close(fd);
	free(buf);
	free(back);
}

/* a READ arrives registered write-only; READ_FIXED fills the reader */
TEST_F(ab, read_registered_at_delivery)
{
	struct uzc_dev *d = &self->d;
	struct iovec iov;
	struct uzc_io io;
	void *src, *dst;
	int tag, fd;

	src = uzc_xalloc(16384);
	dst = uzc_xalloc(16384);
	uzc_fill(src, 16384, 21);
	fd = uzc_tmpfile();
	ASSERT_GE(fd, 0);
	ASSERT_EQ(16384, pwrite(fd, src, 16384, 0));
	iov.iov_base = dst;
	iov.iov_len = 16384;
	ASSERT_EQ(0, uzc_io_start(d, &io, UZC_READ, &iov, 1, 1 << 20));
	tag = uzc_want_req(d, UBLK_IO_OP_READ, 16384);
	ASSERT_GE(tag, 0);
	EXPECT_EQ(-EFAULT, q_write_fixed(d, fd, tag, 0, 4096, 65536));
	EXPECT_EQ(16384, q_read_fixed(d, fd, tag, 0, 16384, 0));
	ASSERT_EQ(0, uzc_commit(d, tag, 16384));
	EXPECT_EQ(16384, uzc_io_wait(&io));
	EXPECT_EQ(0, uzc_cmp(src, dst, 16384));
	close(fd);
	free(src);
	free(dst);
}

/* reserved bits and unknown flags in sqe->addr fail the command */
TEST_F(ab, bad_auto_buf_reg)
{
	static const __u64 bad[] = {
		1ULL << 17,		/* unknown flag */
		1ULL << 24,		/* reserved0 */
		1ULL << 40,		/* reserved1 */
	};
	struct uzc_dev *d = &self->d;
	struct ublksrv_io_cmd *cmd;
	struct io_uring_sqe *sqe;
	struct uzc_io io;
	unsigned int i;
	void *buf;
	int tag;

	START_WRITE(d, &io, buf, 4096, 22, 0);
	tag = uzc_want_req(d, UBLK_IO_OP_WRITE, 4096);
	ASSERT_GE(tag, 0);
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		sqe = io_uring_get_sqe(&d->q);
		prep_buf_cmd(sqe, d->cdev_fd, UBLK_U_IO_COMMIT_AND_FETCH_REQ,
			     0, tag, 0);
		cmd = (struct ublksrv_io_cmd *)&sqe->addr3;
		cmd->result = 4096;
		sqe->addr = tag | bad[i];
		EXPECT_EQ(-EINVAL, q_one(d, sqe, UD_BUFCMD));
	}
	/* nothing happened: the request is still the server's */
	EXPECT_FALSE(uzc_io_done(&io, 100));
	ASSERT_EQ(0, uzc_commit(d, tag, 4096));
	EXPECT_EQ(4096, uzc_io_wait(&io));
	free(buf);
}

/*
 * Registration fails (every slot the FETCHes name holds a user buffer):
 * without the fallback flag the request fails and the server never sees
 * it; with it, the request arrives with UBLK_IO_F_NEED_REG_BUF and is
 * served as upstream's fallback server serves it: REGISTER_IO_BUF into a
 * free slot of the queue ring (the device has UBLK_F_REG_IO_BUF too),
 * READ_FIXED, UNREGISTER_IO_BUF.  User copy stays closed (-EACCES: no
 * UBLK_F_USER_COPY).
 */
TEST_F(ab, registration_fails)
{
	struct uzc_dev *d = &self->d;
	void *ubuf, *src, *dst;
	struct iovec iov;
	struct uzc_io io;
	int i, tag, fd;

	ubuf = uzc_xalloc(4096);
	for (i = 0; i < DEPTH; i++)
		ASSERT_EQ(1, slot_set(&d->q, i, ubuf, 4096));
	src = uzc_xalloc(8192);
	dst = uzc_xalloc(8192);
	uzc_fill(src, 8192, 23);
	iov.iov_base = dst;
	iov.iov_len = 8192;
	ASSERT_EQ(0, uzc_io_start(d, &io, UZC_READ, &iov, 1, 1 << 20));
	if (!variant->flags) {
		EXPECT_EQ(-ETIMEDOUT, uzc_next_req(d, 500));
		EXPECT_TRUE(uzc_io_done(&io, WAIT_MS));
		EXPECT_EQ(-EIO, uzc_io_wait(&io));
	} else {
		tag = uzc_want_req(d, UBLK_IO_OP_READ, 8192);
		ASSERT_GE(tag, 0);
		EXPECT_TRUE(uzc_iod(d, tag)->op_flags & UBLK_IO_F_NEED_REG_BUF);
		/* the slot is not the request's: a user buffer, occupied */
		EXPECT_EQ(-EBUSY,
			  q_buf_cmd(d, UBLK_U_IO_UNREGISTER_IO_BUF, 0, tag));
		EXPECT_EQ(-1, pwrite(d->cdev_fd, src, 8192,
				     uzc_pos(0, tag, 0)));
		EXPECT_EQ(EACCES, errno);
		fd = uzc_tmpfile();
		ASSERT_GE(fd, 0);
		ASSERT_EQ(8192, pwrite(fd, src, 8192, 0));
		ASSERT_EQ(0, q_buf_cmd(d, UBLK_U_IO_REGISTER_IO_BUF, tag,
				       DEPTH));
		EXPECT_EQ(8192, q_read_fixed(d, fd, DEPTH, 0, 8192, 0));
		EXPECT_EQ(0, q_buf_cmd(d, UBLK_U_IO_UNREGISTER_IO_BUF, 0,
				       DEPTH));
		close(fd);
		ASSERT_EQ(0, uzc_commit(d, tag, 8192));
		EXPECT_EQ(8192, uzc_io_wait(&io));
		EXPECT_EQ(0, uzc_cmp(src, dst, 8192));
	}
	/* slots free again: the next request is registered */
	for (i = 0; i < DEPTH; i++)
		ASSERT_EQ(1, slot_set(&d->q, i, NULL, 0));
	ASSERT_EQ(0, uzc_io_start(d, &io, UZC_READ, &iov, 1, 1 << 20));
	tag = uzc_want_req(d, UBLK_IO_OP_READ, 8192);
	ASSERT_GE(tag, 0);
	EXPECT_FALSE(uzc_iod(d, tag)->op_flags & UBLK_IO_F_NEED_REG_BUF);
	EXPECT_EQ(0, q_buf_cmd(d, UBLK_U_IO_UNREGISTER_IO_BUF, 0, tag));
	/* emptied by hand: COMMIT has nothing left to empty */
	ASSERT_EQ(0, uzc_commit(d, tag, 0));
	EXPECT_EQ(-EIO, uzc_io_wait(&io));
	free(ubuf);
	free(src);
	free(dst);
}

/* FLUSH carries no data: delivered, not registered */
TEST_F(ab, flush_not_registered)
{
	struct uzc_dev *d = &self->d;
	struct uzc_io io;
	int tag;

	ASSERT_EQ(0, uzc_io_start(d, &io, UZC_FSYNC, NULL, 0, 0));
	tag = uzc_next_req(d, WAIT_MS);
	ASSERT_GE(tag, 0);
	EXPECT_EQ(UBLK_IO_OP_FLUSH, ublksrv_get_op(uzc_iod(d, tag)));
	EXPECT_FALSE(uzc_iod(d, tag)->op_flags & UBLK_IO_F_NEED_REG_BUF);
	EXPECT_EQ(-EINVAL, q_buf_cmd(d, UBLK_U_IO_UNREGISTER_IO_BUF, 0, tag));
	ASSERT_EQ(0, uzc_commit(d, tag, 0));
	EXPECT_EQ(0, uzc_io_wait(&io));
}

/*
 * COMMIT_AND_FETCH while a user of the pages is parked on a full pipe, on
 * the same ring as the FETCH: the request waits for the user; closing
 * that ring ends both, and the device can still be deleted.
 */
TEST_F_TIMEOUT(ab, commit_with_user_in_flight_then_ring_exit, 60)
{
	struct uzc_dev *d = &self->d;
	struct io_uring_sqe *sqe;
	struct uzc_io io;
	void *buf;
	int tag, p[2];

	ASSERT_EQ(0, uzc_full_pipe(p));
	START_WRITE(d, &io, buf, 4096, 24, 0);
	tag = uzc_want_req(d, UBLK_IO_OP_WRITE, 4096);
	ASSERT_GE(tag, 0);
	sqe = io_uring_get_sqe(&d->q);
	io_uring_prep_write_fixed(sqe, p[1], NULL, 4096, 0, tag);
	sqe->user_data = UD_LEG;
	ASSERT_EQ(1, io_uring_submit(&d->q));
	ASSERT_EQ(0, uzc_commit(d, tag, 4096));
	EXPECT_FALSE(uzc_io_done(&io, 300));

	uzc_queue_close(d);
	EXPECT_TRUE(uzc_io_done(&io, UZC_DEADLINE_MS));
	if (io.done)
		EXPECT_EQ(4096, uzc_io_wait(&io));
	EXPECT_TRUE(uzc_deleted_within(d, UZC_DEADLINE_MS));
	close(p[0]);
	close(p[1]);
	free(buf);
}

/* the daemon dies while its auto-registered WRITE is in use */
static char srv_auto_park(struct uzc_srv *s, int tag, __u32 len)
{
	struct io_uring_sqe *sqe = io_uring_get_sqe(&s->d.q);

	io_uring_prep_write_fixed(sqe, s->pipe[1], NULL, 4096, 0, tag);
	sqe->user_data = UD_LEG;
	return io_uring_submit(&s->d.q) == 1 ? 'r' : '5';
}

TEST_F_TIMEOUT(ab, daemon_killed_mid_io, 90)
{
	struct uzc_srv s;

	ASSERT_EQ(0, uzc_srv_start(&s, UBLK_F_AUTO_BUF_REG, 2, srv_auto_park,
				   0, 8192));
	EXPECT_FALSE(uzc_io_done(&s.io, 200));
	uzc_srv_kill(&s);
	EXPECT_TRUE(uzc_io_done(&s.io, UZC_DEADLINE_MS));
	if (s.io.done)
		EXPECT_EQ(-EIO, uzc_io_wait(&s.io));
	EXPECT_TRUE(uzc_srv_close(&s));
}

/* committed through another ring, the slot still full: see above */
TEST_F_TIMEOUT(ab, commit_registered_then_sigkill, 90)
{
	commit_registered_then_sigkill(_metadata, UBLK_F_AUTO_BUF_REG,
				       srv_auto_commit_elsewhere, 0);
}

/* the same with registration at delivery, into the dying ring */
TEST_F_TIMEOUT(ab, dispatch_pending_at_ring_close, 90)
{
	dispatch_pending_at_ring_close(_metadata, UBLK_F_AUTO_BUF_REG);
}

/* the same on an automatic registration: the slot is the tag's */
TEST_F_TIMEOUT(ab, fixed_flag_on_commit_refused, 60)
{
	struct uzc_dev *d = &self->d;
	struct uzc_io io;
	void *buf;
	int tag, res;

	START_WRITE(d, &io, buf, 4096, 42, 0);
	tag = uzc_want_req(d, UBLK_IO_OP_WRITE, 4096);
	ASSERT_GE(tag, 0);
	res = q_commit_fixed(d, tag, 4096, tag,
			     tag | (__u64)variant->flags << 16);
	fixed_commit_outcome(_metadata, d, &io, tag, res);
	free(buf);
}

/*
 * Slot collision: a COMMIT names, for its tag's next request, the slot
 * another tag's request is registered in.  The registration fails
 * (-EBUSY): without the fallback flag the request fails (-EIO) and the
 * server never sees it; with it, the request arrives with
 * UBLK_IO_F_NEED_REG_BUF and is served through a free slot.  Either way
 * the occupied slot keeps the other request's pages, byte-exact, also
 * after the colliding tag's next COMMIT, which empties no slot.  Depth 2,
 * so that the third WRITE takes the committed tag.
 */
TEST_F(ab, occupied_slot_left_alone)
{
	struct uzc_dev d2 = { .dev_id = -1 };
	struct ublksrv_io_cmd *cmd;
	struct io_uring_sqe *sqe;
	struct uzc_io io1, io2, io3;
	void *buf1, *buf2, *buf3, *back;
	int a, b, t, fd;

	ASSERT_EQ(0, uzc_dev_create(&d2, UBLK_F_AUTO_BUF_REG |
				    UBLK_F_REG_IO_BUF, 2, MAX_IO, DEV_SIZE,
				    true));
	fd = uzc_tmpfile();
	ASSERT_GE(fd, 0);
	back = uzc_xalloc(16384);
	START_WRITE(&d2, &io1, buf1, 8192, 43, 0);
	a = uzc_want_req(&d2, UBLK_IO_OP_WRITE, 8192);
	ASSERT_GE(a, 0);
	START_WRITE(&d2, &io2, buf2, 16384, 44, 1 << 20);
	b = uzc_want_req(&d2, UBLK_IO_OP_WRITE, 16384);
	ASSERT_GE(b, 0);
	ASSERT_NE(a, b);

	/* commit a, naming b's slot for a's next request */
	sqe = io_uring_get_sqe(&d2.q);
	prep_buf_cmd(sqe, d2.cdev_fd, UBLK_U_IO_COMMIT_AND_FETCH_REQ, 0, a, 0);
	cmd = (struct ublksrv_io_cmd *)&sqe->addr3;
	cmd->result = 8192;
	sqe->addr = b | (__u64)variant->flags << 16;
	sqe->user_data = UZC_UD_IO | a;
	ASSERT_EQ(1, io_uring_submit(&d2.q));
	d2.nr_active++;
	EXPECT_TRUE(uzc_io_done(&io1, WAIT_MS));
	EXPECT_EQ(8192, uzc_io_wait(&io1));

	START_WRITE(&d2, &io3, buf3, 4096, 45, 2 << 20);
	if (!variant->flags) {
		EXPECT_EQ(-ETIMEDOUT, uzc_next_req(&d2, 500));
		EXPECT_TRUE(uzc_io_done(&io3, WAIT_MS));
		EXPECT_EQ(-EIO, uzc_io_wait(&io3));
	} else {
		t = uzc_want_req(&d2, UBLK_IO_OP_WRITE, 4096);
		ASSERT_EQ(a, t);
		EXPECT_TRUE(uzc_iod(&d2, a)->op_flags & UBLK_IO_F_NEED_REG_BUF);
		ASSERT_EQ(0, q_buf_cmd(&d2, UBLK_U_IO_REGISTER_IO_BUF, a, 2));
		EXPECT_EQ(4096, q_write_fixed(&d2, fd, 2, 0, 4096, 65536));
		EXPECT_EQ(4096, pread(fd, back, 4096, 65536));
		EXPECT_EQ(0, uzc_cmp(buf3, back, 4096));
		EXPECT_EQ(0, q_buf_cmd(&d2, UBLK_U_IO_UNREGISTER_IO_BUF, 0, 2));
		ASSERT_EQ(0, uzc_commit(&d2, a, 4096));
		EXPECT_TRUE(uzc_io_done(&io3, WAIT_MS));
		EXPECT_EQ(4096, uzc_io_wait(&io3));
	}

	/* b's slot still holds b's pages */
	EXPECT_EQ(16384, q_write_fixed(&d2, fd, b, 0, 16384, 0));
	EXPECT_EQ(16384, pread(fd, back, 16384, 0));
	EXPECT_EQ(0, uzc_cmp(buf2, back, 16384));
	EXPECT_FALSE(uzc_io_done(&io2, 100));
	ASSERT_EQ(0, uzc_commit(&d2, b, 16384));
	EXPECT_TRUE(uzc_io_done(&io2, WAIT_MS));
	EXPECT_EQ(16384, uzc_io_wait(&io2));
	EXPECT_EQ(-EFAULT, q_write_fixed(&d2, fd, b, 0, 4096, 0));
	EXPECT_EQ(0, uzc_dev_destroy(&d2));
	close(fd);
	free(buf1);
	free(buf2);
	free(buf3);
	free(back);
}

/*
 * AUTO_BUF_REG refuses zoned devices (the LBA shares the command) with
 * -EINVAL.  Without CONFIG_BLK_DEV_ZONED (the project's kernels) ADD_DEV
 * refuses every zoned device with that errno first; the case says so.
 */
TEST(auto_buf_reg_not_zoned)
{
	struct uzc_dev d = { .dev_id = -1 };
	bool zoned;

	/* ADD_DEV of a zoned user-copy device: are there any? */
	uzc_dev_add(&d, UBLK_F_ZONED | UBLK_F_USER_COPY, 2, 65536, 1 << 20,
		    false);
	zoned = d.dev_id >= 0;
	if (zoned)
		uzc_dev_del(&d);
	EXPECT_EQ(-EINVAL, uzc_dev_add(&d, UBLK_F_AUTO_BUF_REG | UBLK_F_ZONED |
				       UBLK_F_USER_COPY, 2, 65536, 1 << 20,
				       false));
	if (d.dev_id >= 0)
		uzc_dev_del(&d);
	if (!zoned)
		TH_LOG("no zoned ublk devices here: -EINVAL was the zoned check's");
}

/* open /dev/ublkcN, which udev may not have made yet: fd or -errno */
static int open_cdev(struct uzc_dev *d)
{
	int fd, tries;

	for (tries = 0; tries < 500; tries++) {
		fd = open(d->cdev_path, O_RDWR);
		if (fd >= 0 || errno != ENOENT)
			break;
		usleep(10000);
	}
	return fd >= 0 ? fd : -errno;
}

/*
 * Before the queue is set up: a tag whose FETCH was never issued has no
 * request to register (-EINVAL); FETCH_REQ checks struct ublk_auto_buf_reg
 * in sqe->addr as COMMIT_AND_FETCH does, and refuses a buffer address in
 * the command (-EINVAL), changing nothing.
 */
TEST(fetch_checks_auto_buf_reg)
{
	static const __u64 bad[] = {
		1ULL << 17,		/* unknown flag */
		1ULL << 24,		/* reserved0 */
		1ULL << 40,		/* reserved1 */
	};
	struct io_uring_sqe *sqe;
	struct io_uring ring;
	struct uzc_dev d;
	unsigned int i;
	int cfd;

	ASSERT_EQ(0, uzc_dev_add(&d, UBLK_F_AUTO_BUF_REG | UBLK_F_REG_IO_BUF,
				 2, 65536, 1 << 20, false));
	cfd = open_cdev(&d);
	ASSERT_LE(0, cfd);
	ASSERT_EQ(0, io_uring_queue_init(8, &ring, 0));
	ASSERT_EQ(0, io_uring_register_buffers_sparse(&ring, 4));

	EXPECT_EQ(-EINVAL, reg(&ring, cfd, 0, 0));
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		sqe = io_uring_get_sqe(&ring);
		prep_buf_cmd(sqe, cfd, UBLK_U_IO_FETCH_REQ, 0, 0, 0);
		sqe->addr = bad[i];
		EXPECT_EQ(-EINVAL, uzc_one(&ring, sqe, UD_BUFCMD));
	}
	/* a good slot, but an I/O buffer address in the command */
	sqe = io_uring_get_sqe(&ring);
	prep_buf_cmd(sqe, cfd, UBLK_U_IO_FETCH_REQ, 0, 0, 4096);
	EXPECT_EQ(-EINVAL, uzc_one(&ring, sqe, UD_BUFCMD));
	/* nothing was fetched: still no request on the tag */
	EXPECT_EQ(-EINVAL, reg(&ring, cfd, 0, 0));
	io_uring_queue_exit(&ring);
	close(cfd);
	EXPECT_EQ(0, uzc_dev_del(&d));
}

/*
 * UBLK_F_AUTO_BUF_REG without UBLK_F_REG_IO_BUF: REGISTER_IO_BUF is
 * refused (-EINVAL), UNREGISTER_IO_BUF empties the automatic slot (the
 * documented deviation, for a COMMIT through another ring), and the
 * COMMIT that finds the slot empty just commits.
 */
TEST(auto_buf_reg_only_device)
{
	struct uzc_dev d = { .dev_id = -1 };
	struct uzc_io io;
	void *buf, *back;
	int tag, fd;

	uzc_auto_buf_slots = SLOTS;
	uzc_auto_buf_flags = 0;
	ASSERT_EQ(0, uzc_dev_create(&d, UBLK_F_AUTO_BUF_REG, DEPTH, MAX_IO,
				    DEV_SIZE, false));
	ASSERT_TRUE(d.flags & UBLK_F_AUTO_BUF_REG);
	EXPECT_FALSE(d.flags & UBLK_F_REG_IO_BUF);
	START_WRITE(&d, &io, buf, 8192, 25, 0);
	tag = uzc_want_req(&d, UBLK_IO_OP_WRITE, 8192);
	ASSERT_GE(tag, 0);
	EXPECT_FALSE(uzc_iod(&d, tag)->op_flags & UBLK_IO_F_NEED_REG_BUF);
	fd = uzc_tmpfile();
	ASSERT_GE(fd, 0);
	back = uzc_xalloc(8192);
	EXPECT_EQ(8192, q_write_fixed(&d, fd, tag, 0, 8192, 0));
	EXPECT_EQ(8192, pread(fd, back, 8192, 0));
	EXPECT_EQ(0, uzc_cmp(buf, back, 8192));

	EXPECT_EQ(-EINVAL, q_buf_cmd(&d, UBLK_U_IO_REGISTER_IO_BUF, tag,
				     SLOTS - 1));
	/* no UBLK_F_USER_COPY: no pread() on the char device either */
	EXPECT_EQ(-1, pread(d.cdev_fd, back, 4096, uzc_pos(0, tag, 0)));
	EXPECT_EQ(EACCES, errno);
	EXPECT_EQ(0, q_buf_cmd(&d, UBLK_U_IO_UNREGISTER_IO_BUF, 0, tag));
	EXPECT_EQ(-EFAULT, q_write_fixed(&d, fd, tag, 0, 4096, 0));
	/* given back before the commit: completes at commit */
	EXPECT_FALSE(uzc_io_done(&io, 100));
	ASSERT_EQ(0, uzc_commit(&d, tag, 8192));
	EXPECT_EQ(8192, uzc_io_wait(&io));
	EXPECT_EQ(0, uzc_dev_destroy(&d));
	close(fd);
	free(buf);
	free(back);
}

/*
 * A user-copy read that holds a request across its automatic
 * registration, on a UBLK_F_USER_COPY | UBLK_F_AUTO_BUF_REG device (the
 * only kind where pread() on the char device and automatic registration
 * meet: without UBLK_F_USER_COPY the pread() is refused, -EACCES, see
 * rb.user_copy_refused_without_flag).  On regbuf v2 a failed registration
 * (no fallback) left the tag's request count at 1; the tag's next request
 * is started before the daemon's task work sets the count, and a pread()
 * of it in that gap took a reference (1 -> 2) that the store of 2 at the
 * registration then wiped out: the request completed at its commit while
 * the pread() still copied from its pages (oops), and the pread()'s put
 * underflowed the count.  A request that is not handed over must keep a
 * count of zero: the pread() then finds nothing to take (-EINVAL) until
 * the hand-over, and a pread() after it holds the request past the
 * commit.
 *
 * Made deterministic with a SCHED_FIFO reader that shares the daemon's
 * CPU (the daemon cannot run its task work until the reader sleeps) and
 * whose destination is a private mapping of a page of a second ublk
 * device, so the reader sleeps inside the copy until we serve that
 * device's READ.  Private: a shared page would be dirty after the copy,
 * and closing the device would wait for a WRITE nobody serves.
 */
struct uc_hold {
	struct uzc_dev *d;
	char *area;
	volatile int got;
	ssize_t ret;
	int err;
	void *wbuf;
	volatile ssize_t wret;
	volatile int wdone;
};

static void pin_self(int cpu)
{
	cpu_set_t set;

	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	sched_setaffinity(0, sizeof(set), &set);
}

static void *uc_reader(void *arg)
{
	struct uc_hold *h = arg;
	long spins;

	pin_self(0);
	/* a bounded number of tries: never starve the daemon for good */
	for (spins = 0; spins < 200000; spins++) {
		h->ret = pread(h->d->cdev_fd, h->area, 4096, uzc_pos(0, 0, 0));
		h->err = errno;
		if (h->ret >= 0 || h->err != EINVAL)
			break;
	}
	h->got = 1;
	return NULL;
}

static void *uc_writer(void *arg)
{
	struct uc_hold *h = arg;
	int fd;

	pin_self(1);
	usleep(200000);
	fd = open(h->d->bdev_path, O_RDWR | O_DIRECT);
	h->wret = fd < 0 ? -errno : pwrite(fd, h->wbuf, 4096, 0);
	if (fd >= 0)
		close(fd);
	h->wdone = 1;
	return NULL;
}

TEST(auto_buf_reg_user_copy_holds_request)
{
	struct uzc_dev d = { .dev_id = -1 }, d2 = { .dev_id = -1 };
	struct sched_param sp = { .sched_priority = 1 };
	struct uc_hold h = { .d = &d };
	pthread_t reader, writer;
	pthread_attr_t attr;
	int i, tag, tag2, fd2;
	bool parked = false;
	struct uzc_io io;
	void *ubuf, *buf;

	uzc_auto_buf_slots = 1;
	uzc_auto_buf_flags = 0;
	ASSERT_EQ(0, uzc_dev_create(&d, UBLK_F_AUTO_BUF_REG | UBLK_F_USER_COPY,
				    1, MAX_IO, DEV_SIZE, false));
	ASSERT_TRUE(d.flags & UBLK_F_USER_COPY);
	ASSERT_EQ(0, uzc_dev_create(&d2, UBLK_F_AUTO_BUF_REG, 1, MAX_IO,
				    DEV_SIZE, false));
	/* 1: a request whose registration fails (slot 0 holds a user buffer) */
	ubuf = uzc_xalloc(4096);
	ASSERT_EQ(1, slot_set(&d.q, 0, ubuf, 4096));
	START_WRITE(&d, &io, buf, 4096, 44, 0);
	EXPECT_EQ(-ETIMEDOUT, uzc_next_req(&d, 500));
	EXPECT_EQ(-EIO, uzc_io_wait(&io));
	free(buf);
	ASSERT_EQ(1, slot_set(&d.q, 0, NULL, 0));

	/* 2: the reader copies into a page of d2 that is not read yet */
	fd2 = open(d2.bdev_path, O_RDWR);
	ASSERT_LE(0, fd2);
	h.area = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE, fd2, 0);
	ASSERT_NE(MAP_FAILED, h.area);
	madvise(h.area, 4096, MADV_RANDOM);
	ASSERT_EQ(0, posix_memalign(&h.wbuf, 4096, 4096));
	uzc_fill(h.wbuf, 4096, 45);

	/* writer on CPU 1, daemon and FIFO reader on CPU 0 */
	ASSERT_EQ(0, pthread_create(&writer, NULL, uc_writer, &h));
	ASSERT_EQ(0, pthread_attr_init(&attr));
	ASSERT_EQ(0, pthread_attr_setinheritsched(&attr,
						  PTHREAD_EXPLICIT_SCHED));
	ASSERT_EQ(0, pthread_attr_setschedpolicy(&attr, SCHED_FIFO));
	ASSERT_EQ(0, pthread_attr_setschedparam(&attr, &sp));
	pin_self(0);
	ASSERT_EQ(0, pthread_create(&reader, &attr, uc_reader, &h));
	/* we run again once the reader sleeps in d2's page (or gave up) */
	pin_self(1);
	tag2 = uzc_next_req(&d2, 3000);
	if (tag2 >= 0) {
		parked = true;
		TH_LOG("the pread() sleeps in the copy, holding the request");
	} else {
		/* the reader gave up: never a reference before the hand-over */
		for (i = 0; i < 300 && !h.got; i++)
			usleep(10000);
		TH_LOG("pread: %zd errno %d", h.ret, h.err);
		EXPECT_EQ(-1, h.ret);
		EXPECT_EQ(EINVAL, h.err);
	}

	/* the WRITE arrives registered; commit it */
	tag = uzc_next_req(&d, WAIT_MS);
	ASSERT_EQ(0, tag);
	ASSERT_EQ(0, uzc_commit(&d, tag, 4096));
	if (parked) {
		/* the pread still holds the request: it must not complete */
		for (i = 0; i < 30 && !h.wdone; i++)
			usleep(10000);
		EXPECT_FALSE(h.wdone);
		/* let the reader finish: serve d2's READ */
		ASSERT_EQ(0, uzc_commit(&d2, tag2,
					uzc_iod(&d2, tag2)->nr_sectors << 9));
	}
	pthread_join(reader, NULL);
	pthread_join(writer, NULL);
	EXPECT_EQ(4096, h.wret);
	if (parked)
		EXPECT_EQ(4096, h.ret);
	munmap(h.area, 4096);
	close(fd2);
	EXPECT_EQ(0, uzc_dev_destroy(&d));
	EXPECT_EQ(0, uzc_dev_destroy(&d2));
	free(h.wbuf);
	free(ubuf);
}

/*
 * Where the op runs: automatic registration and REGISTER/UNREGISTER on a
 * queue ring set up as SQPOLL (the commands, the task work and the
 * registration run in the SQ thread, which is the queue's daemon) or
 * DEFER_TASKRUN | SINGLE_ISSUER (the task work runs when the server
 * waits): a WRITE arrives registered and read-only, a READ write-only,
 * byte-exact; COMMIT empties the slot.
 */
static int sqpoll_ring_init(struct uzc_dev *d)
{
	struct io_uring_params p = {
		.flags = IORING_SETUP_SQPOLL,
		.sq_thread_idle = 2000,
	};

	return io_uring_queue_init_params(4 * d->depth, &d->q, &p);
}

/*
 * Wait for @io while entering the queue ring: with DEFER_TASKRUN the last
 * free of a request that used the slot (an io-wq write's final put) is
 * task work that runs only when the server waits on its ring, as a real
 * server always does; until then the request's pages are in use.
 */
static bool io_done_serving(struct uzc_dev *d, struct uzc_io *io, int ms)
{
	int i;

	for (i = 0; i < ms / 20; i++) {
		if (uzc_io_done(io, 0))
			return true;
		uzc_cq_quiet(&d->q, 20);
	}
	return uzc_io_done(io, 0);
}

static void auto_reg_on_ring(struct __test_metadata *_metadata,
			     int (*init)(struct uzc_dev *d))
{
	struct uzc_dev d = { .dev_id = -1 };
	void *buf, *back, *src, *dst;
	struct iovec iov;
	struct uzc_io io;
	int tag, fd;

	uzc_auto_buf_slots = SLOTS;
	uzc_auto_buf_flags = 0;
	uzc_queue_ring_init = init;
	ASSERT_EQ(0, uzc_dev_create(&d, UBLK_F_AUTO_BUF_REG |
				    UBLK_F_REG_IO_BUF, DEPTH, MAX_IO,
				    DEV_SIZE, true));
	fd = uzc_tmpfile();
	ASSERT_GE(fd, 0);
	back = uzc_xalloc(65536);

	START_WRITE(&d, &io, buf, 65536, 46, 0);
	tag = uzc_want_req(&d, UBLK_IO_OP_WRITE, 65536);
	ASSERT_GE(tag, 0);
	EXPECT_FALSE(uzc_iod(&d, tag)->op_flags & UBLK_IO_F_NEED_REG_BUF);
	EXPECT_EQ(-EFAULT, q_read_fixed(&d, fd, tag, 0, 4096, 0));
	EXPECT_EQ(65536, q_write_fixed(&d, fd, tag, 0, 65536, 0));
	EXPECT_EQ(65536, pread(fd, back, 65536, 0));
	EXPECT_EQ(0, uzc_cmp(buf, back, 65536));
	/* explicit registration through the same ring: the daemon's */
	EXPECT_EQ(0, q_buf_cmd(&d, UBLK_U_IO_REGISTER_IO_BUF, tag, SLOTS - 1));
	EXPECT_EQ(0, q_buf_cmd(&d, UBLK_U_IO_UNREGISTER_IO_BUF, 0, SLOTS - 1));
	ASSERT_EQ(0, uzc_commit(&d, tag, 65536));
	EXPECT_TRUE(io_done_serving(&d, &io, WAIT_MS));
	EXPECT_EQ(65536, uzc_io_wait(&io));
	EXPECT_EQ(-EFAULT, q_write_fixed(&d, fd, tag, 0, 4096, 0));

	src = uzc_xalloc(16384);
	dst = uzc_xalloc(16384);
	uzc_fill(src, 16384, 47);
	ASSERT_EQ(16384, pwrite(fd, src, 16384, 1 << 20));
	iov.iov_base = dst;
	iov.iov_len = 16384;
	ASSERT_EQ(0, uzc_io_start(&d, &io, UZC_READ, &iov, 1, 1 << 20));
	tag = uzc_want_req(&d, UBLK_IO_OP_READ, 16384);
	ASSERT_GE(tag, 0);
	EXPECT_EQ(-EFAULT, q_write_fixed(&d, fd, tag, 0, 4096, 2 << 20));
	EXPECT_EQ(16384, q_read_fixed(&d, fd, tag, 0, 16384, 1 << 20));
	ASSERT_EQ(0, uzc_commit(&d, tag, 16384));
	EXPECT_TRUE(io_done_serving(&d, &io, WAIT_MS));
	EXPECT_EQ(16384, uzc_io_wait(&io));
	EXPECT_EQ(0, uzc_cmp(src, dst, 16384));

	EXPECT_EQ(0, uzc_dev_destroy(&d));
	close(fd);
	free(buf);
	free(back);
	free(src);
	free(dst);
}

TEST(auto_buf_reg_sqpoll_ring)
{
	auto_reg_on_ring(_metadata, sqpoll_ring_init);
}

TEST(auto_buf_reg_defer_taskrun_ring)
{
	auto_reg_on_ring(_metadata, uzc_defer_ring_init);
}

/*
 * Whichever put of an aborted request is last ends it as abort decided:
 * with UBLK_F_USER_RECOVERY_REISSUE the request is requeued for the
 * recovered server, not failed.  Here the last holder is a pread() on
 * the char device of a UBLK_F_USER_COPY | UBLK_F_REG_IO_BUF device
 * (uzc_cases.h).  The same put ends a REGISTER_IO_BUF whose registration
 * fails, and the checks of __ublk_check_and_get_req().  On v4 only the
 * registration's release read the verdict; this put ended the request
 * with -EIO although recovery was to reissue it.  While the reader holds
 * the aborted request, REGISTER_IO_BUF of it fails with -EINVAL although
 * its count is alive.
 */
static int register_aborted(struct uzc_dev *d, int tag)
{
	struct io_uring ring;
	int ret = uzc_sparse_ring(&ring, 4);

	if (ret)
		return ret;
	ret = buf_cmd(&ring, d->cdev_fd, UBLK_U_IO_REGISTER_IO_BUF, 0, tag, 0);
	io_uring_queue_exit(&ring);
	return ret;
}

TEST_F_TIMEOUT(rb, put_after_abort_reissues_request, 120)
{
	uzc_user_copy_put_after_abort(_metadata, UBLK_F_USER_COPY |
				      UBLK_F_REG_IO_BUF |
				      UBLK_F_USER_RECOVERY |
				      UBLK_F_USER_RECOVERY_REISSUE,
				      register_aborted, -EINVAL);
}

int main(int argc, char **argv)
{
	/*
	 * These cases pin the 6.12 port's interface (its device flag
	 * UBLK_F_REG_IO_BUF, bit 48).  On 7.3 the design is upstream's
	 * own, under bit 0: abtool's regbuf and autobuf paths run it in
	 * test_verify, test_faults and test_stress, and upstream's
	 * selftests/ublk test its uAPI.
	 */
	if (uzc_kernel_upstream())
		ksft_exit_skip("upstream ublk: these cases are the 6.12 port's interface (UBLK_F_REG_IO_BUF); 7.3's own is tested by upstream's selftests/ublk and through abtool's regbuf and autobuf paths\n");
	uzc_require(uzc_regbuf_unsupported(), "regbuf");
	return test_harness_run(argc, argv);
}
