// SPDX-License-Identifier: GPL-2.0
/*
 * zc_fuzz: the bpf series (patches/bpf, the cover letter is the spec).
 *
 * One generic BPF_PROG_TYPE_UBLK program, built here as instructions:
 * per request it looks up a value in a hash map keyed by the request's
 * place (start_sector << 8 | op), counts its runs, copies the context,
 * then for each of the value's call entries (up to BPF_ENTS, more than
 * UBLK_BPF_MAX_SQES) passes the entry's SQE, size (64, else 32) and ring
 * fd to bpf_ublk_queue_sqe(), records each return in the value, and
 * returns the value's verdict (& 3).  No value: UBLK_BPF_IO_PASS.
 *
 * Before the workload starts a batch (it waits for bpf_arm()), the
 * server knows every I/O of it and fills the map with randomised calls
 * for them: pieces that cover the request (or not, or overlapping, over
 * 16), SQEs with every fault the helper refuses (size, opcode, the other
 * direction, zero length, bytes outside the request, flags, personality,
 * ring fds that are not the request's ring), and files that fail or
 * move short once submitted.  For each request the model predicts, from
 * the letter alone, every helper return (the set of errnos whose
 * condition holds: the letter does not order its checks), whether the
 * request is redirected (REDIRECT, at least one SQE queued, every byte
 * covered) with UBLK_IO_F_BPF and iod->addr = SQEs queued, each SQE's CQE
 * on the queue ring, and whether the block I/O completes or fails with
 * -EIO (an SQE that moved fewer bytes than asked); the workload is told
 * which of its I/Os must fail.  REG/UNREG (good and bad fds, twice, a
 * program of another type) run at random points while the server holds
 * the batch (SQEs in flight), checked against the letter's errnos.
 *
 * Data: a redirected READ reads the backing file (or its mirror) at the
 * request's place, so the workload verifies what the SQEs read; a
 * redirected WRITE lands in the backing file, the mirror or the scratch
 * file at the request's place, and the server gathers it into the
 * backing file and the mirror at the end of the batch; a WRITE that must
 * fail gets its old bytes back (the workload's shadow keeps them).
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/syscall.h>
#include <linux/bpf.h>

#include "zc_fuzz.h"
#include "uapi/ublk_bpf.h"
#include "uzc_bpf.h"

/* helper calls per request: UBLK_BPF_MAX_SQES and a couple more */
#define BPF_ENTS	18
#define BPF_SENTINEL	0x5a5a5a5a5a5aLL	/* a return never written */
/* the program's SQEs: batch in bits 16..47, I/O 8..15, call 0..7 */
#define UD_PROG		(1ULL << 62)
#define MAX_ENTRY	(MAX_DEPTH + 1)		/* the batch's I/Os, a flush */

struct bcall {			/* one helper call */
	struct io_uring_sqe sqe;
	__u32 ring_fd;		/* R4: the RFC helper's ring fd; ignored */
	__u32 size;		/* 64; anything else: the program passes 32 */
};

struct bval {			/* the map's value */
	__u32 verdict;		/* returned & 3 */
	__u32 nr;		/* calls made: min(nr, BPF_ENTS) */
	__u32 runs;		/* the program's runs on the value */
	__u32 pad;
	struct ublk_bpf_ctx ctx;	/* the last context it saw */
	__s64 ret[BPF_ENTS];	/* each call's return */
	struct bcall call[BPF_ENTS];
};

/* what a call's SQE names as its file */
enum tgt { TG_BACKING, TG_MIRROR, TG_SCRATCH, TG_EMPTY, TG_RO, TG_CLOSED,
	   TG_MINUS1, TG_FIX_SPARSE, TG_FIX_OOR, TG_PAST_EOF, NR_TG };
static const char *const tgt_name[NR_TG] = {
	"backing", "mirror", "scratch", "empty-ro", "ro", "closed", "fd-1",
	"fixed-sparse", "fixed-oor", "past-eof",
};
/* the queue ring's registered files */
enum {
	BFIX_BACKING, BFIX_MIRROR, BFIX_SCRATCH, BFIX_EMPTY, BFIX_SPARSE,
	NR_BFIX
};

struct mcall {
	int tgt;
	struct exp exp;		/* the helper's return */
	bool accepted;
	int cqe;		/* the CQE's res, if submitted */
	int got;		/* CQEs seen */
	int res;
};

/* one map value: an I/O of the batch (or its flush) */
struct entry {
	__u64 key;
	int io;			/* index in the batch, -1: the flush */
	unsigned char op;
	struct bval val;	/* as written */
	struct mcall c[BPF_ENTS];
	unsigned int calls;
	/* the request, once it arrived */
	bool arrived;
	int tag;
	unsigned int bytes;
	bool ran;		/* a program was registered at dispatch (arm) */
	bool redirect;		/* the model's, at arrival */
	bool k_redirect;	/* the kernel's: UBLK_IO_F_BPF */
	unsigned int k_nr;	/* iod->addr */
	bool fail;		/* the block I/O must fail (-EIO) */
	unsigned int accepted;
	unsigned int ncqe;
};

static struct entry E[MAX_ENTRY];
static unsigned int nent;
static unsigned long batch_no;
static int map_fd = -1, prog[2] = { -1, -1 }, sock_prog = -1;
static int empty_fd = -1;
static bool registered;
static struct batch cur;	/* the batch being served */

/* statistics */
static unsigned long st_calls, st_ret[7], st_multi, st_redirect, st_pass,
	st_fail, st_cqes, st_reg, st_reg_err, st_unreg, st_miss, st_uncover,
	st_enospc, st_flush, st_gathered, st_restored, st_early;

static const int ret_err[7] = { 0, -EINVAL, -ENOSPC, -EOPNOTSUPP, -EACCES,
				-EFAULT, 1 };

/* ------------------------------------------------------------------ */
/* the program                                                          */

#define VOFF(f)		((int)offsetof(struct bval, f))
#define COFF(f)		((int)offsetof(struct ublk_bpf_ctx, f))

static char vlog[1 << 16];

static int load(const struct bpf_insn *insns, unsigned int n, int type)
{
	return uzc_bpf_load(insns, n, type, vlog, sizeof(vlog));
}

