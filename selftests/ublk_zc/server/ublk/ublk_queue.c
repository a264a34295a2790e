// SPDX-License-Identifier: GPL-2.0
/*
 * One ublk queue: a thread with its own io_uring that holds a FETCH or
 * COMMIT_AND_FETCH command in the kernel for every tag (or the commands
 * of a path with its own, ublk_io_cmd_ops), hands new requests to the
 * data path, and runs the SQEs the data path queues.
 */
#include <errno.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "scattered_buf.h"
#include "ublk.h"

uint64_t ublk_user_copy_pos(unsigned int q_id, unsigned int tag)
{
	return UBLKSRV_IO_BUF_OFFSET +
	       ((uint64_t)q_id << UBLK_QID_OFF | (uint64_t)tag << UBLK_TAG_OFF);
}

/* An SQE, submitting queued ones first when the SQ is full. */
struct io_uring_sqe *ublk_get_sqe(struct ublk_queue *q)
{
	struct io_uring_sqe *sqe = io_uring_get_sqe(&q->ring);

	if (!sqe) {
		q->stats->enters++;
		io_uring_submit(&q->ring);
		sqe = io_uring_get_sqe(&q->ring);
	}
	/* with 128-byte SQEs clear both halves */
	memset(sqe, 0, (q->ring.flags & IORING_SETUP_SQE128 ? 2 : 1) *
		       sizeof(*sqe));
	q->stats->sqes++;
	return sqe;
}

static void ublk_queue_io_cmd(struct ublk_queue *q, unsigned int tag,
			      unsigned int op, int res)
{
	struct io_uring_sqe *sqe = ublk_get_sqe(q);
	struct ublksrv_io_cmd *cmd = (struct ublksrv_io_cmd *)sqe->cmd;
	struct ublk_io *io = &q->ios[tag];

	sqe->opcode = IORING_OP_URING_CMD;
	sqe->fd = UBLK_FIXED_CDEV;
	ublk_sqe_fixed_file(sqe);
	sqe->cmd_op = op;
	sqe->user_data = ublk_ud(tag, UD_CMD, 0);
	cmd->q_id = q->q_id;
	cmd->tag = tag;
	cmd->result = res;
	/*
	 * the copy path names the buffer the driver copies to/from; paths
	 * without daemon_buffers have none (NULL), as the zero-copy flags want
	 */
	cmd->addr = (q->dev->dev_flags & UBLK_F_USER_COPY) ?
		    0 : (uintptr_t)io->buf;
	if (q->dev->path->cmd_sqe_addr)
		sqe->addr = q->dev->path->cmd_sqe_addr(q, tag);
	io->fetched = true;
}

/* Complete the request on tag with res and fetch the next one. */
void ublk_commit(struct ublk_queue *q, unsigned int tag, int res)
{
	const struct ublk_io_cmd_ops *cmds = q->dev->path->cmds;

	q->inflight--;
	if (cmds)
		cmds->commit(q, tag, res);
	else
		ublk_queue_io_cmd(q, tag, UBLK_U_IO_COMMIT_AND_FETCH_REQ, res);
}

static void ublk_prep_leg(struct ublk_queue *q, unsigned int tag, int i,
			  void *buf)
{
	const struct ublksrv_io_desc *iod = ublk_iod(q, tag);
	bool write = ublksrv_get_op(iod) == UBLK_IO_OP_WRITE;
	const struct ublk_leg *leg = &q->ios[tag].legs[i];
	struct io_uring_sqe *sqe = ublk_get_sqe(q);
	int fd = ublk_fixed_backing(leg->backing);
	char *p = (char *)buf + leg->buf_off;

	if (write)
		io_uring_prep_write(sqe, fd, p, leg->len, leg->off);
	else
		io_uring_prep_read(sqe, fd, p, leg->len, leg->off);
	ublk_sqe_fixed_file(sqe);
	sqe->user_data = ublk_ud(tag, UD_LEG, i);
}

void ublk_submit_legs(struct ublk_queue *q, unsigned int tag, void *buf)
{
	struct ublk_io *io = &q->ios[tag];
	int i;

	for (i = 0; i < io->nr_legs; i++) {
		ublk_prep_leg(q, tag, i, buf);
		io->pending++;
	}
}

/*
 * A leg that moved fewer bytes than asked must go again for the rest (a
 * char device such as /dev/zero stops early when task work is pending;
 * io_uring retries short reads of regular files only): committing the
 * request whole would hand the reader bytes nobody wrote, and a zero-copy
 * kernel that counts the filled bytes would send the rest back as a new
 * request.  Moves the leg past what it did and returns true if a rest is
 * left; a leg that moved nothing becomes -EIO.
 */
bool ublk_leg_advance(struct ublk_queue *q, unsigned int tag,
		      unsigned int kind, unsigned int leg, int *res)
{
	struct ublk_io *io = &q->ios[tag];
	struct ublk_leg *l;

	if (kind != UD_LEG || *res < 0 || leg >= (unsigned int)io->nr_legs)
		return false;
	l = &io->legs[leg];
	if ((unsigned int)*res >= l->len)
		return false;
	if (*res == 0) {
		*res = -EIO;
		return false;
	}
	l->off += *res;
	l->buf_off += *res;
	l->len -= *res;
	return true;
}

