// SPDX-License-Identifier: GPL-2.0
/*
 * batch: upstream's UBLK_F_BATCH_IO (Linux 7.x) with UBLK_F_AUTO_BUF_REG,
 * as kublk -b --auto_zc serves it.  Requests are not fetched one command
 * per tag: one UBLK_U_IO_PREP_IO_CMDS readies every tag of the queue at
 * start, a multishot UBLK_U_IO_FETCH_IO_CMDS posts the tags of new
 * requests, many per CQE, into a provided buffer, and one
 * UBLK_U_IO_COMMIT_IO_CMDS per trip through the queue loop completes
 * every request finished since the last.  The data moves as on autobuf:
 * the driver registers each request's pages in slot = tag of the ring's
 * buffer table before it posts the tag, the legs are READ_FIXED/
 * WRITE_FIXED into the slot, and the commit empties it; each element of
 * PREP and COMMIT names the slot of the tag's next request (the same).
 * No UBLK_BATCH_F_AUTO_BUF_REG_FALLBACK, as on autobuf: a registration
 * can only fail for lack of memory, and the driver fails that request.
 *
 * Per request the server sends its legs and a share of one commit; per
 * queue-loop trip at most one COMMIT_IO_CMDS.
 *
 * Fetching, as kublk does: two FETCH_IO_CMDS per queue, each with its
 * own buffer group of one page-rounded buffer of 2 bytes per tag,
 * consumed piecewise (IOU_PBUF_RING_INC): each CQE's tags follow the
 * previous CQE's in the buffer.  Two, so that one still fetches while
 * the other, its buffer used up (the command ends with -ENOBUFS), is
 * armed again.  A fetch that ends before its buffer is used up (a CQE
 * the CQ had no room for: its tags go back to the driver, its bytes are
 * gone from the buffer) gets its buffer group registered afresh, so
 * that what the kernel consumed and what the server read cannot drift.
 *
 * A kernel without UBLK_F_BATCH_IO (every 6.12 of the project) cannot
 * run it: the probe says so and abtool serve exits 4.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "path_common.h"
#include "prog.h"
#include "uapi/regbuf.h"
#include "uapi/upstream.h"

/* what a UD_CMD CQE is for (its user_data's leg field) */
enum { BATCH_PREP, BATCH_COMMIT, BATCH_FETCH };

#define BATCH_FETCHES	2	/* FETCH_IO_CMDS per queue, as kublk */
/*
 * PREP/COMMIT buffers per queue: the kernel reads one while its command
 * runs, which is inline in practice; a flush that finds none free waits
 * for the next trip, its commits kept
 */
#define BATCH_BUFS	4

struct batch_fetch {
	struct io_uring_buf_ring *br;
	void *buf;		/* its one buffer: 2 bytes per tag */
	unsigned int off;	/* where the next CQE's tags start */
};

struct batch_queue {
	size_t fetch_bytes;
	struct batch_fetch fetch[BATCH_FETCHES];
	/* commits gathered since the last flush, one per tag at most */
	struct ublk_elem_header *pending;
	unsigned int nr_pending;
	/* PREP/COMMIT buffers of depth elements, busy while sent */
	struct ublk_elem_header *bufs[BATCH_BUFS];
	unsigned int nr_sent[BATCH_BUFS];
	unsigned int busy;	/* bit i: bufs[i] in the kernel */
};

static int batch_probe(uint64_t features, char *why, size_t whylen)
{
	if ((features & UBLK_F_BATCH_IO) && (features & UBLK_F_AUTO_BUF_REG))
		return 0;
	snprintf(why, whylen, "kernel ublk lacks UBLK_F_BATCH_IO with "
		 "UBLK_F_AUTO_BUF_REG (Linux 7.x)");
	return -EOPNOTSUPP;
}

static struct batch_queue *bq_of(const struct ublk_queue *q)
{
	return q->path_priv;
}

/* a batch command on the char device: its header in the SQE's cmd area */
static struct io_uring_sqe *prep_batch_cmd(struct ublk_queue *q,
					   unsigned int op, unsigned int which,
					   unsigned int idx, unsigned int nr_elem,
					   unsigned int elem_bytes)
{
	struct io_uring_sqe *sqe = ublk_get_sqe(q);
	struct ublk_batch_io *cmd = (struct ublk_batch_io *)sqe->cmd;

	sqe->opcode = IORING_OP_URING_CMD;
	sqe->fd = UBLK_FIXED_CDEV;
	ublk_sqe_fixed_file(sqe);
	sqe->cmd_op = op;
	sqe->user_data = ublk_ud(idx, UD_CMD, which);
	cmd->q_id = q->q_id;
	cmd->nr_elem = nr_elem;
	cmd->elem_bytes = elem_bytes;
	q->active++;
	return sqe;
}