/* the generic program (see the top of the file); returns its length */
static unsigned int build(struct bpf_insn *p)
{
	unsigned int n = 0, i, jle[BPF_ENTS];

	p[n++] = MOV_REG(6, 1);
	/* key = start_sector << 8 | op, at fp - 8 */
	p[n++] = LDX(BPF_DW, 1, 6, COFF(start_sector));
	p[n++] = ALU_IMM(BPF_LSH, 1, 8);
	p[n++] = LDX(BPF_B, 2, 6, COFF(op));
	p[n++] = ALU_REG(BPF_OR, 1, 2);
	p[n++] = STX(BPF_DW, 10, 1, -8);
	p[n++] = INSN(BPF_LD | BPF_DW | BPF_IMM, 1, BPF_PSEUDO_MAP_FD, 0,
		      map_fd);
	p[n++] = INSN(0, 0, 0, 0, 0);
	p[n++] = MOV_REG(2, 10);
	p[n++] = ALU_IMM(BPF_ADD, 2, -8);
	p[n++] = CALL(BPF_FUNC_map_lookup_elem);
	p[n++] = JMP_IMM(BPF_JNE, 0, 0, 2);
	p[n++] = MOV_IMM(0, UBLK_BPF_IO_PASS);
	p[n++] = EXIT();
	p[n++] = MOV_REG(7, 0);
	/* runs++, and the context, each field read whole */
	p[n++] = LDX(BPF_W, 1, 7, VOFF(runs));
	p[n++] = ALU_IMM(BPF_ADD, 1, 1);
	p[n++] = STX(BPF_W, 7, 1, VOFF(runs));
	p[n++] = LDX(BPF_H, 1, 6, COFF(q_id));
	p[n++] = STX(BPF_H, 7, 1, VOFF(ctx) + COFF(q_id));
	p[n++] = LDX(BPF_H, 1, 6, COFF(tag));
	p[n++] = STX(BPF_H, 7, 1, VOFF(ctx) + COFF(tag));
	p[n++] = LDX(BPF_B, 1, 6, COFF(op));
	p[n++] = STX(BPF_B, 7, 1, VOFF(ctx) + COFF(op));
	p[n++] = LDX(BPF_W, 1, 6, COFF(nr_sectors));
	p[n++] = STX(BPF_W, 7, 1, VOFF(ctx) + COFF(nr_sectors));
	p[n++] = LDX(BPF_W, 1, 6, COFF(op_flags));
	p[n++] = STX(BPF_W, 7, 1, VOFF(ctx) + COFF(op_flags));
	p[n++] = LDX(BPF_DW, 1, 6, COFF(start_sector));
	p[n++] = STX(BPF_DW, 7, 1, VOFF(ctx) + COFF(start_sector));
	p[n++] = LDX(BPF_W, 8, 7, VOFF(nr));
	for (i = 0; i < BPF_ENTS; i++) {
		int c = VOFF(call) + i * (int)sizeof(struct bcall);

		jle[i] = n;
		p[n++] = JMP_IMM(BPF_JLE, 8, i, 0);	/* to the end */
		p[n++] = MOV_REG(1, 6);
		p[n++] = MOV_REG(2, 7);
		p[n++] = ALU_IMM(BPF_ADD, 2, c);
		p[n++] = LDX(BPF_W, 4, 7, c + 64);
		p[n++] = LDX(BPF_W, 3, 7, c + 68);
		p[n++] = JMP_IMM(BPF_JEQ, 3, 64, 3);
		p[n++] = MOV_IMM(3, 32);
		p[n++] = CALL(UBLK_BPF_FUNC_QUEUE_SQE);
		p[n++] = JA(2);
		p[n++] = MOV_IMM(3, 64);
		p[n++] = CALL(UBLK_BPF_FUNC_QUEUE_SQE);
		p[n++] = STX(BPF_DW, 7, 0, VOFF(ret) + 8 * i);
	}
	for (i = 0; i < BPF_ENTS; i++)
		p[jle[i]].off = n - jle[i] - 1;
	p[n++] = LDX(BPF_W, 0, 7, VOFF(verdict));
	p[n++] = ALU_IMM(BPF_AND, 0, 3);
	p[n++] = EXIT();
	return n;
}

static int map_update(__u64 key, const struct bval *v)
{
	union bpf_attr attr;

	memset(&attr, 0, sizeof(attr));
	attr.map_fd = map_fd;
	attr.key = (unsigned long)&key;
	attr.value = (unsigned long)v;
	attr.flags = BPF_ANY;
	return uzc_sys_bpf(BPF_MAP_UPDATE_ELEM, &attr) ? -errno : 0;
}

static int map_lookup(__u64 key, struct bval *v)
{
	union bpf_attr attr;

	memset(&attr, 0, sizeof(attr));
	attr.map_fd = map_fd;
	attr.key = (unsigned long)&key;
	attr.value = (unsigned long)v;
	return uzc_sys_bpf(BPF_MAP_LOOKUP_ELEM, &attr) ? -errno : 0;
}

static int map_delete(__u64 key)
{
	union bpf_attr attr;

	memset(&attr, 0, sizeof(attr));
	attr.map_fd = map_fd;
	attr.key = (unsigned long)&key;
	return uzc_sys_bpf(BPF_MAP_DELETE_ELEM, &attr) ? -errno : 0;
}

/* ------------------------------------------------------------------ */
/* setup                                                                */

/* the queue ring: room for the program's CQEs, and a file table */
int bpf_ring_init(struct uzc_dev *d)
{
	struct io_uring_params p = {
		.flags = IORING_SETUP_CQSIZE,
		.cq_entries = d->depth * (BPF_ENTS + 4),
	};
	int fds[NR_BFIX] = { F.backing, F.mirror, F.scratch, empty_fd, -1 };
	int ret;

	ret = io_uring_queue_init_params(d->depth * 4, &d->q, &p);
	if (ret)
		return ret;
	ret = io_uring_register_files(&d->q, fds, NR_BFIX);
	if (ret)
		io_uring_queue_exit(&d->q);
	return ret;
}

