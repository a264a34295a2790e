// SPDX-License-Identifier: GPL-2.0
/*
 * Bounded, seeded fuzzer for the zero-copy uAPIs of the two kernel series:
 *
 *  - splice-rsrc: IORING_OP_SPLICE_FROM (58) installs ublk request pages in
 *    a registered-buffer slot, READ_FIXED / WRITE_FIXED / SEND_ZC use it,
 *    IORING_OP_BUF_REMOVE (59) empties the slot;
 *  - fused: IORING_OP_FUSED_CMD (58, SQE128), primary
 *    UBLK_U_IO_FUSED_SUBMIT_IO, secondary READ/WRITE/SEND/RECV/SEND_ZC.
 *
 * The program is the ublk server of one device (one queue) and serves it
 * for a workload thread that does verified O_DIRECT I/O on /dev/ublkbN in
 * lockstep batches: the server knows every block request of a batch before
 * it starts fuzzing, so the state of every tag (owned, committed, idle) is
 * known exactly.  While it holds the requests of a batch it sends
 * randomised SQEs at the new ops on a "fuzz ring" (slots, offsets, lengths,
 * directions, flags, links, fds, tags, orders, ring teardown), serves each
 * request through its legitimate path (zero copy on a separate ring, or
 * user copy) and commits it.
 *
 * Every CQE is checked twice: against the errno set the series documents
 * for the op (cover letter, uapi headers) and against a model of the
 * kernel state that predicts the exact result (e.g. -EACCES for a buffer
 * used in the wrong direction).  Data are checked by the workload on every
 * read, by a final full write + read-back of the device, and by comparing
 * the server's backing file and its mirror with the workload's shadow copy.
 *
 * Usage: zc_fuzz [-n OPS] [-s SEED] [-v]; env UBLK_ZC_FUZZ_OPS,
 * UBLK_ZC_FUZZ_SEED, UBLK_ZC_FLAVOR=debug (smaller device).  Exit 4 (skip)
 * when the kernel has neither series; exit 1 instead when UBLK_ZC_VARIANT
 * names a series the kernel should have (splice-rsrc, fused), or another
 * variant than the series found.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <limits.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <net/if.h>
#include <netinet/in.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>

#include "ublk_zc_lib.h"
#include "uapi/splice_rsrc.h"
#include "uapi/fused.h"
#include "kselftest.h"

/* ------------------------------------------------------------------ */
/* uAPI of both series and of 6.12 that liburing 2.3 does not name     */

#define OP_SPLICE_FROM		IORING_OP_SPLICE_FROM	/* splice-rsrc */
#define OP_BUF_REMOVE		IORING_OP_BUF_REMOVE	/* splice-rsrc */
#define OP_FUSED_CMD		IORING_OP_FUSED_CMD	/* fused */
/* IORING_OP_LAST of the fused kernel */
#define OP_LAST_FUSED		(IORING_OP_FUSED_CMD + 1)
#define OP_NOP			0
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
/* configuration, randomness, reporting                                */

#define MAX_DEPTH	16
#define MAX_SLOTS	16
#define MAX_SUB		5	/* SQEs per fuzz submission */
#define LOG_OPS		1024	/* ops kept for late CQEs and reports */
#define UBUF_LEN	(64 << 10)
#define MAX_REPORTS	25

enum series { S_SPLICE, S_FUSED };

static struct {
	unsigned long ops;
	unsigned long long seed;
	bool debug;
	int verbose;
	unsigned int depth;
	unsigned int max_io;
	unsigned long long dev_size;
	int cqe_wait_ms;
} cfg;

static enum series series;

/* splitmix64: tiny, good enough, and reproducible everywhere */
static __u64 rng_next(__u64 *s)
{
	__u64 z = (*s += 0x9e3779b97f4a7c15ULL);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

static __u64 rng;	/* the server's stream: every fuzz decision */

static __u64 rnd(void)
{
	return rng_next(&rng);
}

static __u64 rnd_below(__u64 n)
{
	return n ? rnd() % n : 0;
}

static bool chance(unsigned int pct)
{
	return rnd_below(100) < pct;
}

static unsigned long nr_fail;	/* checks that failed */
static unsigned long nr_reports;

static void report(const char *fmt, ...)
{
	va_list ap;

	nr_fail++;
	if (++nr_reports > MAX_REPORTS)
		return;
	printf("# FAIL: ");
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	printf("\n");
	fflush(stdout);
}

static const char *errname(int res)
{
	const char *n;

	if (res >= 0)
		return "ok";
	n = strerrorname_np(-res);
	return n ? n : "E?";
}

/* ------------------------------------------------------------------ */
/* expected results                                                     */

struct exp {
	int n;
	int v[8];
};

static void exp_add(struct exp *e, int v)
{
	int i;

	for (i = 0; i < e->n; i++)
		if (e->v[i] == v)
			return;
	if (e->n < 8)
		e->v[e->n++] = v;
}

static bool exp_has(const struct exp *e, int v)
{
	int i;

	for (i = 0; i < e->n; i++)
		if (e->v[i] == v)
			return true;
	return false;
}

static bool exp_success(const struct exp *e)
{
	int i;

	for (i = 0; i < e->n; i++)
		if (e->v[i] >= 0)
			return true;
	return false;
}

static void exp_str(const struct exp *e, char *buf, size_t len)
{
	size_t o = 0;
	int i;

	buf[0] = 0;
	for (i = 0; i < e->n && o < len; i++)
		o += snprintf(buf + o, len - o, "%s%d(%s)", i ? "|" : "",
			      e->v[i], errname(e->v[i]));
}

/* ------------------------------------------------------------------ */
/* the model of the kernel state                                       */

enum { T_IDLE, T_OWNED, T_DONE };	/* server's view of a tag */
/*
 * splice: is the request lent?  L_PEND: its buffer left the table, but a
 * request of the current io_uring_enter() imported it and lets go only
 * when it completes (by the end of the call if inline; io-wq or parked
 * ones later, but always before their CQE): still lent until then.
 * L_MAYBE: given back, or about to be (an importer still running, ring
 * exit work); settle() finds out.
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
	unsigned int nslots;
	struct mslot slot[MAX_SLOTS];
	/* queue 0 of the device */
	struct mtag tag[MAX_DEPTH];
};

static struct model M;		/* what the kernel did, as far as we know */

/* ------------------------------------------------------------------ */
/* files                                                                */

/* kinds of file an SQE may name */
enum fk { FK_BAD, FK_CDEV, FK_CTRL, FK_REG, FK_RO, FK_BACKING, FK_UDP, FK_RX };

/* the fuzz ring's registered files, when it has them */
enum {
	FIX_CDEV, FIX_SCRATCH, FIX_SPARSE, FIX_UDP, FIX_RO, FIX_BACKING,
	FIX_RX, NR_FIX
};

/* fd choices, resolved against the ring's registered files */
enum fdc { C_CDEV, C_CDEV_FIX, C_SCRATCH, C_SCRATCH_FIX, C_RO, C_RO_FIX,
	   C_BACKING, C_BACKING_FIX, C_UDP, C_UDP_FIX, C_RX, C_CTRL,
	   C_MINUS1, C_CLOSED, C_FIX_SPARSE, C_FIX_OOR, NR_C };

static const char *const fdc_name[NR_C] = {
	"cdev", "cdev#", "scratch", "scratch#", "ro", "ro#", "backing",
	"backing#", "udp", "udp#", "rx", "ctrl", "-1", "closed", "sparse#",
	"oor#",
};

static struct {
	int cdev, ctrl, backing, mirror, scratch, ro;
	int udp_tx, udp_sink, udp_rx;
	int closed;
	char backing_path[64], mirror_path[64], scratch_path[64];
} F = { .cdev = -1, .ctrl = -1, .backing = -1, .mirror = -1, .scratch = -1,
	.ro = -1, .udp_tx = -1, .udp_sink = -1, .udp_rx = -1, .closed = 977 };

/* resolve @c to an fd or fixed index; returns the kind of file it names */
static enum fk fd_resolve(const struct model *m, enum fdc c, int *fd,
			  bool *fixed)
{
	static const int fix_of[NR_C] = {
		[C_CDEV_FIX] = FIX_CDEV, [C_SCRATCH_FIX] = FIX_SCRATCH,
		[C_RO_FIX] = FIX_RO, [C_BACKING_FIX] = FIX_BACKING,
		[C_UDP_FIX] = FIX_UDP, [C_FIX_SPARSE] = FIX_SPARSE,
	};
	static const enum fk kind_of[NR_C] = {
		[C_CDEV] = FK_CDEV, [C_CDEV_FIX] = FK_CDEV,
		[C_SCRATCH] = FK_REG, [C_SCRATCH_FIX] = FK_REG,
		[C_RO] = FK_RO, [C_RO_FIX] = FK_RO,
		[C_BACKING] = FK_BACKING, [C_BACKING_FIX] = FK_BACKING,
		[C_UDP] = FK_UDP, [C_UDP_FIX] = FK_UDP, [C_RX] = FK_RX,
		[C_CTRL] = FK_CTRL,
	};

	*fixed = false;
	switch (c) {
	case C_CDEV:
		*fd = F.cdev;
		break;
	case C_SCRATCH:
		*fd = F.scratch;
		break;
	case C_RO:
		*fd = F.ro;
		break;
	case C_BACKING:
		*fd = F.backing;
		break;
	case C_UDP:
		*fd = F.udp_tx;
		break;
	case C_RX:
		*fd = F.udp_rx;
		break;
	case C_CTRL:
		*fd = F.ctrl;
		break;
	case C_MINUS1:
		*fd = -1;
		return FK_BAD;
	case C_CLOSED:
		*fd = F.closed;
		return FK_BAD;
	case C_FIX_OOR:
		*fixed = true;
		*fd = NR_FIX + rnd_below(1000);
		return FK_BAD;
	default:
		*fixed = true;
		*fd = fix_of[c];
		if (!m->files || c == C_FIX_SPARSE)
			return FK_BAD;
		break;
	}
	return kind_of[c];
}

/* ------------------------------------------------------------------ */
/* ops                                                                  */

enum opk { K_SPLICE, K_REMOVE, K_READF, K_WRITEF, K_SENDZC, K_UCMD,
	   K_FUSED, K_TABLE, K_CLONE, K_TEARDOWN, NR_K };

static const char *const opk_name[NR_K] = {
	"SPLICE_FROM", "BUF_REMOVE", "READ_FIXED", "WRITE_FIXED", "SEND_ZC",
	"URING_CMD", "FUSED_CMD", "table-op", "clone-op", "ring-teardown",
};

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
	int res;
};

static struct op oplog[LOG_OPS];
static unsigned long nr_ops;		/* fuzz SQEs generated */
static unsigned long hist[NR_K][140];	/* [kind][-res or 0] */
static unsigned long nr_teardowns, nr_mismatch_model, nr_undocumented;
static unsigned long nr_teardown_lent;	/* with buffers installed */
static unsigned long nr_legit, nr_legit_zc, nr_legit_copy, nr_notifs;
static unsigned long nr_quirk_notif;
/* loans given back after their users' CQEs: how often still lent */
static unsigned long nr_settled, nr_settle_late, max_settle_tries;

static void hist_add(int kind, int res)
{
	int i = res >= 0 ? 0 : -res;

	if (i < 140)
		hist[kind][i]++;
}

static void print_sqe(const char *tag, const struct io_uring_sqe *s)
{
	printf("#   %s op=%u flags=0x%x ioprio=%u fd=%d off=0x%llx addr=0x%llx len=%u rw_flags=0x%x buf_index=%u personality=%u splice_fd_in=%d addr3=0x%llx pad2=0x%llx\n",
	       tag, s->opcode, s->flags, s->ioprio, s->fd,
	       (unsigned long long)s->off, (unsigned long long)s->addr,
	       s->len, s->rw_flags, s->buf_index, s->personality,
	       s->splice_fd_in, (unsigned long long)s->addr3,
	       (unsigned long long)s->__pad2[0]);
}

static void print_op(const struct op *o)
{
	char e[160];

	exp_str(&o->exp, e, sizeof(e));
	printf("#   op #%lu %s fd=%s%s%s link=%u skip=%d: got %d (%s), expected %s [%s]\n",
	       o->idx, opk_name[o->kind], fdc_name[o->fdc],
	       o->kind == K_FUSED ? " sec-fd=" : "",
	       o->kind == K_FUSED ? fdc_name[o->sfdc] : "", o->link, o->skip,
	       o->res, o->got ? errname(o->res) : "no CQE", e,
	       o->why ? o->why : "");
	print_sqe("sqe", &o->sqe[0]);
	if (o->kind == K_READF || o->kind == K_WRITEF ||
	    o->kind == K_SENDZC || o->kind == K_UCMD)
		printf("#   bound slot: %s kind=%d tag=%u dir=%d len=%u uaddr=0x%llx\n",
		       o->bound_oor ? "beyond table" : "", o->bound.kind,
		       o->bound.tag, o->bound.dir, o->bound.len,
		       o->bound.uaddr);
	if (o->kind == K_FUSED)
		print_sqe("sec", &o->sqe[1]);
	if (o->kind == K_UCMD)
		printf("#   cmd_op=0x%x uring_cmd_flags=0x%x\n",
		       o->sqe[0].cmd_op, o->sqe[0].uring_cmd_flags);
	if (o->kind == K_FUSED) {
		const struct ublksrv_io_cmd *c = (const void *)&o->sqe[0].addr3;

		printf("#   cmd_op=0x%x uring_cmd_flags=0x%x pad1=%u q_id=%u tag=%u\n",
		       o->sqe[0].cmd_op, o->sqe[0].uring_cmd_flags,
		       o->sqe[0].__pad1, c->q_id, c->tag);
	}
}

/* the documented result set of each op: anything else is a failure */
static bool documented(const struct op *o, int res)
{
	static const int splice_from[] = { EINVAL, EBADF, ENXIO, ERANGE,
		EBUSY, EOPNOTSUPP, ENOMEM, ECHRNG, ESRCH, ENODATA, EOVERFLOW,
		EALREADY, ECANCELED, 0 };
	static const int buf_remove[] = { EINVAL, ENXIO, ERANGE, ENOENT,
		EPERM, EOPNOTSUPP, ECANCELED, 0 };
	/* fixed-buffer users: lent-buffer errnos + those of any READ/WRITE */
	static const int rw_fixed[] = { EACCES, EFAULT, EBADF, EINVAL,
		EOPNOTSUPP, ECANCELED, EMSGSIZE, 0 };
	static const int send_zc[] = { EACCES, EFAULT, EBADF, EINVAL,
		ENOTSOCK, EMSGSIZE, EOPNOTSUPP, ECANCELED, 0 };
	/* uring_cmd with IORING_URING_CMD_FIXED holds the buffer too */
	static const int ucmd[] = { EINVAL, EFAULT, EBADF, EOPNOTSUPP,
		ECANCELED, 0 };
	/* fused: its own errnos, then the secondary's result on our files */
	static const int fused[] = { EINVAL, ENOENT, EACCES, EOPNOTSUPP,
		EFAULT, EBADF, ECANCELED, EAGAIN, EMSGSIZE, ENOTSOCK, 0 };
	const int *set;
	__u32 len = o->kind == K_FUSED ? o->sqe[1].len : o->sqe[0].len;
	int i;

	switch (o->kind) {
	case K_SPLICE:
		if (res >= 0)
			return res > 0 && (__u32)res == len;
		set = splice_from;
		break;
	case K_REMOVE:
		if (res >= 0)
			return res == 0;
		set = buf_remove;
		break;
	case K_READF:
	case K_WRITEF:
		set = rw_fixed;
		break;
	case K_SENDZC:
		set = send_zc;
		break;
	case K_UCMD:
		if (res >= 0)
			return res == 0;
		set = ucmd;
		break;
	default:
		set = fused;
		break;
	}
	if (res >= 0)
		return (__u32)res <= len;
	for (i = 0; set[i]; i++)
		if (-res == set[i])
			return true;
	return false;
}