/* PREP (tag i, slot i for every tag) or COMMIT of n elements in bufs[i] */
static void send_buf(struct ublk_queue *q, unsigned int i, unsigned int op,
		     unsigned int which, unsigned int n)
{
	struct batch_queue *bq = bq_of(q);
	struct io_uring_sqe *sqe;

	sqe = prep_batch_cmd(q, op, which, i, n, sizeof(bq->bufs[i][0]));
	sqe->addr = (uintptr_t)bq->bufs[i];
	sqe->len = n * sizeof(bq->bufs[i][0]);
	bq->busy |= 1U << i;
	bq->nr_sent[i] = n;
}

static int free_buf(const struct batch_queue *bq)
{
	unsigned int i;

	for (i = 0; i < BATCH_BUFS; i++)
		if (!(bq->busy & (1U << i)))
			return i;
	return -1;
}

static void arm_fetch(struct ublk_queue *q, unsigned int i)
{
	struct batch_queue *bq = bq_of(q);
	struct io_uring_sqe *sqe;

	sqe = prep_batch_cmd(q, UBLK_U_IO_FETCH_IO_CMDS, BATCH_FETCH, i,
			     bq->fetch_bytes / sizeof(__u16), sizeof(__u16));
	sqe->uring_cmd_flags = IORING_URING_CMD_MULTISHOT;
	sqe->flags |= IOSQE_BUFFER_SELECT;
	sqe->buf_group = i;
}

/* the whole buffer back in group i, to be consumed from its start */
static void fill_fetch_buf(struct batch_queue *bq, unsigned int i)
{
	struct batch_fetch *f = &bq->fetch[i];

	io_uring_buf_ring_add(f->br, f->buf, bq->fetch_bytes, 0,
			      io_uring_buf_ring_mask(1), 0);
	io_uring_buf_ring_advance(f->br, 1);
	f->off = 0;
}

static int setup_fetch_ring(struct ublk_queue *q, unsigned int i)
{
	struct batch_queue *bq = bq_of(q);
	int err;

	bq->fetch[i].br = uring_buf_ring_setup(&q->ring, 1, i,
					       UBLK_ZC_PBUF_RING_INC, &err);
	if (!bq->fetch[i].br)
		return err;
	fill_fetch_buf(bq, i);
	return 0;
}

/*
 * Fetch i ended: arm it again, on a fresh buffer if it used its buffer
 * up, else on a buffer group registered afresh (see the top).
 */
static void rearm_fetch(struct ublk_queue *q, unsigned int i)
{
	struct batch_queue *bq = bq_of(q);
	struct batch_fetch *f = &bq->fetch[i];
	int ret;

	if (f->off >= bq->fetch_bytes) {
		fill_fetch_buf(bq, i);
	} else {
		uring_buf_ring_free(&q->ring, f->br, 1, i);
		f->br = NULL;
		ret = setup_fetch_ring(q, i);
		if (ret < 0) {
			fprintf(stderr, "%s: queue %u: buffer group %u: %s\n",
				prog_name(), q->q_id, i, strerror(-ret));
			q->error = ret;
			return;
		}
	}
	arm_fetch(q, i);
}

static int batch_queue_init(struct ublk_queue *q)
{
	size_t pg = sysconf(_SC_PAGESIZE);
	struct batch_queue *bq;
	unsigned int i;
	int ret;

	ret = path_slot_table_init(q);
	if (ret < 0)
		return ret;
	bq = calloc(1, sizeof(*bq));
	if (!bq)
		return -ENOMEM;
	q->path_priv = bq;
	bq->pending = calloc(q->depth, sizeof(*bq->pending));
	if (!bq->pending)
		return -ENOMEM;
	for (i = 0; i < BATCH_BUFS; i++) {
		bq->bufs[i] = calloc(q->depth, sizeof(*bq->bufs[i]));
		if (!bq->bufs[i])
			return -ENOMEM;
	}
	bq->fetch_bytes = (q->depth * sizeof(__u16) + pg - 1) / pg * pg;
	for (i = 0; i < BATCH_FETCHES; i++) {
		if (posix_memalign(&bq->fetch[i].buf, pg, bq->fetch_bytes))
			return -ENOMEM;
		ret = setup_fetch_ring(q, i);
		if (ret < 0)
			return ret;
	}
	return 0;
}

static void batch_queue_exit(struct ublk_queue *q)
{
	struct batch_queue *bq = bq_of(q);
	unsigned int i;

	if (!bq)
		return;
	for (i = 0; i < BATCH_FETCHES; i++) {
		if (bq->fetch[i].br)
			uring_buf_ring_free(&q->ring, bq->fetch[i].br, 1, i);
		free(bq->fetch[i].buf);
	}
	for (i = 0; i < BATCH_BUFS; i++)
		free(bq->bufs[i]);
	free(bq->pending);
	free(bq);
	q->path_priv = NULL;
}

