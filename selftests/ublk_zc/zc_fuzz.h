/* SPDX-License-Identifier: GPL-2.0 */
/*
 * zc_fuzz's private header: what its parts share (see zc_fuzz.c for what
 * the fuzzer does).  One concern a file:
 *
 *   zc_fuzz.c        configuration, randomness, reporting; the batches
 *                    that tie the server to the workload; setup and main
 *   zc_fuzz_model.c  the model of the kernel state: what each op is
 *                    expected to return, and what it changes
 *   zc_fuzz_gen.c    generating ops (and submissions) aimed at that state
 *   zc_fuzz_check.c  submitting them, taking the CQEs, checking each one
 *                    against the documented errnos and the model
 *   zc_fuzz_ring.c   the fuzz ring itself: its random setup, and the ops
 *                    done to the ring (table updates, clone, teardown)
 *   zc_fuzz_serve.c  the legitimate data path that serves every request
 *   zc_fuzz_wl.c     the workload: verified block I/O in lockstep batches
 *   zc_fuzz_bpf.c    the bpf series: its program and map, their model,
 *                    serving redirected and passed requests, REG/UNREG
 *
 * Every fuzz decision comes from one stream (rnd()), in the order the
 * code calls it: a seed replays the same ops whichever file they are in.
 */
#ifndef ZC_FUZZ_H
#define ZC_FUZZ_H

#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>
#include <sys/uio.h>

#include "ublk_zc_lib.h"
#include "uapi/splice_rsrc.h"
#include "uapi/fused.h"

/* ------------------------------------------------------------------ */
/* uAPI of both series and of 6.12 that liburing 2.3 does not name     */

#define OP_SPLICE_FROM		UZC_OP_SPLICE_FROM	/* splice-rsrc: 58, 65 on 7.3 */
#define OP_BUF_REMOVE		UZC_OP_BUF_REMOVE	/* splice-rsrc: 59, 66 on 7.3 */
#define OP_FUSED_CMD		IORING_OP_FUSED_CMD	/* fused */
/* IORING_OP_LAST of the fused kernel */
#define OP_LAST_FUSED		(IORING_OP_FUSED_CMD + 1)
#define OP_NOP			0
#define OP_ASYNC_CANCEL		14
#define OP_WRITEV		2
#define OP_READ_FIXED		4
#define OP_WRITE_FIXED		5
#define OP_READ			22
#define OP_WRITE		23
#define OP_SEND			26
#define OP_RECV			27
#define OP_URING_CMD		46
#define OP_SEND_ZC		47
#define REG_CLONE_BUFFERS	30
#define SQE_BAD_FLAG		0x80	/* beyond SQE_VALID_FLAGS */
#define URING_CMD_MULTISHOT	(1U << 1)	/* 7.3's IORING_URING_CMD_MULTISHOT */
#define MAX_RW			0x7ffff000u	/* MAX_RW_COUNT on x86_64 */
#define UDP_MAX			65507	/* IPv4 UDP payload limit */
/*
 * SEND_ZC gives each bvec of a fixed buffer its own skb frag and fails
 * with -EMSGSIZE past MAX_SKB_FRAGS (17, the default).  Segments of
 * request pages are 512-byte multiples (the device's dma alignment), so
 * 17 frags always hold a partial first one and 16 more: 8192 bytes.
 */
#define ZC_FRAGS_SURE		(16 * 512)
#define HUGE_ADDR		(1ULL << 47)	/* beyond user address space */

struct clone_buffers {		/* struct io_uring_clone_buffers */
	__u32 src_fd;
	__u32 flags;
	__u32 pad[6];
};

/* ------------------------------------------------------------------ */
/* configuration, randomness, reporting (zc_fuzz.c)                    */

#define MAX_DEPTH	16
#define MAX_SLOTS	16
#define MAX_SUB		5	/* SQEs per fuzz submission */
#define LOG_OPS		1024	/* ops kept for late CQEs and reports */
#define UBUF_LEN	(64 << 10)

enum series { S_SPLICE, S_FUSED, S_BPF };

/*
 * Where the server's FETCH/COMMIT uring_cmds live: on a queue ring of
 * their own (split), or on the fuzz ring itself (same ring: the fuzz ops
 * interleave with the parked FETCHes and with COMMIT while a loan is
 * installed; the ring is torn down only at the end, and the device must
 * then delete).  Chosen by the seed, or -m / UBLK_ZC_FUZZ_MODE.
 */
enum fetch_mode { FM_SPLIT, FM_SAME };

struct config {
	unsigned long ops;
	unsigned long long seed;
	bool debug;
	int verbose;
	unsigned int depth;
	unsigned int max_io;
	unsigned long long dev_size;
	int cqe_wait_ms;
	enum fetch_mode mode;
	bool mode_forced;
};