/* the same on the daemon buffer: the leg goes again at once */
bool ublk_leg_short(struct ublk_queue *q, unsigned int tag, unsigned int kind,
		    unsigned int leg, int *res)
{
	if (!ublk_leg_advance(q, tag, kind, leg, res))
		return false;
	ublk_prep_leg(q, tag, leg, q->ios[tag].buf);
	return true;
}

void ublk_submit_flush(struct ublk_queue *q, unsigned int tag)
{
	struct ublk_io *io = &q->ios[tag];
	int i;

	for (i = 0; i < q->dev->tgt.nr_flush; i++) {
		struct io_uring_sqe *sqe = ublk_get_sqe(q);

		io_uring_prep_fsync(sqe, ublk_fixed_backing(i),
				    IORING_FSYNC_DATASYNC);
		ublk_sqe_fixed_file(sqe);
		sqe->user_data = ublk_ud(tag, UD_FLUSH, i);
		io->pending++;
	}
}

/* pread/pwrite of the whole request between the char device and buf. */
void ublk_submit_user_copy(struct ublk_queue *q, unsigned int tag,
			   bool to_dev)
{
	const struct ublksrv_io_desc *iod = ublk_iod(q, tag);
	struct io_uring_sqe *sqe = ublk_get_sqe(q);
	struct ublk_io *io = &q->ios[tag];
	unsigned int len = iod->nr_sectors << 9;
	uint64_t pos = ublk_user_copy_pos(q->q_id, tag);

	if (to_dev)
		io_uring_prep_write(sqe, UBLK_FIXED_CDEV, io->buf, len, pos);
	else
		io_uring_prep_read(sqe, UBLK_FIXED_CDEV, io->buf, len, pos);
	ublk_sqe_fixed_file(sqe);
	sqe->user_data = ublk_ud(tag, UD_COPY, 0);
	io->pending++;
	q->stats->copied_bytes += len;
}

/*
 * Account one finished SQE of a request: the first error wins, otherwise
 * bytes add up.  Returns true when the request has nothing in flight.
 */
int ublk_leg_done(struct ublk_queue *q, unsigned int tag, int res)
{
	struct ublk_io *io = &q->ios[tag];

	if (res < 0 && io->res >= 0)
		io->res = res;
	io->pending--;
	return io->pending == 0;
}

/* The kernel handed the request on tag over: the path starts it. */
void ublk_request_arrived(struct ublk_queue *q, unsigned int tag)
{
	struct ublk_io *io = &q->ios[tag];

	q->inflight++;
	q->stats->requests++;
	q->stats->bytes += (uint64_t)ublk_iod(q, tag)->nr_sectors << 9;
	io->res = 0;
	io->pending = 0;
	io->stage = 0;
	io->nr_legs = 0;
	io->legs_again = 0;
	q->dev->path->start(q, tag);
}

static void ublk_handle_cmd_cqe(struct ublk_queue *q, unsigned int tag,
				int res)
{
	struct ublk_io *io = &q->ios[tag];

	io->fetched = false;
	if (res == UBLK_IO_RES_OK) {
		ublk_request_arrived(q, tag);
		return;
	}
	/* -ENODEV: the device is stopping; anything else is a bug */
	q->active--;
	if (res != UBLK_IO_RES_ABORT && !q->error)
		q->error = res;
}

static void ublk_handle_cqe(struct ublk_queue *q, struct io_uring_cqe *cqe)
{
	unsigned int tag = ublk_ud_tag(cqe->user_data);
	unsigned int kind = ublk_ud_kind(cqe->user_data);
	unsigned int leg = ublk_ud_leg(cqe->user_data);

	if (kind == UD_CMD && q->dev->path->cmds)
		q->dev->path->cmds->cqe(q, cqe);
	else if (kind == UD_CMD)
		ublk_handle_cmd_cqe(q, tag, cqe->res);
	else
		q->dev->path->cqe(q, tag, kind, leg, cqe->res);
}

/* the ring's fixed-file table: the char device, then the target's files */
static int ublk_queue_register_files(struct ublk_queue *q)
{
	const struct ublk_tgt *t = &q->dev->tgt;
	int files[1 + UBLK_MAX_BACKINGS];
	int i;

	files[UBLK_FIXED_CDEV] = q->cdev_fd;
	for (i = 0; i < t->nr_fds; i++)
		files[ublk_fixed_backing(i)] = t->fds[i];
	return io_uring_register_files(&q->ring, files, 1 + t->nr_fds);
}

/*
 * Room for every tag's command plus its legs and copies.  SUBMIT_ALL: a
 * request's SQEs (install, legs, remove) go in together even when one
 * fails at prep, so the rest fail with their own CQE instead of lingering
 * in the SQ ring behind it. 128-byte SQEs only for the path that needs
 * them: ublk's io commands fit in 64 bytes.  A path whose requests post
 * CQEs for SQEs the server never queued gets a CQ with room for them on
 * top of the usual two per SQ entry: an overflowing CQ would stall the
 * queue on the kernel's overflow list.
 */
