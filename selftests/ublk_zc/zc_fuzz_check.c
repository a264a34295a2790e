// SPDX-License-Identifier: GPL-2.0
/*
 * zc_fuzz: submitting and checking.  A generated submission goes to the
 * fuzz ring; every CQE is checked twice, against the errno set the
 * series documents for the op and against the model's prediction, and
 * a failure is reported with the op, its SQE and the model's reason.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/socket.h>

#include "zc_fuzz.h"

/* ------------------------------------------------------------------ */
/* names, the log of recent ops, the result histogram                   */

static const char *const fdc_name[NR_C] = {
	"cdev", "cdev#", "scratch", "scratch#", "ro", "ro#", "backing",
	"backing#", "udp", "udp#", "rx", "ctrl", "-1", "closed", "sparse#",
	"oor#", "eventfd", "inotify",
};

static const char *const opk_name[NR_K] = {
	"SPLICE_FROM", "BUF_REMOVE", "READ_FIXED", "WRITE_FIXED", "SEND_ZC",
	"URING_CMD", "FUSED_CMD", "table-op", "clone-op", "ring-teardown",
	"NOP", "parked-read",
};

static struct op oplog[LOG_OPS];	/* for late CQEs and reports */
static unsigned long hist[NR_K][140];	/* [kind][-res or 0] */
unsigned long nr_mismatch_model, nr_undocumented;
unsigned long nr_notifs, nr_quirk_notif;
struct newcase_stats NC;

void hist_add(int kind, int res)
{
	int i = res >= 0 ? 0 : -res;

	if (i < 140)
		hist[kind][i]++;
}

void print_hist(void)
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

/* ------------------------------------------------------------------ */
/* checking one result, and printing the op when it fails               */

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
	printf("#   op #%lu %s fd=%s%s%s link=%u skip=%d%s: got %d (%s), expected %s [%s]\n",
	       o->idx, opk_name[o->kind], fdc_name[o->fdc],
	       o->kind == K_FUSED ? " sec-fd=" : "",
	       o->kind == K_FUSED ? fdc_name[o->sfdc] : "", o->link, o->skip,
	       o->deferred ? " deferred" : "", o->res,
	       o->got ? errname(o->res) : "no CQE", e, o->why ? o->why : "");
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
		EBUSY, EOPNOTSUPP, ENOMEM, ECHRNG, EPERM, ESRCH, ENODATA,
		EOVERFLOW, EALREADY, ECANCELED, 0 };
	static const int nop[] = { EINVAL, EOPNOTSUPP, ECANCELED, 0 };
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
	static const int fused[] = { EINVAL, EPERM, ENOENT, EACCES,
		EOPNOTSUPP, EFAULT, EBADF, ECANCELED, EAGAIN, EMSGSIZE,
		ENOTSOCK, 0 };
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
	case K_NOP:
		if (res >= 0)
			return res == 0;
		set = nop;
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

static void dump_model(const struct model *m)
{
	unsigned int i;

	printf("#   model: table=%d slots=%u files=%d sqe128=%d submit_all=%d iopoll=%d drain_disabled=%d sqpoll=%d fetch_here=%d parked=%d\n",
	       m->table, m->nslots, m->files, m->sqe128, m->submit_all,
	       m->iopoll,
	       m->drain_disabled, m->sqpoll, m->fetch_here, m->parked);
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

/*
 * The fuzz ring's counters as the kernel shows them: a missing CQE with
 * every earlier SQE completed (CQ tail = SQ head - 1, nothing dropped or
 * overflowed) is a drain that lost count, not a request still running.
 */
static void dump_ring(void)
{
	printf("#   ring: sq head=%u tail=%u dropped=%u flags=0x%x; cq head=%u tail=%u overflow=%u\n",
	       io_uring_smp_load_acquire(FR->sq.khead), *FR->sq.ktail,
	       *FR->sq.kdropped, io_uring_smp_load_acquire(FR->sq.kflags),
	       *FR->cq.khead, io_uring_smp_load_acquire(FR->cq.ktail),
	       *FR->cq.koverflow);
}

void check_one(struct op *o)
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
		if (!o->got)
			dump_ring();
		if (nr_mismatch_model == 1)
			dump_model(&M);
	} else if (cfg.verbose > 1) {
		print_op(o);
	}
}