/* the map, two loads of the program, one of another type; 0 or -errno */
int bpf_setup(void)
{
	static struct bpf_insn insns[40 + 13 * BPF_ENTS];
	struct bpf_insn sf[] = { MOV_IMM(0, 0), EXIT() };
	union bpf_attr attr;
	char path[64];
	unsigned int n;
	int fd, i;

	memset(&attr, 0, sizeof(attr));
	attr.map_type = BPF_MAP_TYPE_HASH;
	attr.key_size = 8;
	attr.value_size = sizeof(struct bval);
	attr.max_entries = 4 * MAX_ENTRY;
	map_fd = uzc_sys_bpf(BPF_MAP_CREATE, &attr);
	if (map_fd < 0)
		return -errno;
	n = build(insns);
	if (n > sizeof(insns) / sizeof(insns[0]))
		abort();
	for (i = 0; i < 2; i++) {
		prog[i] = load(insns, n, UBLK_BPF_PROG_TYPE);
		if (prog[i] < 0) {
			printf("# verifier: %s\n", vlog);
			return prog[i];
		}
	}
	sock_prog = load(sf, 2, BPF_PROG_TYPE_SOCKET_FILTER);
	if (sock_prog < 0)
		return sock_prog;
	/* an empty file, read only: a READ moves 0 bytes, a WRITE -EBADF */
	snprintf(path, sizeof(path), "/tmp/zc_fuzz.empty.XXXXXX");
	fd = mkstemp(path);
	if (fd < 0)
		return -errno;
	empty_fd = open(path, O_RDONLY);
	close(fd);
	unlink(path);
	if (empty_fd < 0)
		return -errno;
	/* junk targets of a request's place: as big as the device */
	if (ftruncate(F.scratch, cfg.dev_size))
		return -errno;
	return 0;
}

/* ------------------------------------------------------------------ */
/* the model                                                            */

static bool req_rw(unsigned char op)
{
	return op == UBLK_IO_OP_READ || op == UBLK_IO_OP_WRITE;
}

static unsigned int calls_of(const struct bval *v)
{
	return v->nr < BPF_ENTS ? v->nr : BPF_ENTS;
}

/* do the accepted calls' [addr, addr + len) cover [0, bytes)? */
static bool covered(const struct entry *e, unsigned int bytes)
{
	__u64 at = 0;
	bool grew = true;
	unsigned int i;

	/* the smallest uncovered byte grows until no piece holds it */
	while (at < bytes && grew) {
		grew = false;
		for (i = 0; i < e->calls; i++) {
			const struct io_uring_sqe *s = &e->val.call[i].sqe;

			if (e->c[i].accepted && s->addr <= at &&
			    at < s->addr + s->len) {
				at = s->addr + s->len;
				grew = true;
			}
		}
	}
	return at >= bytes;
}

/* the result of submitted call @i of a request of @op */
static int cqe_of(const struct entry *e, unsigned int i, unsigned char op)
{
	__u32 len = e->val.call[i].sqe.len;

	switch (e->c[i].tgt) {
	case TG_BACKING:
	case TG_MIRROR:
	case TG_SCRATCH:
		return len;
	case TG_EMPTY:		/* O_RDONLY */
		return op == UBLK_IO_OP_READ ? 0 : -EBADF;
	case TG_RO:
		return op == UBLK_IO_OP_READ ? (int)len : -EBADF;
	case TG_PAST_EOF:
		return len / 2;
	default:		/* no such file */
		return -EBADF;
	}
}

/*
 * The letter's helper: each call returns 0 and queues its SQE, or one of
 * the errnos whose condition holds (-EINVAL size, flags, personality;
 * -ENOSPC 16 queued; -EOPNOTSUPP not a READ/WRITE request or SQE;
 * -EACCES the other direction; -EFAULT zero length or bytes outside the
 * request; R4, the RFC's ring fd, is ignored).  Then the redirect: REDIRECT,
 * SQEs queued and every byte covered, else passed.
 */
static void predict(struct entry *e, unsigned char op, unsigned int bytes)
{
	unsigned int i;
	__u8 want = op == UBLK_IO_OP_READ ? OP_READ : OP_WRITE;

	e->calls = calls_of(&e->val);
	e->accepted = 0;
	e->fail = false;
	for (i = 0; i < e->calls; i++) {
		const struct bcall *c = &e->val.call[i];
		const struct io_uring_sqe *s = &c->sqe;
		struct mcall *m = &e->c[i];

		memset(&m->exp, 0, sizeof(m->exp));
		m->accepted = false;
		if (c->size != 64)
			exp_add(&m->exp, -EINVAL);
		if (e->accepted >= UBLK_BPF_MAX_SQES)
			exp_add(&m->exp, -ENOSPC);
		if (!req_rw(op))
			exp_add(&m->exp, -EOPNOTSUPP);
		if (s->opcode != OP_READ && s->opcode != OP_WRITE)
			exp_add(&m->exp, -EOPNOTSUPP);
		else if (req_rw(op) && s->opcode != want)
			exp_add(&m->exp, -EACCES);
		if (!s->len || s->addr > bytes || s->len > bytes - s->addr)
			exp_add(&m->exp, -EFAULT);
		if ((s->flags & ~(IOSQE_FIXED_FILE | IOSQE_ASYNC)) ||
		    s->personality)
			exp_add(&m->exp, -EINVAL);
		if (!m->exp.n) {
			exp_add(&m->exp, 0);
			m->accepted = true;
			e->accepted++;
			m->cqe = cqe_of(e, i, op);
			if (m->cqe != (int)s->len)
				e->fail = true;
		}
	}
	e->redirect = (e->val.verdict & 3) == UBLK_BPF_IO_REDIRECT &&
		      e->accepted && covered(e, bytes);
	if (!e->redirect)
		e->fail = false;
}

/* ------------------------------------------------------------------ */
/* generating a batch's values                                          */

static int ctrl(__u32 op, __u64 data0);
static void check_ctrl(const char *what, int got, const struct exp *e,
		       bool reg);

static const __u8 bad_opcodes[] = { OP_NOP, 1 /* READV */, OP_WRITEV,
	OP_READ_FIXED, OP_WRITE_FIXED, OP_SEND, OP_RECV, OP_URING_CMD, 58,
	59, 200, 255 };
static const __u8 bad_flags[] = { IOSQE_IO_DRAIN, IOSQE_IO_LINK,
	IOSQE_IO_HARDLINK, IOSQE_BUFFER_SELECT, IOSQE_CQE_SKIP_SUCCESS,
	SQE_BAD_FLAG };

