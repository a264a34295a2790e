/* SPDX-License-Identifier: GPL-2.0 */
/*
 * ublk server library: control path, per-queue io_uring loops, targets
 * (where a request's bytes live) and data paths (how the bytes get
 * between the request pages and the target).  A target maps a request
 * to legs; a data path executes the legs.  Adding either is one file
 * plus one table entry (target.c, path.c).
 */
#ifndef UZC_SRV_UBLK_H
#define UZC_SRV_UBLK_H

#include <linux/ublk_cmd.h>
#include <liburing.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stddef.h>

#define UBLK_MAX_LEGS		64
#define UBLK_MAX_BACKINGS	8
#define UBLK_MAX_QUEUES		16
#define UBLK_CTRL_DEV		"/dev/ublk-control"

/* One I/O of a request against one backing file. */
struct ublk_leg {
	int backing;		/* index into ublk_tgt.fds */
	uint64_t off;		/* byte offset in the backing file */
	uint32_t len;		/* bytes */
	uint32_t buf_off;	/* byte offset inside the request data */
};

struct ublk_tgt_config {
	const char *backing[UBLK_MAX_BACKINGS];
	int nr_backing;
	uint64_t size;		/* bytes; 0 = size of the smallest backing */
	uint32_t chunk;		/* stripe chunk, bytes */
	bool buffered;		/* do not open backings O_DIRECT */
};

struct ublk_tgt {
	const struct ublk_target_ops *ops;
	struct ublk_tgt_config cfg;
	int fds[UBLK_MAX_BACKINGS];
	int nr_fds;
	/* fds[0..nr_flush) hold data: FLUSH fsyncs them, the cache is volatile */
	int nr_flush;
	uint64_t dev_size;
	uint32_t max_io_bytes;	/* the device's largest request */
	unsigned int read_leg;	/* mirror: which leg serves reads */
};

/* What a target's backings may be (ublk_target_ops.media) */
#define UBLK_MEDIA_FILE		(1u << 0)	/* regular files */
#define UBLK_MEDIA_BDEV		(1u << 1)	/* block devices */

/*
 * A target: what it is (the fields before open(), which the commands and
 * abtool run's matrix ask instead of knowing targets by name) and how it
 * serves.
 */
struct ublk_target_ops {
	const char *name;
	const char *help;
	/*
	 * How many backings (a run's legs) it takes: 0..0, none (it has no
	 * media); min == max, a fixed number, which a run matrix does not
	 * spell ("loop", not "loop-1"); else "NAME-N" for N in min..max.
	 */
	int min_backing, max_backing;
	unsigned int media;	/* UBLK_MEDIA_*: what the backings may be */
	/*
	 * The device spans every backing (stripe) rather than the smallest
	 * one (loop, mirror: each leg holds all of it); ublk_target_share().
	 */
	bool size_spans_backings;
	/* Open backings, set dev_size; 0 or -errno, with a message. */
	int (*open)(struct ublk_tgt *t, char *err, size_t errlen);
	/*
	 * Fill legs for a READ or WRITE of [off, off + len); returns the
	 * number of legs (0 = nothing to do) or -errno.
	 */
	int (*map)(const struct ublk_tgt *t, bool write, uint64_t off,
		   uint32_t len, struct ublk_leg *legs);
};

struct ublk_queue;
struct ublk_io;

/*
 * How a queue's requests come and go when not by one FETCH and one
 * COMMIT_AND_FETCH per tag (UBLK_F_BATCH_IO: a few commands carry many
 * tags).  start() queues, once per queue, what hands requests over, and
 * counts in q->active the commands it leaves in the kernel; cqe() gets
 * every CQE of kind UD_CMD and hands each request it names to the path
 * with ublk_request_arrived(); commit() stands in for ublk_commit()'s
 * COMMIT_AND_FETCH; flush(), called each time before the queue submits
 * and waits, sends what commit() gathered.
 */
struct ublk_io_cmd_ops {
	int (*start)(struct ublk_queue *q);
	void (*cqe)(struct ublk_queue *q, const struct io_uring_cqe *cqe);
	void (*commit)(struct ublk_queue *q, unsigned int tag, int res);
	void (*flush)(struct ublk_queue *q);
};