/* PREP every tag, each with its slot, and start fetching */
static int batch_cmds_start(struct ublk_queue *q)
{
	struct batch_queue *bq = bq_of(q);
	unsigned int i;

	for (i = 0; i < q->depth; i++)
		bq->bufs[0][i] = (struct ublk_elem_header){
			.tag = i, .buf_index = i };
	send_buf(q, 0, UBLK_U_IO_PREP_IO_CMDS, BATCH_PREP, q->depth);
	for (i = 0; i < BATCH_FETCHES; i++)
		arm_fetch(q, i);
	return 0;
}

/*
 * The request on tag is done: its commit waits for the next flush.  The
 * first one gathered counts as a command in q->active, so that the queue
 * loop does not end with commits unsent.
 */
static void batch_cmds_commit(struct ublk_queue *q, unsigned int tag, int res)
{
	struct batch_queue *bq = bq_of(q);

	if (!bq->nr_pending)
		q->active++;
	bq->pending[bq->nr_pending++] = (struct ublk_elem_header){
		.tag = tag, .buf_index = tag, .result = res };
}

static void batch_cmds_flush(struct ublk_queue *q)
{
	struct batch_queue *bq = bq_of(q);
	int i;

	if (!bq->nr_pending)
		return;
	i = free_buf(bq);
	if (i < 0)
		return;
	memcpy(bq->bufs[i], bq->pending, bq->nr_pending * sizeof(*bq->pending));
	send_buf(q, i, UBLK_U_IO_COMMIT_IO_CMDS, BATCH_COMMIT, bq->nr_pending);
	/* the COMMIT now holds the command that the gathering held */
	q->active--;
	bq->nr_pending = 0;
}

static void fetch_cqe(struct ublk_queue *q, unsigned int i,
		      const struct io_uring_cqe *cqe)
{
	struct batch_queue *bq = bq_of(q);
	struct batch_fetch *f = &bq->fetch[i];
	int res = cqe->res;

	if (res > 0) {
		const __u16 *tags = (const __u16 *)((char *)f->buf + f->off);
		unsigned int n = res / sizeof(__u16), k;

		f->off += res;
		for (k = 0; k < n; k++) {
			if (tags[k] >= q->depth) {
				fprintf(stderr, "%s: queue %u: fetched tag %u "
					"of a queue of %u\n", prog_name(),
					q->q_id, tags[k], q->depth);
				q->error = -EPROTO;
				continue;
			}
			ublk_request_arrived(q, tags[k]);
		}
	}
	if (cqe->flags & IORING_CQE_F_MORE)
		return;
	q->active--;
	/* -ENODEV: the device is stopping; -ENOBUFS: the buffer is used up */
	if (res == UBLK_IO_RES_ABORT)
		return;
	if (res < 0 && res != -ENOBUFS) {
		fprintf(stderr, "%s: queue %u: FETCH_IO_CMDS failed: %s\n",
			prog_name(), q->q_id, strerror(-res));
		if (!q->error)
			q->error = res;
		return;
	}
	rearm_fetch(q, i);
}

static void batch_cmds_cqe(struct ublk_queue *q, const struct io_uring_cqe *cqe)
{
	struct batch_queue *bq = bq_of(q);
	unsigned int i = ublk_ud_tag(cqe->user_data);
	unsigned int which = ublk_ud_leg(cqe->user_data);
	int want;

	if (which == BATCH_FETCH) {
		fetch_cqe(q, i, cqe);
		return;
	}
	/* PREP returns 0, COMMIT the bytes of the elements it committed */
	want = which == BATCH_PREP ? 0 :
	       (int)(bq->nr_sent[i] * sizeof(bq->bufs[i][0]));
	q->active--;
	bq->busy &= ~(1U << i);
	if (cqe->res == want)
		return;
	fprintf(stderr, "%s: queue %u: %s of %u tags: %d\n", prog_name(),
		q->q_id, which == BATCH_PREP ? "PREP_IO_CMDS" : "COMMIT_IO_CMDS",
		bq->nr_sent[i], cqe->res);
	if (!q->error)
		q->error = cqe->res < 0 ? cqe->res : -EIO;
}

static const struct ublk_io_cmd_ops batch_cmds = {
	.start = batch_cmds_start,
	.cqe = batch_cmds_cqe,
	.commit = batch_cmds_commit,
	.flush = batch_cmds_flush,
};

const struct ublk_path_ops path_batch = {
	.name = "batch",
	.help = "tags fetched and committed in batches, AUTO_BUF_REG (BATCH_IO, upstream)",
	.dev_flags = UBLK_F_BATCH_IO | UBLK_F_AUTO_BUF_REG,
	/* each request's tag comes in a fetch CQE the server did not ask for */
	.unasked_cqes = 1,
	.probe = batch_probe,
	.queue_init = batch_queue_init,
	.queue_exit = batch_queue_exit,
	.start = path_in_slot_start,
	.cqe = path_in_slot_cqe,
	.cmds = &batch_cmds,
};