static void set_target(struct io_uring_sqe *s, int tgt, __u64 place,
		       bool fixed)
{
	static const int fix[] = { [TG_BACKING] = BFIX_BACKING,
		[TG_MIRROR] = BFIX_MIRROR, [TG_SCRATCH] = BFIX_SCRATCH,
		[TG_EMPTY] = BFIX_EMPTY };

	s->flags &= ~IOSQE_FIXED_FILE;
	s->off = place;
	switch (tgt) {
	case TG_BACKING:
	case TG_MIRROR:
	case TG_SCRATCH:
	case TG_EMPTY:
		if (fixed) {
			s->flags |= IOSQE_FIXED_FILE;
			s->fd = fix[tgt];
		} else {
			s->fd = tgt == TG_BACKING ? F.backing :
				tgt == TG_MIRROR ? F.mirror :
				tgt == TG_SCRATCH ? F.scratch : empty_fd;
		}
		break;
	case TG_RO:
		s->fd = F.ro;
		break;
	case TG_CLOSED:
		s->fd = F.closed;
		break;
	case TG_MINUS1:
		s->fd = -1;
		break;
	case TG_FIX_SPARSE:
		s->flags |= IOSQE_FIXED_FILE;
		s->fd = BFIX_SPARSE;
		break;
	case TG_FIX_OOR:
		s->flags |= IOSQE_FIXED_FILE;
		s->fd = NR_BFIX + rnd_below(1000);
		break;
	case TG_PAST_EOF:	/* half of it is beyond the end */
		s->fd = F.backing;
		s->off = cfg.dev_size - s->len / 2;
		break;
	}
}

/*
 * R4 at the helper call: the ring fd the RFC's helper took, which this
 * one does not; the request's ring, another ring, other files or none
 */
static __u32 any_r4(void)
{
	const int *const other[] = { &D.q.ring_fd, &DR.ring_fd, &F.backing,
		&F.cdev, &F.ctrl, &F.closed, &F.udp_tx };
	unsigned int k = rnd_below(9);

	if (k < 7)
		return *other[k];
	return chance(50) ? ~0U : 1U << 20;
}

/* a piece [addr, addr + len) of the request, good unless made bad */
static void add_call(struct entry *e, unsigned int *n, __u64 start,
		     __u64 addr, __u32 len, bool rd, int tgt)
{
	struct bcall *c = &e->val.call[*n];
	struct io_uring_sqe *s = &c->sqe;

	memset(c, 0, sizeof(*c));
	s->opcode = rd ? OP_READ : OP_WRITE;
	s->addr = addr;
	s->len = len;
	if (chance(20))
		s->flags = IOSQE_ASYNC;
	s->user_data = UD_PROG | (__u64)(batch_no & 0xffffffff) << 16 |
		       (__u64)(e->io & 0xff) << 8 | *n;
	c->ring_fd = any_r4();
	c->size = 64;
	e->c[*n].tgt = tgt;
	set_target(s, tgt, start + addr, chance(30));
	(*n)++;
}

/* make call @c bad in one of the helper's ways */
static void spoil(struct bcall *c, bool rd, unsigned int bytes)
{
	struct io_uring_sqe *s = &c->sqe;

	switch (rnd_below(9)) {
	case 0:
		c->size = chance(50) ? 32 : (__u32)rnd();
		if (c->size == 64)
			c->size = 0;
		break;
	case 1:
		s->opcode = bad_opcodes[rnd_below(sizeof(bad_opcodes))];
		break;
	case 2:
		s->opcode = rd ? OP_WRITE : OP_READ;
		break;
	case 3:
		s->len = 0;
		break;
	case 4:		/* past the end, or far beyond */
		if (chance(50)) {
			s->addr = bytes - rnd_below(bytes < 4096 ? bytes : 4096);
			s->len = bytes - s->addr + 1 + rnd_below(4096);
		} else {
			s->addr = chance(50) ? bytes + 1 + rnd_below(1 << 20) :
				  ~0ULL - rnd_below(4096);
			s->len = 1 + rnd_below(8192);
		}
		break;
	case 5:
		s->flags |= bad_flags[rnd_below(sizeof(bad_flags))];
		break;
	case 6:
		s->personality = 1 + rnd_below(0xffff);
		break;
	default:		/* bad flags and a personality, both */
		s->flags |= bad_flags[rnd_below(sizeof(bad_flags))];
		s->personality = 1 + rnd_below(0xffff);
		break;
	}
}

