// SPDX-License-Identifier: GPL-2.0
/* Ring-side helpers of the splice-rsrc tests, see uzc_ring.h. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "uzc_ring.h"

void *uzc_xalloc(size_t len)
{
	void *p;

	if (posix_memalign(&p, 4096, len))
		return NULL;
	memset(p, 0, len);
	return p;
}

int uzc_tmpfile(void)
{
	char path[] = "/tmp/uzc.XXXXXX";
	int fd = mkstemp(path);

	if (fd >= 0)
		unlink(path);
	return fd;
}

int uzc_one(struct io_uring *ring, struct io_uring_sqe *sqe, __u64 ud)
{
	int res, ret;

	sqe->user_data = ud;
	ret = uzc_submit_wait(ring, 1, &res, NULL, UZC_WAIT_MS);
	return ret ? ret : res;
}

int uzc_splice_from(struct io_uring *ring, int fd, __u64 pos, __u32 len,
		    __u16 slot, __u8 flags)
{
	struct io_uring_sqe *sqe = io_uring_get_sqe(ring);

	uzc_prep_splice_from(sqe, fd, pos, len, slot);
	sqe->flags = flags;
	return uzc_one(ring, sqe, UZC_UD_SPLICE);
}

int uzc_buf_remove(struct io_uring *ring, __u16 slot, __u8 flags)
{
	struct io_uring_sqe *sqe = io_uring_get_sqe(ring);

	uzc_prep_buf_remove(sqe, slot);
	sqe->flags = flags;
	return uzc_one(ring, sqe, UZC_UD_REMOVE);
}

int uzc_write_fixed(struct io_uring *ring, int fd, __u16 slot, __u64 addr,
		    __u32 len, off_t off)
{
	struct io_uring_sqe *sqe = io_uring_get_sqe(ring);

	io_uring_prep_write_fixed(sqe, fd, (void *)(uintptr_t)addr, len, off,
				  slot);
	return uzc_one(ring, sqe, UZC_UD_LEG);
}

int uzc_read_fixed(struct io_uring *ring, int fd, __u16 slot, __u64 addr,
		   __u32 len, off_t off)
{
	struct io_uring_sqe *sqe = io_uring_get_sqe(ring);

	io_uring_prep_read_fixed(sqe, fd, (void *)(uintptr_t)addr, len, off,
				 slot);
	return uzc_one(ring, sqe, UZC_UD_LEG);
}

int uzc_want_req(struct uzc_dev *d, unsigned int op, size_t bytes)
{
	int tag = uzc_next_req(d, UZC_WAIT_MS);

	if (tag < 0)
		return tag;
	if (ublksrv_get_op(uzc_iod(d, tag)) != op ||
	    ((size_t)uzc_iod(d, tag)->nr_sectors << 9) != bytes)
		return -EPROTO;
	return tag;
}

bool uzc_cq_quiet(struct io_uring *ring, int ms)
{
	struct __kernel_timespec ts = { .tv_nsec = ms * 1000000LL };
	struct io_uring_cqe *cqe;

	return io_uring_wait_cqe_timeout(ring, &cqe, &ts) == -ETIME;
}

int uzc_defer_ring_init(struct uzc_dev *d)
{
	struct io_uring_params p = {
		.flags = IORING_SETUP_SINGLE_ISSUER |
			 IORING_SETUP_DEFER_TASKRUN,
	};

	return io_uring_queue_init_params(4 * d->depth, &d->q, &p);
}

int uzc_sparse_ring(struct io_uring *ring, unsigned int slots)
{
	int ret = io_uring_queue_init(4, ring, 0);

	if (ret)
		return ret;
	ret = io_uring_register_buffers_sparse(ring, slots);
	if (ret)
		io_uring_queue_exit(ring);
	return ret;
}
