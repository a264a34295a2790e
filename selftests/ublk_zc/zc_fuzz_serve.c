// SPDX-License-Identifier: GPL-2.0
/*
 * zc_fuzz: the legitimate data path.  Every request is served for real,
 * whatever the fuzz ring did to it: zero copy on the data ring
 * (SPLICE_FROM + fixed-buffer legs + BUF_REMOVE, or fused commands), or
 * user copy when the fuzz ring holds the request; WRITEs go to the
 * backing file and its mirror.  Loans the fuzz ring gave back are
 * probed until they are back (settle()), so that the model stays exact.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <errno.h>
#include <limits.h>
#include <string.h>
#include <unistd.h>

#include "zc_fuzz.h"

#define UD_SPLICE	1
#define UD_REMOVE	2
#define UD_LEG		16

struct io_uring DR;		/* data ring: the legitimate path */
void *bounce;			/* user copy, max_io bytes */
unsigned long nr_legit, nr_legit_zc, nr_legit_copy, nr_legit_fail;
/* loans given back after their users' CQEs: how often still lent */
unsigned long nr_settled, nr_settle_late, max_settle_tries;

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
		/*
		 * 7.3 imports at issue (io_write_fixed() ->
		 * io_init_rw_fixed()): an IOSQE_ASYNC leg's first issue is
		 * in io-wq, maybe after BUF_REMOVE emptied the slot, which
		 * the ordering promise does not cover (splice_uapi's
		 * mirror *_iowq cases skip there): inline legs only
		 */
		if (chance(25) && !v73)
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
void serve_copy(int tag)
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


void serve(int tag)
{
	struct mtag *t = &M.tag[tag];

	if (series == S_BPF) {
		bpf_serve(tag);
		return;
	}
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
void settle(void)
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