struct ublk_path_ops {
	const char *name;
	const char *help;
	uint64_t dev_flags;	/* UBLK_F_* the device is created with */
	/*
	 * Optional: the UBLK_F_* for a kernel with these features, where
	 * kernels name the path's feature differently (regbuf: the 6.12
	 * port's bit 48, upstream's bit 0); without it, dev_flags.
	 */
	uint64_t (*dev_flags_for)(uint64_t features);
	bool kernel_copies;	/* the driver copies every request's bytes */
	bool daemon_buffers;	/* the target's I/O goes through a per-tag buffer */
	bool sqe128;		/* its SQEs have a second half (fused commands) */
	/*
	 * CQEs a request may post on its queue ring for SQEs the server did
	 * not queue (bpf: its program's), besides the ring's usual room
	 */
	unsigned int unasked_cqes;
	/* 0 if this kernel can run the path, else -errno and a reason. */
	int (*probe)(uint64_t features, char *why, size_t whylen);
	int (*queue_init)(struct ublk_queue *q);
	void (*queue_exit)(struct ublk_queue *q);
	/* A new request arrived on tag: start it. */
	void (*start)(struct ublk_queue *q, unsigned int tag);
	/* A CQE of one of the request's SQEs: kind, leg from its user_data */
	void (*cqe)(struct ublk_queue *q, unsigned int tag, unsigned int kind,
		    unsigned int leg, int res);
	/*
	 * Optional: the sqe->addr of the tag's FETCH and COMMIT_AND_FETCH
	 * (0 without).  UBLK_F_AUTO_BUF_REG reads there the buffer-table
	 * slot in which to register the tag's next request.
	 */
	uint64_t (*cmd_sqe_addr)(const struct ublk_queue *q, unsigned int tag);
	/* Optional: the path's own io commands (see ublk_io_cmd_ops) */
	const struct ublk_io_cmd_ops *cmds;
};

/*
 * user_data layout of the queue ring's SQEs: bits 0-15 the tag, 16-23
 * the kind, 24-31 the leg (or a path's aux index).  ublk_ud() builds it
 * and the ublk_ud_*() decoders read it back, so the layout is written
 * down once (kublk's build_user_data() and user_data_to_*()).
 */
enum ublk_ud_kind {
	UD_CMD = 0,		/* FETCH / COMMIT_AND_FETCH, or the path's cmds */
	UD_LEG,			/* backing I/O of a leg */
	UD_COPY,		/* user copy to/from the char device */
	UD_FLUSH,		/* fsync of a backing */
	UD_AUX,			/* data path private (install, remove, ...) */
};
#define UBLK_UD_KIND_SHIFT	16
#define UBLK_UD_LEG_SHIFT	24

static inline uint64_t ublk_ud(unsigned int tag, unsigned int kind,
			       unsigned int leg)
{
	return (uint64_t)tag | (uint64_t)kind << UBLK_UD_KIND_SHIFT |
	       (uint64_t)leg << UBLK_UD_LEG_SHIFT;
}

static inline unsigned int ublk_ud_tag(uint64_t user_data)
{
	return user_data & 0xffff;
}

static inline unsigned int ublk_ud_kind(uint64_t user_data)
{
	return (user_data >> UBLK_UD_KIND_SHIFT) & 0xff;
}

static inline unsigned int ublk_ud_leg(uint64_t user_data)
{
	return (user_data >> UBLK_UD_LEG_SHIFT) & 0xff;
}

struct ublk_io {
	void *buf;		/* daemon buffer (copy, user_copy) */
	struct ublk_leg legs[UBLK_MAX_LEGS];
	int nr_legs;
	int pending;		/* SQEs in flight for this request */
	int res;		/* bytes done or first -errno */
	unsigned int stage;	/* data path private */
	uint64_t legs_again;	/* legs cut short, to go again (bit = leg) */
	bool fetched;		/* FETCH/COMMIT outstanding in the kernel */
};

/* Counters of one queue; may live in memory shared with abtool run. */
struct ublk_stats {
	uint64_t requests;
	uint64_t bytes;		/* request bytes served */
	uint64_t sqes;
	uint64_t enters;	/* io_uring_enter calls */
	uint64_t copied_bytes;	/* bytes the daemon moved by copy syscalls */
};

struct ublk_dev;

struct ublk_queue {
	struct ublk_dev *dev;
	unsigned int q_id;
	unsigned int depth;
	int cdev_fd;
	struct ublksrv_io_desc *iods;
	struct io_uring ring;
	struct ublk_io *ios;
	void *bufs;		/* the tags' buffers, scattered_buf_alloc() */
	unsigned int active;	/* io commands the queue awaits back */
	unsigned int inflight;	/* requests being served */
	pthread_t thread;
	int error;
	struct ublk_stats *stats;
	struct ublk_stats own_stats;
	void *path_priv;
};

struct ublk_dev {
	int ctrl_fd;
	struct io_uring ctrl_ring;
	struct ublksrv_ctrl_dev_info info;
	int dev_id;
	int cdev_fd;
	unsigned int nr_queues, depth;
	uint32_t max_io_bytes;
	const struct ublk_path_ops *path;
	uint64_t dev_flags;	/* the path's UBLK_F_* on this kernel */
	struct ublk_tgt tgt;
	struct ublk_queue queues[UBLK_MAX_QUEUES];
};

/* target.c, path.c: the tables */
const struct ublk_target_ops *ublk_target_find(const char *name);
/* How many of its @nr_backing backings' bytes the device of @t holds */
unsigned int ublk_target_share(const struct ublk_target_ops *t,
			       unsigned int nr_backing);