/* ------------------------------------------------------------------ */
/* expectations: what io_uring and the lender do, step by step          */

/* io_init_req(): checks every op meets before its own ->prep() */
static int prep_generic(struct model *m, const struct io_uring_sqe *s,
			bool def_ioprio, bool def_iopoll, bool *force_async)
{
	unsigned int fl = s->flags;

	*force_async = fl & IOSQE_ASYNC;
	if (fl & SQE_BAD_FLAG)
		return -EINVAL;
	if (fl & IOSQE_BUFFER_SELECT)
		return -EOPNOTSUPP;	/* none of these ops selects buffers */
	if (fl & IOSQE_CQE_SKIP_SUCCESS)
		m->drain_disabled = true;
	if (fl & IOSQE_IO_DRAIN) {
		if (m->drain_disabled)
			return -EOPNOTSUPP;
		*force_async = true;	/* drained requests go the slow way */
	}
	if (s->ioprio && !def_ioprio)
		return -EINVAL;
	if (m->iopoll && !def_iopoll)
		return -EINVAL;
	if (s->personality)
		return -EINVAL;	/* none registered */
	return 0;
}

/* ublk's ->loan_bvec(): the lender's checks for SPLICE_FROM */
static void expect_loan(const struct model *m, __u64 pos, __u32 len,
			struct op *o)
{
	const struct mtag *t;
	__u64 rel = pos - UBLKSRV_IO_BUF_OFFSET;
	unsigned int q, tag, boff;

	if (pos < UBLKSRV_IO_BUF_OFFSET || (__s64)pos < 0 ||
	    rel >= UBLKSRV_IO_BUF_TOTAL_SIZE) {
		o->why = "not a buffer position";
		exp_add(&o->exp, -EINVAL);
		return;
	}
	q = (rel >> UBLK_QID_OFF) & UBLK_QID_BITS_MASK;
	tag = (rel >> UBLK_TAG_OFF) & UBLK_TAG_BITS_MASK;
	boff = rel & UBLK_IO_BUF_BITS_MASK;
	if (q >= 1 || tag >= cfg.depth) {
		o->why = "qid/tag out of range";
		exp_add(&o->exp, -ECHRNG);
		return;
	}
	t = &m->tag[tag];
	if (t->lend == L_HELD) {
		o->why = "already lent";
		exp_add(&o->exp, -EALREADY);
		return;
	}
	/* an importer may still run, or have completed and let go */
	if (t->lend == L_PEND || t->lend == L_MAYBE)
		exp_add(&o->exp, -EALREADY);
	if (t->state != T_OWNED) {
		o->why = "tag not owned by the server";
		exp_add(&o->exp, -ESRCH);
		return;
	}
	if (t->op != UBLK_IO_OP_READ && t->op != UBLK_IO_OP_WRITE) {
		o->why = "request without data";
		exp_add(&o->exp, -ENODATA);
		return;
	}
	if (boff >= t->bytes || len > t->bytes - boff) {
		o->why = "range beyond the request";
		exp_add(&o->exp, -EOVERFLOW);
		return;
	}
	o->why = "lend";
	exp_add(&o->exp, len);
}

static int prep_splice(struct model *m, struct op *o)
{
	const struct io_uring_sqe *s = &o->sqe[0];
	bool fa;
	/* not an IOPOLL op: exit could not end polled users of the pages */
	int r = prep_generic(m, s, false, false, &fa);

	if (r)
		return r;
	/* forced async (IOSQE_ASYNC, drain) runs in io-wq, same checks */
	(void)fa;
	if (s->addr || s->rw_flags || s->splice_fd_in || s->addr3 ||
	    s->__pad2[0])
		return -EINVAL;
	if (!s->len || s->len > MAX_RW)
		return -EINVAL;
	return 0;
}

static void issue_splice(struct model *m, struct op *o)
{
	const struct io_uring_sqe *s = &o->sqe[0];

	if (o->fk == FK_BAD) {
		o->why = "bad fd";
		exp_add(&o->exp, -EBADF);
	} else if (o->fk != FK_CDEV) {
		o->why = "file does not lend";
		exp_add(&o->exp, -EOPNOTSUPP);
	} else if (!m->table) {
		o->why = "no buffer table";
		exp_add(&o->exp, -ENXIO);
	} else if (s->buf_index >= m->nslots) {
		o->why = "slot beyond the table";
		exp_add(&o->exp, -ERANGE);
	} else if (m->slot[s->buf_index].kind != SL_EMPTY) {
		o->why = "slot occupied";
		exp_add(&o->exp, -EBUSY);
	} else {
		expect_loan(m, s->off, s->len, o);
	}
}

static void apply_splice(struct model *m, const struct op *o)
{
	const struct io_uring_sqe *s = &o->sqe[0];
	__u64 rel = s->off - UBLKSRV_IO_BUF_OFFSET;
	unsigned int tag = (rel >> UBLK_TAG_OFF) & UBLK_TAG_BITS_MASK;
	struct mslot *sl = &m->slot[s->buf_index];
	struct mtag *t = &m->tag[tag];

	memset(sl, 0, sizeof(*sl));
	sl->kind = SL_KERNEL;
	sl->tag = tag;
	sl->dir = t->op == UBLK_IO_OP_READ ? DIR_DST : DIR_SRC;
	sl->len = s->len;
	sl->dev_off = t->start + (rel & UBLK_IO_BUF_BITS_MASK);
	t->lend = L_HELD;
}

static int prep_remove(struct model *m, struct op *o)
{
	const struct io_uring_sqe *s = &o->sqe[0];
	bool fa;
	int r = prep_generic(m, s, false, true, &fa);

	if (r)
		return r;
	(void)fa;	/* runs anywhere, never refused for it */
	if (s->flags & IOSQE_FIXED_FILE)
		return -EINVAL;
	if (s->fd != -1)
		return -EINVAL;
	if (s->off || s->addr || s->len || s->rw_flags || s->splice_fd_in ||
	    s->addr3 || s->__pad2[0])
		return -EINVAL;
	return 0;
}

static void issue_remove(struct model *m, struct op *o)
{
	unsigned int i = o->sqe[0].buf_index;

	if (!m->table) {
		o->why = "no buffer table";
		exp_add(&o->exp, -ENXIO);
	} else if (i >= m->nslots) {
		o->why = "slot beyond the table";
		exp_add(&o->exp, -ERANGE);
	} else if (m->slot[i].kind == SL_EMPTY) {
		o->why = "slot empty";
		exp_add(&o->exp, -ENOENT);
	} else if (m->slot[i].kind == SL_USER) {
		o->why = "user buffer";
		exp_add(&o->exp, -EPERM);
	} else {
		o->why = "remove";
		exp_add(&o->exp, 0);
	}
}

/* a lent buffer leaves its slot: the request is released, maybe later */
static void slot_drop(struct model *m, unsigned int i)
{
	struct mslot *sl = &m->slot[i];

	if (sl->kind == SL_KERNEL) {
		struct mtag *t = &m->tag[sl->tag];

		/*
		 * Importers hold the buffer until they complete, which for
		 * io-wq and parked requests comes after this call.
		 */
		t->lend = sl->used ? L_PEND : sl->used_before ? L_MAYBE :
			  L_FREE;
	}
	memset(sl, 0, sizeof(*sl));
}

/* an io_uring_enter() ends: its requests are freed, now or soon */
static void call_end(struct model *m)
{
	unsigned int i;

	for (i = 0; i < MAX_SLOTS; i++) {
		m->slot[i].used_before |= m->slot[i].used;
		m->slot[i].used = false;
	}
	for (i = 0; i < MAX_DEPTH; i++)
		if (m->tag[i].lend == L_PEND)
			m->tag[i].lend = L_MAYBE;
}

/* a fixed-buffer user takes the slot (and a reference) at prep */
static void bind_slot(struct model *m, struct op *o, unsigned int idx)
{
	o->bound_oor = !m->table || idx >= m->nslots;
	if (o->bound_oor)
		return;
	o->bound = m->slot[idx];
	m->slot[idx].used = true;
}

/* io_import_fixed() on what the op bound */
static int import_fixed(const struct op *o, int dir, __u64 addr, __u64 len)
{
	const struct mslot *b = &o->bound;

	if (o->bound_oor || b->kind == SL_EMPTY)
		return -EFAULT;
	if (b->kind == SL_USER) {
		if (addr < b->uaddr || addr + len < addr ||
		    addr + len > b->uaddr + b->len)
			return -EFAULT;
		return 0;
	}
	if (!(b->dir & dir))
		return -EACCES;
	if (addr + len < addr || addr + len > b->len)
		return -EFAULT;
	return 0;
}

static int prep_rw(struct model *m, struct op *o)
{
	const struct io_uring_sqe *s = &o->sqe[0];
	bool fa;
	int r = prep_generic(m, s, true, true, &fa);

	if (r)
		return r;
	bind_slot(m, o, s->buf_index);
	if (o->bound_oor)
		return -EFAULT;
	return import_fixed(o, o->kind == K_READF ? DIR_DST : DIR_SRC,
			    s->addr, s->len);
}

/* what a READ/WRITE of @len bytes does to a file of kind @fk */
static void rw_target(struct op *o, enum fk fk, bool write, __u32 len)
{
	switch (fk) {
	case FK_BAD:
		o->why = "bad fd";
		exp_add(&o->exp, -EBADF);
		break;
	case FK_RO:
		if (write) {
			o->why = "fd not open for writing";
			exp_add(&o->exp, -EBADF);
		} else {
			exp_add(&o->exp, len);
		}
		break;
	case FK_CDEV:
		o->why = "ublk user copy needs a user iter";
		exp_add(&o->exp, -EACCES);
		break;
	case FK_CTRL:
		o->why = "no read/write on ublk-control";
		exp_add(&o->exp, -EINVAL);
		break;
	case FK_UDP:
		if (len > UDP_MAX) {
			o->why = "datagram too long";
			exp_add(&o->exp, -EMSGSIZE);
		} else {
			exp_add(&o->exp, len);
		}
		break;
	default:
		exp_add(&o->exp, len);
		break;
	}
}

static void issue_rw(struct model *m, struct op *o)
{
	bool write = o->kind == K_WRITEF;

	if (!o->why)
		o->why = "transfer";
	/* io_rw_init_file(): mode, then IOPOLL wants O_DIRECT + ->iopoll */
	if (m->iopoll && o->fk != FK_BAD && !(write && o->fk == FK_RO)) {
		o->why = "no polled I/O on this file";
		exp_add(&o->exp, -EOPNOTSUPP);
		return;
	}
	rw_target(o, o->fk, write, o->sqe[0].len);
}

/*
 * uring_cmd: a fixed buffer is taken at prep, whatever the command; a
 * lent one is refused there (the driver alone would name the direction)
 */
static int prep_ucmd(struct model *m, struct op *o)
{
	const struct io_uring_sqe *s = &o->sqe[0];
	bool fa;
	int r = prep_generic(m, s, false, true, &fa);

	if (r)
		return r;
	if (s->__pad1 || (s->uring_cmd_flags & ~IORING_URING_CMD_FIXED))
		return -EINVAL;
	if (!(s->uring_cmd_flags & IORING_URING_CMD_FIXED))
		return 0;
	if (m->table && s->buf_index < m->nslots &&
	    m->slot[s->buf_index].kind == SL_KERNEL)
		return -EOPNOTSUPP;
	bind_slot(m, o, s->buf_index);
	return o->bound_oor ? -EFAULT : 0;
}

static void issue_ucmd(struct model *m, struct op *o)
{
	if (o->fk == FK_BAD) {
		o->why = "bad fd";
		exp_add(&o->exp, -EBADF);
	} else if (o->fk != FK_UDP && o->fk != FK_RX) {
		o->why = "file without ->uring_cmd";
		exp_add(&o->exp, -EOPNOTSUPP);
	} else if (m->iopoll || o->sqe[0].cmd_op != 0) {
		o->why = "socket command not supported";
		exp_add(&o->exp, -EOPNOTSUPP);
	} else {
		o->why = "SIOCINQ on an empty socket";
		exp_add(&o->exp, 0);
	}
}

static int prep_sendzc(struct model *m, struct op *o)
{
	const struct io_uring_sqe *s = &o->sqe[0];
	bool fa;
	int r = prep_generic(m, s, true, false, &fa);

	if (r)
		return r;
	if (s->__pad2[0] || s->addr3)
		return -EINVAL;
	if (s->flags & IOSQE_CQE_SKIP_SUCCESS)
		return -EINVAL;		/* not supported by SEND_ZC */
	if (s->ioprio & ~(IORING_RECVSEND_POLL_FIRST | IORING_RECVSEND_FIXED_BUF |
			  (1U << 3)))
		return -EINVAL;
	bind_slot(m, o, s->buf_index);
	if (o->bound_oor)
		return -EFAULT;
	/* io_send_setup() checks the range as a user address */
	if (s->addr >= HUGE_ADDR)
		return -EFAULT;
	return 0;
}

/* a zero-copy send of a fixed buffer: its layout in bvecs is unknown */
static void send_zc_target(struct op *o, __u32 len)
{
	rw_target(o, FK_UDP, true, len);
	if (len > ZC_FRAGS_SURE)
		exp_add(&o->exp, -EMSGSIZE);	/* more than 17 segments */
}

static void issue_sendzc(struct model *m, struct op *o)
{
	const struct io_uring_sqe *s = &o->sqe[0];
	int r;

	(void)m;
	if (o->fk == FK_BAD) {
		o->why = "bad fd";
		exp_add(&o->exp, -EBADF);
		return;
	}
	if (o->fk != FK_UDP) {
		o->why = "not a socket";
		exp_add(&o->exp, -ENOTSOCK);
		return;
	}
	/* imported at issue, with the len sign-extended from int */
	r = import_fixed(o, DIR_SRC, s->addr,
			 (__u64)(long long)(int)s->len);
	if (r) {
		o->why = r == -EACCES ? "wrong direction" : "out of bounds";
		exp_add(&o->exp, r);
		return;
	}
	o->why = "send";
	send_zc_target(o, s->len);
}

/* ---- fused ---- */

static int prep_fused(struct model *m, struct op *o)
{
	const struct io_uring_sqe *s = &o->sqe[0], *t = &o->sqe[1];
	unsigned int op = t->opcode;
	bool fa;
	int r = prep_generic(m, s, false, false, &fa);

	if (r)
		return r;
	if (!m->sqe128) {
		o->why = "ring without SQE128";
		return -EINVAL;
	}
	if (s->uring_cmd_flags || s->__pad1)
		return -EINVAL;
	/* io_init_secondary_req() */
	if (op >= OP_LAST_FUSED)
		return -EINVAL;
	if (op != OP_READ && op != OP_WRITE && op != OP_SEND &&
	    op != OP_RECV && op != OP_SEND_ZC) {
		o->why = "opcode cannot be a secondary";
		return -EOPNOTSUPP;
	}
	if (t->flags & ~IOSQE_FIXED_FILE)
		return -EINVAL;
	if (t->personality)
		return -EINVAL;
	/* the secondary's own ->prep() */
	if ((op == OP_SEND || op == OP_RECV) && (int)t->len < 0)
		return -EINVAL;
	if (op == OP_SEND_ZC && t->ioprio & ~IORING_RECVSEND_POLL_FIRST)
		return -EINVAL;
	return 0;
}