extern struct config cfg;
extern enum series series;
/*
 * The splice-rsrc series on Linux 7.3 (UZC_V73): the model takes 7.3's
 * rules where 7.3's io_uring and the 7.3 port differ from the 6.12
 * series (each rule names the 7.3 function that makes it); false on
 * every 6.12 kernel, whose model stays as it was.
 */
extern bool v73;

/* splitmix64: tiny, good enough, and reproducible everywhere */
static inline __u64 rng_next(__u64 *s)
{
	__u64 z = (*s += 0x9e3779b97f4a7c15ULL);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

/* the server's stream: every fuzz decision */
__u64 rnd(void);
__u64 rnd_below(__u64 n);
bool chance(unsigned int pct);

/* a failed check: counted, and printed for the first ones */
void report(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
const char *errname(int res);

/* ------------------------------------------------------------------ */
/* files (opened by zc_fuzz.c)                                         */

/* kinds of file an SQE may name */
enum fk { FK_BAD, FK_CDEV, FK_CTRL, FK_REG, FK_RO, FK_BACKING, FK_UDP, FK_RX,
	  FK_EVFD, FK_INOTIFY };

/* the fuzz ring's registered files, when it has them */
enum {
	FIX_CDEV, FIX_SCRATCH, FIX_SPARSE, FIX_UDP, FIX_RO, FIX_BACKING,
	FIX_RX, FIX_PIPE, NR_FIX
};

/* fd choices, resolved against the ring's registered files */
enum fdc { C_CDEV, C_CDEV_FIX, C_SCRATCH, C_SCRATCH_FIX, C_RO, C_RO_FIX,
	   C_BACKING, C_BACKING_FIX, C_UDP, C_UDP_FIX, C_RX, C_CTRL,
	   C_MINUS1, C_CLOSED, C_FIX_SPARSE, C_FIX_OOR,
	   /* files with only ->write() (eventfd) / ->read() (inotify) */
	   C_EVFD, C_INOTIFY, NR_C };

struct files {
	int cdev, ctrl, backing, mirror, scratch, ro;
	int udp_tx, udp_sink, udp_rx;
	int closed;
	int evfd, inotify;		/* ->write() only, ->read() only */
	int pipe[2];			/* fixed-file READs park on [0] */
	char backing_path[64], mirror_path[64], scratch_path[64];
};

extern struct files F;
extern struct uzc_dev D;	/* the device, served by main() */

/* ------------------------------------------------------------------ */
/* the model of the kernel state (zc_fuzz_model.c)                     */

/* the results an op may have */
struct exp {
	int n;
	int v[8];
};

enum { T_IDLE, T_OWNED, T_DONE };	/* server's view of a tag */
/*
 * splice: is the request lent?  L_PEND: its buffer left the table, but a
 * request of the current io_uring_enter() imported it and lets go only
 * when it completes (by the end of the call if inline; io-wq or parked
 * ones later, but always before their CQE; 7.3: when it is freed,
 * io_req_put_rsrc_nodes(), which for io-wq ones comes after the CQE):
 * still lent until then.  L_MAYBE: given back, or about to be (an
 * importer still running, ring exit work); settle() finds out.
 */
enum { L_FREE, L_HELD, L_PEND, L_MAYBE };
enum { SL_EMPTY, SL_USER, SL_KERNEL };	/* registered-buffer slot */
enum { DIR_SRC = 1, DIR_DST = 2 };	/* what a lent buffer allows */

struct mtag {
	unsigned char state, lend, op;
	unsigned int bytes;
	unsigned long long start;	/* device byte offset */
};

struct mslot {
	unsigned char kind, dir;
	bool used;			/* imported in this io_uring_enter() */
	bool used_before;		/* imported in an earlier one */
	unsigned short tag;
	unsigned int len;
	unsigned long long dev_off;	/* kernel: device offset of byte 0 */
	unsigned long long uaddr;	/* user: address */
};

struct model {
	/* the fuzz ring */
	bool open, sqe128, submit_all, iopoll, table, files, drain_disabled;
	/*
	 * A SEND_ZC (or a fused one) went into the ring: 6.12 posts its
	 * notification CQE without counting it for IOSQE_IO_DRAIN
	 * (req_need_defer() wants cq_tail == sequence + cq_extra), so a
	 * later drained SQE waits forever (base kernel too): none is
	 * generated then.
	 */
	bool drain_hangs;
	/*
	 * IORING_SETUP_SQPOLL: the SQ thread submits, and it is not the
	 * queue's daemon unless the FETCHes went through it (never here):
	 * lending from it is refused (-EPERM).
	 */
	bool sqpoll;
	/* the queue's FETCH/COMMIT are parked on this ring (FM_SAME) */
	bool fetch_here;
	/*
	 * A READ on the fixed pipe is parked: it holds the ring's current
	 * rsrc node, which must never hold a lent buffer (or the block
	 * request) hostage; a drain would wait for it (none then), and
	 * IORING_UNREGISTER_BUFFERS waits for it (from a helper thread).
	 */
	bool parked;
	unsigned int nslots;
	struct mslot slot[MAX_SLOTS];
	/* queue 0 of the device */
	struct mtag tag[MAX_DEPTH];
};

extern struct model M;		/* what the kernel did, as far as we know */

/* ------------------------------------------------------------------ */
/* ops                                                                  */

enum opk { K_SPLICE, K_REMOVE, K_READF, K_WRITEF, K_SENDZC, K_UCMD,
	   K_FUSED, K_TABLE, K_CLONE, K_TEARDOWN, K_NOP, K_PARK, NR_K };

struct op {
	int kind;
	unsigned long idx;		/* 1-based, in the order generated */
	struct io_uring_sqe sqe[2];	/* [1]: fused secondary */
	enum fdc fdc, sfdc;		/* fd choices, for reports */
	enum fk fk, sfk;		/* what they resolved to */
	unsigned int link;		/* IOSQE_IO_LINK / _HARDLINK / 0 */
	bool skip;			/* IOSQE_CQE_SKIP_SUCCESS */
	struct mslot bound;		/* RW/SEND_ZC: the slot prep saw */
	bool bound_oor;			/* buf_index beyond the table */
	struct exp exp;
	int prep;			/* the model's prep result */
	const char *why;		/* the model's reason */
	bool got, more, late, chained, notified;
	/*
	 * From the first IOSQE_IO_DRAIN SQE of a submission on: prepped at
	 * submission, issued once everything before completed, in io-wq,
	 * in no particular order among themselves
	 */
	bool deferred;
	int res;
};

/* zc_fuzz_model.c */
void exp_add(struct exp *e, int v);
bool exp_has(const struct exp *e, int v);
bool exp_success(const struct exp *e);
void exp_str(const struct exp *e, char *buf, size_t len);
/* a lent buffer leaves slot @i: the request is released, maybe later */
void slot_drop(struct model *m, unsigned int i);
/* an io_uring_enter() ends: its requests are freed, now or soon */
void call_end(struct model *m);
/* io_import_fixed() on what @o bound: 0 or the errno it fails with */
int import_fixed(const struct op *o, int dir, __u64 addr, __u64 len);
/*
 * Run @o (unlinked) or the submission @ops through model @m; @actual:
 * with the CQE results, each checked (check_one()), else with the model's
 * own best guess (generating).
 */
void sim_unlinked(struct model *m, struct op *o, bool actual);
void sim_sub(struct model *m, struct op *ops, int n, bool actual);
/* do ops @a and @b of a drained group depend on their order? */
bool ops_conflict(const struct model *m, const struct op *a,
		  const struct op *b);

/* zc_fuzz_gen.c */
extern unsigned long nr_ops;		/* fuzz SQEs generated */
void sort_tags(const struct model *m, unsigned int *t, unsigned int n);
int pick_slot(const struct model *m, int kind, int dir);
/* a submission of up to MAX_SUB ops into @ops; returns how many */
int gen_sub(struct op *ops);

/* zc_fuzz_check.c */
extern unsigned long nr_mismatch_model, nr_undocumented;
extern unsigned long nr_notifs, nr_quirk_notif;
/* what the cases of issue 14 generated, and what they saw */
struct newcase_stats {
	unsigned long rwonly, rwonly_refused;	/* eventfd / inotify */
	unsigned long drained, deferred;	/* drained SQEs, their groups */
	unsigned long nop_remove, nop_remove_ok; /* BUF_REMOVE after NOP */
	unsigned long sqpoll_rings, sqpoll_ops, sqpoll_eperm;
	unsigned long same_ring_ops;
};
extern struct newcase_stats NC;
void hist_add(int kind, int res);
void print_hist(void);
/* @o's result against the documented errnos and the model */
void check_one(struct op *o);
/* a register-time op on the fuzz ring returned @got */
void check_reg(const char *what, int got, int want);
/* take the fuzz ring's CQEs until @done() (NULL: those there), @wait_ms */
void reap_fuzz(int wait_ms, bool (*done)(void));
/* submit @n generated ops, take their CQEs, check them */
void fuzz_submit(struct op *ops, int n);
/* a CQE of a queue command on the fuzz ring (FM_SAME): to the queue */
bool queue_cqe(const struct io_uring_cqe *cqe);

/* zc_fuzz_ring.c */
extern struct io_uring *FR;		/* fuzz ring: torn down at random */
extern void *ubuf[MAX_SLOTS];		/* user buffers for table slots */
extern unsigned long nr_teardowns;
extern unsigned long nr_teardown_lent;	/* with buffers installed */
/* the fuzz ring's setup; FM_SAME: it is the device's queue ring, D.q */
int fuzz_ring_setup(struct io_uring *ring);
int fuzz_ring_open(void);
void fuzz_ring_close(void);
void table_op(void);
void clone_op(void);
int teardown_op(void);
/* IORING_UNREGISTER_BUFFERS, a parked READ or not; checked, modelled */
void unregister_op(const char *what);
void reregister_op(const char *why, unsigned int ns);
/* a READ parks on the fixed pipe; release it (data or cancel) */
void park_op(void);
void unpark_op(void);
void unpark_op_data(void);		/* a byte for it: it completes */
extern unsigned long nr_parks, nr_unparks;
/* unregisters with a READ parked, with loans among the slots dropped */
extern unsigned long nr_unreg_parked, nr_unreg_parked_lent;
/* a CQE of the parked READ or its cancel: true if it was one */
bool park_cqe(const struct io_uring_cqe *cqe);
/* the server memory a lent buffer's offsets would name as pointers */
void mem_guard_setup(void);
void mem_guard_check(void);

/* zc_fuzz_serve.c */
extern struct io_uring DR;		/* data ring: the legitimate path */
extern void *bounce;			/* user copy, max_io bytes */
extern unsigned long nr_legit, nr_legit_zc, nr_legit_copy, nr_legit_fail;
/* loans given back after their users' CQEs: how often still lent */
extern unsigned long nr_settled, nr_settle_late, max_settle_tries;
/* serve and commit request @tag through the legitimate data path */
void serve(int tag);
/* wait until the loans that may linger are back (splice-rsrc) */
void settle(void);
/* UBLK_F_USER_COPY: serve request @tag from/to the backing file */
void serve_copy(int tag);

/* ------------------------------------------------------------------ */
/* the bpf series (zc_fuzz_bpf.c): program, map, model, serving        */

struct batch;

/* the queue ring of a UBLK_F_BPF device (uzc_queue_ring_init) */
int bpf_ring_init(struct uzc_dev *d);
/* the program (loaded twice), its map, files; before the device */
int bpf_setup(void);
/* ADD_DEV with UBLK_F_BPF and a flag it excludes, checked */
void bpf_add_refused(void);
/* fill the map for the I/Os of @b before the workload starts it */
void bpf_arm(const struct batch *b, bool fuzz);
/* the queue ring: the program's CQEs counted, the next request's tag */
int bpf_next_req(int timeout_ms);
/* check and serve request @tag as the model says the kernel left it */
void bpf_serve(int tag);
/* one REG/UNREG, good or bad */
void bpf_step(void);
/* the batch completed: its CQEs checked, the server's files gathered */
int bpf_batch_end(void);
void bpf_summary(void);

/* ------------------------------------------------------------------ */
/* the workload: verified block I/O in lockstep batches (zc_fuzz_wl.c) */

struct wio {
	unsigned char op;		/* UBLK_IO_OP_READ / _WRITE */
	unsigned long long off;
	unsigned int len;
	int nvec;
	struct iovec iov[4];
};

struct batch {
	int nr, flushes;
	bool finished;
	struct wio io[MAX_DEPTH];
};

struct workload {
	pthread_t th;
	pthread_mutex_t mu;
	pthread_cond_t cv;
	bool go, published, done, stop, final_req;
	/*
	 * bpf: a published batch waits for wl_go() (the server fills the
	 * program's map first), and the server marks the I/Os that must
	 * fail (-EIO)
	 */
	bool hold, armed;
	bool must_fail[MAX_DEPTH];
	int phase;			/* 0 random, 1 write all, 2 read all */
	unsigned long long pos;
	struct batch b;
	int fd;
	struct io_uring ring;
	unsigned char *shadow;		/* what the device must contain */
	char *arena;
	size_t per_io;
	__u64 rng;
	unsigned long long verified, written, final_verified;
	unsigned long mismatches, errors, ios, batches;
	unsigned long failed;		/* I/Os that failed as they must */
};

extern struct workload W;
void *wl_thread(void *arg);
/* ask for the next batch (@final: the full write + read-back) */
void wl_next(struct batch *b, bool final);
bool wl_is_done(void);
/* let the published batch run (W.hold) */
void wl_go(void);

#endif