void check_reg(const char *what, int got, int want)
{
	hist_add(K_TABLE, got);
	if (got != want) {
		nr_mismatch_model++;
		report("seed %llu after op #%lu: %s returned %d (%s), expected %d (%s)",
		       cfg.seed, nr_ops, what, got, errname(got), want,
		       errname(want));
	}
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
	if (queue_cqe(cqe) || park_cqe(cqe))
		return false;
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

void reap_fuzz(int wait_ms, bool (*done)(void))
{
	struct __kernel_timespec ts = { .tv_nsec = 20 * 1000000LL };
	struct io_uring_cqe *cqe;
	struct timespec t0, t1;

	clock_gettime(CLOCK_MONOTONIC, &t0);
	for (;;) {
		while (!io_uring_peek_cqe(FR, &cqe)) {
			fuzz_cqe(cqe);
			io_uring_cqe_seen(FR, cqe);
		}
		if (!done || done())
			return;
		clock_gettime(CLOCK_MONOTONIC, &t1);
		if ((t1.tv_sec - t0.tv_sec) * 1000 +
		    (t1.tv_nsec - t0.tv_nsec) / 1000000 > wait_ms)
			return;
		if (M.iopoll) {
			/* no timed waits on a polled ring: poll, then nap */
			io_uring_get_events(FR);
			if (io_uring_peek_cqe(FR, &cqe))
				usleep(200);
			continue;
		}
		if (!io_uring_wait_cqe_timeout(FR, &cqe, &ts)) {
			fuzz_cqe(cqe);
			io_uring_cqe_seen(FR, cqe);
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
		struct io_uring_sqe *sqe = io_uring_get_sqe(FR);

		io_uring_prep_nop(sqe);
		sqe->user_data = UD_NOP;
		io_uring_submit(FR);
		nop_seen = false;
		reap_fuzz(cfg.cqe_wait_ms, nop_done);
	}
}

/* how io_uring_submit() calls should split this submission */
static bool split_ok(const struct op *ops, int n, const int *rets, int calls)
{
	int i, want[MAX_SUB], nw = 0, seg = 0;

	/*
	 * The SQ thread takes them all, whatever fails: one call, which
	 * counts what the SQ ring holds (liburing: tail - khead), and the
	 * SQ thread moves khead only after it posted the CQEs of the last
	 * batch: a few more, at times
	 */
	if (M.sqpoll)
		return calls == 1 && rets[0] >= n;
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

void fuzz_submit(struct op *ops, int n)
{
	int rets[MAX_SUB + 1] = { 0 }, calls = 0, done = 0, i;
	bool drained = false, rw_only = false;

	for (i = 0; i < n; i++) {
		struct io_uring_sqe *sqe = io_uring_get_sqe(FR);

		memset(sqe, 0, M.sqe128 ? 128 : 64);
		memcpy(sqe, ops[i].sqe, (M.sqe128 && ops[i].kind == K_FUSED) ?
		       128 : 64);
		sqe->user_data = ops[i].idx;
		if (ops[i].sqe[0].flags & IOSQE_IO_DRAIN)
			drained = true;
		if (ops[i].fk == FK_EVFD || ops[i].fk == FK_INOTIFY ||
		    ops[i].sfk == FK_EVFD || ops[i].sfk == FK_INOTIFY)
			rw_only = true;
		if (cfg.verbose > 2)
			print_sqe(opk_name[ops[i].kind], &ops[i].sqe[0]);
	}
	cur_ops = ops;
	cur_n = n;
	while (done < n && calls <= MAX_SUB) {
		int r = io_uring_submit(FR);

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
		const struct op *o = &ops[i];
		int res = o->got ? o->res : 0;

		if (o->fk == FK_EVFD || o->fk == FK_INOTIFY ||
		    o->sfk == FK_EVFD || o->sfk == FK_INOTIFY) {
			NC.rwonly++;
			/* 7.3: loop_rw_iter()'s refusal of a kernel buffer */
			NC.rwonly_refused += res == (v73 ? -EFAULT : -EOPNOTSUPP);
		}
		if (o->deferred) {
			NC.deferred++;
			NC.drained += !!(o->sqe[0].flags & IOSQE_IO_DRAIN);
		}
		if (o->kind == K_REMOVE && o->deferred && i &&
		    ops[i - 1].kind == K_NOP) {
			NC.nop_remove++;
			NC.nop_remove_ok += o->got ? res == 0 : o->skip;
		}
		if (M.sqpoll) {
			NC.sqpoll_ops++;
			NC.sqpoll_eperm += res == -EPERM;
		}
		if (M.fetch_here)
			NC.same_ring_ops++;
	}
	for (i = 0; i < n; i++) {
		if (!ops[i].got)
			ops[i].late = true;
		oplog[ops[i].idx % LOG_OPS] = ops[i];
	}
	cur_n = 0;
	if (drained)
		drain_flush();
	if (rw_only)
		mem_guard_check();
	drain_sink();
}