static void issue_fused(struct model *m, struct op *o)
{
	const struct io_uring_sqe *s = &o->sqe[0], *t = &o->sqe[1];
	const struct ublksrv_io_cmd *c = (const void *)&s->addr3;
	unsigned int op = t->opcode;
	bool dest = op == OP_READ || op == OP_RECV;
	const struct mtag *tg;
	__u64 len = (op == OP_SEND_ZC) ? (__u64)(long long)(int)t->len :
		    t->len;
	struct exp *e = &o->exp;

	if (o->fk == FK_BAD) {
		o->why = "bad primary fd";
		exp_add(e, -EBADF);
		return;
	}
	if (o->fk != FK_CDEV) {
		o->why = "primary file does not provide buffers";
		exp_add(e, -EOPNOTSUPP);
		return;
	}
	if (s->cmd_op != UBLK_U_IO_FUSED_SUBMIT_IO) {
		o->why = "not FUSED_SUBMIT_IO";
		exp_add(e, -EOPNOTSUPP);
		return;
	}
	if (c->q_id >= 1 || c->tag >= cfg.depth) {
		o->why = "qid/tag out of range";
		exp_add(e, -EINVAL);
		return;
	}
	tg = &m->tag[c->tag];
	if (tg->state != T_OWNED) {
		o->why = "tag not owned by the server";
		exp_add(e, -ENOENT);
		return;
	}
	if (!((tg->op == UBLK_IO_OP_READ && dest) ||
	      (tg->op == UBLK_IO_OP_WRITE && !dest))) {
		o->why = "wrong direction";
		exp_add(e, -EACCES);
		return;
	}
	/* the secondary, issued with the request's pages */
	if (o->sfk == FK_BAD) {
		o->why = "bad secondary fd";
		exp_add(e, -EBADF);
		return;
	}
	if (op == OP_SEND || op == OP_SEND_ZC || op == OP_RECV) {
		if (o->sfk != FK_UDP && o->sfk != FK_RX) {
			o->why = "not a socket";
			exp_add(e, -ENOTSOCK);
			return;
		}
	}
	if (t->addr > tg->bytes || len > tg->bytes - t->addr) {
		o->why = "outside the request";
		exp_add(e, -EFAULT);
		return;
	}
	o->why = "secondary";
	if (op == OP_RECV) {
		exp_add(e, -EAGAIN);	/* nothing is ever sent to it */
		return;
	}
	if (op == OP_SEND_ZC) {
		send_zc_target(o, t->len);
		return;
	}
	if (op == OP_SEND) {
		rw_target(o, FK_UDP, true, t->len);
		return;
	}
	rw_target(o, o->sfk, op == OP_WRITE, t->len);
}

static int op_prep(struct model *m, struct op *o)
{
	switch (o->kind) {
	case K_SPLICE:
		return prep_splice(m, o);
	case K_REMOVE:
		return prep_remove(m, o);
	case K_READF:
	case K_WRITEF:
		return prep_rw(m, o);
	case K_SENDZC:
		return prep_sendzc(m, o);
	case K_UCMD:
		return prep_ucmd(m, o);
	default:
		return prep_fused(m, o);
	}
}

static void op_issue(struct model *m, struct op *o)
{
	switch (o->kind) {
	case K_SPLICE:
		issue_splice(m, o);
		break;
	case K_REMOVE:
		issue_remove(m, o);
		break;
	case K_READF:
	case K_WRITEF:
		issue_rw(m, o);
		break;
	case K_SENDZC:
		issue_sendzc(m, o);
		break;
	case K_UCMD:
		issue_ucmd(m, o);
		break;
	default:
		issue_fused(m, o);
		break;
	}
}

/* did the op do what it asked for (and so take effect / keep a link)? */
static bool op_ok(const struct op *o, int res)
{
	switch (o->kind) {
	case K_SPLICE:
		return res > 0 && (__u32)res == o->sqe[0].len;
	case K_REMOVE:
		return res == 0;
	case K_READF:
	case K_WRITEF:
		return res >= 0 && (__u32)res == o->sqe[0].len;
	default:
		return res >= 0;
	}
}

static void op_apply(struct model *m, const struct op *o, int res)
{
	if (o->kind == K_SENDZC ||
	    (o->kind == K_FUSED && o->sqe[1].opcode == OP_SEND_ZC))
		m->drain_hangs = true;
	if (!op_ok(o, res))
		return;
	if (o->kind == K_SPLICE)
		apply_splice(m, o);
	else if (o->kind == K_REMOVE)
		slot_drop(m, o->sqe[0].buf_index);
}

/* ------------------------------------------------------------------ */
/* running a submission through the model                               */

/*
 * The generator keeps a link chain, if any, at the end of a submission
 * and puts IOSQE_IO_DRAIN only on a last, unlinked SQE, so the kernel's
 * order is: unlinked SQEs are prepped and issued one after the other; the
 * chain's SQEs are all prepped (RW users bind their slot then), then its
 * head is issued, then each member after the previous one was freed:
 * io_queue_next() queues it as task work, which runs only after the call
 * flushed its inline completions, so what they held has been given back.
 *
 * @actual: use the CQE results (checking), else the model's own best guess
 * (generating, with a lent-or-not ambiguity resolved as "success").
 */
static int guess(const struct op *o)
{
	int i;

	for (i = 0; i < o->exp.n; i++)
		if (o->exp.v[i] >= 0)
			return o->exp.v[i];
	return o->exp.v[0];
}

static void check_one(struct op *o);

/* a skipped success posts no CQE: take it as the success it was */
static int result(struct op *o, bool actual)
{
	if (!actual)
		return guess(o);
	if (!o->got)
		o->res = o->skip && exp_success(&o->exp) ? guess(o) : INT_MIN;
	check_one(o);
	return o->res;
}

static void sim_unlinked(struct model *m, struct op *o, bool actual)
{
	int r;

	o->exp.n = 0;
	o->why = NULL;
	r = op_prep(m, o);
	o->prep = r;
	if (r) {
		if (!o->why)
			o->why = "prep";
		exp_add(&o->exp, r);
	} else {
		op_issue(m, o);
	}
	op_apply(m, o, result(o, actual));
}

static void sim_chain(struct model *m, struct op *ops, int n, bool actual)
{
	int pe[MAX_SUB], i;
	bool failed = false, broken = false;

	for (i = 0; i < n; i++) {
		ops[i].exp.n = 0;
		ops[i].why = NULL;
		pe[i] = op_prep(m, &ops[i]);
		ops[i].prep = pe[i];
		if (pe[i])
			failed = true;
	}
	for (i = 0; i < n; i++) {
		struct op *o = &ops[i];

		if (failed || broken) {
			if (failed && pe[i]) {
				exp_add(&o->exp, pe[i]);
				o->why = o->why ? o->why : "prep";
			} else {
				exp_add(&o->exp, -ECANCELED);
				o->why = "link cancelled";
			}
		} else {
			op_issue(m, o);
		}
		{
			int res = result(o, actual);

			op_apply(m, o, res);
			if (!op_ok(o, res) && o->link == IOSQE_IO_LINK)
				broken = true;
		}
		if (i == 0)
			call_end(m);	/* the rest runs as task work */
	}
}

static void sim_sub(struct model *m, struct op *ops, int n, bool actual)
{
	int i, c;

	/* the chain: from the first linked SQE to the end */
	for (c = 0; c < n; c++)
		if (ops[c].link)
			break;
	for (i = 0; i < c; i++) {
		sim_unlinked(m, &ops[i], actual);
		/* without SUBMIT_ALL a failed prep ends io_uring_enter() */
		if (ops[i].prep && !m->submit_all)
			call_end(m);
	}
	if (c < n)
		sim_chain(m, &ops[c], n - c, actual);
	call_end(m);
}

static void dump_model(const struct model *m)
{
	unsigned int i;

	printf("#   model: table=%d slots=%u files=%d sqe128=%d submit_all=%d drain_disabled=%d\n",
	       m->table, m->nslots, m->files, m->sqe128, m->submit_all,
	       m->drain_disabled);
	for (i = 0; i < m->nslots; i++)
		if (m->slot[i].kind != SL_EMPTY)
			printf("#   slot %u: kind=%d tag=%u dir=%d len=%u used=%d\n",
			       i, m->slot[i].kind, m->slot[i].tag,
			       m->slot[i].dir, m->slot[i].len, m->slot[i].used);
	for (i = 0; i < cfg.depth; i++)
		printf("#   tag %u: state=%d lend=%d op=%u bytes=%u start=%llu\n",
		       i, m->tag[i].state, m->tag[i].lend, m->tag[i].op,
		       m->tag[i].bytes, m->tag[i].start);
}

static void check_one(struct op *o)
{
	bool doc = documented(o, o->res);
	bool ok = exp_has(&o->exp, o->res);

	if (!o->got)
		ok = exp_success(&o->exp) && o->skip;
	if (o->got)
		hist_add(o->kind, o->res);
	else
		hist_add(o->kind, 0);
	if (o->got && !doc) {
		nr_undocumented++;
		report("seed %llu op #%lu %s: result %d (%s) is not documented for the op",
		       cfg.seed, o->idx, opk_name[o->kind], o->res,
		       errname(o->res));
		print_op(o);
	} else if (!ok) {
		nr_mismatch_model++;
		report("seed %llu op #%lu %s: result %d (%s) differs from the model",
		       cfg.seed, o->idx, opk_name[o->kind], o->res,
		       o->got ? errname(o->res) : "no CQE");
		print_op(o);
		if (nr_mismatch_model == 1)
			dump_model(&M);
	} else if (cfg.verbose > 1) {
		print_op(o);
	}
}

/* ------------------------------------------------------------------ */
/* the server's rings and buffers                                       */

static struct uzc_dev D;		/* the device, served by main() */
static struct io_uring FR;		/* fuzz ring: torn down at random */
static struct io_uring DR;		/* data ring: the legitimate path */
static void *ubuf[MAX_SLOTS];		/* user buffers for table slots */
static void *bounce;			/* user copy, max_io bytes */

static void fuzz_ring_close(void)
{
	int i;

	if (!M.open)
		return;
	io_uring_queue_exit(&FR);
	/* ring exit is asynchronous: the loans go back a bit later */
	for (i = 0; i < MAX_SLOTS; i++)
		if (M.slot[i].kind == SL_KERNEL)
			M.tag[M.slot[i].tag].lend = L_MAYBE;
	memset(M.slot, 0, sizeof(M.slot));
	M.open = M.table = M.files = false;
	M.nslots = 0;
}

static int fuzz_ring_open(void)
{
	struct io_uring_params p = { 0 };
	int files[NR_FIX], ret;

	memset(M.slot, 0, sizeof(M.slot));
	M.sqe128 = series == S_FUSED ? chance(92) : chance(25);
	M.submit_all = chance(50);
	M.iopoll = chance(series == S_FUSED ? 4 : 8);
	M.drain_disabled = M.drain_hangs = false;
	p.flags = IORING_SETUP_CQSIZE | (M.sqe128 ? IORING_SETUP_SQE128 : 0) |
		  (M.submit_all ? IORING_SETUP_SUBMIT_ALL : 0) |
		  (M.iopoll ? IORING_SETUP_IOPOLL : 0);
	p.cq_entries = 256;
	ret = io_uring_queue_init_params(32, &FR, &p);
	if (ret)
		return ret;
	M.open = true;
	M.table = series == S_SPLICE && chance(90);
	M.nslots = 0;
	if (M.table) {
		M.nslots = 1 + rnd_below(MAX_SLOTS);
		ret = io_uring_register_buffers_sparse(&FR, M.nslots);
		if (ret)
			return ret;
	}
	M.files = chance(80);
	if (M.files) {
		files[FIX_CDEV] = F.cdev;
		files[FIX_SCRATCH] = F.scratch;
		files[FIX_SPARSE] = -1;
		files[FIX_UDP] = F.udp_tx;
		files[FIX_RO] = F.ro;
		files[FIX_BACKING] = F.backing;
		files[FIX_RX] = F.udp_rx;
		ret = io_uring_register_files(&FR, files, NR_FIX);
		if (ret)
			return ret;
	}
	if (cfg.verbose)
		printf("# fuzz ring: sqe128=%d submit_all=%d iopoll=%d slots=%u files=%d\n",
		       M.sqe128, M.submit_all, M.iopoll,
		       M.table ? M.nslots : 0, M.files);
	return 0;
}

/* ------------------------------------------------------------------ */
/* generating ops                                                       */

static const enum fdc read_ok_fds[] = {		/* safe into request pages */
	C_BACKING, C_BACKING, C_BACKING, C_BACKING_FIX, C_CDEV, C_CDEV_FIX,
	C_CTRL, C_MINUS1, C_CLOSED, C_FIX_SPARSE, C_FIX_OOR,
};
static const enum fdc read_any_fds[] = {
	C_BACKING, C_BACKING_FIX, C_SCRATCH, C_SCRATCH_FIX, C_RO, C_RO_FIX,
	C_CDEV, C_CDEV_FIX, C_CTRL, C_MINUS1, C_CLOSED, C_FIX_SPARSE,
	C_FIX_OOR,
};
static const enum fdc write_fds[] = {		/* never the backing file */
	C_SCRATCH, C_SCRATCH, C_SCRATCH, C_SCRATCH_FIX, C_RO, C_RO_FIX,
	C_CDEV, C_CDEV_FIX, C_UDP, C_UDP_FIX, C_CTRL, C_MINUS1, C_CLOSED,
	C_FIX_SPARSE, C_FIX_OOR,
};
static const enum fdc sock_fds[] = {
	C_UDP, C_UDP, C_UDP, C_UDP, C_UDP_FIX, C_SCRATCH, C_MINUS1, C_CLOSED,
	C_FIX_OOR,
};
static const enum fdc lend_fds[] = {		/* SPLICE_FROM / primary */
	C_SCRATCH, C_SCRATCH_FIX, C_RO, C_BACKING, C_UDP, C_UDP_FIX, C_RX,
	C_CTRL, C_MINUS1, C_CLOSED, C_FIX_SPARSE, C_FIX_OOR,
};

#define PICK(a)	((a)[rnd_below(sizeof(a) / sizeof((a)[0]))])

/* set the fd of @s from choice @c; returns the file kind */
static enum fk set_fd(const struct model *m, struct io_uring_sqe *s,
		      enum fdc c)
{
	bool fixed;
	int fd;
	enum fk k = fd_resolve(m, c, &fd, &fixed);

	s->fd = fd;
	if (fixed)
		s->flags |= IOSQE_FIXED_FILE;
	return k;
}

static void sort_tags(const struct model *m, unsigned int *t, unsigned int n)
{
	unsigned int i, j;

	for (i = 1; i < n; i++)
		for (j = i; j > 0 && m->tag[t[j - 1]].start >
				     m->tag[t[j]].start; j--) {
			unsigned int x = t[j];

			t[j] = t[j - 1];
			t[j - 1] = x;
		}
}

/* a tag to aim at: owned, committed, idle, or out of range */
static void pick_tag(const struct model *m, unsigned int *q, unsigned int *tag)
{
	unsigned int i, n = 0, cand[MAX_DEPTH], want;
	unsigned int r = rnd_below(100);

	*q = 0;
	if (r >= 94) {		/* a queue the device does not have */
		*q = 1 + rnd_below(chance(50) ? 2 : UBLK_QID_BITS_MASK);
		*tag = rnd_below(cfg.depth);
		return;
	}
	if (r >= 82) {		/* a tag beyond the queue depth */
		*tag = chance(50) ? cfg.depth + rnd_below(4) :
			rnd_below(UBLK_TAG_BITS_MASK + 1);
		if (*tag < cfg.depth)
			*tag = cfg.depth;
		return;
	}
	want = r < 55 ? T_OWNED : r < 67 ? T_DONE : T_IDLE;
	for (i = 0; i < cfg.depth; i++)
		if (m->tag[i].state == want)
			cand[n++] = i;
	/*
	 * Tags are the block layer's choice: aim at requests by their place
	 * on the device, so that a seed replays the same logical ops.
	 */
	if (want != T_IDLE)
		sort_tags(m, cand, n);
	if (!n) {
		unsigned int k;

		/* none in that state: any, idle ones first, then by place */
		for (i = 0; i < cfg.depth; i++)
			if (m->tag[i].state == T_IDLE)
				cand[n++] = i;
		k = n;
		for (i = 0; i < cfg.depth; i++)
			if (m->tag[i].state != T_IDLE)
				cand[n++] = i;
		sort_tags(m, cand + k, n - k);
	}
	*tag = cand[rnd_below(n)];
}

