// SPDX-License-Identifier: GPL-2.0
/*
 * zc_fuzz: generating ops.  Half of them are built to be valid against
 * the model's state (so that the success paths run as often as the error
 * paths), the rest at random: fds, slots, offsets, lengths, flags,
 * links; each is aimed at the state it will meet, on a scratch copy of
 * the model.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <string.h>
#include <sys/socket.h>

#include "zc_fuzz.h"

unsigned long nr_ops;		/* fuzz SQEs generated */

/* ------------------------------------------------------------------ */
/* fd choices                                                           */

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
	case C_EVFD:
		*fd = F.evfd;
		return FK_EVFD;
	case C_INOTIFY:
		*fd = F.inotify;
		return FK_INOTIFY;
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

static const enum fdc read_ok_fds[] = {		/* safe into request pages */
	C_BACKING, C_BACKING, C_BACKING, C_BACKING_FIX, C_CDEV, C_CDEV_FIX,
	C_CTRL, C_MINUS1, C_CLOSED, C_FIX_SPARSE, C_FIX_OOR, C_INOTIFY,
};
static const enum fdc read_any_fds[] = {
	C_BACKING, C_BACKING_FIX, C_SCRATCH, C_SCRATCH_FIX, C_RO, C_RO_FIX,
	C_CDEV, C_CDEV_FIX, C_CTRL, C_MINUS1, C_CLOSED, C_FIX_SPARSE,
	C_FIX_OOR, C_INOTIFY,
};
static const enum fdc write_fds[] = {		/* never the backing file */
	C_SCRATCH, C_SCRATCH, C_SCRATCH, C_SCRATCH_FIX, C_RO, C_RO_FIX,
	C_CDEV, C_CDEV_FIX, C_UDP, C_UDP_FIX, C_CTRL, C_MINUS1, C_CLOSED,
	C_FIX_SPARSE, C_FIX_OOR, C_EVFD,
};

/*
 * eventfd (->write() only) and inotify (->read() only) see a lent or
 * fused buffer refused; a user buffer would be read as a counter value or
 * park the READ: not aimed there
 */
static enum fdc no_user_rw_only(const struct model *m,
				const struct io_uring_sqe *s, enum fdc c)
{
	if ((c == C_EVFD || c == C_INOTIFY) && s->buf_index < m->nslots &&
	    m->slot[s->buf_index].kind == SL_USER)
		return c == C_EVFD ? C_SCRATCH : C_BACKING;
	return c;
}
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