/* the value for I/O @io (NULL: the flush) of @b; @fuzz: bad things too */
static void gen_entry(struct entry *e, const struct wio *io, bool fuzz)
{
	bool rd = io && io->op == UBLK_IO_OP_READ;
	unsigned int bytes = io ? io->len : 0, n = 0, k, i, r;
	__u64 start = io ? io->off : 0;
	__u32 at;

	memset(e, 0, sizeof(*e));
	e->io = io ? (int)(io - cur.io) : 0xff;
	e->op = io ? io->op : UBLK_IO_OP_FLUSH;
	e->key = (start >> 9) << 8 | e->op;
	e->tag = -1;
	r = rnd_below(100);
	e->val.verdict = !fuzz || r < 70 ? UBLK_BPF_IO_REDIRECT :
			 r < 80 ? UBLK_BPF_IO_PASS :
			 r < 90 ? UBLK_BPF_IO_ABORTED : UBLK_BPF_IO_DROP;
	if (fuzz && chance(10))		/* bits the program masks off */
		e->val.verdict |= (__u32)rnd() << 2;
	for (i = 0; i < BPF_ENTS; i++)
		e->val.ret[i] = BPF_SENTINEL;

	if (!io) {			/* a flush: nothing to move */
		k = rnd_below(4);
		for (i = 0; i < k; i++)
			add_call(e, &n, 0, rnd_below(4096), 1 + rnd_below(8192),
				 chance(50), TG_BACKING);
		e->val.nr = n;
		return;
	}

	/* pieces that cover the request, in order, mostly */
	if (fuzz && chance(8))
		k = UBLK_BPF_MAX_SQES + 1 + rnd_below(BPF_ENTS -
						      UBLK_BPF_MAX_SQES);
	else
		k = chance(60) ? 1 + rnd_below(4) : 1 + rnd_below(16);
	if (k > bytes / 512 && k <= UBLK_BPF_MAX_SQES)
		k = bytes / 512;
	for (i = 0, at = 0; i < k && at < bytes; i++) {
		unsigned int left = bytes - at, len;

		if (i == k - 1 || left < 2) {
			len = left;
		} else if (k > UBLK_BPF_MAX_SQES) {	/* even pieces */
			len = bytes / k ? bytes / k : 1;
		} else if (chance(20)) {	/* any byte */
			len = 1 + rnd_below(left - 1);
		} else {
			len = 512 * (1 + rnd_below(left / 512));
			if (len >= left)
				len = left;
		}
		/* overlapping the next piece */
		if (fuzz && chance(10) && at + len < bytes)
			len += 1 + rnd_below(bytes - at - len);
		r = rnd_below(100);
		add_call(e, &n, start, at, len, rd,
			 r < 60 ? TG_BACKING : rd || r < 85 ? TG_MIRROR :
			 TG_SCRATCH);
		at += len - (fuzz && chance(8) ? rnd_below(len) : 0);
	}
	/* a piece left out: the redirect leaves bytes unmoved */
	if (fuzz && n > 1 && chance(10)) {
		k = rnd_below(n);
		memmove(&e->val.call[k], &e->val.call[k + 1],
			(n - k - 1) * sizeof(e->val.call[0]));
		memmove(&e->c[k], &e->c[k + 1], (n - k - 1) * sizeof(e->c[0]));
		n--;
	}
	if (fuzz && n && chance(15)) {	/* an SQE that fails, or is short */
		static const int fails[] = { TG_EMPTY, TG_RO, TG_CLOSED,
			TG_MINUS1, TG_FIX_SPARSE, TG_FIX_OOR, TG_PAST_EOF };
		struct bcall *c = &e->val.call[rnd_below(n)];
		int t = fails[rnd_below(sizeof(fails) / sizeof(fails[0]))];

		if (t == TG_PAST_EOF && (!rd || c->sqe.len < 2))
			t = TG_CLOSED;
		e->c[c - e->val.call].tgt = t;
		set_target(&c->sqe, t, start + c->sqe.addr, chance(50));
	}
	if (rd && fuzz && n && chance(6)) {	/* bytes from the wrong file */
		struct bcall *c = &e->val.call[rnd_below(n)];
		int t = chance(50) ? TG_RO : TG_SCRATCH;

		e->c[c - e->val.call].tgt = t;
		set_target(&c->sqe, t, start + c->sqe.addr, false);
	}
	/* calls the helper refuses, anywhere among them */
	for (k = fuzz && chance(35) ? 1 + rnd_below(4) : 0;
	     k && n < BPF_ENTS; k--) {
		unsigned int pos = rnd_below(n + 1), j;
		struct bcall tmp;
		struct mcall mt;

		add_call(e, &n, start, rnd_below(bytes),
			 1 + rnd_below(bytes), rd, TG_BACKING);
		if (e->val.call[n - 1].sqe.addr + e->val.call[n - 1].sqe.len >
		    bytes)
			e->val.call[n - 1].sqe.len = bytes -
				e->val.call[n - 1].sqe.addr;
		spoil(&e->val.call[n - 1], rd, bytes);
		if (chance(20)) {
			st_multi++;
			spoil(&e->val.call[n - 1], rd, bytes);
		}
		tmp = e->val.call[n - 1];
		mt = e->c[n - 1];
		for (j = n - 1; j > pos; j--) {
			e->val.call[j] = e->val.call[j - 1];
			e->c[j] = e->c[j - 1];
		}
		e->val.call[pos] = tmp;
		e->c[pos] = mt;
	}
	/* user_data follows the place of each call */
	for (i = 0; i < n; i++)
		e->val.call[i].sqe.user_data = (e->val.call[i].sqe.user_data &
						~0xffULL) | i;
	e->val.nr = n;
	if (fuzz && chance(4))
		e->val.nr = n + rnd_below(1000);	/* the program stops */
}

/*
 * A READ that the model redirects without failure must read the device's
 * bytes: the calls that would bring others (the scratch file, its
 * read-only view) read the backing file instead.
 */
static void sanitize(struct entry *e, unsigned int bytes)
{
	unsigned int i;

	predict(e, e->op, bytes);
	if (e->op != UBLK_IO_OP_READ || !e->redirect || e->fail)
		return;
	for (i = 0; i < e->calls; i++)
		if (e->c[i].accepted &&
		    (e->c[i].tgt == TG_SCRATCH || e->c[i].tgt == TG_RO)) {
			struct io_uring_sqe *s = &e->val.call[i].sqe;

			e->c[i].tgt = TG_BACKING;
			set_target(s, TG_BACKING, s->off, false);
		}
}

void bpf_arm(const struct batch *b, bool fuzz)
{
	int i;

	pthread_mutex_lock(&W.mu);
	memset(W.must_fail, 0, sizeof(W.must_fail));
	pthread_mutex_unlock(&W.mu);
	/* the final pass goes through the program when it can */
	if (!fuzz && !registered) {
		struct exp e = { 0 };
		int got;

		exp_add(&e, 0);
		got = ctrl(UBLK_U_CMD_REG_BPF_PROG, prog[0]);
		check_ctrl("REG (final pass)", got, &e, true);
		st_reg++;
		registered = !got;
	}
	cur = *b;
	batch_no++;
	nent = 0;
	for (i = 0; i < b->nr; i++) {
		struct entry *e = &E[nent];

		if (fuzz && chance(8)) {	/* no value: PASS */
			continue;
		}
		gen_entry(e, &cur.io[i], fuzz);
		sanitize(e, cur.io[i].len);
		nent++;
	}
	if (b->flushes && fuzz && chance(60)) {
		gen_entry(&E[nent], NULL, fuzz);
		nent++;
	}
	/* no REG/UNREG until the batch's requests are all in */
	for (i = 0; i < (int)nent; i++)
		E[i].ran = registered;
	for (i = 0; i < (int)nent; i++) {
		int ret = map_update(E[i].key, &E[i].val);

		if (ret)
			report("seed %llu: map update: %s", cfg.seed,
			       strerror(-ret));
		if (cfg.verbose >= 2) {
			unsigned int j;

			printf("#   bpf batch %lu io %d op %u key 0x%llx verdict 0x%x nr %u\n",
			       batch_no, E[i].io, E[i].op,
			       (unsigned long long)E[i].key, E[i].val.verdict,
			       E[i].val.nr);
			for (j = 0; j < calls_of(&E[i].val); j++) {
				const struct bcall *c = &E[i].val.call[j];

				printf("#     call %u: op %u flags 0x%x fd %d(%s) addr 0x%llx len %u off %llu pers %u size %u ring %s\n",
				       j, c->sqe.opcode, c->sqe.flags,
				       c->sqe.fd, tgt_name[E[i].c[j].tgt],
				       (unsigned long long)c->sqe.addr,
				       c->sqe.len,
				       (unsigned long long)c->sqe.off,
				       c->sqe.personality, c->size,
				       c->ring_fd == (__u32)D.q.ring_fd ?
				       "own" : "other");
			}
		}
	}
}

/* ------------------------------------------------------------------ */
/* the queue ring: requests and the program's CQEs                      */