/* a byte range [*off, *off + *len) around a buffer of @size bytes */
static void pick_range(__u64 size, __u64 *off, __u64 *len, __u64 huge_off)
{
	unsigned int r = rnd_below(100);
	__u64 rest;

	if (r < 48)
		*off = 0;
	else if (r < 70)
		*off = size ? rnd_below(size) : 0;
	else if (r < 78)
		*off = size;				/* at the bound */
	else if (r < 86)
		*off = size + 1 + rnd_below(4096);	/* past it */
	else if (r < 92)
		*off = huge_off - rnd_below(8);
	else
		*off = size ? (rnd_below(size) | 1) : 1;	/* odd */

	rest = *off < size ? size - *off : 0;
	r = rnd_below(100);
	if (r < 45 && rest)
		*len = rest;				/* to the end */
	else if (r < 70 && rest)
		*len = 1 + rnd_below(rest);
	else if (r < 80)
		*len = rest + 1;			/* one past */
	else if (r < 86)
		*len = 0;
	else if (r < 90)
		*len = MAX_RW + 1;
	else if (r < 94)
		*len = 0xffffffffu;
	else
		*len = 1 + rnd_below(cfg.max_io);
}

/* UDP limits are exact, but keep lengths away from the edge */
static void udp_len(struct io_uring_sqe *s)
{
	if (s->len > 60000 && s->len < 70000)
		s->len = 60000;
}

/*
 * Half of the ops are built to be valid (a lendable request, an empty
 * slot, a use in the right direction within bounds), so that the success
 * paths run as often as the error paths; the rest is random.
 */
static int pick_owned_rw(const struct model *m)
{
	unsigned int i, n = 0, cand[MAX_DEPTH];

	for (i = 0; i < cfg.depth; i++)
		if (m->tag[i].state == T_OWNED &&
		    (m->tag[i].op == UBLK_IO_OP_READ ||
		     m->tag[i].op == UBLK_IO_OP_WRITE))
			cand[n++] = i;
	sort_tags(m, cand, n);
	return n ? (int)cand[rnd_below(n)] : -1;
}

static int pick_slot(const struct model *m, int kind, int dir)
{
	unsigned int i, n = 0, cand[MAX_SLOTS];

	for (i = 0; i < m->nslots; i++)
		if (m->slot[i].kind == kind && (!dir || m->slot[i].dir == dir))
			cand[n++] = i;
	return n ? (int)cand[rnd_below(n)] : -1;
}

static void valid_range(__u64 size, __u64 *off, __u64 *len)
{
	*off = chance(40) ? 0 : rnd_below(size);
	*len = chance(40) ? size - *off : 1 + rnd_below(size - *off);
}

static void gen_splice(struct model *m, struct op *o)
{
	struct io_uring_sqe *s = &o->sqe[0];
	unsigned int q, tag, i, n = 0, cand[MAX_SLOTS];
	__u64 off, len, bytes = 0;

	int vt, vs;

	o->kind = K_SPLICE;
	s->opcode = OP_SPLICE_FROM;
	vt = chance(50) ? pick_owned_rw(m) : -1;
	vs = vt >= 0 ? pick_slot(m, SL_EMPTY, 0) : -1;
	if (vs >= 0) {
		o->fdc = m->files && chance(20) ? C_CDEV_FIX : C_CDEV;
		o->fk = set_fd(m, s, o->fdc);
		valid_range(m->tag[vt].bytes, &off, &len);
		s->len = len;
		s->off = uzc_pos(0, vt, off);
		s->buf_index = vs;
		return;
	}
	o->fdc = chance(82) ? (chance(85) ? C_CDEV : C_CDEV_FIX) :
		 PICK(lend_fds);
	o->fk = set_fd(m, s, o->fdc);

	pick_tag(m, &q, &tag);
	if (!q && tag < cfg.depth && m->tag[tag].state == T_OWNED)
		bytes = m->tag[tag].bytes;
	pick_range(bytes ? bytes : cfg.max_io, &off, &len,
		   UBLK_IO_BUF_BITS_MASK);
	if (!bytes && chance(50))
		len = 1 + rnd_below(cfg.max_io);
	s->len = len;
	s->off = UBLKSRV_IO_BUF_OFFSET + ((__u64)q << UBLK_QID_OFF |
					  (__u64)tag << UBLK_TAG_OFF | off);
	if (chance(5)) {
		static const __u64 bad[] = { 0, UBLKSRV_IO_BUF_OFFSET - 1,
			~0ULL, UBLKSRV_IO_BUF_OFFSET + UBLKSRV_IO_BUF_TOTAL_SIZE,
			1ULL << 63, 4096 };

		s->off = PICK(bad);
	}

	/* mostly an empty slot, so that loans happen */
	for (i = 0; i < m->nslots; i++)
		if (m->slot[i].kind == SL_EMPTY)
			cand[n++] = i;
	if (n && chance(65))
		s->buf_index = cand[rnd_below(n)];
	else if (chance(50))
		s->buf_index = rnd_below(m->nslots ? m->nslots : 1);
	else if (chance(50))
		s->buf_index = m->nslots + rnd_below(3);
	else
		s->buf_index = chance(50) ? 0xffff : rnd_below(64);

	if (chance(5)) {
		switch (rnd_below(7)) {
		case 0:
			s->ioprio = 1 + rnd_below(7);
			break;
		case 1:
			s->addr = 1 + rnd_below(1 << 20);
			break;
		case 2:
			s->rw_flags = 1 << rnd_below(32);
			break;
		case 3:
			s->splice_fd_in = 1 + rnd_below(100);
			break;
		case 4:
			s->addr3 = 1 + rnd();
			break;
		case 5:
			s->__pad2[0] = 1 + rnd();
			break;
		default:
			s->personality = 1 + rnd_below(100);
			break;
		}
	}
}

static void gen_remove(struct model *m, struct op *o)
{
	struct io_uring_sqe *s = &o->sqe[0];
	unsigned int i, n = 0, cand[MAX_SLOTS];
	int want = chance(80) ? SL_KERNEL : chance(50) ? SL_USER : SL_EMPTY;

	o->kind = K_REMOVE;
	o->fdc = C_MINUS1;
	s->opcode = OP_BUF_REMOVE;
	s->fd = -1;
	for (i = 0; i < m->nslots; i++)
		if (m->slot[i].kind == want)
			cand[n++] = i;
	if (n && chance(85))
		s->buf_index = cand[rnd_below(n)];
	else if (m->nslots && chance(70))
		s->buf_index = rnd_below(m->nslots);
	else if (chance(50))
		s->buf_index = m->nslots + rnd_below(3);
	else
		s->buf_index = chance(30) ? 0xffff : rnd_below(MAX_SLOTS);
	if (chance(4)) {
		switch (rnd_below(4)) {
		case 0:
			s->fd = rnd_below(8);
			break;
		case 1:
			s->flags |= IOSQE_FIXED_FILE;
			break;
		case 2:
			s->fd = F.cdev;
			break;
		default:
			s->flags |= IOSQE_FIXED_FILE;
			s->fd = 0;
			break;
		}
	}
	if (chance(4)) {
		switch (rnd_below(9)) {
		case 0:
			s->ioprio = 1;
			break;
		case 1:
			s->off = 1 + rnd_below(4096);
			break;
		case 2:
			s->addr = 1 + rnd_below(4096);
			break;
		case 3:
			s->len = 1 + rnd_below(4096);
			break;
		case 4:
			s->rw_flags = 1;
			break;
		case 5:
			s->splice_fd_in = 1;
			break;
		case 6:
			s->addr3 = 1;
			break;
		case 7:
			s->__pad2[0] = 1;
			break;
		default:
			s->personality = 1;
			break;
		}
	}
}

/* a slot for a fixed-buffer user, and an (addr, len) window into it */
static void gen_use_slot(const struct model *m, struct io_uring_sqe *s)
{
	unsigned int i, n = 0, cand[MAX_SLOTS];
	int want = chance(70) ? SL_KERNEL : chance(50) ? SL_USER : SL_EMPTY;
	const struct mslot *sl;
	__u64 off, len;

	for (i = 0; i < m->nslots; i++)
		if (m->slot[i].kind == want)
			cand[n++] = i;
	if (n && chance(88))
		s->buf_index = cand[rnd_below(n)];
	else if (chance(50))
		s->buf_index = m->nslots + rnd_below(3);
	else
		s->buf_index = chance(30) ? 0xffff : rnd_below(MAX_SLOTS);

	sl = s->buf_index < m->nslots ? &m->slot[s->buf_index] : NULL;
	pick_range(sl && sl->kind != SL_EMPTY ? sl->len : 4096, &off, &len,
		   chance(50) ? ~0ULL : 1ULL << 63);
	if (sl && sl->kind == SL_USER && chance(85))
		off += sl->uaddr;	/* user buffers use addresses */
	s->addr = off;
	s->len = len;
}

/* would a READ into this slot land in a READ request's pages? */
static bool lands_in_request(const struct model *m, const struct op *o)
{
	const struct io_uring_sqe *s = &o->sqe[0];
	const struct mslot *sl;
	struct op tmp = *o;

	if (s->buf_index >= m->nslots)
		return false;
	sl = &m->slot[s->buf_index];
	tmp.bound = *sl;
	tmp.bound_oor = false;
	return import_fixed(&tmp, DIR_DST, s->addr, s->len) == 0 &&
	       sl->kind != SL_EMPTY;
}

static void gen_rw(struct model *m, struct op *o, bool write)
{
	struct io_uring_sqe *s = &o->sqe[0];
	const struct mslot *sl;

	int vs;
	__u64 off, len;

	o->kind = write ? K_WRITEF : K_READF;
	s->opcode = write ? OP_WRITE_FIXED : OP_READ_FIXED;
	vs = chance(70) ? pick_slot(m, SL_KERNEL, write ? DIR_SRC : DIR_DST) :
			  -1;
	if (vs >= 0) {
		sl = &m->slot[vs];
		valid_range(sl->len, &off, &len);
		s->buf_index = vs;
		s->addr = off;
		s->len = len;
		if (write) {
			unsigned int r = rnd_below(100);

			o->fdc = r < 70 ? C_SCRATCH : r < 85 ? C_SCRATCH_FIX :
				 r < 95 ? C_UDP : C_CDEV;
			s->off = rnd_below(4 << 20);
		} else {
			o->fdc = chance(80) ? C_BACKING : C_BACKING_FIX;
			s->off = sl->dev_off + off;
		}
		o->fk = set_fd(m, s, o->fdc);
		if (o->fk == FK_UDP) {
			s->off = 0;
			udp_len(s);
		}
		return;
	}
	gen_use_slot(m, s);
	sl = s->buf_index < m->nslots ? &m->slot[s->buf_index] : NULL;
	if (write) {
		o->fdc = PICK(write_fds);
		s->off = rnd_below(4 << 20);
	} else if (lands_in_request(m, o)) {
		/* data written into request pages must be the right data */
		o->fdc = PICK(read_ok_fds);
		if (sl->kind == SL_KERNEL)
			s->off = sl->dev_off + s->addr;
		else
			s->off = rnd_below(cfg.dev_size - s->len + 1);
	} else {
		o->fdc = PICK(read_any_fds);
		s->off = rnd_below(cfg.dev_size - cfg.max_io);
	}
	o->fk = set_fd(m, s, o->fdc);
	if (o->fk == FK_UDP) {
		s->off = 0;
		udp_len(s);
	}
}

static void gen_sendzc(struct model *m, struct op *o)
{
	struct io_uring_sqe *s = &o->sqe[0];

	int vs;
	__u64 off, len;

	o->kind = K_SENDZC;
	s->opcode = OP_SEND_ZC;
	s->ioprio = IORING_RECVSEND_FIXED_BUF;
	vs = chance(50) ? pick_slot(m, SL_KERNEL, DIR_SRC) : -1;
	if (vs >= 0) {
		valid_range(m->slot[vs].len, &off, &len);
		s->buf_index = vs;
		s->addr = off;
		s->len = len > 60000 ? 60000 : len;
		o->fdc = m->files && chance(20) ? C_UDP_FIX : C_UDP;
		o->fk = set_fd(m, s, o->fdc);
		return;
	}
	gen_use_slot(m, s);
	udp_len(s);
	if (chance(4))
		s->ioprio |= 1U << (4 + rnd_below(8));
	o->fdc = PICK(sock_fds);
	o->fk = set_fd(m, s, o->fdc);
}

static void gen_ucmd(struct model *m, struct op *o)
{
	static const enum fdc fds[] = { C_UDP, C_UDP, C_UDP, C_UDP_FIX, C_RX,
		C_SCRATCH, C_MINUS1, C_CLOSED, C_FIX_OOR };
	struct io_uring_sqe *s = &o->sqe[0];

	o->kind = K_UCMD;
	s->opcode = OP_URING_CMD;
	gen_use_slot(m, s);
	s->uring_cmd_flags = IORING_URING_CMD_FIXED;
	if (chance(5))
		s->uring_cmd_flags = 1U << rnd_below(32);
	s->cmd_op = chance(90) ? 0 : 77;	/* SIOCINQ, or unknown */
	o->fdc = PICK(fds);
	o->fk = set_fd(m, s, o->fdc);
}