void sort_tags(const struct model *m, unsigned int *t, unsigned int n)
{
	unsigned int i, j;

	/* by place, then op: a flush and an I/O at 0 in one order */
	for (i = 1; i < n; i++)
		for (j = i; j > 0 && (m->tag[t[j - 1]].start >
				      m->tag[t[j]].start ||
				      (m->tag[t[j - 1]].start ==
				       m->tag[t[j]].start &&
				       m->tag[t[j - 1]].op > m->tag[t[j]].op));
		     j--) {
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

int pick_slot(const struct model *m, int kind, int dir)
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

			o->fdc = r < 65 ? C_SCRATCH : r < 80 ? C_SCRATCH_FIX :
				 r < 90 ? C_UDP : r < 95 ? C_EVFD : C_CDEV;
			s->off = rnd_below(4 << 20);
		} else {
			o->fdc = chance(75) ? C_BACKING : chance(70) ?
				 C_BACKING_FIX : C_INOTIFY;
			s->off = sl->dev_off + off;
		}
		if (o->fdc == C_EVFD || o->fdc == C_INOTIFY)
			s->off = 0;
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
	o->fdc = no_user_rw_only(m, s, o->fdc);
	if (o->fdc == C_EVFD || o->fdc == C_INOTIFY)
		s->off = 0;
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
	if (chance(4)) {
		unsigned int b = 4 + rnd_below(8);

		/*
		 * 7.3: bit 5 is IORING_SEND_VECTORIZED (io_send_zc_prep()'s
		 * IO_ZC_FLAGS_VALID), a vector of registered-buffer
		 * ranges the model does not have: an invalid bit instead
		 */
		s->ioprio |= 1U << (v73 && b == 5 ? 12 : b);
	}
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
			o->sfdc = chance(80) ? C_BACKING : chance(70) ?
				  C_BACKING_FIX : C_INOTIFY;
			t->off = o->sfdc == C_INOTIFY ? 0 : tg->start + off;
		} else if (tg->op == UBLK_IO_OP_READ) {
			t->opcode = OP_RECV;
			t->msg_flags = MSG_DONTWAIT;
			o->sfdc = C_RX;
		} else if (r < 60) {
			t->opcode = OP_WRITE;
			o->sfdc = chance(80) ? C_SCRATCH : chance(70) ?
				  C_SCRATCH_FIX : C_EVFD;
			t->off = o->sfdc == C_EVFD ? 0 : rnd_below(4 << 20);
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
		if (o->sfdc == C_INOTIFY)
			t->off = 0;
		break;
	case OP_WRITE:
		o->sfdc = PICK(write_fds);
		t->off = o->sfdc == C_EVFD ? 0 : rnd_below(4 << 20);
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
 * forced_async_* cases test them; here they stay inline (or in a chain,
 * or in a drained group, whose orders the model knows).
 */
static bool async_unmodelled(const struct op *o, bool in_chain)
{
	return !in_chain && (o->kind == K_SPLICE || o->kind == K_REMOVE);
}

/*
 * 7.3 runs a deferred request only when every live request of the ring
 * is a deferred one (io_queue_deferred(): nr_req_allocated ==
 * nr_drained), and SEND_ZC's prep allocated a second live request, its
 * notification (io_send_zc_prep() -> io_alloc_notif()): a drained
 * SEND_ZC, or one deferred behind a drain, waits forever (stock 7.3 as
 * well; 6.12 runs it).  None is generated there.
 */
static bool v73_drain_hangs(const struct op *o)
{
	return v73 && o->kind == K_SENDZC;
}

/*
 * random SQE flags for an unlinked op (links are set by the caller); in a
 * drained group (@in_group) every op runs in io-wq anyway (and keeps a
 * skipped success only if the model expects it to fail: group_takes())
 */
static void gen_flags(struct op *o, bool may_drain, bool in_chain,
		      bool in_group)
{
	struct io_uring_sqe *s = &o->sqe[0];
	unsigned int r = rnd_below(100);

	/* 7.3: a drained SEND_ZC never runs (v73_drain_hangs()) */
	if (v73_drain_hangs(o))
		may_drain = false;
	if (r < 12) {
		if (in_group || !async_unmodelled(o, in_chain))
			s->flags |= IOSQE_ASYNC;
	} else if (r < 26 && !in_chain)
		s->flags |= IOSQE_CQE_SKIP_SUCCESS;
	else if (r < 31 && may_drain && !in_chain && !in_group)
		s->flags |= IOSQE_IO_DRAIN;
	else if (r < 33)
		s->flags |= IOSQE_BUFFER_SELECT;
	else if (r < 35)
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

/* a drained NOP, so that a BUF_REMOVE runs behind the drain */
static void gen_drained_nop(struct op *o)
{
	memset(o, 0, sizeof(*o));
	o->idx = ++nr_ops;
	o->fdc = o->sfdc = C_MINUS1;
	o->kind = K_NOP;
	o->sqe[0].opcode = OP_NOP;
	o->sqe[0].fd = -1;
	o->sqe[0].flags = IOSQE_IO_DRAIN;
}

/* behind it, a BUF_REMOVE of a lent slot: it must succeed */
static void gen_remove_lent(const struct model *m, struct op *o)
{
	int sl = pick_slot(m, SL_KERNEL, 0);

	memset(o, 0, sizeof(*o));
	o->idx = ++nr_ops;
	o->fdc = o->sfdc = C_MINUS1;
	o->kind = K_REMOVE;
	uzc_prep_buf_remove(&o->sqe[0], sl < 0 ? 0 : sl);
	if (chance(30))
		o->sqe[0].flags |= IOSQE_ASYNC;
}

/*
 * May an SQE be drained now?  Not after a SEND_ZC (drain_hangs), nor with
 * a READ parked or FETCHes parked on the ring: a drain waits for every
 * earlier request, and those would never complete.  Nor once a skipped
 * success disabled drains (the drained op would fail, and not defer the
 * rest: only a last op then, whose order the model knows either way).
 */
static bool drain_ok(const struct model *m, bool last)
{
	return !m->drain_hangs && !m->parked && !m->fetch_here &&
	       (last || !m->drain_disabled);
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
/*
 * Op @j joins the drained group that starts at @g: may it?  Not if its
 * result or effect depends on its order among the group's (ops_conflict()
 * against @pre, the state the group was prepped in), nor if the group's
 * outcome is then ambiguous, nor after a failed prep that ends the
 * submission, nor if it fails its own prep (below).  On success @spec is the state after the group.
 */
static bool group_takes(const struct model *pre, struct model *spec,
			struct op *ops, int g, int j)
{
	struct model t = *pre;
	int i;

	for (i = g; i < j; i++)
		if (ops_conflict(pre, &ops[i], &ops[j]) ||
		    (ops[i].prep && !pre->submit_all))
			return false;
	sim_sub(&t, ops + g, j - g + 1, false);
	for (i = g; i <= j; i++)
		if (ambiguous(&ops[i]))
			return false;
	/*
	 * Nor an op that fails in io_init_req(): 6.12 completes it at once,
	 * ahead of the deferred drain, and the drain waits for
	 * cached_sq_head at its submission + cq_extra == cached_cq_tail
	 * exactly: one CQE too many and it never runs (issue 14, seeds 101,
	 * 103, 201; io_uring_quirks drain_stranded_by_failed_prep, which
	 * shows it on the base kernel too).
	 */
	if (ops[j].prep)
		return false;
	/* Nor a SEND_ZC on 7.3, which would never run (v73_drain_hangs()) */
	if (v73_drain_hangs(&ops[j]))
		return false;
	/*
	 * Nor a success with IOSQE_CQE_SKIP_SUCCESS: it runs in io-wq and
	 * posts nothing, so no CQE tells when it ran, and the server may
	 * already have committed the request it lends (a late -ESRCH: seed
	 * 103, op #829, a SPLICE_FROM behind a drained op that failed its
	 * prep and so went to io-wq at once).  A failure still posts its CQE.
	 */
	if (ops[j].skip && exp_success(&ops[j].exp))
		return false;
	*spec = t;
	return true;
}

/*
 * 7.3 looks a fixed buffer up at issue (io_find_buf_node() from
 * io_read_fixed(), io_write_fixed(), io_send_zc_import()): an IOSQE_ASYNC
 * user does it in io-wq, at a time the model cannot place among the later
 * SQEs of its submission.  When op @i changes what an earlier unlinked
 * IOSQE_ASYNC user of its slot would find, that user is issued inline
 * instead (its result is the same either way in the model).
 */
static void v73_lookup_order(const struct model *m, struct op *ops, int i)
{
	int j;

	if (!v73 || (ops[i].kind != K_SPLICE && ops[i].kind != K_REMOVE))
		return;
	for (j = 0; j < i; j++) {
		struct op *a = &ops[j];

		if (a->chained || a->deferred ||
		    !(a->sqe[0].flags & IOSQE_ASYNC) ||
		    (a->kind != K_READF && a->kind != K_WRITEF &&
		     a->kind != K_SENDZC))
			continue;
		if (ops_conflict(m, a, &ops[i]))
			a->sqe[0].flags &= ~IOSQE_ASYNC;
	}
}

int gen_sub(struct op *ops)
{
	struct model spec = M, pre;
	int n = 1 + rnd_below(4), chain = 0, g = -1, i;
	/* a drained NOP, then a BUF_REMOVE of a lent slot behind it */
	bool nop_rm = false;

	if (n > 1 && chance(22))
		chain = 2 + rnd_below(n - 1);	/* the last @chain SQEs */
	else if (series == S_SPLICE && chance(8))
		nop_rm = true;
	if (nop_rm && n < 2)
		n = 2;
	for (i = 0; i < n; i++) {
		struct op *o = &ops[i];
		bool in_chain = i >= n - chain;

		if (g >= 0) {
			/* the drained group: each op must commute */
			if (nop_rm && i == g + 1)
				gen_remove_lent(&spec, o);
			else {
				gen_op(&spec, o);
				gen_flags(o, false, false, true);
			}
			o->deferred = true;
			o->skip = o->sqe[0].flags & IOSQE_CQE_SKIP_SUCCESS;
			if (!group_takes(&pre, &spec, ops, g, i)) {
				nr_ops--;
				n = i;
				break;
			}
			continue;
		}
		if (nop_rm && i == n - 2 && drain_ok(&spec, false) &&
		    pick_slot(&spec, SL_KERNEL, 0) >= 0) {
			pre = spec;
			gen_drained_nop(o);
			g = i;
			o->deferred = true;
			sim_sub(&spec, o, 1, false);
			continue;
		}
		gen_op(&spec, o);
		gen_flags(o, !chain && drain_ok(&spec, i == n - 1), in_chain,
			  false);
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
				gen_flags(o, !chain &&
					  drain_ok(&spec, i == n - 1),
					  in_chain, false);
			}
		}
		v73_lookup_order(&spec, ops, i);
		if (o->sqe[0].flags & IOSQE_IO_DRAIN) {
			/* the rest of the submission waits behind it */
			pre = spec;
			g = i;
			o->deferred = true;
			o->skip = o->sqe[0].flags & IOSQE_CQE_SKIP_SUCCESS;
			sim_sub(&spec, o, 1, false);
			if (ambiguous(o) || (o->prep && !spec.submit_all)) {
				n = i + 1;
				break;
			}
			continue;
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