static void prog_cqe(__u64 ud, int res)
{
	unsigned int io = (ud >> 8) & 0xff, i = ud & 0xff, k;
	struct entry *e = NULL;

	st_cqes++;
	for (k = 0; k < nent; k++)
		if (E[k].io == (int)io)
			e = &E[k];
	if (((ud >> 16) & 0xffffffff) != (batch_no & 0xffffffff) || !e ||
	    i >= e->calls) {
		nr_mismatch_model++;
		report("seed %llu batch %lu: a CQE of no SQE submitted now (user_data 0x%llx, res %d)",
		       cfg.seed, batch_no, (unsigned long long)ud, res);
		return;
	}
	e->c[i].got++;
	e->c[i].res = res;
	e->ncqe++;
}

/* take the queue ring's CQEs: the program's counted, requests returned */
int bpf_next_req(int timeout_ms)
{
	struct __kernel_timespec ts = {
		.tv_sec = timeout_ms / 1000,
		.tv_nsec = (timeout_ms % 1000) * 1000000LL,
	};
	struct io_uring_cqe *cqe;
	__u64 ud;
	int ret, res;

	if (D.nr_pending)
		return uzc_next_req(&D, 0);
	for (;;) {
		ret = io_uring_wait_cqe_timeout(&D.q, &cqe, &ts);
		if (ret == -ETIME || ret == -EINTR)
			return -ETIMEDOUT;
		if (ret)
			return ret;
		ud = cqe->user_data;
		res = cqe->res;
		io_uring_cqe_seen(&D.q, cqe);
		if (ud & UD_PROG) {
			prog_cqe(ud, res);
			continue;
		}
		if (D.nr_active)
			D.nr_active--;
		if (res == UBLK_IO_RES_OK)
			return ud & 0xffff;
	}
}

/* take CQEs until request @e has @n (no request may come meanwhile) */
static bool wait_cqes(struct entry *e, unsigned int n)
{
	int waited = 0;

	while (e->ncqe < n) {
		int tag = bpf_next_req(20);

		if (tag >= 0) {
			D.pending[D.nr_pending++] = tag;
			continue;
		}
		waited += 20;
		if (tag != -ETIMEDOUT || waited > cfg.cqe_wait_ms)
			return false;
	}
	return true;
}

/* ------------------------------------------------------------------ */
/* serving                                                              */

static struct entry *entry_of(__u64 key)
{
	unsigned int i;

	for (i = 0; i < nent; i++)
		if (E[i].key == key)
			return &E[i];
	return NULL;
}

/* the batch I/O that request (@op, @start) belongs to, or -1 */
static int io_of(unsigned char op, __u64 start)
{
	int i;

	for (i = 0; i < cur.nr; i++)
		if (cur.io[i].op == op && cur.io[i].off <= start &&
		    start < cur.io[i].off + cur.io[i].len)
			return i;
	return -1;
}

/* what the program left in the value against the model */
static void check_value(struct entry *e, const struct ublksrv_io_desc *iod,
			int tag)
{
	struct bval v;
	unsigned int i, j;
	__u32 flags = iod->op_flags & ~0xffU & ~UBLK_IO_F_BPF;
	int ret = map_lookup(e->key, &v);

	if (ret) {
		report("seed %llu: map lookup: %s", cfg.seed, strerror(-ret));
		return;
	}
	if (v.runs != (e->ran ? 1U : 0U)) {
		nr_mismatch_model++;
		report("seed %llu batch %lu tag=%d: the program ran %u times on the request, expected %u (program %sregistered)",
		       cfg.seed, batch_no, tag, v.runs, e->ran ? 1 : 0,
		       e->ran ? "" : "not ");
	}
	if (e->ran && (v.ctx.q_id != 0 || v.ctx.tag != tag ||
		       v.ctx.op != e->op ||
		       v.ctx.nr_sectors != iod->nr_sectors ||
		       v.ctx.op_flags != flags ||
		       v.ctx.start_sector != iod->start_sector)) {
		nr_mismatch_model++;
		report("seed %llu batch %lu tag=%d: context q %u tag %u op %u sectors %u flags 0x%x start %llu, the descriptor says tag %d op %u sectors %u flags 0x%x start %llu",
		       cfg.seed, batch_no, tag, v.ctx.q_id, v.ctx.tag,
		       v.ctx.op, v.ctx.nr_sectors, v.ctx.op_flags,
		       (unsigned long long)v.ctx.start_sector, tag, e->op,
		       iod->nr_sectors, flags,
		       (unsigned long long)iod->start_sector);
	}
	for (i = 0; i < BPF_ENTS; i++) {
		long long got = v.ret[i];
		char want[96];

		if (!e->ran || i >= e->calls) {
			if (got != BPF_SENTINEL) {
				nr_mismatch_model++;
				report("seed %llu batch %lu tag=%d: call %u was not to be made, yet returned %lld",
				       cfg.seed, batch_no, tag, i, got);
			}
			continue;
		}
		st_calls++;
		for (j = 0; j < 6; j++)
			if (got == ret_err[j])
				st_ret[j]++;
		if (got < INT_MIN || got > 0 ||
		    (got && got != -EINVAL && got != -ENOSPC &&
		     got != -EOPNOTSUPP && got != -EACCES && got != -EFAULT)) {
			nr_undocumented++;
			report("seed %llu batch %lu tag=%d call %u: bpf_ublk_queue_sqe() returned %lld, not in the letter's errno set",
			       cfg.seed, batch_no, tag, i, got);
			continue;
		}
		if (!exp_has(&e->c[i].exp, (int)got)) {
			const struct bcall *c = &e->val.call[i];

			exp_str(&e->c[i].exp, want, sizeof(want));
			nr_mismatch_model++;
			report("seed %llu batch %lu tag=%d call %u: bpf_ublk_queue_sqe() returned %lld (%s), the letter says %s (request op %u %u bytes; SQE op %u flags 0x%x addr 0x%llx len %u pers %u, size %u, %s ring)",
			       cfg.seed, batch_no, tag, i, got,
			       errname((int)got), want, e->op, e->bytes,
			       c->sqe.opcode, c->sqe.flags,
			       (unsigned long long)c->sqe.addr, c->sqe.len,
			       c->sqe.personality, c->size,
			       c->ring_fd == (__u32)D.q.ring_fd ? "its" :
			       "another");
		}
		if (got == -ENOSPC)
			st_enospc++;
	}
}

/* tell the workload that I/O @io of the batch must fail */
static void expect_fail(int io)
{
	if (io < 0)
		return;
	pthread_mutex_lock(&W.mu);
	W.must_fail[io] = true;
	pthread_mutex_unlock(&W.mu);
}