static void gen_fused(struct model *m, struct op *o)
{
	static const unsigned char bad_ops[] = { OP_NOP, OP_WRITEV,
		OP_URING_CMD, OP_FUSED_CMD, OP_READ_FIXED, OP_LAST_FUSED, 200 };
	static const unsigned char bad_sec_flags[] = { IOSQE_IO_LINK,
		IOSQE_ASYNC, IOSQE_IO_DRAIN, IOSQE_CQE_SKIP_SUCCESS,
		SQE_BAD_FLAG };
	struct io_uring_sqe *s = &o->sqe[0], *t = &o->sqe[1];
	struct ublksrv_io_cmd *c = (void *)&s->addr3;
	unsigned int q, tag, op, r;
	const struct mtag *tg = NULL;
	__u64 off, len, bytes = 0;
	bool dest, reaches;

	int vt;

	o->kind = K_FUSED;
	s->opcode = OP_FUSED_CMD;
	s->cmd_op = UBLK_U_IO_FUSED_SUBMIT_IO;
	vt = chance(50) ? pick_owned_rw(m) : -1;
	if (vt >= 0) {
		tg = &m->tag[vt];
		o->fdc = m->files && chance(15) ? C_CDEV_FIX : C_CDEV;
		o->fk = set_fd(m, s, o->fdc);
		c->tag = vt;
		valid_range(tg->bytes, &off, &len);
		t->addr = off;
		t->len = len;
		r = rnd_below(100);
		if (tg->op == UBLK_IO_OP_READ && r < 85) {
			t->opcode = OP_READ;
			o->sfdc = chance(80) ? C_BACKING : C_BACKING_FIX;
			t->off = tg->start + off;
		} else if (tg->op == UBLK_IO_OP_READ) {
			t->opcode = OP_RECV;
			t->msg_flags = MSG_DONTWAIT;
			o->sfdc = C_RX;
		} else if (r < 60) {
			t->opcode = OP_WRITE;
			o->sfdc = chance(80) ? C_SCRATCH : C_SCRATCH_FIX;
			t->off = rnd_below(4 << 20);
		} else {
			t->opcode = r < 80 ? OP_SEND : OP_SEND_ZC;
			o->sfdc = C_UDP;
			udp_len(t);
		}
		o->sfk = set_fd(m, t, o->sfdc);
		return;
	}
	o->fdc = chance(85) ? (chance(85) ? C_CDEV : C_CDEV_FIX) :
		 PICK(lend_fds);
	o->fk = set_fd(m, s, o->fdc);
	if (chance(4))
		s->cmd_op = chance(50) ? UBLK_U_IO_FETCH_REQ : rnd();
	if (chance(3))
		s->uring_cmd_flags = 1U << rnd_below(32);
	if (chance(2))
		s->__pad1 = 1 + rnd_below(100);

	pick_tag(m, &q, &tag);
	c->q_id = q;
	c->tag = tag;
	if (!q && tag < cfg.depth) {
		tg = &m->tag[tag];
		if (tg->state == T_OWNED)
			bytes = tg->bytes;
	}

	/* mostly the direction the request allows */
	r = rnd_below(100);
	dest = tg && tg->op == UBLK_IO_OP_READ;
	if (r < 12)
		dest = !dest;
	if (r >= 95)
		op = PICK(bad_ops);
	else if (dest)
		op = chance(80) ? OP_READ : OP_RECV;
	else
		op = chance(60) ? OP_WRITE : chance(50) ? OP_SEND : OP_SEND_ZC;
	t->opcode = op;
	pick_range(bytes ? bytes : cfg.max_io, &off, &len, ~0ULL);
	t->addr = off;
	t->len = len;

	/* does the secondary write into the pages of a READ request? */
	reaches = tg && tg->state == T_OWNED && tg->op == UBLK_IO_OP_READ &&
		  op == OP_READ && off <= bytes && len <= bytes - off;
	switch (op) {
	case OP_READ:
		o->sfdc = reaches ? PICK(read_ok_fds) : PICK(read_any_fds);
		t->off = reaches ? tg->start + off :
			 rnd_below(cfg.dev_size - cfg.max_io);
		break;
	case OP_WRITE:
		o->sfdc = PICK(write_fds);
		t->off = rnd_below(4 << 20);
		break;
	case OP_RECV:
		o->sfdc = chance(70) ? C_RX : PICK(sock_fds);
		t->msg_flags = MSG_DONTWAIT;
		break;
	default:
		o->sfdc = PICK(sock_fds);
		break;
	}
	o->sfk = set_fd(m, t, o->sfdc);
	if (o->sfk == FK_UDP && op != OP_RECV) {
		t->off = 0;
		udp_len(t);
	}
	/* the secondary allows nothing but a fixed file */
	if (chance(4))
		t->flags |= PICK(bad_sec_flags);
	if (chance(2))
		t->personality = 1 + rnd_below(10);
}

/*
 * Unlinked SPLICE_FROM and BUF_REMOVE in io-wq take effect at a time the
 * model cannot place among the submission's later SQEs: splice_uapi's
 * forced_async_* cases test them; here they stay inline (or last, when
 * drained, or in a chain, whose order the model knows).
 */
static bool async_unmodelled(const struct op *o, bool in_chain)
{
	return !in_chain && (o->kind == K_SPLICE || o->kind == K_REMOVE);
}

/* random SQE flags for an unlinked op (links are set by the caller) */
static void gen_flags(struct op *o, bool may_drain, bool in_chain)
{
	struct io_uring_sqe *s = &o->sqe[0];
	unsigned int r = rnd_below(100);

	if (r < 12) {
		if (!async_unmodelled(o, in_chain))
			s->flags |= IOSQE_ASYNC;
	} else if (r < 26 && !in_chain)
		s->flags |= IOSQE_CQE_SKIP_SUCCESS;
	else if (r < 29 && may_drain && !in_chain)
		s->flags |= IOSQE_IO_DRAIN;
	else if (r < 31)
		s->flags |= IOSQE_BUFFER_SELECT;
	else if (r < 33)
		s->flags |= SQE_BAD_FLAG;
	o->skip = s->flags & IOSQE_CQE_SKIP_SUCCESS;
}

static void gen_op(struct model *m, struct op *o)
{
	unsigned int r = rnd_below(100);

	memset(o, 0, sizeof(*o));
	o->idx = ++nr_ops;
	o->fdc = o->sfdc = C_MINUS1;
	if (series == S_FUSED) {
		gen_fused(m, o);
		return;
	}
	/* nothing lent to use or remove: mostly lend something first */
	if (r >= 34 && pick_slot(m, SL_KERNEL, 0) < 0 && chance(60))
		r = 0;
	if (r < 34)
		gen_splice(m, o);
	else if (r < 54)
		gen_remove(m, o);
	else if (r < 68)
		gen_rw(m, o, false);
	else if (r < 86)
		gen_rw(m, o, true);
	else if (r < 95)
		gen_sendzc(m, o);
	else
		gen_ucmd(m, o);
}

/* an op whose outcome the model cannot tell (a loan that may linger) */
static bool ambiguous(const struct op *o)
{
	int i, ok = 0, bad = 0;

	for (i = 0; i < o->exp.n; i++) {
		if (o->exp.v[i] >= 0)
			ok++;
		else
			bad++;
	}
	return ok && bad;
}

/*
 * Build a submission of up to MAX_SUB SQEs against a scratch copy of the
 * model, so that each op is aimed at the state it will meet, and so that
 * a READ into request pages always carries the right data.
 */
static int gen_sub(struct op *ops)
{
	struct model spec = M;
	int n = 1 + rnd_below(4), chain = 0, i;

	if (n > 1 && chance(22))
		chain = 2 + rnd_below(n - 1);	/* the last @chain SQEs */
	for (i = 0; i < n; i++) {
		struct op *o = &ops[i];
		bool in_chain = i >= n - chain;

		gen_op(&spec, o);
		gen_flags(o, i == n - 1 && !spec.drain_hangs, in_chain);
		o->chained = in_chain;
		if (!in_chain) {
			int tries;

			/* an outcome the model cannot tell: aim elsewhere */
			for (tries = 0; tries < 8; tries++) {
				struct model t = spec;

				sim_unlinked(&t, o, false);
				if (!ambiguous(o))
					break;
				nr_ops--;
				gen_op(&spec, o);
				gen_flags(o, i == n - 1 && !spec.drain_hangs,
					  in_chain);
			}
		}
		if (in_chain && i < n - 1) {
			o->link = chance(70) ? IOSQE_IO_LINK :
				  IOSQE_IO_HARDLINK;
			o->sqe[0].flags |= o->link;
		}
		if (in_chain)
			continue;	/* simulated below, with the chain */
		sim_unlinked(&spec, o, false);
		if (o->prep && !spec.submit_all)
			call_end(&spec);
		if (ambiguous(o)) {
			n = i + 1;	/* later ops could not be aimed */
			break;
		}
	}
	return n;
}

/* ------------------------------------------------------------------ */
/* submitting and checking                                              */

#define UD_NOP		(1ULL << 62)

static struct op *cur_ops;		/* the submission in flight */
static bool nop_seen;			/* drain_flush()'s NOP completed */
static int cur_n;

static struct op *find_op(__u64 ud)
{
	struct op *o;
	int i;

	for (i = 0; i < cur_n; i++)
		if (cur_ops[i].idx == ud)
			return &cur_ops[i];
	o = &oplog[ud % LOG_OPS];
	return ud && o->idx == ud ? o : NULL;
}

static void drain_sink(void)
{
	char buf[2048];

	while (recv(F.udp_sink, buf, sizeof(buf), MSG_DONTWAIT) > 0)
		;
}

/* one CQE of the fuzz ring; returns true for the drain-flush NOP */
static bool fuzz_cqe(const struct io_uring_cqe *cqe)
{
	struct op *o;

	if (cqe->user_data == UD_NOP) {
		nop_seen = true;
		return true;
	}
	o = find_op(cqe->user_data);
	if (!o) {
		report("seed %llu: CQE for unknown user_data 0x%llx res %d flags 0x%x",
		       cfg.seed, (unsigned long long)cqe->user_data, cqe->res,
		       cqe->flags);
		return false;
	}
	if (cqe->flags & IORING_CQE_F_NOTIF) {
		nr_notifs++;
		if (o->more) {
			o->more = false;
		} else if (o->chained && !o->notified) {
			/*
			 * 6.12 io_req_tw_fail_links() completes a failed or
			 * cancelled link member without ->fail(), so a
			 * SEND_ZC there lacks F_MORE, yet its notification
			 * is flushed: an upstream quirk, not the series'.
			 */
			nr_quirk_notif++;
		} else {
			report("seed %llu op #%lu: notification without F_MORE",
			       cfg.seed, o->idx);
		}
		o->notified = true;
		return false;
	}
	if (o->got) {
		report("seed %llu op #%lu %s: second CQE, res %d", cfg.seed,
		       o->idx, opk_name[o->kind], cqe->res);
		return false;
	}
	o->got = true;
	o->res = cqe->res;
	o->more = cqe->flags & IORING_CQE_F_MORE;
	if (o->late) {
		/* checked as a skipped success: a CQE means it was not one */
		hist_add(o->kind, o->res);
		if (!documented(o, o->res))
			nr_undocumented++;
		else
			nr_mismatch_model++;
		report("seed %llu op #%lu %s: late CQE %d (%s) for an op with IOSQE_CQE_SKIP_SUCCESS",
		       cfg.seed, o->idx, opk_name[o->kind], o->res,
		       errname(o->res));
		print_op(o);
	}
	return false;
}

/* must this op post a CQE? (a skipped success posts none) */
static bool must_post(const struct op *o)
{
	return !(o->skip && exp_success(&o->exp));
}

static void reap_fuzz(int wait_ms, bool (*done)(void))
{
	struct __kernel_timespec ts = { .tv_nsec = 20 * 1000000LL };
	struct io_uring_cqe *cqe;
	struct timespec t0, t1;

	clock_gettime(CLOCK_MONOTONIC, &t0);
	for (;;) {
		while (!io_uring_peek_cqe(&FR, &cqe)) {
			fuzz_cqe(cqe);
			io_uring_cqe_seen(&FR, cqe);
		}
		if (!done || done())
			return;
		clock_gettime(CLOCK_MONOTONIC, &t1);
		if ((t1.tv_sec - t0.tv_sec) * 1000 +
		    (t1.tv_nsec - t0.tv_nsec) / 1000000 > wait_ms)
			return;
		if (M.iopoll) {
			/* no timed waits on a polled ring: poll, then nap */
			io_uring_get_events(&FR);
			if (io_uring_peek_cqe(&FR, &cqe))
				usleep(200);
			continue;
		}
		if (!io_uring_wait_cqe_timeout(&FR, &cqe, &ts)) {
			fuzz_cqe(cqe);
			io_uring_cqe_seen(&FR, cqe);
		}
	}
}

static bool cur_done(void)
{
	int i;

	for (i = 0; i < cur_n; i++)
		if (!cur_ops[i].got && must_post(&cur_ops[i]))
			return false;
	return true;
}

static bool nop_done(void)
{
	return nop_seen;
}

/* a drained SQE can leave drain_active set: one plain NOP clears it */
static void drain_flush(void)
{
	int i;

	for (i = 0; i < 2; i++) {
		struct io_uring_sqe *sqe = io_uring_get_sqe(&FR);

		io_uring_prep_nop(sqe);
		sqe->user_data = UD_NOP;
		io_uring_submit(&FR);
		nop_seen = false;
		reap_fuzz(cfg.cqe_wait_ms, nop_done);
	}
}

/* how io_uring_submit() calls should split this submission */
static bool split_ok(const struct op *ops, int n, const int *rets, int calls)
{
	int i, want[MAX_SUB], nw = 0, seg = 0;

	for (i = 0; i < n; i++) {
		seg++;
		if (!M.submit_all && ops[i].prep && !ops[i].link) {
			want[nw++] = seg;
			seg = 0;
		}
	}
	if (seg)
		want[nw++] = seg;
	if (nw != calls)
		return false;
	for (i = 0; i < nw; i++)
		if (want[i] != rets[i])
			return false;
	return true;
}

static void fuzz_submit(struct op *ops, int n)
{
	int rets[MAX_SUB + 1], calls = 0, done = 0, i;
	bool drained = false;

	for (i = 0; i < n; i++) {
		struct io_uring_sqe *sqe = io_uring_get_sqe(&FR);

		memset(sqe, 0, M.sqe128 ? 128 : 64);
		memcpy(sqe, ops[i].sqe, (M.sqe128 && ops[i].kind == K_FUSED) ?
		       128 : 64);
		sqe->user_data = ops[i].idx;
		if (ops[i].sqe[0].flags & IOSQE_IO_DRAIN)
			drained = true;
		if (cfg.verbose > 2)
			print_sqe(opk_name[ops[i].kind], &ops[i].sqe[0]);
	}
	cur_ops = ops;
	cur_n = n;
	while (done < n && calls <= MAX_SUB) {
		int r = io_uring_submit(&FR);

		if (r <= 0) {
			report("seed %llu op #%lu: io_uring_submit returned %d",
			       cfg.seed, ops[done].idx, r);
			break;
		}
		rets[calls++] = r;
		done += r;
	}
	/* the model predicts the result of every SQE, so first guess */
	{
		struct model spec = M;

		sim_sub(&spec, ops, n, false);
	}
	reap_fuzz(cfg.cqe_wait_ms, cur_done);
	sim_sub(&M, ops, n, true);
	if (!split_ok(ops, n, rets, calls)) {
		nr_mismatch_model++;
		report("seed %llu op #%lu..#%lu: io_uring_submit() consumed the SQEs in %d call(s) (first %d), not as the failed preps predict (submit_all=%d)",
		       cfg.seed, ops[0].idx, ops[n - 1].idx, calls, rets[0],
		       M.submit_all);
		for (i = 0; i < n; i++)
			print_op(&ops[i]);
	}
	for (i = 0; i < n; i++) {
		if (!ops[i].got)
			ops[i].late = true;
		oplog[ops[i].idx % LOG_OPS] = ops[i];
	}
	cur_n = 0;
	if (drained)
		drain_flush();
	drain_sink();
}

/* ---- table, clone and teardown: register-time ops on the fuzz ring ---- */

static void check_reg(const char *what, int got, int want)
{
	hist_add(K_TABLE, got);
	if (got != want) {
		nr_mismatch_model++;
		report("seed %llu after op #%lu: %s returned %d (%s), expected %d (%s)",
		       cfg.seed, nr_ops, what, got, errname(got), want,
		       errname(want));
	}
}

