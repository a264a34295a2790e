// SPDX-License-Identifier: GPL-2.0
/*
 * Steps data paths share: map a request to legs, flush, finish, and a
 * leg on a registered buffer.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "path_common.h"
#include "prog.h"

/*
 * Map the request on tag to legs through the target.  Returns the
 * number of legs, or a negative errno after committing the request
 * (so the caller just returns).  Flush is issued here too: it needs
 * no data, so every path serves it the same way.
 */
int path_map_request(struct ublk_queue *q, unsigned int tag)
{
	const struct ublksrv_io_desc *iod = ublk_iod(q, tag);
	const struct ublk_tgt *t = &q->dev->tgt;
	struct ublk_io *io = &q->ios[tag];
	unsigned int op = ublksrv_get_op(iod);
	int n;

	switch (op) {
	case UBLK_IO_OP_READ:
	case UBLK_IO_OP_WRITE:
		break;
	case UBLK_IO_OP_FLUSH:
		if (!t->nr_flush) {
			ublk_commit(q, tag, 0);
			return -EAGAIN;
		}
		io->stage = PATH_STAGE_FLUSH;
		ublk_submit_flush(q, tag);
		return -EINPROGRESS;
	default:
		ublk_commit(q, tag, -EOPNOTSUPP);
		return -EOPNOTSUPP;
	}
	n = t->ops->map(t, op == UBLK_IO_OP_WRITE, iod->start_sector << 9,
			iod->nr_sectors << 9, io->legs);
	if (n < 0) {
		ublk_commit(q, tag, n);
		return n;
	}
	io->nr_legs = n;
	return n;
}

/* Result to commit: the request length when every SQE succeeded. */
int path_result(struct ublk_queue *q, unsigned int tag)
{
	const struct ublksrv_io_desc *iod = ublk_iod(q, tag);
	int res = q->ios[tag].res;

	return res < 0 ? res : (int)(iod->nr_sectors << 9);
}

bool path_is_write(struct ublk_queue *q, unsigned int tag)
{
	return ublksrv_get_op(ublk_iod(q, tag)) == UBLK_IO_OP_WRITE;
}

/*
 * Leg i of the request on tag as READ_FIXED/WRITE_FIXED on the buffer in
 * slot of the queue ring's table, which holds the request's pages: addr
 * is a byte offset into them (the request's data starts at 0).
 */
void path_prep_fixed_leg(struct ublk_queue *q, unsigned int tag, int i,
			 unsigned int slot)
{
	const struct ublk_leg *leg = &q->ios[tag].legs[i];
	struct io_uring_sqe *sqe = ublk_get_sqe(q);

	io_uring_prep_rw(path_is_write(q, tag) ? IORING_OP_WRITE_FIXED :
			 IORING_OP_READ_FIXED, sqe,
			 ublk_fixed_backing(leg->backing),
			 (void *)(uintptr_t)leg->buf_off, leg->len, leg->off);
	ublk_sqe_fixed_file(sqe);
	sqe->buf_index = slot;
	sqe->user_data = ublk_ud(tag, UD_LEG, i);
}

void path_slot_op_failed(struct ublk_queue *q, unsigned int tag,
			 const char *op, int res)
{
	struct ublk_io *io = &q->ios[tag];

	/* it fails the legs behind it too; its own errno is worth committing */
	fprintf(stderr, "%s: queue %u tag %u: %s failed: %s\n",
		prog_name(), q->q_id, tag, op, strerror(-res));
	if (io->pending && io->res >= 0)
		io->res = res;
}

void path_slot_leg_back(struct ublk_queue *q, unsigned int tag,
			unsigned int kind, unsigned int leg, int res,
			void (*again)(struct ublk_queue *q, unsigned int tag))
{
	struct ublk_io *io = &q->ios[tag];

	if (ublk_leg_advance(q, tag, kind, leg, &res)) {
		io->legs_again |= 1ULL << leg;
		res = 0;
	}
	if (!ublk_leg_done(q, tag, res))
		return;
	if (io->legs_again && io->res >= 0)
		again(q, tag);
	else
		ublk_commit(q, tag, path_result(q, tag));
}

int path_slot_table_init(struct ublk_queue *q)
{
	return io_uring_register_buffers_sparse(&q->ring, q->depth);
}

void path_in_slot_start(struct ublk_queue *q, unsigned int tag)
{
	struct ublk_io *io = &q->ios[tag];
	int n = path_map_request(q, tag), i;

	if (n == 0)
		ublk_commit(q, tag, path_result(q, tag));
	for (i = 0; i < n; i++) {
		path_prep_fixed_leg(q, tag, i, tag);
		io->pending++;
	}
}

void path_in_slot_cqe(struct ublk_queue *q, unsigned int tag,
		      unsigned int kind, unsigned int leg, int res)
{
	if (ublk_leg_advance(q, tag, kind, leg, &res)) {
		path_prep_fixed_leg(q, tag, leg, tag);
		return;
	}
	if (ublk_leg_done(q, tag, res))
		ublk_commit(q, tag, path_result(q, tag));
}
