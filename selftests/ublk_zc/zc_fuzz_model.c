// SPDX-License-Identifier: GPL-2.0
/*
 * zc_fuzz: the model of the kernel state.  For each op it predicts the
 * exact result (or the few a race allows) from what io_uring and the
 * lender check, step by step, and applies what the op changes; a
 * submission is run through it in the kernel's order.  The generator
 * runs it on a scratch copy to aim ops, the checker on M with the CQEs.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>

#include "zc_fuzz.h"

/* ------------------------------------------------------------------ */
/* expected results                                                     */

void exp_add(struct exp *e, int v)
{
	int i;

	for (i = 0; i < e->n; i++)
		if (e->v[i] == v)
			return;
	if (e->n < 8)
		e->v[e->n++] = v;
}

bool exp_has(const struct exp *e, int v)
{
	int i;

	for (i = 0; i < e->n; i++)
		if (e->v[i] == v)
			return true;
	return false;
}

bool exp_success(const struct exp *e)
{
	int i;

	for (i = 0; i < e->n; i++)
		if (e->v[i] >= 0)
			return true;
	return false;
}

void exp_str(const struct exp *e, char *buf, size_t len)
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

struct model M;		/* what the kernel did, as far as we know */

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

/* the loan bit: false when it is surely taken (-EALREADY) */
static bool expect_unlent(const struct mtag *t, struct op *o)
{
	if (t->lend == L_HELD) {
		o->why = "already lent";
		exp_add(&o->exp, -EALREADY);
		return false;
	}
	/* an importer may still run, or have completed and let go */
	if (t->lend == L_PEND || t->lend == L_MAYBE)
		exp_add(&o->exp, -EALREADY);
	return true;
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
	if (m->sqpoll) {
		o->why = "the SQ thread is not the queue's daemon";
		exp_add(&o->exp, -EPERM);
		return;
	}
	t = &m->tag[tag];
	/* ownership first: a stale lend never takes the loan bit */
	if (t->state != T_OWNED) {
		o->why = "tag not owned by the server";
		exp_add(&o->exp, -ESRCH);
		return;
	}
	/*
	 * 7.3: ublk_ch_loan_bvec() checks the request (-ENODATA,
	 * -EOVERFLOW) before test_and_set_bit_lock(UBLK_IO_LENT)
	 */
	if (!v73 && !expect_unlent(t, o))
		return;
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
	if (v73 && !expect_unlent(t, o))
		return;
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
void slot_drop(struct model *m, unsigned int i)
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
void call_end(struct model *m)
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
int import_fixed(const struct op *o, int dir, __u64 addr, __u64 len)
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
		return UZC_EDIR;
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
	/*
	 * 7.3: io_prep_read_fixed()/io_prep_write_fixed() are
	 * __io_prep_rw() alone; the slot is looked up at issue
	 * (issue_rw())
	 */
	if (v73)
		return 0;
	bind_slot(m, o, s->buf_index);
	if (o->bound_oor)
		return -EFAULT;
	return import_fixed(o, o->kind == K_READF ? DIR_DST : DIR_SRC,
			    s->addr, s->len);
}

/*
 * what a READ/WRITE of @len bytes does to a file of kind @fk (from a lent
 * buffer, or a fused secondary's: the generator never aims a user buffer
 * at the ->read()/->write()-only files, whose result would depend on its
 * contents, or park)
 */