const struct ublk_path_ops *ublk_path_find(const char *name);
void ublk_target_list(FILE *f);
void ublk_path_list(FILE *f);
extern const struct ublk_path_ops *const ublk_paths[];
extern const unsigned int ublk_nr_paths;
/* what a run may hold: every path, each once (see ublk/paths/path.c) */
#define UBLK_MAX_PATHS	16

/* ublk_ctrl.c */
int ublk_ctrl_open(struct ublk_dev *d);
void ublk_ctrl_close(struct ublk_dev *d);
int ublk_ctrl_get_features(struct ublk_dev *d, uint64_t *features);
int ublk_ctrl_add(struct ublk_dev *d);
int ublk_ctrl_set_params(struct ublk_dev *d, struct ublk_params *p);
int ublk_ctrl_start(struct ublk_dev *d, int daemon_pid);
int ublk_ctrl_stop(struct ublk_dev *d);
int ublk_ctrl_del(struct ublk_dev *d);
int ublk_ctrl_del_async(struct ublk_dev *d);
int ublk_ctrl_get_info(struct ublk_dev *d);
int ublk_features(uint64_t *features);
/* a command of a data path's own: op on the device, data[0], no buffer */
int ublk_ctrl_dev_cmd(struct ublk_dev *d, unsigned int op, uint64_t data0);

/* uring_probe.c: whether io_uring on this kernel supports opcode op */
bool uring_op_supported(int op);

/*
 * uring_buf_ring.c: a provided-buffer ring of nentries (a power of 2) as
 * group bgid with IOU_PBUF_RING_* flags, empty (liburing 2.4's
 * io_uring_setup_buf_ring(), which 2.3 lacks); NULL and -errno in *err
 * on failure.  uring_buf_ring_free() unregisters and unmaps it.
 */
struct io_uring_buf_ring *uring_buf_ring_setup(struct io_uring *ring,
					       unsigned int nentries,
					       unsigned int bgid,
					       unsigned int flags, int *err);
int uring_buf_ring_free(struct io_uring *ring, struct io_uring_buf_ring *br,
			unsigned int nentries, unsigned int bgid);

/* ublk_queue.c */
int ublk_queue_setup(struct ublk_dev *d, unsigned int q_id);
void ublk_queue_teardown(struct ublk_queue *q);
void *ublk_queue_thread(void *arg);
struct io_uring_sqe *ublk_get_sqe(struct ublk_queue *q);
void ublk_commit(struct ublk_queue *q, unsigned int tag, int res);
void ublk_request_arrived(struct ublk_queue *q, unsigned int tag);
void ublk_submit_legs(struct ublk_queue *q, unsigned int tag, void *buf);
bool ublk_leg_advance(struct ublk_queue *q, unsigned int tag,
		      unsigned int kind, unsigned int leg, int *res);
bool ublk_leg_short(struct ublk_queue *q, unsigned int tag, unsigned int kind,
		    unsigned int leg, int *res);
void ublk_submit_flush(struct ublk_queue *q, unsigned int tag);
void ublk_submit_user_copy(struct ublk_queue *q, unsigned int tag,
			   bool to_dev);
int ublk_leg_done(struct ublk_queue *q, unsigned int tag, int res);
uint64_t ublk_user_copy_pos(unsigned int q_id, unsigned int tag);

/*
 * Every queue ring registers its files at setup and its SQEs name them by
 * index, as kublk's do: [0] is the char device, [1 + i] the target's
 * fds[i].  So no data path pays a file lookup per SQE that another does
 * not (a path with three SQEs on the char device per request would pay
 * three).  Call after the io_uring_prep_*() that set sqe->fd.
 */
#define UBLK_FIXED_CDEV		0
static inline void ublk_sqe_fixed_file(struct io_uring_sqe *sqe)
{
	sqe->flags |= IOSQE_FIXED_FILE;
}

static inline int ublk_fixed_backing(int backing)
{
	return 1 + backing;
}

static inline const struct ublksrv_io_desc *
ublk_iod(const struct ublk_queue *q, unsigned int tag)
{
	return &q->iods[tag];
}

/* ublk_dev.c: the whole device life cycle */
struct ublk_dev_config {
	const char *target;
	const char *path;
	struct ublk_tgt_config tgt;
	unsigned int nr_queues, depth;
	uint32_t max_io_bytes;
	/* nr_queues counters to update instead of the queues' own */
	struct ublk_stats *shared_stats;
};
int ublk_dev_create(struct ublk_dev *d, const struct ublk_dev_config *c,
		    char *err, size_t errlen);
int ublk_dev_run(struct ublk_dev *d, volatile int *stop, int ready_fd);
void ublk_dev_destroy(struct ublk_dev *d);
int ublk_cleanup_stale(FILE *log);

#endif