void bpf_serve(int tag)
{
	const struct ublksrv_io_desc *iod = uzc_iod(&D, tag);
	struct mtag *t = &M.tag[tag];
	__u64 key = (__u64)iod->start_sector << 8 | t->op;
	struct entry *e = entry_of(key);
	bool k_redirect = iod->op_flags & UBLK_IO_F_BPF;
	bool redirect = false;

	if (t->op == UBLK_IO_OP_FLUSH)
		st_flush++;
	if (e && !e->arrived) {
		e->arrived = true;
		e->tag = tag;
		e->bytes = t->bytes;
		predict(e, t->op, t->bytes);
		if (!e->ran)
			e->redirect = e->fail = false;
		redirect = e->redirect;
		e->k_redirect = k_redirect;
		e->k_nr = iod->addr;
		check_value(e, iod, tag);
		if (e->ran && (e->val.verdict & 3) == UBLK_BPF_IO_REDIRECT &&
		    !e->redirect)
			st_uncover++;
	} else {
		if (e)
			e = NULL;	/* a second request at one place */
		st_miss++;
	}
	if (k_redirect != redirect || (redirect && iod->addr != e->accepted)) {
		nr_mismatch_model++;
		report("seed %llu batch %lu tag=%d: the request (op %u, %u bytes at %llu) reached the server %s (iod->addr %llu), the model says %s with %u SQEs",
		       cfg.seed, batch_no, tag, t->op, t->bytes, t->start,
		       k_redirect ? "redirected" : "passed",
		       (unsigned long long)iod->addr,
		       redirect ? "redirected" : "passed",
		       e ? e->accepted : 0);
	}
	if (cfg.verbose >= 2)
		printf("#   bpf tag=%d op %u %u bytes: %s, %u SQEs%s\n", tag,
		       t->op, t->bytes, redirect ? "redirected" : "passed",
		       e ? e->accepted : 0,
		       redirect && e->fail ? ", must fail" : "");
	if (k_redirect) {
		/* the server moves nothing; commit now, or after the CQEs */
		st_redirect++;
		if (redirect && e->fail) {
			st_fail++;
			expect_fail(io_of(t->op, t->start));
		}
		if (chance(50)) {
			if (e && !wait_cqes(e, e->k_nr)) {
				nr_mismatch_model++;
				report("seed %llu batch %lu tag=%d: %llu SQEs submitted, %u CQEs within %d ms",
				       cfg.seed, batch_no, tag,
				       (unsigned long long)iod->addr,
				       e ? e->ncqe : 0, cfg.cqe_wait_ms);
			}
		} else {
			st_early++;
		}
		uzc_commit(&D, tag, t->bytes);
	} else if (t->op == UBLK_IO_OP_READ || t->op == UBLK_IO_OP_WRITE) {
		st_pass++;
		serve_copy(tag);
		uzc_commit(&D, tag, t->bytes);
	} else {
		uzc_commit(&D, tag, 0);
	}
	t->state = T_DONE;
}

/* ------------------------------------------------------------------ */
/* REG / UNREG                                                          */

static int ctrl(__u32 op, __u64 data0)
{
	nr_ops++;
	return uzc_ctrl_cmd(&D, op, data0, NULL, 0);
}

static void check_ctrl(const char *what, int got, const struct exp *e,
		       bool reg)
{
	char want[96];
	bool documented = reg ?
		(!got || got == -EPERM || got == -EOPNOTSUPP ||
		 got == -EBADF || got == -EINVAL || got == -EBUSY) :
		(!got || got == -EPERM || got == -EOPNOTSUPP ||
		 got == -ENOENT);

	if (cfg.verbose >= 2)
		printf("#   op #%lu bpf %s: %d (%s)\n", nr_ops, what, got,
		       errname(got));
	if (!documented) {
		nr_undocumented++;
		report("seed %llu op #%lu: %s returned %d (%s), not in the letter's errno set",
		       cfg.seed, nr_ops, what, got, errname(got));
	} else if (!exp_has(e, got)) {
		exp_str(e, want, sizeof(want));
		nr_mismatch_model++;
		report("seed %llu op #%lu: %s returned %d (%s), the letter says %s",
		       cfg.seed, nr_ops, what, got, errname(got), want);
	}
}

/* one REG or UNREG, good or bad, while the server holds the batch */
void bpf_step(void)
{
	struct exp e = { 0 };
	unsigned int r = rnd_below(100);
	const char *what;
	__u64 fd;
	int got;

	/* a third of the fuzz points: the batches keep their program */
	if (r >= 35)
		return;
	r = rnd_below(100);
	if (r < 30) {			/* the toggle */
		if (registered) {
			exp_add(&e, 0);
			got = ctrl(UBLK_U_CMD_UNREG_BPF_PROG, 0);
			check_ctrl("UNREG", got, &e, false);
			st_unreg++;
			if (!got)
				registered = false;
		} else {
			exp_add(&e, 0);
			got = ctrl(UBLK_U_CMD_REG_BPF_PROG,
				   prog[rnd_below(2)]);
			check_ctrl("REG", got, &e, true);
			st_reg++;
			if (!got)
				registered = true;
		}
		return;
	}
	if (r < 38) {			/* UNREG of nothing, or the program */
		exp_add(&e, registered ? 0 : -ENOENT);
		got = ctrl(UBLK_U_CMD_UNREG_BPF_PROG, 0);
		check_ctrl("UNREG", got, &e, false);
		st_unreg++;
		if (!got)
			registered = false;
		return;
	}
	/* REG: a program (again), or an fd that names none */
	switch (rnd_below(8)) {
	case 0:
	case 6:
	case 7:
		what = "REG of a program";
		fd = prog[rnd_below(2)];
		exp_add(&e, registered ? -EBUSY : 0);
		break;
	case 1:
		what = "REG of a closed fd";
		fd = F.closed;
		exp_add(&e, -EBADF);
		break;
	case 2:
		what = "REG of an fd > INT_MAX";
		fd = chance(50) ? 1ULL << 31 : ~0ULL - rnd_below(1 << 20);
		exp_add(&e, -EBADF);
		break;
	case 3:
		what = "REG of a file";
		fd = F.backing;
		exp_add(&e, -EINVAL);
		break;
	case 4:
		what = "REG of the map";
		fd = map_fd;
		exp_add(&e, -EINVAL);
		break;
	default:
		what = "REG of a socket filter";
		fd = sock_prog;
		exp_add(&e, -EINVAL);
		break;
	}
	/* a registered device: -EBUSY is as true, the letter orders none */
	if (registered)
		exp_add(&e, -EBUSY);
	got = ctrl(UBLK_U_CMD_REG_BPF_PROG, fd);
	check_ctrl(what, got, &e, true);
	st_reg++;
	if (got)
		st_reg_err++;
	if (!got)
		registered = true;
}