static int ublk_queue_ring_init(struct ublk_queue *q,
				const struct ublk_path_ops *path)
{
	unsigned int sq_entries = q->depth * 4;
	struct io_uring_params p = {
		.flags = (path->sqe128 ? IORING_SETUP_SQE128 : 0) |
			 IORING_SETUP_SUBMIT_ALL | IORING_SETUP_COOP_TASKRUN,
	};

	/* CLAMP: a deep queue may ask for more than io_uring's CQ maximum */
	if (path->unasked_cqes) {
		p.flags |= IORING_SETUP_CQSIZE | IORING_SETUP_CLAMP;
		p.cq_entries = 2 * sq_entries + q->depth * path->unasked_cqes;
	}
	return io_uring_queue_init_params(sq_entries, &q->ring, &p);
}

int ublk_queue_setup(struct ublk_dev *d, unsigned int q_id)
{
	struct ublk_queue *q = &d->queues[q_id];
	size_t iod_len = d->depth * sizeof(struct ublksrv_io_desc);
	long pg = sysconf(_SC_PAGESIZE);
	unsigned int i;
	int ret;

	q->dev = d;
	q->q_id = q_id;
	q->depth = d->depth;
	q->cdev_fd = d->cdev_fd;
	q->stats = &q->own_stats;
	iod_len = (iod_len + pg - 1) / pg * pg;
	q->iods = mmap(NULL, iod_len, PROT_READ, MAP_SHARED | MAP_POPULATE,
		       q->cdev_fd, UBLKSRV_CMD_BUF_OFFSET +
		       (off_t)q_id * UBLK_MAX_QUEUE_DEPTH *
		       sizeof(struct ublksrv_io_desc));
	if (q->iods == MAP_FAILED) {
		q->iods = NULL;
		return -errno;
	}
	q->ios = calloc(q->depth, sizeof(*q->ios));
	if (!q->ios)
		return -ENOMEM;
	ret = ublk_queue_ring_init(q, d->path);
	if (ret < 0)
		return ret;
	ret = ublk_queue_register_files(q);
	if (ret < 0)
		return ret;
	/*
	 * Zero-copy paths never touch them: depth x max-io bytes saved.  A
	 * loop or mirror leg does O_DIRECT from them, so their pages get the
	 * same fixed layout as the workload's (one segment each); a process
	 * that cannot read frame numbers serves with them as they come.
	 */
	if (d->path->daemon_buffers) {
		ret = scattered_buf_alloc((size_t)q->depth * d->max_io_bytes,
					  &q->bufs);
		if (ret < 0)
			return ret;
		for (i = 0; i < q->depth; i++)
			q->ios[i].buf = (char *)q->bufs +
					(size_t)i * d->max_io_bytes;
	}
	return d->path->queue_init ? d->path->queue_init(q) : 0;
}

void ublk_queue_teardown(struct ublk_queue *q)
{
	if (q->dev && q->dev->path->queue_exit && q->ring.ring_fd > 0)
		q->dev->path->queue_exit(q);
	if (q->ring.ring_fd > 0)
		io_uring_queue_exit(&q->ring);
	if (q->bufs)
		scattered_buf_free(q->bufs, (size_t)q->depth *
				   q->dev->max_io_bytes);
	q->bufs = NULL;
	free(q->ios);
	if (q->iods)
		munmap(q->iods, q->depth * sizeof(struct ublksrv_io_desc));
	q->ios = NULL;
	q->iods = NULL;
}

void *ublk_queue_thread(void *arg)
{
	struct ublk_queue *q = arg;
	const struct ublk_io_cmd_ops *cmds = q->dev->path->cmds;
	unsigned int i;
	sigset_t all;
	int ret;

	/* signals belong to the main thread, which stops the device */
	sigfillset(&all);
	pthread_sigmask(SIG_BLOCK, &all, NULL);

	if (cmds) {
		ret = cmds->start(q);
		if (ret < 0) {
			q->error = ret;
			return NULL;
		}
	} else {
		for (i = 0; i < q->depth; i++)
			ublk_queue_io_cmd(q, i, UBLK_U_IO_FETCH_REQ, 0);
		q->active = q->depth;
	}

	while (q->active || q->inflight) {
		struct io_uring_cqe *cqe;
		unsigned int head, n = 0;

		if (cmds && cmds->flush)
			cmds->flush(q);
		q->stats->enters++;
		ret = io_uring_submit_and_wait(&q->ring, 1);
		if (ret < 0 && ret != -EINTR && ret != -EAGAIN) {
			q->error = ret;
			break;
		}
		io_uring_for_each_cqe(&q->ring, head, cqe) {
			ublk_handle_cqe(q, cqe);
			n++;
		}
		io_uring_cq_advance(&q->ring, n);
	}
	return NULL;
}