static void table_op(void)
{
	unsigned int r = rnd_below(100), s, n, i;
	__u64 utag = 0;
	struct iovec iov;
	int ret, want;

	nr_ops++;
	s = M.table && chance(90) ? rnd_below(M.nslots) :
		M.nslots + rnd_below(4);
	if (!M.table && r < 70) {
		n = 1 + rnd_below(MAX_SLOTS);
		ret = io_uring_register_buffers_sparse(&FR, n);
		check_reg("register sparse buffers", ret, 0);
		if (!ret) {
			M.table = true;
			M.nslots = n;
		}
	} else if (r < 45) {
		iov.iov_base = ubuf[s % MAX_SLOTS];
		iov.iov_len = 512 + rnd_below(UBUF_LEN - 511);
		ret = io_uring_register_buffers_update_tag(&FR, s, &iov, &utag,
							   1);
		want = !M.table ? -ENXIO : s >= M.nslots ? -EINVAL : 1;
		check_reg("buffer update (user buffer)", ret, want);
		if (ret == 1) {
			slot_drop(&M, s);
			M.slot[s].kind = SL_USER;
			M.slot[s].uaddr = (uintptr_t)iov.iov_base;
			M.slot[s].len = iov.iov_len;
		}
	} else if (r < 75) {
		iov.iov_base = NULL;
		iov.iov_len = 0;
		ret = io_uring_register_buffers_update_tag(&FR, s, &iov, &utag,
							   1);
		want = !M.table ? -ENXIO : s >= M.nslots ? -EINVAL : 1;
		check_reg("buffer update (empty)", ret, want);
		if (ret == 1) {
			/* the old buffer goes with the rsrc node: later */
			if (M.slot[s].kind == SL_KERNEL)
				M.slot[s].used_before = true;
			slot_drop(&M, s);
		}
	} else if (r < 92) {
		ret = io_uring_unregister_buffers(&FR);
		check_reg("unregister buffers", ret, M.table ? 0 : -ENXIO);
		if (!ret) {
			for (i = 0; i < M.nslots; i++)
				slot_drop(&M, i);
			M.table = false;
			M.nslots = 0;
		}
	} else {
		ret = io_uring_register_buffers_sparse(&FR, 4);
		check_reg("register buffers twice", ret,
			  M.table ? -EBUSY : 0);
		if (!ret) {
			M.table = true;
			M.nslots = 4;
		}
	}
}

/* one SQE on a scratch ring, checked on the spot */
static int one_sqe(struct io_uring *r, struct io_uring_sqe *s)
{
	struct io_uring_sqe *sqe = io_uring_get_sqe(r);
	struct io_uring_cqe *cqe;
	int res;

	*sqe = *s;
	sqe->user_data = 1;
	io_uring_submit(r);
	if (io_uring_wait_cqe(r, &cqe))
		return INT_MIN;
	res = cqe->res;
	io_uring_cqe_seen(r, cqe);
	return res;
}

/* the clone of the table shares user buffers, never lent ones */
static void clone_op(void)
{
	struct clone_buffers cb = { .src_fd = FR.ring_fd };
	struct io_uring_sqe s;
	struct io_uring c;
	const struct mslot *sl;
	unsigned int i;
	int ret, want;

	nr_ops++;
	if (io_uring_queue_init(8, &c, 0))
		return;
	ret = syscall(__NR_io_uring_register, c.ring_fd, REG_CLONE_BUFFERS,
		      &cb, 1);
	ret = ret < 0 ? -errno : ret;
	hist_add(K_CLONE, ret);
	want = M.table ? 0 : -ENXIO;
	if (ret != want) {
		nr_mismatch_model++;
		report("seed %llu after op #%lu: clone buffers returned %d, expected %d",
		       cfg.seed, nr_ops, ret, want);
	}
	if (ret || !M.nslots)
		goto out;
	i = rnd_below(M.nslots);
	sl = &M.slot[i];

	memset(&s, 0, sizeof(s));
	uzc_prep_buf_remove(&s, i);
	ret = one_sqe(&c, &s);
	hist_add(K_CLONE, ret);
	want = sl->kind == SL_USER ? -EPERM : -ENOENT;
	if (ret != want) {
		nr_mismatch_model++;
		report("seed %llu after op #%lu: BUF_REMOVE of cloned slot %u (%s) returned %d, expected %d",
		       cfg.seed, nr_ops, i,
		       sl->kind == SL_KERNEL ? "lent" : sl->kind == SL_USER ?
		       "user" : "empty", ret, want);
	}

	io_uring_prep_write_fixed(&s, F.scratch,
				  (void *)(uintptr_t)(sl->kind == SL_USER ?
						      sl->uaddr : 0),
				  512, 0, i);
	ret = one_sqe(&c, &s);
	hist_add(K_CLONE, ret);
	want = sl->kind == SL_USER ? 512 : -EFAULT;
	if (ret != want) {
		nr_mismatch_model++;
		report("seed %llu after op #%lu: WRITE_FIXED from cloned slot %u (%s) returned %d, expected %d",
		       cfg.seed, nr_ops, i,
		       sl->kind == SL_KERNEL ? "lent" : sl->kind == SL_USER ?
		       "user" : "empty", ret, want);
	}
out:
	io_uring_queue_exit(&c);
}

static int teardown_op(void)
{
	nr_ops++;
	nr_teardowns++;
	if (pick_slot(&M, SL_KERNEL, 0) >= 0)
		nr_teardown_lent++;
	hist_add(K_TEARDOWN, 0);
	reap_fuzz(0, NULL);
	fuzz_ring_close();
	return fuzz_ring_open();
}


/* ------------------------------------------------------------------ */
/* the legitimate data path                                            */

#define UD_SPLICE	1
#define UD_REMOVE	2
#define UD_LEG		16

/* wait for @n CQEs of the data ring, then take whatever else is there */
static int dr_reap(int n, int *res, __u64 *ud, int max)
{
	struct __kernel_timespec ts = { .tv_sec = cfg.cqe_wait_ms / 1000 };
	struct io_uring_cqe *cqe;
	int got = 0;

	while (got < max) {
		if (got < n) {
			if (io_uring_wait_cqe_timeout(&DR, &cqe, &ts))
				break;
		} else if (io_uring_peek_cqe(&DR, &cqe)) {
			break;
		}
		res[got] = cqe->res;
		ud[got] = cqe->user_data;
		got++;
		io_uring_cqe_seen(&DR, cqe);
	}
	return got;
}

static unsigned long nr_legit_fail;

static void legit_fail(int tag, const char *what, int res, int want)
{
	nr_legit_fail++;
	report("seed %llu tag %d (after op #%lu): legitimate %s returned %d (%s), expected %d",
	       cfg.seed, tag, nr_ops, what, res, errname(res), want);
}

/* split @bytes into 1..3 pieces at odd places; returns their number */
static int split(unsigned int bytes, unsigned int *off, unsigned int *len)
{
	int n = 1 + rnd_below(3), i;
	unsigned int at = 0;

	for (i = 0; i < n; i++) {
		unsigned int rest = bytes - at;

		off[i] = at;
		len[i] = i == n - 1 ? rest : rnd_below(rest + 1);
		at += len[i];
	}
	return n;
}

/*
 * SPLICE_FROM(skip?), READ_FIXED/WRITE_FIXED legs, BUF_REMOVE(skip?), in
 * one submission on the data ring (slot = tag). Returns false when the
 * request is lent to the fuzz ring (-EALREADY): serve it by user copy.
 */
static bool serve_splice_zc(int tag)
{
	struct mtag *t = &M.tag[tag];
	bool rd = t->op == UBLK_IO_OP_READ;
	bool skip_sp = chance(50), skip_rm = chance(50);
	unsigned int off[4], len[4], i, legs;
	int res[8], sp = INT_MIN, rm = INT_MIN, lres[4], got, want;
	__u64 ud[8];
	struct io_uring_sqe *sqe;

	legs = split(t->bytes, off, len);
	if (!rd) {
		off[legs] = 0;		/* and the mirror */
		len[legs] = t->bytes;
		legs++;
	}
	sqe = io_uring_get_sqe(&DR);
	uzc_prep_splice_from(sqe, F.cdev, uzc_pos(0, tag, 0), t->bytes, tag);
	sqe->flags = skip_sp ? IOSQE_CQE_SKIP_SUCCESS : 0;
	sqe->user_data = UD_SPLICE;
	for (i = 0; i < legs; i++) {
		int fd = !rd && i == legs - 1 ? F.mirror : F.backing;

		sqe = io_uring_get_sqe(&DR);
		if (rd)
			io_uring_prep_read_fixed(sqe, fd,
						 (void *)(uintptr_t)off[i],
						 len[i], t->start + off[i], tag);
		else
			io_uring_prep_write_fixed(sqe, fd,
						  (void *)(uintptr_t)off[i],
						  len[i], t->start + off[i],
						  tag);
		if (chance(25))
			sqe->flags = IOSQE_ASYNC;
		sqe->user_data = UD_LEG + i;
		lres[i] = INT_MIN;
	}
	sqe = io_uring_get_sqe(&DR);
	uzc_prep_buf_remove(sqe, tag);
	sqe->flags = skip_rm ? IOSQE_CQE_SKIP_SUCCESS : 0;
	sqe->user_data = UD_REMOVE;
	io_uring_submit(&DR);

	got = dr_reap(legs + !skip_sp + !skip_rm, res, ud, 8);
	for (i = 0; i < (unsigned int)got; i++) {
		if (ud[i] == UD_SPLICE)
			sp = res[i];
		else if (ud[i] == UD_REMOVE)
			rm = res[i];
		else if (ud[i] >= UD_LEG && ud[i] < UD_LEG + legs)
			lres[ud[i] - UD_LEG] = res[i];
	}
	if (sp == INT_MIN && skip_sp)
		sp = t->bytes;
	if (rm == INT_MIN && skip_rm)
		rm = 0;
	nr_legit++;

	if (sp == (int)t->bytes) {
		if (t->lend == L_HELD)
			legit_fail(tag, "SPLICE_FROM of a lent request", sp,
				   -EALREADY);
		for (i = 0; i < legs; i++)
			if (lres[i] != (int)len[i])
				legit_fail(tag, rd ? "READ_FIXED" :
					   "WRITE_FIXED", lres[i], len[i]);
		if (rm != 0)
			legit_fail(tag, "BUF_REMOVE", rm, 0);
		t->lend = L_FREE;	/* the legs let go before their CQEs */
		nr_legit_zc++;
		return true;
	}
	want = t->lend == L_FREE ? (int)t->bytes : -EALREADY;
	if (sp != -EALREADY || t->lend == L_FREE)
		legit_fail(tag, "SPLICE_FROM", sp, want);
	for (i = 0; i < legs; i++)
		if (lres[i] != -EFAULT)
			legit_fail(tag, "leg on an empty slot", lres[i],
				   -EFAULT);
	if (rm != -ENOENT)
		legit_fail(tag, "BUF_REMOVE of an empty slot", rm, -ENOENT);
	return false;
}

static void prep_fused_sqe(struct io_uring_sqe *sqe, int tag, __u8 op,
			   int fd, __u64 addr, __u32 len, __u64 off)
{
	struct ublksrv_io_cmd *c = (void *)&sqe->addr3;

	memset(sqe, 0, 2 * sizeof(*sqe));
	sqe->opcode = OP_FUSED_CMD;
	sqe->fd = F.cdev;
	sqe->cmd_op = UBLK_U_IO_FUSED_SUBMIT_IO;
	c->q_id = 0;
	c->tag = tag;
	sqe[1].opcode = op;
	sqe[1].fd = fd;
	sqe[1].addr = addr;
	sqe[1].len = len;
	sqe[1].off = off;
}

/* one fused command per piece (and per mirror leg for a WRITE) */
static bool serve_fused_zc(int tag)
{
	struct mtag *t = &M.tag[tag];
	bool rd = t->op == UBLK_IO_OP_READ;
	unsigned int off[4], len[4], i, legs;
	int res[8], got;
	__u64 ud[8];

	legs = split(t->bytes, off, len);
	if (!rd) {
		off[legs] = 0;
		len[legs] = t->bytes;
		legs++;
	}
	for (i = 0; i < legs; i++) {
		struct io_uring_sqe *sqe = io_uring_get_sqe(&DR);
		int fd = !rd && i == legs - 1 ? F.mirror : F.backing;

		prep_fused_sqe(sqe, tag, rd ? OP_READ : OP_WRITE, fd, off[i],
			       len[i], t->start + off[i]);
		if (chance(20))
			sqe->flags = IOSQE_ASYNC;
		sqe->user_data = UD_LEG + i;
	}
	io_uring_submit(&DR);
	got = dr_reap(legs, res, ud, 8);
	nr_legit++;
	nr_legit_zc++;
	if (got != (int)legs)
		legit_fail(tag, "fused commands (CQEs)", got, legs);
	for (i = 0; i < (unsigned int)got; i++) {
		unsigned int k = ud[i] - UD_LEG;

		if (k >= legs || res[i] != (int)len[k])
			legit_fail(tag, "FUSED_CMD", res[i],
				   k < legs ? (int)len[k] : -1);
	}
	return true;
}

/* UBLK_F_USER_COPY: pread()/pwrite() on the char device */
static void serve_copy(int tag)
{
	struct mtag *t = &M.tag[tag];
	__u64 pos = uzc_pos(0, tag, 0);
	ssize_t r;

	nr_legit++;
	nr_legit_copy++;
	if (t->op == UBLK_IO_OP_READ) {
		r = pread(F.backing, bounce, t->bytes, t->start);
		if (r == (ssize_t)t->bytes)
			r = pwrite(F.cdev, bounce, t->bytes, pos);
	} else {
		r = pread(F.cdev, bounce, t->bytes, pos);
		if (r == (ssize_t)t->bytes)
			r = pwrite(F.backing, bounce, t->bytes, t->start);
		if (r == (ssize_t)t->bytes)
			r = pwrite(F.mirror, bounce, t->bytes, t->start);
	}
	if (r != (ssize_t)t->bytes)
		legit_fail(tag, "user copy", r < 0 ? -errno : (int)r,
			   t->bytes);
}

static void settle(void);

static void serve(int tag)
{
	struct mtag *t = &M.tag[tag];

	if (series == S_SPLICE)
		settle();

	if (t->op == UBLK_IO_OP_READ || t->op == UBLK_IO_OP_WRITE) {
		bool zc = chance(75);

		/* a request the fuzz ring holds: mostly straight to copy */
		if (t->lend == L_HELD && chance(50))
			zc = false;
		if (!zc || !(series == S_SPLICE ? serve_splice_zc(tag) :
			     serve_fused_zc(tag)))
			serve_copy(tag);
		uzc_commit(&D, tag, t->bytes);
	} else {
		uzc_commit(&D, tag, 0);		/* flush: nothing cached */
	}
	t->state = T_DONE;
}

/* one SQE on the data ring, waited for */
static int dr_one(struct io_uring_sqe *s)
{
	struct io_uring_sqe *sqe = io_uring_get_sqe(&DR);
	__u64 ud;
	int res;

	*sqe = *s;
	sqe->user_data = UD_SPLICE;
	io_uring_submit(&DR);
	if (dr_reap(1, &res, &ud, 1) != 1)
		return INT_MIN;
	return res;
}

/*
 * A removed buffer goes back to ublk when its last user is freed, which
 * for io-wq completions happens in task work after the CQE. Wait for that
 * (probing with SPLICE_FROM on the data ring) so the model stays exact,
 * and so that a loan that is never given back is caught.
 */
static void settle(void)
{
	struct io_uring_sqe s;
	unsigned int i;

	for (i = 0; i < cfg.depth; i++) {
		struct mtag *t = &M.tag[i];
		int tries, res = INT_MIN;

		if (t->lend != L_MAYBE)
			continue;
		for (tries = 0; tries < 2000; tries++) {
			uzc_prep_splice_from(&s, F.cdev, uzc_pos(0, i, 0),
					     t->state == T_OWNED ? t->bytes :
					     512, i);
			res = dr_one(&s);
			if (res != -EALREADY)
				break;
			usleep(tries < 20 ? 100 : 5000);
		}
		nr_settled++;
		if (tries) {
			nr_settle_late++;
			if ((unsigned long)tries > max_settle_tries)
				max_settle_tries = tries;
		}
		if (res == (int)t->bytes && t->state == T_OWNED) {
			uzc_prep_buf_remove(&s, i);
			res = dr_one(&s);
			if (res)
				legit_fail(i, "BUF_REMOVE (settle)", res, 0);
		} else if (res == -EALREADY) {
			report("seed %llu tag %u (after op #%lu): lent buffer never given back",
			       cfg.seed, i, nr_ops);
		} else if (!(res == -ESRCH && t->state != T_OWNED)) {
			legit_fail(i, "SPLICE_FROM (settle)", res,
				   t->state == T_OWNED ? (int)t->bytes :
				   -ESRCH);
		}
		t->lend = L_FREE;
	}
}