/*
 * Once: ADD_DEV of UBLK_F_BPF with a recovery mode or NEED_GET_DATA is
 * refused (-EINVAL).  The flags are the letter's alone: with
 * UBLK_F_USER_COPY, 6.12 drops NEED_GET_DATA before the series looks
 * (user copy needs no GET_DATA), and ADD_DEV succeeds.
 */
void bpf_add_refused(void)
{
	static const __u64 bad[] = { UBLK_F_USER_RECOVERY,
		UBLK_F_USER_RECOVERY | UBLK_F_USER_RECOVERY_REISSUE,
		UBLK_F_NEED_GET_DATA };
	__u64 f = bad[rnd_below(3)];
	struct uzc_dev d;
	struct exp e = { 0 };
	int got;

	memset(&d, 0, sizeof(d));
	d.dev_id = -1;
	exp_add(&e, -EINVAL);
	nr_ops++;
	got = uzc_dev_add(&d, UBLK_F_BPF | f, 2, 4096,
			  1 << 20, false);
	if (got != -EINVAL) {
		nr_mismatch_model++;
		report("seed %llu: ADD_DEV with UBLK_F_BPF | 0x%llx returned %d (%s), the letter says -EINVAL",
		       cfg.seed, (unsigned long long)f, got, errname(got));
	}
	if (!got)
		uzc_dev_del(&d);
}

/* ------------------------------------------------------------------ */
/* the end of a batch                                                   */

/* copy [off, off + len) from @from to @to; false on a short copy */
static bool copy_range(int from, int to, __u64 off, size_t len)
{
	while (len) {
		size_t n = len < cfg.max_io ? len : cfg.max_io;

		if (pread(from, bounce, n, off) != (ssize_t)n ||
		    pwrite(to, bounce, n, off) != (ssize_t)n)
			return false;
		off += n;
		len -= n;
	}
	return true;
}

static int file_of(int tgt)
{
	return tgt == TG_MIRROR ? F.mirror : tgt == TG_SCRATCH ? F.scratch :
	       F.backing;
}

/*
 * The batch completed: every redirected request's SQEs have posted
 * their CQEs; check them.  Gather what redirected WRITEs left in the
 * mirror or the scratch file into the backing file, the mirror after
 * it; give a WRITE that failed its old bytes back.
 */
int bpf_batch_end(void)
{
	unsigned int i, j;
	bool ok = true;

	for (i = 0; i < nent; i++) {
		struct entry *e = &E[i];

		if (!e->arrived || !e->k_redirect)
			continue;
		if (!wait_cqes(e, e->k_nr) || e->ncqe != e->k_nr) {
			nr_mismatch_model++;
			report("seed %llu batch %lu tag=%d: %u SQEs submitted, %u CQEs",
			       cfg.seed, batch_no, e->tag, e->k_nr, e->ncqe);
		}
		for (j = 0; j < e->calls; j++) {
			struct mcall *m = &e->c[j];

			if (!m->accepted && m->got) {
				nr_mismatch_model++;
				report("seed %llu batch %lu tag=%d call %u: a CQE (%d) for an SQE the helper refused",
				       cfg.seed, batch_no, e->tag, j, m->res);
			} else if (m->accepted && e->redirect &&
				   (m->got != 1 || m->res != m->cqe)) {
				nr_mismatch_model++;
				report("seed %llu batch %lu tag=%d call %u: %d CQEs, res %d, expected one with %d (SQE op %u fd %d(%s) len %u off %llu)",
				       cfg.seed, batch_no, e->tag, j, m->got,
				       m->res, m->cqe,
				       e->val.call[j].sqe.opcode,
				       e->val.call[j].sqe.fd,
				       tgt_name[m->tgt], e->val.call[j].sqe.len,
				       (unsigned long long)e->val.call[j].sqe.off);
			}
		}
		if (e->op != UBLK_IO_OP_WRITE || !e->redirect || e->fail)
			continue;
		for (j = 0; j < e->calls; j++) {
			const struct io_uring_sqe *s = &e->val.call[j].sqe;

			if (e->c[j].accepted && e->c[j].tgt != TG_BACKING)
				ok &= copy_range(file_of(e->c[j].tgt),
						 F.backing, s->off, s->len);
		}
		ok &= copy_range(F.backing, F.mirror, (e->key >> 8) << 9,
				 e->bytes);
		st_gathered++;
	}
	for (i = 0; i < (unsigned int)cur.nr; i++) {
		const struct wio *io = &cur.io[i];

		if (io->op != UBLK_IO_OP_WRITE || !W.must_fail[i])
			continue;
		if (pwrite(F.backing, W.shadow + io->off, io->len, io->off) !=
		    io->len ||
		    pwrite(F.mirror, W.shadow + io->off, io->len, io->off) !=
		    io->len)
			ok = false;
		st_restored++;
	}
	for (i = 0; i < nent; i++)
		map_delete(E[i].key);
	nent = 0;
	if (!ok) {
		report("seed %llu batch %lu: the server could not gather redirected writes",
		       cfg.seed, batch_no);
		return -EIO;
	}
	return 0;
}

void bpf_summary(void)
{
	printf("# bpf: %lu helper calls (0: %lu, EINVAL %lu, ENOSPC %lu, EOPNOTSUPP %lu, EACCES %lu, EFAULT %lu; %lu with two faults)\n",
	       st_calls, st_ret[0], st_ret[1], st_ret[2], st_ret[3],
	       st_ret[4], st_ret[5], st_multi);
	printf("# bpf: %lu requests redirected (%lu must fail, %lu committed before their CQEs), %lu passed (%lu REDIRECT uncovered or empty, %lu without a value), %lu flushes, %lu program CQEs\n",
	       st_redirect, st_fail, st_early, st_pass, st_uncover, st_miss,
	       st_flush, st_cqes);
	printf("# bpf: %lu REG (%lu refused), %lu UNREG; %lu redirected writes gathered, %lu failed writes restored; program %s at the end\n",
	       st_reg, st_reg_err, st_unreg, st_gathered, st_restored,
	       registered ? "registered" : "not registered");
}