static void rw_target(struct op *o, enum fk fk, bool write, __u32 len)
{
	switch (fk) {
	case FK_EVFD:
		/* has ->read_iter(): a READ would park; never generated */
		o->why = "->write() only: no user pointer for a lent buffer";
		/* 7.3: loop_rw_iter() refuses IO_REGBUF_F_KBUF: -EFAULT */
		exp_add(&o->exp, v73 ? -EFAULT : -EOPNOTSUPP);
		break;
	case FK_INOTIFY:
		if (write) {
			o->why = "fd not open for writing";
			exp_add(&o->exp, -EBADF);
		} else {
			o->why = "->read() only: no user pointer for a lent buffer";
			exp_add(&o->exp, v73 ? -EFAULT : -EOPNOTSUPP);
		}
		break;
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

/*
 * 7.3: a fixed buffer is taken at issue: io_issue_sqe() assigns the
 * file first (io_assign_file(): -EBADF), then the op looks the slot up
 * (io_import_reg_buf() -> io_find_buf_node(): -EFAULT for an empty one;
 * the request holds the node until it is freed) and imports it
 * (io_import_fixed(): validate_fixed_range(), then imu->dir: -EFAULT).
 * Returns 0, or the result the op ends with.
 */
static int issue_import73(struct model *m, struct op *o, int dir,
			  __u64 addr, __u64 len)
{
	int r;

	if (o->fk == FK_BAD) {
		o->why = "bad fd";
		return -EBADF;
	}
	bind_slot(m, o, o->sqe[0].buf_index);
	if (o->bound_oor || o->bound.kind == SL_EMPTY) {
		o->why = "no buffer in the slot at issue";
		return -EFAULT;
	}
	r = import_fixed(o, dir, addr, len);
	if (r)
		o->why = "out of bounds or wrong direction";
	return r;
}

static void issue_rw(struct model *m, struct op *o)
{
	bool write = o->kind == K_WRITEF;

	if (v73) {
		/* io_read_fixed()/io_write_fixed(): io_init_rw_fixed() */
		int r = issue_import73(m, o, write ? DIR_SRC : DIR_DST,
				       o->sqe[0].addr, o->sqe[0].len);

		if (r) {
			exp_add(&o->exp, r);
			return;
		}
	}
	if (!o->why)
		o->why = "transfer";
	/* io_rw_init_file(): mode, then IOPOLL wants O_DIRECT + ->iopoll */
	if (m->iopoll && o->fk != FK_BAD &&
	    !(write && (o->fk == FK_RO || o->fk == FK_INOTIFY))) {
		o->why = "no polled I/O on this file";
		exp_add(&o->exp, -EOPNOTSUPP);
		return;
	}
	rw_target(o, o->fk, write, o->sqe[0].len);
}

/*
 * 7.3's uring_cmd: URING_CMD selects buffers (io_issue_defs[].buffer_select:
 * io_init_req() lets IOSQE_BUFFER_SELECT through), and
 * io_uring_cmd_prep() only reads buf_index: the driver looks a fixed
 * buffer up when it imports it (io_uring_cmd_import_fixed()), which a
 * socket command never does; nothing is refused for a kernel buffer.
 */
static int prep_ucmd73(struct model *m, struct op *o)
{
	struct io_uring_sqe s = o->sqe[0];
	bool fa, bsel = s.flags & IOSQE_BUFFER_SELECT;
	__u32 fl = s.uring_cmd_flags;
	int r;

	s.flags &= ~IOSQE_BUFFER_SELECT;
	r = prep_generic(m, &s, false, true, &fa);
	if (r)
		return r;
	/* io_uring_cmd_prep() */
	if (s.__pad1)
		return -EINVAL;
	if (fl & ~(IORING_URING_CMD_FIXED | URING_CMD_MULTISHOT))
		return -EINVAL;
	if ((fl & IORING_URING_CMD_FIXED) && (fl & URING_CMD_MULTISHOT))
		return -EINVAL;
	if (!!(fl & URING_CMD_MULTISHOT) != bsel)
		return -EINVAL;
	return 0;
}

/*
 * uring_cmd: a fixed buffer is taken at prep, whatever the command; a
 * lent one is refused there (the driver alone would name the direction)
 */
static int prep_ucmd(struct model *m, struct op *o)
{
	const struct io_uring_sqe *s = &o->sqe[0];
	bool fa;
	int r;

	if (v73)
		return prep_ucmd73(m, o);
	r = prep_generic(m, s, false, true, &fa);
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
	} else if ((m->iopoll && !v73) || o->sqe[0].cmd_op != 0) {
		/*
		 * 7.3's io_uring_cmd() polls only a file with
		 * ->uring_cmd_iopoll and issues the others as usual
		 */
		o->why = "socket command not supported";
		exp_add(&o->exp, -EOPNOTSUPP);
	} else {
		o->why = "SIOCINQ on an empty socket";
		exp_add(&o->exp, 0);
	}
}

/*
 * 7.3's io_send_zc_prep(): addr3 is the notification's user_data (never
 * generated), more ioprio flags are valid (IO_ZC_FLAGS_VALID; the
 * generator never sets IORING_SEND_VECTORIZED there), and a fixed buffer
 * is only marked for import (io_send_setup(): REQ_F_IMPORT_BUFFER), no
 * address checked
 */
static int prep_sendzc73(const struct op *o)
{
	const struct io_uring_sqe *s = &o->sqe[0];

	if (s->__pad2[0])
		return -EINVAL;
	if (s->flags & IOSQE_CQE_SKIP_SUCCESS)
		return -EINVAL;
	if (s->ioprio & ~(IORING_RECVSEND_POLL_FIRST | IORING_RECVSEND_FIXED_BUF |
			  (1U << 3) | (1U << 5)))
		return -EINVAL;
	return 0;
}

static int prep_sendzc(struct model *m, struct op *o)
{
	const struct io_uring_sqe *s = &o->sqe[0];
	bool fa;
	int r = prep_generic(m, s, true, false, &fa);

	if (r)
		return r;
	if (v73)
		return prep_sendzc73(o);
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
	/*
	 * 7.3: io_sendmsg_zc() -> io_send_zc_import(): the notification
	 * looks the slot up and imports it, len unsigned (io_sr_msg.len)
	 */
	if (v73) {
		r = issue_import73(m, o, DIR_SRC, s->addr, s->len);
		if (r) {
			exp_add(&o->exp, r);
			return;
		}
		o->why = "send";
		send_zc_target(o, s->len);
		return;
	}
	/* imported at issue, with the len sign-extended from int */
	r = import_fixed(o, DIR_SRC, s->addr,
			 (__u64)(long long)(int)s->len);
	if (r) {
		o->why = r == -EACCES ? "wrong direction" : "out of bounds (or direction, 7.3)";
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
	if (m->sqpoll) {
		o->why = "the SQ thread is not the queue's daemon";
		exp_add(e, -EPERM);
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

/* a NOP (the drained one before a BUF_REMOVE) */
static int prep_nop(struct model *m, struct op *o)
{
	bool fa;

	return prep_generic(m, &o->sqe[0], false, true, &fa);
}

static int op_prep(struct model *m, struct op *o)
{
	switch (o->kind) {
	case K_NOP:
		return prep_nop(m, o);
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
	case K_NOP:
		o->why = "nop";
		exp_add(&o->exp, 0);
		break;
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
	case K_NOP:
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
 * The generator keeps a link chain, if any, at the end of a submission,
 * or a drained group (sim_group()), never both, so the kernel's order is: unlinked SQEs are prepped and issued one after the other; the
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

void sim_unlinked(struct model *m, struct op *o, bool actual)
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

/*
 * From a drained SQE on (o->deferred), every SQE of the submission is
 * prepped when it is submitted (a fixed-buffer user binds its slot then),
 * but issued only once everything before the drain completed, in io-wq,
 * in no particular order: the generator keeps such a group free of ops
 * whose results depend on their order (ops_conflict()), so that issuing
 * them in submission order predicts every order.
 */
static void sim_group(struct model *m, struct op *ops, int n, bool actual)
{
	int i;

	for (i = 0; i < n; i++) {
		ops[i].exp.n = 0;
		ops[i].why = NULL;
		ops[i].prep = op_prep(m, &ops[i]);
	}
	for (i = 0; i < n; i++) {
		struct op *o = &ops[i];

		if (o->prep) {
			o->why = o->why ? o->why : "prep";
			exp_add(&o->exp, o->prep);
		} else {
			op_issue(m, o);
		}
		op_apply(m, o, result(o, actual));
	}
}

/* the slot and the tag an op's result or effect depends on, or -1 */
static int op_slot(const struct op *o)
{
	const struct io_uring_sqe *s = &o->sqe[0];

	switch (o->kind) {
	case K_SPLICE:
	case K_REMOVE:
	case K_READF:
	case K_WRITEF:
	case K_SENDZC:
		return s->buf_index;
	case K_UCMD:
		return s->uring_cmd_flags & IORING_URING_CMD_FIXED ?
		       s->buf_index : -1;
	default:
		return -1;
	}
}

static int op_tag(const struct model *m, const struct op *o)
{
	const struct io_uring_sqe *s = &o->sqe[0];
	__u64 rel = s->off - UBLKSRV_IO_BUF_OFFSET;

	if (o->kind == K_SPLICE && s->off >= UBLKSRV_IO_BUF_OFFSET &&
	    rel < UBLKSRV_IO_BUF_TOTAL_SIZE)
		return (rel >> UBLK_TAG_OFF) & UBLK_TAG_BITS_MASK;
	if (o->kind == K_REMOVE && s->buf_index < m->nslots &&
	    m->slot[s->buf_index].kind == SL_KERNEL)
		return m->slot[s->buf_index].tag;
	return -1;
}

bool ops_conflict(const struct model *m, const struct op *a,
		  const struct op *b)
{
	int sa = op_slot(a), ta = op_tag(m, a);

	return (sa >= 0 && sa == op_slot(b)) || (ta >= 0 && ta == op_tag(m, b));
}

void sim_sub(struct model *m, struct op *ops, int n, bool actual)
{
	int i, c, g;

	/* the chain: from the first linked SQE to the end */
	for (c = 0; c < n; c++)
		if (ops[c].link)
			break;
	/* or the drained group, likewise at the end (never both) */
	for (g = 0; g < c; g++)
		if (ops[g].deferred)
			break;
	if (g < c) {
		for (i = 0; i < g; i++) {
			sim_unlinked(m, &ops[i], actual);
			if (ops[i].prep && !m->submit_all)
				call_end(m);
		}
		sim_group(m, &ops[g], c - g, actual);
		call_end(m);
		return;
	}
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