/* one fuzz step: a submission, or something done to the ring itself */
static int fuzz_step(void)
{
	struct op ops[MAX_SUB];
	unsigned int r = rnd_below(100);
	int n;

	if (series == S_SPLICE)
		settle();

	if (r < 3)
		return teardown_op();
	if (series == S_SPLICE && r < 8) {
		table_op();
		return 0;
	}
	if (series == S_SPLICE && r < 10) {
		clone_op();
		return 0;
	}
	n = gen_sub(ops);
	fuzz_submit(ops, n);
	return 0;
}

/* ------------------------------------------------------------------ */
/* the workload: verified block I/O in lockstep batches                 */

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

static struct {
	pthread_t th;
	pthread_mutex_t mu;
	pthread_cond_t cv;
	bool go, published, done, stop, final_req;
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
} W = { .mu = PTHREAD_MUTEX_INITIALIZER, .cv = PTHREAD_COND_INITIALIZER,
	.fd = -1 };

static __u64 wrnd_below(__u64 n)
{
	return n ? rng_next(&W.rng) % n : 0;
}

static void wl_fill(void *p, size_t len)
{
	unsigned char *c = p;
	size_t i;

	for (i = 0; i + 8 <= len; i += 8) {
		__u64 v = rng_next(&W.rng);

		memcpy(c + i, &v, 8);
	}
	for (; i < len; i++)
		c[i] = rng_next(&W.rng);
}

/* lay @io out in 1..4 pieces, 4-byte aligned, in its part of the arena */
static void wl_layout(struct wio *io, int k, bool odd)
{
	char *base = W.arena + k * W.per_io, *p = base;
	unsigned int left = io->len, i;

	io->nvec = odd ? 1 + wrnd_below(4) : 1;
	if ((unsigned int)io->nvec > io->len / 512)
		io->nvec = io->len / 512;
	for (i = 0; i < (unsigned int)io->nvec; i++) {
		unsigned int sz = i == (unsigned int)io->nvec - 1 ? left :
			512 * (1 + wrnd_below(left / 512 - (io->nvec - i) + 1));

		if (odd)
			p += 4 * wrnd_below(1024);	/* < 4K, 4-aligned */
		io->iov[i].iov_base = p;
		io->iov[i].iov_len = sz;
		p += sz;
		left -= sz;
	}
	if (p > base + W.per_io)
		abort();	/* per_io covers the worst case */
}

/*
 * I/Os of a batch neither overlap nor touch: the block layer cannot merge
 * them, so each is one request, whatever the timing, and a seed replays.
 */
static bool overlaps(const struct batch *b, __u64 off, unsigned int len)
{
	int i;

	for (i = 0; i < b->nr; i++)
		if (off < b->io[i].off + b->io[i].len + 512 &&
		    b->io[i].off < off + len + 512)
			return true;
	return false;
}

static void wl_build_random(struct batch *b)
{
	unsigned int maxn = cfg.depth < 6 ? cfg.depth : 6;
	unsigned int n = 1 + wrnd_below(maxn), k, tries;
	unsigned long long sectors = cfg.dev_size >> 9;

	memset(b, 0, sizeof(*b));
	for (k = 0; k < n; k++) {
		struct wio *io = &b->io[b->nr];
		unsigned int s;

		for (tries = 0; tries < 8; tries++) {
			/* mostly small, sometimes up to max_io */
			s = wrnd_below(4) ? 1 + wrnd_below(32) :
				1 + wrnd_below(cfg.max_io >> 9);
			io->len = s << 9;
			io->off = wrnd_below(sectors - s + 1) << 9;
			if (!overlaps(b, io->off, io->len))
				break;
		}
		if (tries == 8)
			continue;
		io->op = wrnd_below(2) ? UBLK_IO_OP_WRITE : UBLK_IO_OP_READ;
		wl_layout(io, b->nr, wrnd_below(2));
		b->nr++;
	}
	b->flushes = wrnd_below(100) < 8;
}

/* the final pass: write the whole device, then read it all back */
static void wl_build_final(struct batch *b)
{
	memset(b, 0, sizeof(*b));
	if (W.phase == 1 && W.pos >= cfg.dev_size) {
		W.phase = 2;
		W.pos = 0;
	}
	if (W.phase == 2 && W.pos >= cfg.dev_size) {
		b->finished = true;
		return;
	}
	while (b->nr < (int)cfg.depth && W.pos < cfg.dev_size) {
		struct wio *io = &b->io[b->nr];

		io->op = W.phase == 1 ? UBLK_IO_OP_WRITE : UBLK_IO_OP_READ;
		io->off = W.pos;
		io->len = cfg.max_io;
		if (io->off + io->len > cfg.dev_size)
			io->len = cfg.dev_size - io->off;
		wl_layout(io, b->nr, false);
		W.pos += io->len;
		b->nr++;
	}
}

/* run the batch; returns false if the I/O itself failed */
static bool wl_run(struct batch *b)
{
	struct __kernel_timespec ts = { .tv_sec = 5 };
	struct io_uring_cqe *cqe;
	int i, want = b->nr + b->flushes, got = 0, waited = 0;
	bool ok = true;

	for (i = 0; i < b->nr; i++) {
		struct wio *io = &b->io[i];
		struct io_uring_sqe *sqe = io_uring_get_sqe(&W.ring);
		int v;

		if (io->op == UBLK_IO_OP_WRITE) {
			for (v = 0; v < io->nvec; v++)
				wl_fill(io->iov[v].iov_base,
					io->iov[v].iov_len);
			io_uring_prep_writev(sqe, W.fd, io->iov, io->nvec,
					     io->off);
		} else {
			io_uring_prep_readv(sqe, W.fd, io->iov, io->nvec,
					    io->off);
		}
		sqe->user_data = i;
	}
	if (b->flushes) {
		struct io_uring_sqe *sqe = io_uring_get_sqe(&W.ring);

		io_uring_prep_fsync(sqe, W.fd, 0);
		sqe->user_data = 1000;
	}
	io_uring_submit(&W.ring);
	while (got < want) {
		if (io_uring_wait_cqe_timeout(&W.ring, &cqe, &ts)) {
			waited += 5;
			if (W.stop || waited > 600)
				return false;
			continue;
		}
		i = cqe->user_data;
		if (i == 1000 ? cqe->res != 0 :
		    cqe->res != (int)b->io[i].len) {
			W.errors++;
			if (W.errors <= 5)
				printf("# workload: I/O %d returned %d\n", i,
				       cqe->res);
			ok = false;
		}
		io_uring_cqe_seen(&W.ring, cqe);
		got++;
	}
	return ok;
}

static void wl_check(const struct batch *b)
{
	int i, v;

	for (i = 0; i < b->nr; i++) {
		const struct wio *io = &b->io[i];
		unsigned long long at = io->off;

		for (v = 0; v < io->nvec; v++) {
			const void *p = io->iov[v].iov_base;
			size_t len = io->iov[v].iov_len, d;

			if (io->op == UBLK_IO_OP_WRITE) {
				memcpy(W.shadow + at, p, len);
				W.written += len;
			} else {
				d = uzc_cmp(W.shadow + at, p, len);
				if (d) {
					W.mismatches++;
					if (W.mismatches <= 5)
						printf("# workload: read of %u bytes at %llu differs at device offset %llu\n",
						       io->len, io->off,
						       at + d - 1);
				}
				W.verified += len;
				if (W.phase == 2)
					W.final_verified += len;
			}
			at += len;
		}
		W.ios++;
	}
}

static void *wl_thread(void *arg)
{
	struct batch b;
	int i;

	(void)arg;
	for (i = 0; i < 500 && W.fd < 0; i++) {
		W.fd = open(D.bdev_path, O_RDWR | O_DIRECT);
		if (W.fd < 0)
			usleep(10000);
	}
	if (W.fd < 0 || io_uring_queue_init(2 * MAX_DEPTH, &W.ring, 0)) {
		printf("# workload: cannot open %s\n", D.bdev_path);
		W.errors++;
	}
	for (;;) {
		pthread_mutex_lock(&W.mu);
		while (!W.go && !W.stop)
			pthread_cond_wait(&W.cv, &W.mu);
		if (W.stop) {
			pthread_mutex_unlock(&W.mu);
			break;
		}
		W.go = false;
		if (W.final_req && !W.phase)
			W.phase = 1;
		pthread_mutex_unlock(&W.mu);

		if (W.fd < 0) {
			memset(&b, 0, sizeof(b));
			b.finished = true;
		} else if (W.phase) {
			wl_build_final(&b);
		} else {
			wl_build_random(&b);
		}

		pthread_mutex_lock(&W.mu);
		W.b = b;
		W.published = true;
		pthread_cond_broadcast(&W.cv);
		pthread_mutex_unlock(&W.mu);
		if (b.finished)
			continue;

		if (wl_run(&b))
			wl_check(&b);
		W.batches++;
		pthread_mutex_lock(&W.mu);
		W.done = true;
		pthread_cond_broadcast(&W.cv);
		pthread_mutex_unlock(&W.mu);
	}
	if (W.fd >= 0) {
		io_uring_queue_exit(&W.ring);
		close(W.fd);
	}
	return NULL;
}

/* ask for the next batch and wait until it is described */
static void wl_next(struct batch *b, bool final)
{
	pthread_mutex_lock(&W.mu);
	W.final_req |= final;
	W.published = W.done = false;
	W.go = true;
	pthread_cond_broadcast(&W.cv);
	while (!W.published)
		pthread_cond_wait(&W.cv, &W.mu);
	*b = W.b;
	pthread_mutex_unlock(&W.mu);
}

static bool wl_is_done(void)
{
	bool d;

	pthread_mutex_lock(&W.mu);
	d = W.done;
	pthread_mutex_unlock(&W.mu);
	return d;
}

/* ------------------------------------------------------------------ */
/* batches                                                              */

static unsigned long nr_stray, nr_batches;

/* is [start, start + bytes) made of @op I/Os of the batch? */
static bool in_batch(const struct batch *b, unsigned int op, __u64 start,
		     __u64 bytes)
{
	__u64 pos = start, end = start + bytes;
	int i;

	while (pos < end) {
		for (i = 0; i < b->nr; i++)
			if (b->io[i].op == op && b->io[i].off <= pos &&
			    pos < b->io[i].off + b->io[i].len)
				break;
		if (i == b->nr)
			return false;
		pos = b->io[i].off + b->io[i].len;
	}
	return true;
}

static int deadline_ms(void)
{
	return cfg.debug ? 180000 : 60000;
}

/* take a request the batch does not explain: serve it plainly */
static void stray(int tag)
{
	nr_stray++;
	if (nr_stray <= 5)
		printf("# stray request: tag %d op %u %u bytes at %llu\n", tag,
		       M.tag[tag].op, M.tag[tag].bytes, M.tag[tag].start);
	serve(tag);
}

static int take_req(int tag)
{
	const struct ublksrv_io_desc *iod = uzc_iod(&D, tag);
	struct mtag *t = &M.tag[tag];

	t->state = T_OWNED;
	t->lend = L_FREE;
	t->op = ublksrv_get_op(iod);
	t->bytes = iod->nr_sectors << 9;
	t->start = (__u64)iod->start_sector << 9;
	return t->op;
}

/* receive every request of the batch; they are all held afterwards */
static int collect(const struct batch *b, int *held, int *nheld)
{
	__u64 want[2] = { 0, 0 }, got[2] = { 0, 0 };
	int flushes = 0, waited = 0, i;

	for (i = 0; i < b->nr; i++)
		want[b->io[i].op == UBLK_IO_OP_WRITE] += b->io[i].len;
	*nheld = 0;
	while (got[0] < want[0] || got[1] < want[1] || flushes < b->flushes) {
		int tag = uzc_next_req(&D, 100), op;

		if (tag == -ETIMEDOUT) {
			waited += 100;
			if (waited > deadline_ms())
				return -ETIMEDOUT;
			continue;
		}
		if (tag < 0)
			return tag;
		op = take_req(tag);
		if (op == UBLK_IO_OP_FLUSH && flushes < b->flushes) {
			flushes++;
		} else if ((op == UBLK_IO_OP_READ || op == UBLK_IO_OP_WRITE) &&
			   in_batch(b, op, M.tag[tag].start,
				    M.tag[tag].bytes)) {
			got[op == UBLK_IO_OP_WRITE] += M.tag[tag].bytes;
		} else {
			stray(tag);
			continue;
		}
		held[(*nheld)++] = tag;
	}
	sort_tags(&M, (unsigned int *)held, *nheld);
	return 0;
}

/* give back every loan the fuzz ring still holds, in some order */
static int release_all(void)
{
	unsigned int order[MAX_SLOTS], n = 0, i, r = rnd_below(100);

	for (i = 0; i < M.nslots; i++)
		if (M.slot[i].kind == SL_KERNEL)
			order[n++] = i;
	if (!n)
		return 0;
	if (r < 8)
		return teardown_op();
	if (r < 14) {
		unsigned int ns = M.nslots;

		nr_ops++;
		check_reg("unregister buffers (release)",
			  io_uring_unregister_buffers(&FR), 0);
		for (i = 0; i < ns; i++)
			slot_drop(&M, i);
		M.table = false;
		M.nslots = 0;
		nr_ops++;
		check_reg("register sparse buffers (release)",
			  io_uring_register_buffers_sparse(&FR, ns), 0);
		M.table = true;
		M.nslots = ns;
		return 0;
	}
	for (i = 0; i < n; i++) {		/* shuffle */
		unsigned int j = i + rnd_below(n - i), t = order[i];

		order[i] = order[j];
		order[j] = t;
	}
	for (i = 0; i < n; i++) {
		struct op o;

		memset(&o, 0, sizeof(o));
		o.idx = ++nr_ops;
		o.kind = K_REMOVE;
		o.fdc = C_MINUS1;
		uzc_prep_buf_remove(&o.sqe[0], order[i]);
		if (chance(40))
			o.sqe[0].flags = IOSQE_CQE_SKIP_SUCCESS;
		o.skip = o.sqe[0].flags;
		fuzz_submit(&o, 1);
	}
	for (i = 0; i < M.nslots; i++)
		if (M.slot[i].kind == SL_KERNEL)
			return teardown_op();	/* a remove failed */
	return 0;
}

static int wait_batch(void)
{
	int waited = 0;

	while (!wl_is_done()) {
		int tag = uzc_next_req(&D, 20);

		if (tag >= 0) {
			take_req(tag);
			stray(tag);
			continue;
		}
		if (tag != -ETIMEDOUT)
			return tag;
		waited += 20;
		if (waited > deadline_ms())
			return -ETIMEDOUT;
	}
	return 0;
}

