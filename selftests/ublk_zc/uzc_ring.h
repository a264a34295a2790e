/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Ring-side helpers of the splice-rsrc tests: one SQE submitted and
 * waited for, the lend / remove / fixed read and write ops, and the
 * small things every case needs (aligned buffers, scratch files, the next
 * request of an expected kind, a quiet CQ).
 */
#ifndef UZC_RING_H
#define UZC_RING_H

#include <stdbool.h>
#include <stddef.h>
#include "ublk_zc_lib.h"

#define UZC_WAIT_MS	10000

/* page-aligned, zeroed; NULL on failure */
void *uzc_xalloc(size_t len);
/* an unlinked file on the guest's tmpfs, or -1 */
int uzc_tmpfile(void);

/* submit @sqe (user_data @ud) alone and wait: its cqe->res or -errno */
int uzc_one(struct io_uring *ring, struct io_uring_sqe *sqe, __u64 ud);
int uzc_splice_from(struct io_uring *ring, int fd, __u64 pos, __u32 len,
		    __u16 slot, __u8 flags);
int uzc_buf_remove(struct io_uring *ring, __u16 slot, __u8 flags);
int uzc_write_fixed(struct io_uring *ring, int fd, __u16 slot, __u64 addr,
		    __u32 len, off_t off);
int uzc_read_fixed(struct io_uring *ring, int fd, __u16 slot, __u64 addr,
		   __u32 len, off_t off);

/* the next request: its tag if it is @op of @bytes, else -EPROTO/-errno */
int uzc_want_req(struct uzc_dev *d, unsigned int op, size_t bytes);
/* true if no CQE arrives within @ms */
bool uzc_cq_quiet(struct io_uring *ring, int ms);
/*
 * uzc_queue_ring_init for a DEFER_TASKRUN | SINGLE_ISSUER queue ring: the
 * task work of a dispatch runs only when the server waits on it
 */
int uzc_defer_ring_init(struct uzc_dev *d);
/* a small ring of the caller's with a sparse table of @slots: 0 or -errno */
int uzc_sparse_ring(struct io_uring *ring, unsigned int slots);

#define UZC_UD_SPLICE	0x5000
#define UZC_UD_REMOVE	0x6000
#define UZC_UD_LEG	0x7000

#endif
