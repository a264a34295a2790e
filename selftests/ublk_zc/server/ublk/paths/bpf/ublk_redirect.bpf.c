// SPDX-License-Identifier: GPL-2.0
/*
 * The bpf data path's program (BPF_PROG_TYPE_UBLK, the bpf series): for
 * each READ or WRITE request it queues, with bpf_ublk_queue_sqe(), the
 * target's legs as READ or WRITE SQEs whose buffer is the request's own
 * pages, and returns UBLK_BPF_IO_REDIRECT; ublk submits them on the
 * queue's ring and the server only counts their CQEs and commits.  It
 * does what ublk/targets/'s map() does, for the layout path_bpf.c puts
 * in its map.  Anything else (FLUSH, DISCARD, a stripe request of more
 * than UBLK_BPF_MAX_SQES pieces, an SQE the helper refuses) goes to the
 * server with UBLK_BPF_IO_PASS, which serves it as user_copy does:
 * nothing is half redirected.
 *
 * libbpf 1.1 does not know the program type: the section name is ours,
 * and path_bpf.c sets the type before loading.
 */
#include <linux/bpf.h>
#include <linux/errno.h>
#include <linux/types.h>
#include <linux/io_uring.h>
#include <linux/ublk_cmd.h>
#include <bpf/bpf_helpers.h>

#include "uapi/ublk_bpf.h"
#include "ublk_redirect.h"

/* the series' helper (id 212); libbpf's headers do not have it */
static long (*bpf_ublk_queue_sqe)(void *ctx, const void *sqe,
				  __u32 sqe_len) = (void *)UBLK_BPF_FUNC_QUEUE_SQE;

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct ublk_redirect_layout);
} ublk_redirect_map SEC(".maps");

/* The request as the program sees it, read from the context once. */
struct request {
	void *ctx;
	__u16 tag;
	__u8 op;		/* IORING_OP_READ or IORING_OP_WRITE */
	__u64 pos;		/* byte offset in the device */
	__u32 len;		/* bytes */
	__u32 nr_sqes;		/* queued so far */
};

/*
 * Queue bytes [buf_off, buf_off + len) of the request as one SQE on
 * fixed file `file' at byte offset `off'.  0, or the helper's -errno.
 */
static __always_inline long queue_piece(struct request *rq, __u32 file,
					__u64 off, __u32 buf_off, __u32 len)
{
	struct io_uring_sqe sqe;
	long ret;

	__builtin_memset(&sqe, 0, sizeof(sqe));
	sqe.opcode = rq->op;
	sqe.flags = IOSQE_FIXED_FILE;
	sqe.fd = file;
	sqe.off = off;
	sqe.addr = buf_off;
	sqe.len = len;
	sqe.user_data = rq->tag |
		(__u64)UBLK_REDIRECT_UD_KIND << UBLK_REDIRECT_UD_KIND_SHIFT |
		(__u64)rq->nr_sqes << UBLK_REDIRECT_UD_INDEX_SHIFT;
	ret = bpf_ublk_queue_sqe(rq->ctx, &sqe, sizeof(sqe));
	if (!ret)
		rq->nr_sqes++;
	return ret;
}

/* null: zeros from the zero source at 0, writes to the sink at 0 */
static __always_inline long map_null(struct request *rq,
				     const struct ublk_redirect_layout *l)
{
	__u32 file = rq->op == IORING_OP_READ ? l->file[1] : l->file[0];

	return queue_piece(rq, file, 0, 0, rq->len);
}

static __always_inline long map_loop(struct request *rq,
				     const struct ublk_redirect_layout *l)
{
	return queue_piece(rq, l->file[0], rq->pos, 0, rq->len);
}

/* mirror: a read from one leg, a write to each */
static __always_inline long map_mirror(struct request *rq,
				       const struct ublk_redirect_layout *l)
{
	__u32 i;
	long ret;

	if (rq->op == IORING_OP_READ)
		return queue_piece(rq, l->file[l->read_leg &
					       (UBLK_REDIRECT_MAX_FILES - 1)],
				   rq->pos, 0, rq->len);
	for (i = 0; i < UBLK_REDIRECT_MAX_FILES && i < l->nr_files; i++) {
		ret = queue_piece(rq, l->file[i], rq->pos, 0, rq->len);
		if (ret)
			return ret;
	}
	return 0;
}

/*
 * stripe: one SQE per chunk piece, as target_stripe.c's map(); -E2BIG
 * if the request has more pieces than the helper takes SQEs.
 */
static __always_inline long map_stripe(struct request *rq,
					const struct ublk_redirect_layout *l)
{
	__u32 shift = l->chunk_shift & 63, nr_files = l->nr_files;
	__u64 chunk = 1ULL << shift;
	__u32 done = 0, i;
	long ret;

	if (!nr_files)
		return -EINVAL;
	for (i = 0; i < UBLK_BPF_MAX_SQES && done < rq->len; i++) {
		__u64 pos = rq->pos + done;
		__u64 nr = pos >> shift;
		__u32 in_chunk = pos & (chunk - 1);
		__u32 piece = chunk - in_chunk;
		__u32 file = nr % nr_files;

		if (piece > rq->len - done)
			piece = rq->len - done;
		ret = queue_piece(rq, l->file[file & (UBLK_REDIRECT_MAX_FILES - 1)],
				  (nr / nr_files << shift) + in_chunk, done,
				  piece);
		if (ret)
			return ret;
		done += piece;
	}
	return done < rq->len ? -E2BIG : 0;
}

SEC("ublk")
int ublk_redirect(struct ublk_bpf_ctx *ctx)
{
	const struct ublk_redirect_layout *l;
	struct request rq = { .ctx = ctx };
	__u32 key = 0, q_id = ctx->q_id;
	__u8 op = ctx->op;
	long ret;

	l = bpf_map_lookup_elem(&ublk_redirect_map, &key);
	if (!l || q_id >= UBLK_REDIRECT_MAX_QUEUES || !l->queue_ready[q_id])
		return UBLK_BPF_IO_PASS;
	if (op == UBLK_IO_OP_READ)
		rq.op = IORING_OP_READ;
	else if (op == UBLK_IO_OP_WRITE)
		rq.op = IORING_OP_WRITE;
	else
		return UBLK_BPF_IO_PASS;
	rq.tag = ctx->tag;
	rq.pos = ctx->start_sector << 9;
	rq.len = ctx->nr_sectors << 9;
	if (!rq.len)
		return UBLK_BPF_IO_PASS;

	switch (l->kind) {
	case UBLK_REDIRECT_NULL:
		ret = map_null(&rq, l);
		break;
	case UBLK_REDIRECT_LOOP:
		ret = map_loop(&rq, l);
		break;
	case UBLK_REDIRECT_MIRROR:
		ret = map_mirror(&rq, l);
		break;
	case UBLK_REDIRECT_STRIPE:
		ret = map_stripe(&rq, l);
		break;
	default:
		ret = -EINVAL;
	}
	/* PASS drops what was queued: a request is redirected whole or not */
	return ret ? UBLK_BPF_IO_PASS : UBLK_BPF_IO_REDIRECT;
}

char LICENSE[] SEC("license") = "GPL";