static int run_batches(void)
{
	int held[MAX_DEPTH], nheld, i, n, ret;
	struct batch b;

	for (;;) {
		bool fuzz;

		for (i = 0; i < (int)cfg.depth; i++)
			memset(&M.tag[i], 0, sizeof(M.tag[i]));
		fuzz = nr_ops < cfg.ops;
		wl_next(&b, !fuzz);
		if (b.finished)
			return 0;
		nr_batches++;
		ret = collect(&b, held, &nheld);
		if (ret) {
			report("seed %llu batch %lu: requests did not arrive (%d)",
			       cfg.seed, nr_batches, ret);
			return ret;
		}
		for (n = fuzz ? rnd_below(4) : 0; n > 0; n--) {
			ret = fuzz_step();
			if (ret)
				return ret;
		}
		for (i = 0; i < nheld; i++) {	/* serve in random order */
			int j = i + rnd_below(nheld - i), t = held[i];

			held[i] = held[j];
			held[j] = t;
			ret = fuzz && chance(45) ? fuzz_step() : 0;
			if (ret)
				return ret;
			serve(held[i]);
			ret = fuzz && chance(35) ? fuzz_step() : 0;
			if (ret)
				return ret;
		}
		/* uses and removals after commit */
		for (n = fuzz ? rnd_below(3) : 0; n > 0; n--) {
			ret = fuzz_step();
			if (ret)
				return ret;
		}
		ret = series == S_SPLICE ? release_all() : 0;
		if (ret)
			return ret;
		reap_fuzz(0, NULL);
		ret = wait_batch();
		if (ret) {
			report("seed %llu batch %lu: block I/O did not complete (%d); fuzz ring slots:",
			       cfg.seed, nr_batches, ret);
			for (i = 0; i < (int)M.nslots; i++)
				printf("#   slot %d kind %d tag %u\n", i,
				       M.slot[i].kind, M.slot[i].tag);
			return ret;
		}
	}
}

/* ------------------------------------------------------------------ */
/* setup, teardown, main                                                */

#define ZC_FLAGS	(UBLK_F_USER_COPY | UBLK_F_SUPPORT_ZERO_COPY)

/* which series does this kernel run? NULL and @series set, or why not */
static const char *detect(void)
{
	const char *why = uzc_prereq();
	struct io_uring_probe *p;
	bool s58, s59;
	__u64 features;

	if (why)
		return why;
	p = io_uring_get_probe();
	if (!p)
		return "io_uring_get_probe() failed";
	/* op 58: SPLICE_FROM or FUSED_CMD; only splice-rsrc has 59 */
	s58 = io_uring_opcode_supported(p, OP_SPLICE_FROM);
	s59 = io_uring_opcode_supported(p, OP_BUF_REMOVE);
	io_uring_free_probe(p);
	if (!s58)
		return "io_uring has neither IORING_OP_SPLICE_FROM/BUF_REMOVE (58/59, splice-rsrc) nor IORING_OP_FUSED_CMD (58, fused)";
	series = s59 ? S_SPLICE : S_FUSED;
	if (uzc_get_features(&features))
		return "UBLK_U_CMD_GET_FEATURES failed";
	if (!(features & UBLK_F_SUPPORT_ZERO_COPY))
		return "ublk does not advertise UBLK_F_SUPPORT_ZERO_COPY";
	return NULL;
}

static int tmp_file(char *path, size_t len, const char *name, int flags)
{
	int fd;

	snprintf(path, len, "/tmp/zc_fuzz.%s.XXXXXX", name);
	fd = mkstemp(path);
	if (fd >= 0 && flags != O_RDWR) {
		close(fd);
		fd = open(path, flags);
	}
	return fd;
}

static int udp_socket(bool nonblock)
{
	return socket(AF_INET, SOCK_DGRAM | (nonblock ? SOCK_NONBLOCK : 0), 0);
}

static int setup_files(void)
{
	struct sockaddr_in sa = { .sin_family = AF_INET };
	socklen_t sl = sizeof(sa);
	char ro_path[64];
	int i, big = 4 << 20;

	F.backing = tmp_file(F.backing_path, sizeof(F.backing_path), "backing",
			     O_RDWR);
	F.mirror = tmp_file(F.mirror_path, sizeof(F.mirror_path), "mirror",
			    O_RDWR);
	F.scratch = tmp_file(F.scratch_path, sizeof(F.scratch_path), "scratch",
			     O_RDWR);
	if (F.backing < 0 || F.mirror < 0 || F.scratch < 0)
		return -errno;
	snprintf(ro_path, sizeof(ro_path), "/proc/self/fd/%d", F.scratch);
	F.ro = open(ro_path, O_RDONLY);
	/* zeros, like the shadow; sized so that reads are never short */
	if (ftruncate(F.backing, cfg.dev_size) ||
	    ftruncate(F.mirror, cfg.dev_size) ||
	    ftruncate(F.scratch, 8 << 20))
		return -errno;
	F.ctrl = open("/dev/ublk-control", O_RDWR);

	uzc_loopback_up();
	F.udp_sink = udp_socket(true);
	F.udp_tx = udp_socket(false);
	F.udp_rx = udp_socket(true);
	if (F.ro < 0 || F.ctrl < 0 || F.udp_sink < 0 || F.udp_tx < 0 ||
	    F.udp_rx < 0)
		return -errno;
	sa.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	if (bind(F.udp_sink, (void *)&sa, sizeof(sa)) ||
	    getsockname(F.udp_sink, (void *)&sa, &sl) ||
	    connect(F.udp_tx, (void *)&sa, sizeof(sa)))
		return -errno;
	setsockopt(F.udp_sink, SOL_SOCKET, SO_RCVBUF, &big, sizeof(big));
	close(F.closed);	/* a number that names no file */

	for (i = 0; i < MAX_SLOTS; i++)
		if (posix_memalign(&ubuf[i], 4096, UBUF_LEN))
			return -ENOMEM;
	if (posix_memalign(&bounce, 4096, cfg.max_io))
		return -ENOMEM;
	return 0;
}

static void cleanup_files(void)
{
	unlink(F.backing_path);
	unlink(F.mirror_path);
	unlink(F.scratch_path);
}

/* the server's copies must hold what the workload wrote */
static unsigned long long compare_file(int fd, const char *what,
				       unsigned long *bad)
{
	const size_t chunk = 1 << 20;
	unsigned long long at, done = 0;
	char *buf = malloc(chunk);

	for (at = 0; buf && at < cfg.dev_size; at += chunk) {
		size_t len = cfg.dev_size - at < chunk ? cfg.dev_size - at :
			     chunk;
		size_t d;

		if (pread(fd, buf, len, at) != (ssize_t)len) {
			(*bad)++;
			break;
		}
		d = uzc_cmp(W.shadow + at, buf, len);
		if (d) {
			(*bad)++;
			printf("# %s differs from the data written at offset %llu\n",
			       what, at + d - 1);
			break;
		}
		done += len;
	}
	free(buf);
	return done;
}

static void print_hist(void)
{
	int k, i;

	for (k = 0; k < NR_K; k++) {
		char line[512];
		size_t o = 0;
		unsigned long tot = 0;

		for (i = 0; i < 140; i++)
			tot += hist[k][i];
		if (!tot)
			continue;
		for (i = 0; i < 140 && o < sizeof(line); i++)
			if (hist[k][i])
				o += snprintf(line + o, sizeof(line) - o,
					      " %s=%lu", i ? errname(-i) : "ok",
					      hist[k][i]);
		printf("#   %-13s %6lu:%s\n", opk_name[k], tot, line);
	}
}

static void usage(const char *prog)
{
	printf("usage: %s [-n OPS] [-s SEED] [-v]...\n"
	       "  -n OPS   fuzz operations, at least (env UBLK_ZC_FUZZ_OPS)\n"
	       "  -s SEED  reproduce a run (env UBLK_ZC_FUZZ_SEED)\n"
	       "  -v       verbose (-vv: every op, -vvv: every SQE)\n"
	       "  env UBLK_ZC_FLAVOR=debug: smaller device for debug kernels\n",
	       prog);
}

static void parse(int argc, char **argv)
{
	const char *e;
	struct timespec ts;
	int c;

	e = getenv("UBLK_ZC_FLAVOR");
	cfg.debug = e && !strcmp(e, "debug");
	cfg.ops = cfg.debug ? 2000 : 3000;
	cfg.depth = 8;
	cfg.max_io = cfg.debug ? 64 << 10 : 128 << 10;
	cfg.dev_size = cfg.debug ? 4ULL << 20 : 16ULL << 20;
	cfg.cqe_wait_ms = cfg.debug ? 30000 : 10000;
	clock_gettime(CLOCK_REALTIME, &ts);
	cfg.seed = (ts.tv_sec * 1000000007ULL) ^ ts.tv_nsec ^ getpid();
	e = getenv("UBLK_ZC_FUZZ_OPS");
	if (e)
		cfg.ops = strtoul(e, NULL, 0);
	e = getenv("UBLK_ZC_FUZZ_SEED");
	if (e)
		cfg.seed = strtoull(e, NULL, 0);
	while ((c = getopt(argc, argv, "n:s:vh")) != -1) {
		switch (c) {
		case 'n':
			cfg.ops = strtoul(optarg, NULL, 0);
			break;
		case 's':
			cfg.seed = strtoull(optarg, NULL, 0);
			break;
		case 'v':
			cfg.verbose++;
			break;
		default:
			usage(argv[0]);
			exit(c == 'h' ? 0 : 1);
		}
	}
}

static void hung(int sig)
{
	(void)sig;
	printf("# FAIL: seed %llu: stopping/deleting the device hangs (a request never completed)\n",
	       cfg.seed);
	printf("not ok 1 device teardown hangs\n");
	_exit(KSFT_FAIL);
}

int main(int argc, char **argv)
{
	unsigned long bad_backing = 0, bad_mirror = 0;
	unsigned long long cmp_backing = 0, cmp_mirror = 0;
	struct timespec t0, t1;
	const char *why;
	double secs;
	int ret;

	parse(argc, argv);
	setvbuf(stdout, NULL, _IOLBF, 0);
	ksft_print_header();
	printf("# seed %llu\n", cfg.seed);
	rng = cfg.seed;
	W.rng = cfg.seed ^ 0x776f726b6c6f6164ULL;	/* "workload" */
	why = detect();
	/*
	 * On a series kernel (UBLK_ZC_VARIANT) the fuzzer must find that
	 * series' uAPI, not skip and not find the other series'
	 */
	if (why && (uzc_prereq() ? uzc_must_have(NULL) :
		    uzc_must_have("splice") || uzc_must_have("fused")))
		ksft_exit_fail_msg("%s, but UBLK_ZC_VARIANT=%s must have it\n",
				   why, uzc_variant());
	if (why)
		ksft_exit_skip("%s\n", why);
	if (uzc_variant() && !uzc_must_have(series == S_SPLICE ? "splice" : "fused"))
		ksft_exit_fail_msg("the kernel has the %s series' uAPI, but UBLK_ZC_VARIANT=%s\n",
				   series == S_SPLICE ? "splice-rsrc" : "fused",
				   uzc_variant());
	printf("# series %s, %lu ops, device %llu MiB, depth %u, max_io %u KiB%s\n",
	       series == S_SPLICE ? "splice-rsrc" : "fused", cfg.ops,
	       cfg.dev_size >> 20, cfg.depth, cfg.max_io >> 10,
	       cfg.debug ? " (debug flavor)" : "");
	ksft_set_plan(5);
	clock_gettime(CLOCK_MONOTONIC, &t0);

	ret = setup_files();
	if (ret)
		ksft_exit_fail_msg("setup: %s\n", strerror(-ret));
	W.shadow = calloc(1, cfg.dev_size);
	W.per_io = cfg.max_io + 4 * 4096 + 4096;
	if (posix_memalign((void **)&W.arena, 4096, MAX_DEPTH * W.per_io) ||
	    !W.shadow)
		ksft_exit_fail_msg("out of memory\n");

	ret = uzc_dev_create(&D, ZC_FLAGS, cfg.depth, cfg.max_io,
			     cfg.dev_size, true);
	if (ret) {
		cleanup_files();
		ksft_exit_fail_msg("create device: %s\n", strerror(-ret));
	}
	F.cdev = D.cdev_fd;
	if (!(D.flags & UBLK_F_SUPPORT_ZERO_COPY))
		ksft_exit_fail_msg("device lost UBLK_F_SUPPORT_ZERO_COPY\n");
	ret = io_uring_queue_init(64, &DR, IORING_SETUP_SUBMIT_ALL |
				  (series == S_FUSED ? IORING_SETUP_SQE128 : 0));
	if (!ret && series == S_SPLICE)
		ret = io_uring_register_buffers_sparse(&DR, cfg.depth);
	if (!ret)
		ret = fuzz_ring_open();
	if (ret)
		ksft_exit_fail_msg("rings: %s\n", strerror(-ret));
	if (pthread_create(&W.th, NULL, wl_thread, NULL))
		ksft_exit_fail_msg("workload thread\n");

	ret = run_batches();

	pthread_mutex_lock(&W.mu);
	W.stop = true;
	pthread_cond_broadcast(&W.cv);
	pthread_mutex_unlock(&W.mu);
	reap_fuzz(0, NULL);
	fuzz_ring_close();
	/* a lent buffer that is never given back would hang the delete */
	signal(SIGALRM, hung);
	alarm(cfg.debug ? 300 : 120);
	if (ret) {
		/* stopping the device fails the I/O the workload waits for */
		io_uring_queue_exit(&DR);
		uzc_dev_destroy(&D);
		pthread_join(W.th, NULL);
	} else {
		pthread_join(W.th, NULL);
		io_uring_queue_exit(&DR);
		if (uzc_dev_destroy(&D))
			report("device delete failed");
	}
	alarm(0);
	if (!ret) {
		cmp_backing = compare_file(F.backing, "backing file",
					   &bad_backing);
		cmp_mirror = compare_file(F.mirror, "mirror file",
					  &bad_mirror);
	}
	cleanup_files();
	clock_gettime(CLOCK_MONOTONIC, &t1);
	secs = t1.tv_sec - t0.tv_sec + (t1.tv_nsec - t0.tv_nsec) / 1e9;

	printf("# seed %llu: %lu ops (target %lu) in %lu batches, %.1f s, %lu ring teardowns (%lu with buffers installed)\n",
	       cfg.seed, nr_ops, cfg.ops, nr_batches, secs, nr_teardowns,
	       nr_teardown_lent);
	printf("# %lu SEND_ZC notifications (%lu without F_MORE, from failed links: a 6.12 quirk)\n",
	       nr_notifs, nr_quirk_notif);
	if (series == S_SPLICE)
		printf("# %lu removed/dropped loans probed, %lu still lent at the first probe (max %lu retries)\n",
		       nr_settled, nr_settle_late, max_settle_tries);
	print_hist();
	printf("# legit: %lu requests served (%lu zero copy, %lu user copy), %lu failures, %lu stray requests\n",
	       nr_legit, nr_legit_zc, nr_legit_copy, nr_legit_fail, nr_stray);
	printf("# workload: %lu batches, %lu I/Os, %llu bytes written, %llu bytes verified (final read-back %llu), %lu mismatches, %lu errors\n",
	       W.batches, W.ios, W.written, W.verified, W.final_verified,
	       W.mismatches, W.errors);
	printf("# server files: backing %llu and mirror %llu bytes compared, %lu mismatches\n",
	       cmp_backing, cmp_mirror, bad_backing + bad_mirror);
	printf("# checks failed: %lu undocumented results, %lu model mismatches, %lu total reports\n",
	       nr_undocumented, nr_mismatch_model, nr_fail);
	if (nr_fail)
		printf("# reproduce: zc_fuzz -s %llu -n %lu\n", cfg.seed,
		       cfg.ops);

	ksft_test_result(!nr_undocumented, "every CQE within the documented errno set\n");
	ksft_test_result(!nr_mismatch_model, "every CQE as the model predicts\n");
	ksft_test_result(!ret && !nr_legit_fail, "legitimate data path served every request\n");
	ksft_test_result(!ret && !W.mismatches && !W.errors &&
			 W.final_verified == cfg.dev_size,
			 "workload data verified, full device read back\n");
	ksft_test_result(!ret && !bad_backing && !bad_mirror &&
			 cmp_backing == cfg.dev_size &&
			 cmp_mirror == cfg.dev_size,
			 "backing and mirror files hold the data written\n");
	ksft_finished();
}
