// SPDX-License-Identifier: GPL-2.0
/*
 * uAPI tests of the bpf series (the RFC v2 eBPF design on 6.12):
 *
 *  - BPF_PROG_TYPE_UBLK: a read-only context (q_id, tag, op, nr_sectors,
 *    op_flags, start_sector), verdicts ABORTED/DROP/PASS/REDIRECT, the
 *    helper bpf_ublk_queue_sqe(ctx, sqe, 64) (id 212), which checks an
 *    SQE (READ for a READ request, WRITE for a WRITE, bytes in the
 *    request, no link/drain flags) and queues it for the request's ring.
 *  - UBLK_U_CMD_REG_BPF_PROG / UNREG on a UBLK_F_BPF device (CAP_SYS_ADMIN).
 *  - On REDIRECT the queued SQEs run on the queue ring with the request's
 *    pages as buffer; the request reaches the server with UBLK_IO_F_BPF and
 *    iod->addr = SQEs submitted; it completes after the commit and the
 *    last SQE, with an error if an SQE moved fewer bytes than it asked.
 *
 * The programs are built here as instructions (no clang needed), and the
 * test process is the ublk server: block I/O comes from a helper thread.
 * Exit 4 (skip) when ublk lacks UBLK_F_BPF, unless UBLK_ZC_VARIANT=bpf.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <linux/bpf.h>
#include <linux/capability.h>

#include "uzc_ring.h"
#include "uzc_bpf.h"
#include "uapi/ublk_bpf.h"
#include "kselftest_harness.h"

#define DEPTH		4
#define DEV_SIZE	(64ULL << 20)
#define WAIT_MS		UZC_WAIT_MS
#define FLAGS		(UBLK_F_BPF | UBLK_F_USER_COPY)
/* user_data of the program's SQEs: tag in bits 16.., index in 0..15 */
#define UD_PROG		(1ULL << 62)
#define SECTOR		2048	/* where the cases do their I/O */

/* --- programs, as instructions (uzc_bpf.h) --- */

#define R0 0
#define R1 1
#define R2 2
#define R3 3
#define R4 4
#define R6 6
#define R7 7
#define FP 10

/* what the redirect program does with each request */
struct prog_opts {
	int verdict;		/* returned after queueing */
	int nr;			/* SQEs per request */
	__u32 piece;		/* bytes per SQE at addr i * piece; 0: all */
	int fd[UBLK_BPF_MAX_SQES + 1];	/* SQE i's file (fd[0] if 0) */
	int r4;			/* R4 at the call: the ring fd the RFC's
				 * helper took as a fourth argument, which
				 * this one does not (v3): ignored */
	int opcode;		/* 0: the request's direction */
	__u8 sqe_flags;
	__u32 sqe_len;		/* the helper's size argument; 0: 64 */
	__u32 addr_bias;	/* added to each SQE's addr */
	bool zero_len;		/* len 0 */
	int rets_fd;		/* array map: the helper's returns, by index */
};

static char verifier_log[65536];

/* load @n instructions as BPF_PROG_TYPE_UBLK: an fd or -errno */
static int load(const struct bpf_insn *insns, unsigned int n, int type)
{
	return uzc_bpf_load(insns, n, type, verifier_log, sizeof(verifier_log));
}

static int load_ublk(const struct bpf_insn *insns, unsigned int n)
{
	return load(insns, n, UBLK_BPF_PROG_TYPE);
}

/* an array map of one value: UBLK_BPF_MAX_SQES + 1 helper returns */
static int rets_map(void)
{
	union bpf_attr attr;
	int fd;

	memset(&attr, 0, sizeof(attr));
	attr.map_type = BPF_MAP_TYPE_ARRAY;
	attr.key_size = 4;
	attr.value_size = 8 * (UBLK_BPF_MAX_SQES + 1);
	attr.max_entries = 1;
	fd = uzc_sys_bpf(BPF_MAP_CREATE, &attr);
	return fd < 0 ? -errno : fd;
}

static void rets_read(int map, long long *rets)
{
	union bpf_attr attr;
	__u32 key = 0;

	memset(&attr, 0, sizeof(attr));
	attr.map_fd = map;
	attr.key = (unsigned long)&key;
	attr.value = (unsigned long)rets;
	if (uzc_sys_bpf(BPF_MAP_LOOKUP_ELEM, &attr))
		memset(rets, 0x55, 8 * (UBLK_BPF_MAX_SQES + 1));
}

/*
 * The redirect program: for SQE i, an SQE on the stack (fp - 64) for the
 * request's direction (or o->opcode), file o->fd[i], file offset
 * start_sector * 512 + addr, addr i * piece (+ bias), len piece (or the
 * request's bytes), user_data UD_PROG | tag << 16 | i; the helper's
 * return goes to the map at index i; then return o->verdict.
 */
static unsigned int build_redirect(const struct prog_opts *o,
				   struct bpf_insn *p)
{
	unsigned int n = 0, off;
	int i, j;

	p[n++] = MOV_REG(R6, R1);
	for (i = 0; i < o->nr; i++) {
		for (j = 64; j > 0; j -= 8)
			p[n++] = ST(BPF_DW, FP, -j, 0);
		/* opcode: READ (22) if the request is a READ (op 0) */
		if (o->opcode) {
			p[n++] = MOV_IMM(R1, o->opcode);
		} else {
			p[n++] = LDX(BPF_B, R7, R6,
				     offsetof(struct ublk_bpf_ctx, op));
			p[n++] = MOV_IMM(R1, IORING_OP_WRITE);
			p[n++] = JEQ_IMM(R7, UBLK_IO_OP_WRITE, 1);
			p[n++] = MOV_IMM(R1, IORING_OP_READ);
		}
		p[n++] = STX(BPF_B, FP, R1, -64);
		p[n++] = ST(BPF_B, FP, -63, o->sqe_flags);
		p[n++] = ST(BPF_W, FP, -60, o->fd[i] ? o->fd[i] : o->fd[0]);
		off = o->piece * i;
		/* off = start_sector << 9 + i * piece */
		p[n++] = LDX(BPF_DW, R1, R6,
			     offsetof(struct ublk_bpf_ctx, start_sector));
		p[n++] = ALU_IMM(BPF_LSH, R1, 9);
		p[n++] = ALU_IMM(BPF_ADD, R1, off);
		p[n++] = STX(BPF_DW, FP, R1, -56);
		p[n++] = ST(BPF_DW, FP, -48, off + o->addr_bias);
		if (o->piece || o->zero_len) {
			p[n++] = ST(BPF_W, FP, -40, o->piece);
		} else {
			p[n++] = LDX(BPF_W, R1, R6,
				     offsetof(struct ublk_bpf_ctx, nr_sectors));
			p[n++] = ALU_IMM(BPF_LSH, R1, 9);
			p[n++] = STX(BPF_W, FP, R1, -40);
		}
		/* user_data */
		p[n++] = LDX(BPF_H, R1, R6, offsetof(struct ublk_bpf_ctx, tag));
		p[n++] = ALU_IMM(BPF_LSH, R1, 16);
		p[n++] = ALU_IMM(BPF_OR, R1, i);
		p[n++] = MOV_IMM(R2, 1);
		p[n++] = ALU_IMM(BPF_LSH, R2, 62);
		p[n++] = ALU_REG(BPF_OR, R1, R2);
		p[n++] = STX(BPF_DW, FP, R1, -32);
		/* ret = bpf_ublk_queue_sqe(ctx, fp - 64, len), R4 = r4 */
		p[n++] = MOV_REG(R1, R6);
		p[n++] = MOV_REG(R2, FP);
		p[n++] = ALU_IMM(BPF_ADD, R2, -64);
		p[n++] = MOV_IMM(R3, o->sqe_len ? o->sqe_len : 64);
		p[n++] = MOV_IMM(R4, o->r4);
		p[n++] = CALL(UBLK_BPF_FUNC_QUEUE_SQE);
		/* map value[i] = ret */
		p[n++] = INSN(BPF_LD | BPF_DW | BPF_IMM, R1, BPF_PSEUDO_MAP_VALUE,
			      0, o->rets_fd);
		p[n++] = INSN(0, 0, 0, 0, 0);
		p[n++] = STX(BPF_DW, R1, R0, 8 * i);
	}
	p[n++] = MOV_IMM(R0, o->verdict);
	p[n++] = EXIT();
	return n;
}

static int load_redirect(const struct prog_opts *o)
{
	static struct bpf_insn insns[64 * (UBLK_BPF_MAX_SQES + 1)];

	return load_ublk(insns, build_redirect(o, insns));
}

/* a program that only returns @verdict */
static int load_verdict(int verdict)
{
	struct bpf_insn p[] = { MOV_IMM(R0, verdict), EXIT() };

	return load_ublk(p, 2);
}

/* the redirect program's SQEs: one read/write of the whole request */
static void opts_default(struct prog_opts *o, int fd, int ring_fd, int map)
{
	memset(o, 0, sizeof(*o));
	o->verdict = UBLK_BPF_IO_REDIRECT;
	o->nr = 1;
	o->fd[0] = fd;
	o->r4 = ring_fd;
	o->rets_fd = map;
}

/* --- capabilities --- */

/* drop @caps (bit masks of the low and high 32 capabilities) */
static int drop_caps(__u32 lo, __u32 hi)
{
	struct __user_cap_header_struct h = {
		.version = _LINUX_CAPABILITY_VERSION_3,
	};
	struct __user_cap_data_struct d[2];

	if (syscall(SYS_capget, &h, d))
		return -errno;
	d[0].effective &= ~lo;
	d[0].permitted &= ~lo;
	d[1].effective &= ~hi;
	d[1].permitted &= ~hi;
	return syscall(SYS_capset, &h, d) ? -errno : 0;
}

#define CAP_LO(c)	((c) < 32 ? 1U << (c) : 0)
#define CAP_HI(c)	((c) >= 32 ? 1U << ((c) - 32) : 0)

/* --- serving --- */

FIXTURE(bpf) {
	struct uzc_dev d;
	int file;		/* the backing file the program reads/writes */
	int map;
	int prog;
	bool registered;
	/* the program's CQEs by tag: how many, and their results */
	unsigned int nr_cqes[DEPTH];
	int res[DEPTH][UBLK_BPF_MAX_SQES];
};

/* more IORING_SETUP_* for the next queue ring (ring_setups) */
static __u32 ring_extra_flags;

/* the queue ring's CQ has room for the program's CQEs */
static int ring_init(struct uzc_dev *d)
{
	struct io_uring_params p = {
		.flags = IORING_SETUP_CQSIZE | ring_extra_flags,
		.cq_entries = d->depth * (UBLK_BPF_MAX_SQES + 4),
	};

	return io_uring_queue_init_params(d->depth * 4, &d->q, &p);
}

static const char *uzc_bpf_missing(void)
{
	const char *why = uzc_prereq();
	__u64 features;

	if (why)
		return why;
	if (uzc_get_features(&features))
		return "UBLK_U_CMD_GET_FEATURES failed";
	if (!(features & UBLK_F_BPF))
		return "ublk does not advertise UBLK_F_BPF";
	return NULL;
}

FIXTURE_SETUP(bpf)
{
	memset(self, 0, sizeof(*self));
	self->d.dev_id = -1;
	self->prog = -1;
	uzc_queue_ring_init = ring_init;
	ASSERT_EQ(0, uzc_dev_create(&self->d, FLAGS, DEPTH, UZC_ZC_MAX_IO,
				    DEV_SIZE, true));
	ASSERT_TRUE(self->d.flags & UBLK_F_BPF);
	self->file = memfd_create("ublk-bpf-backing", 0);
	ASSERT_LE(0, self->file);
	ASSERT_EQ(0, ftruncate(self->file, DEV_SIZE));
	self->map = rets_map();
	ASSERT_LE(0, self->map);
}

FIXTURE_TEARDOWN(bpf)
{
	if (self->registered)
		EXPECT_EQ(0, uzc_ctrl_cmd(&self->d, UBLK_U_CMD_UNREG_BPF_PROG,
					  0, NULL, 0));
	EXPECT_EQ(0, uzc_dev_destroy(&self->d));
	uzc_queue_ring_init = NULL;
	if (self->prog >= 0)
		close(self->prog);
	close(self->file);
	close(self->map);
}

static int reg_prog(FIXTURE_DATA(bpf) *self, int prog)
{
	int ret = uzc_ctrl_cmd(&self->d, UBLK_U_CMD_REG_BPF_PROG, prog, NULL,
			       0);

	if (!ret) {
		self->registered = true;
		if (self->prog >= 0)
			close(self->prog);
		self->prog = prog;
	}
	return ret;
}

static int unreg_prog(FIXTURE_DATA(bpf) *self)
{
	int ret = uzc_ctrl_cmd(&self->d, UBLK_U_CMD_UNREG_BPF_PROG, 0, NULL,
			       0);

	if (!ret)
		self->registered = false;
	return ret;
}

/* If @ud is a program SQE's, count its CQE (@res) for its tag: true */
static bool count_prog_cqe(FIXTURE_DATA(bpf) *self, __u64 ud, int res)
{
	unsigned int tag = (ud >> 16) & 0xffff;

	if (!(ud & UD_PROG))
		return false;
	if (tag < DEPTH) {
		self->res[tag][ud & 0xf] = res;
		self->nr_cqes[tag]++;
	}
	return true;
}

/*
 * The next request handed to the server (its tag), counting the program's
 * CQEs that come meanwhile; -ETIMEDOUT or -errno.
 */
static int next_req(FIXTURE_DATA(bpf) *self, int ms)
{
	struct uzc_dev *d = &self->d;
	struct __kernel_timespec ts = { .tv_sec = ms / 1000,
					.tv_nsec = (ms % 1000) * 1000000LL };
	struct io_uring_cqe *cqe;
	__u64 ud;
	int res;

	for (;;) {
		if (io_uring_wait_cqe_timeout(&d->q, &cqe, &ts))
			return -ETIMEDOUT;
		ud = cqe->user_data;
		res = cqe->res;
		io_uring_cqe_seen(&d->q, cqe);
		if (count_prog_cqe(self, ud, res))
			continue;
		d->nr_active--;
		if (res == UBLK_IO_RES_OK)
			return ud & 0xffff;
	}
}

/* wait until the program's CQEs of @tag number @nr */
static bool wait_prog_cqes(FIXTURE_DATA(bpf) *self, int tag, unsigned int nr,
			   int ms)
{
	struct io_uring_cqe *cqe;

	while (self->nr_cqes[tag] < nr) {
		struct __kernel_timespec ts = { .tv_sec = ms / 1000 };

		if (io_uring_wait_cqe_timeout(&self->d.q, &cqe, &ts))
			return false;
		/* no request is expected meanwhile */
		if (!count_prog_cqe(self, cqe->user_data, cqe->res))
			return false;
		io_uring_cqe_seen(&self->d.q, cqe);
	}
	return true;
}

static void forget_cqes(FIXTURE_DATA(bpf) *self, int tag)
{
	self->nr_cqes[tag] = 0;
	memset(self->res[tag], 0, sizeof(self->res[tag]));
}

/* a block READ or WRITE of @len bytes at SECTOR, from a helper thread */
static void *io_start(FIXTURE_DATA(bpf) *self, struct uzc_io *io,
		      enum uzc_io_op op, size_t len, unsigned int seed)
{
	void *buf = uzc_xalloc(len);
	struct iovec iov = { buf, len };

	if (!buf)
		return NULL;
	uzc_fill(buf, len, seed);
	if (uzc_io_start(&self->d, io, op, &iov, 1, SECTOR << 9)) {
		free(buf);
		return NULL;
	}
	return buf;
}

/* the file's bytes at SECTOR equal @buf */
static bool file_has(int fd, const void *buf, size_t len)
{
	char *got = malloc(len);
	bool same;

	if (!got || pread(fd, got, len, SECTOR << 9) != (ssize_t)len) {
		free(got);
		return false;
	}
	same = !memcmp(got, buf, len);
	free(got);
	return same;
}

/*
 * Serve a redirected request: wait for its SQEs' CQEs and commit @res
 * (the bytes, if < 0 on a CQE error).  Returns the number of SQEs or
 * -errno.
 */
static int serve_redirected(FIXTURE_DATA(bpf) *self, int tag)
{
	const struct ublksrv_io_desc *iod = uzc_iod(&self->d, tag);
	unsigned int nr = iod->addr, i;
	int res = iod->nr_sectors << 9;

	if (!(iod->op_flags & UBLK_IO_F_BPF))
		return -EPROTO;
	if (!wait_prog_cqes(self, tag, nr, WAIT_MS))
		return -ETIMEDOUT;
	for (i = 0; i < nr; i++)
		if (self->res[tag][i] < 0)
			res = self->res[tag][i];
	forget_cqes(self, tag);
	if (uzc_commit(&self->d, tag, res))
		return -EIO;
	return nr;
}

/* --- cases --- */

/* GET_FEATURES and ADD_DEV agree on UBLK_F_BPF */
TEST_F(bpf, features)
{
	__u64 features;

	ASSERT_EQ(0, uzc_get_features(&features));
	EXPECT_TRUE(features & UBLK_F_BPF);
	/* bit 0 stays reserved in this series, bit 48/49 are other designs' */
	EXPECT_FALSE(features & UBLK_F_SUPPORT_ZERO_COPY);
	EXPECT_FALSE(features & (1ULL << 48));
	EXPECT_FALSE(features & (1ULL << 49));
}

/* UBLK_F_BPF with a recovery mode or NEED_GET_DATA: -EINVAL */
TEST(add_refuses_recovery_and_get_data)
{
	static const __u64 bad[] = {
		UBLK_F_USER_RECOVERY, UBLK_F_USER_RECOVERY |
		UBLK_F_USER_RECOVERY_REISSUE, UBLK_F_NEED_GET_DATA,
	};
	struct uzc_dev d;
	unsigned int i;

	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		memset(&d, 0, sizeof(d));
		EXPECT_EQ(-EINVAL, uzc_dev_add(&d, UBLK_F_BPF | bad[i], DEPTH,
					       UZC_ZC_MAX_IO, DEV_SIZE, true))
			TH_LOG("flags %llx", (unsigned long long)bad[i]);
		uzc_dev_del(&d);
	}
}

/*
 * With UBLK_F_USER_COPY, ublk clears NEED_GET_DATA before the series
 * checks the flags (6.12 does so without UBLK_F_BPF too): accepted, and
 * the device has no NEED_GET_DATA (the letter's Errors say so)
 */
TEST(add_user_copy_drops_get_data)
{
	struct uzc_dev d;

	memset(&d, 0, sizeof(d));
	ASSERT_EQ(0, uzc_dev_add(&d, UBLK_F_BPF | UBLK_F_USER_COPY |
				 UBLK_F_NEED_GET_DATA, DEPTH, UZC_ZC_MAX_IO,
				 DEV_SIZE, true));
	EXPECT_TRUE(d.flags & UBLK_F_BPF);
	EXPECT_FALSE(d.flags & UBLK_F_NEED_GET_DATA);
	uzc_dev_del(&d);
}

/*
 * Root's REG/UNREG on an unprivileged device (which cannot have
 * UBLK_F_BPF): -EINVAL, from ublk's permission check, which lets no
 * command it does not know through, with the char device's path or not.
 */
TEST(register_on_unprivileged_dev)
{
	struct uzc_dev d;
	int prog;

	ASSERT_EQ(0, uzc_unprivileged_dev(&d, 0));
	EXPECT_TRUE(d.flags & UBLK_F_UNPRIVILEGED_DEV);
	prog = load_verdict(UBLK_BPF_IO_PASS);
	EXPECT_LE(0, prog) TH_LOG("%s", verifier_log);
	EXPECT_EQ(-EINVAL, uzc_ctrl_cmd(&d, UBLK_U_CMD_REG_BPF_PROG, prog,
					NULL, 0));
	EXPECT_EQ(-EINVAL, uzc_ctrl_cmd_path(&d, UBLK_U_CMD_REG_BPF_PROG,
					     prog));
	EXPECT_EQ(-EINVAL, uzc_ctrl_cmd_path(&d, UBLK_U_CMD_UNREG_BPF_PROG,
					     0));
	EXPECT_EQ(0, uzc_ctrl_cmd_path(&d, UBLK_U_CMD_DEL_DEV, 0));
	close(prog);
}

/*
 * UBLK_F_BPF on an unprivileged device: -EPERM; the same ADD_DEV without
 * it is accepted (and the device deleted again).
 */
TEST(add_refuses_unprivileged)
{
	__u64 got;
	int del;

	EXPECT_EQ(-EPERM, uzc_unprivileged_add(UBLK_F_BPF, &got, &del));
	ASSERT_EQ(0, uzc_unprivileged_add(0, &got, &del));
	EXPECT_TRUE(got & UBLK_F_UNPRIVILEGED_DEV);
	EXPECT_EQ(0, del);
}

/* the context is read only, each field read whole, nothing beyond it */
TEST(verifier_rejects_bad_context_access)
{
	struct { const char *what; struct bpf_insn insn; } bad[] = {
		{ "write q_id", ST(BPF_H, R1, 0, 1) },
		{ "half of nr_sectors", LDX(BPF_H, R2, R1, 8) },
		{ "half of start_sector", LDX(BPF_W, R2, R1, 16) },
		{ "reserved byte", LDX(BPF_B, R2, R1, 5) },
		{ "beyond the context", LDX(BPF_DW, R2, R1, 24) },
		{ "before the context", LDX(BPF_W, R2, R1, -4) },
	};
	struct bpf_insn ok[] = {
		LDX(BPF_H, R2, R1, 0), LDX(BPF_H, R2, R1, 2),
		LDX(BPF_B, R2, R1, 4), LDX(BPF_W, R2, R1, 8),
		LDX(BPF_W, R2, R1, 12), LDX(BPF_DW, R2, R1, 16),
		MOV_IMM(R0, UBLK_BPF_IO_PASS), EXIT(),
	};
	unsigned int i;
	int fd;

	fd = load_ublk(ok, sizeof(ok) / sizeof(ok[0]));
	ASSERT_LE(0, fd) TH_LOG("%s", verifier_log);
	close(fd);
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		struct bpf_insn p[] = { bad[i].insn, MOV_IMM(R0, 2), EXIT() };

		fd = load_ublk(p, 3);
		EXPECT_EQ(-EACCES, fd) TH_LOG("%s", bad[i].what);
		if (fd >= 0)
			close(fd);
	}
}

/* verdicts are 0..3; helpers outside the base set and the ublk one: no */
TEST(verifier_rejects_bad_return_and_helpers)
{
	struct bpf_insn ret4[] = { MOV_IMM(R0, 4), EXIT() };
	/* bpf_skb_load_bytes (26) is not a ublk program's */
	struct bpf_insn skb[] = { MOV_IMM(R2, 0), MOV_IMM(R3, 0),
				  MOV_IMM(R4, 0), CALL(26),
				  MOV_IMM(R0, 2), EXIT() };
	/* the SQE argument must be 64 readable bytes: 128 overruns it */
	struct bpf_insn big[] = {
		MOV_REG(R6, R1),
		ST(BPF_DW, FP, -64, 0), ST(BPF_DW, FP, -56, 0),
		ST(BPF_DW, FP, -48, 0), ST(BPF_DW, FP, -40, 0),
		ST(BPF_DW, FP, -32, 0), ST(BPF_DW, FP, -24, 0),
		ST(BPF_DW, FP, -16, 0), ST(BPF_DW, FP, -8, 0),
		MOV_REG(R2, FP), ALU_IMM(BPF_ADD, R2, -64),
		MOV_IMM(R3, 128), MOV_IMM(R4, 0), MOV_REG(R1, R6),
		CALL(UBLK_BPF_FUNC_QUEUE_SQE), MOV_IMM(R0, 2), EXIT(),
	};
	int fd;

	EXPECT_EQ(-EINVAL, fd = load_ublk(ret4, 2));
	EXPECT_EQ(-EINVAL, fd = load_ublk(skb, 6));
	EXPECT_EQ(-EINVAL, fd = load_ublk(big, sizeof(big) / sizeof(big[0])))
		TH_LOG("%s", verifier_log);
	/* with 64 it loads */
	big[11] = MOV_IMM(R3, 64);
	fd = load_ublk(big, sizeof(big) / sizeof(big[0]));
	EXPECT_LE(0, fd) TH_LOG("%s", verifier_log);
	if (fd >= 0)
		close(fd);
	/* the helper is the ublk program type's only */
	big[11] = MOV_IMM(R3, 64);
	EXPECT_EQ(-EINVAL, load(big, sizeof(big) / sizeof(big[0]),
				BPF_PROG_TYPE_SOCKET_FILTER));
}

/* a ublk program needs CAP_BPF (or CAP_SYS_ADMIN) to load */
TEST(load_needs_cap_bpf)
{
	int status;
	pid_t pid;

	pid = fork();
	ASSERT_LE(0, pid);
	if (!pid) {
		if (drop_caps(CAP_LO(CAP_SYS_ADMIN), CAP_HI(CAP_BPF)))
			_exit(2);
		_exit(load_verdict(UBLK_BPF_IO_PASS) == -EPERM ? 0 : 1);
	}
	ASSERT_EQ(pid, waitpid(pid, &status, 0));
	EXPECT_EQ(0, WEXITSTATUS(status));
}

/* every errno of REG and UNREG */
TEST_F(bpf, register_errors)
{
	struct bpf_insn sf[] = { MOV_IMM(R0, 0), EXIT() };
	struct uzc_dev plain;
	int prog, other, sock;

	prog = load_verdict(UBLK_BPF_IO_PASS);
	ASSERT_LE(0, prog) TH_LOG("%s", verifier_log);
	EXPECT_EQ(-ENOENT, unreg_prog(self));
	/* not an fd, not a program, a program of another type */
	EXPECT_EQ(-EBADF, reg_prog(self, 1000));
	EXPECT_EQ(-EINVAL, reg_prog(self, self->file));
	sock = load(sf, 2, BPF_PROG_TYPE_SOCKET_FILTER);
	ASSERT_LE(0, sock);
	EXPECT_EQ(-EINVAL, reg_prog(self, sock));
	close(sock);
	EXPECT_EQ(-EBADF, uzc_ctrl_cmd(&self->d, UBLK_U_CMD_REG_BPF_PROG,
				       1ULL << 40, NULL, 0));
	/* one program at most */
	ASSERT_EQ(0, reg_prog(self, prog));
	other = load_verdict(UBLK_BPF_IO_PASS);
	ASSERT_LE(0, other);
	EXPECT_EQ(-EBUSY, reg_prog(self, other));
	EXPECT_EQ(0, unreg_prog(self));
	EXPECT_EQ(-ENOENT, unreg_prog(self));
	EXPECT_EQ(0, reg_prog(self, other));

	/* a device without UBLK_F_BPF */
	memset(&plain, 0, sizeof(plain));
	ASSERT_EQ(0, uzc_dev_add(&plain, UBLK_F_USER_COPY, DEPTH,
				 UZC_ZC_MAX_IO, DEV_SIZE, true));
	EXPECT_FALSE(plain.flags & UBLK_F_BPF);
	prog = load_verdict(UBLK_BPF_IO_PASS);
	EXPECT_EQ(-EOPNOTSUPP, uzc_ctrl_cmd(&plain, UBLK_U_CMD_REG_BPF_PROG,
					    prog, NULL, 0));
	EXPECT_EQ(-EOPNOTSUPP, uzc_ctrl_cmd(&plain, UBLK_U_CMD_UNREG_BPF_PROG,
					    0, NULL, 0));
	close(prog);
	EXPECT_EQ(0, uzc_dev_del(&plain));
}

/* REG and UNREG need CAP_SYS_ADMIN even with CAP_BPF */
TEST_F(bpf, register_needs_cap_sys_admin)
{
	int status, prog;
	pid_t pid;

	prog = load_verdict(UBLK_BPF_IO_PASS);
	ASSERT_LE(0, prog);
	pid = fork();
	ASSERT_LE(0, pid);
	if (!pid) {
		struct uzc_dev d = self->d;

		/* a control ring of its own */
		d.ctrl_ready = false;
		if (drop_caps(CAP_LO(CAP_SYS_ADMIN), 0))
			_exit(2);
		if (uzc_ctrl_cmd(&d, UBLK_U_CMD_REG_BPF_PROG, prog, NULL, 0) !=
		    -EPERM)
			_exit(3);
		_exit(uzc_ctrl_cmd(&d, UBLK_U_CMD_UNREG_BPF_PROG, 0, NULL, 0) ==
		      -EPERM ? 0 : 4);
	}
	ASSERT_EQ(pid, waitpid(pid, &status, 0));
	EXPECT_EQ(0, WEXITSTATUS(status));
	/* and nothing was registered */
	EXPECT_EQ(-ENOENT, unreg_prog(self));
	close(prog);
}

/*
 * A block I/O of @len bytes that must reach the server unmarked (passed):
 * served as without a program, it completes whole.
 */
static void expect_passed(struct __test_metadata *_metadata,
			  FIXTURE_DATA(bpf) *self, enum uzc_io_op op,
			  size_t len, const char *what)
{
	struct uzc_io io;
	void *buf;
	int tag;

	buf = io_start(self, &io, op, len, 0);
	ASSERT_NE(NULL, buf);
	tag = next_req(self, WAIT_MS);
	ASSERT_LE(0, tag) TH_LOG("%s", what);
	EXPECT_FALSE(uzc_iod(&self->d, tag)->op_flags & UBLK_IO_F_BPF)
		TH_LOG("%s", what);
	ASSERT_EQ(0, uzc_serve_default(&self->d, tag));
	EXPECT_EQ((ssize_t)len, uzc_io_wait(&io)) TH_LOG("%s", what);
	free(buf);
}

/* every verdict but REDIRECT hands the request over as before (the RFC) */
TEST_F(bpf, other_verdicts_pass)
{
	static const int verdicts[] = { UBLK_BPF_IO_PASS, UBLK_BPF_IO_ABORTED,
					UBLK_BPF_IO_DROP };
	unsigned int i;
	int fd;

	for (i = 0; i < 3; i++) {
		if (self->registered)
			ASSERT_EQ(0, unreg_prog(self));
		fd = load_verdict(verdicts[i]);
		ASSERT_LE(0, fd) TH_LOG("verdict %d: %s", verdicts[i],
					verifier_log);
		ASSERT_EQ(0, reg_prog(self, fd));
		expect_passed(_metadata, self, UZC_WRITE, 8192, "a verdict");
		expect_passed(_metadata, self, UZC_READ, 4096, "a verdict");
	}
}

/*
 * The context holds the request's UBLK_IO_F_* flags as the descriptor
 * does: a FUA write (RWF_DSYNC on a device with UBLK_ATTR_FUA) shows
 * UBLK_IO_F_FUA to the program.
 */
TEST_F(bpf, context_has_descriptor_flags)
{
	long long rets[UBLK_BPF_MAX_SQES + 1];
	struct bpf_insn p[] = {
		LDX(BPF_W, R2, R1, offsetof(struct ublk_bpf_ctx, op_flags)),
		INSN(BPF_LD | BPF_DW | BPF_IMM, R1, BPF_PSEUDO_MAP_VALUE, 0,
		     self->map),
		INSN(0, 0, 0, 0, 0),
		STX(BPF_DW, R1, R2, 0),
		MOV_IMM(R0, UBLK_BPF_IO_PASS), EXIT(),
	};
	int tag, status, writes = 0;
	pid_t pid;

	ASSERT_EQ(0, uzc_dev_destroy(&self->d));
	uzc_extra_attrs = UBLK_ATTR_FUA;
	ASSERT_EQ(0, uzc_dev_create(&self->d, FLAGS, DEPTH, UZC_ZC_MAX_IO,
				    DEV_SIZE, true));
	uzc_extra_attrs = 0;
	ASSERT_EQ(0, reg_prog(self, load_ublk(p, sizeof(p) / sizeof(p[0]))))
		TH_LOG("%s", verifier_log);
	pid = fork();
	ASSERT_LE(0, pid);
	if (!pid) {
		void *buf = uzc_xalloc(4096);
		struct iovec iov = { buf, 4096 };
		int fd = open(self->d.bdev_path, O_RDWR | O_DIRECT);

		_exit(fd >= 0 && pwritev2(fd, &iov, 1, SECTOR << 9,
					  RWF_DSYNC) == 4096 ? 0 : 1);
	}
	/* the WRITE, and whatever else the block layer sends meanwhile */
	while (waitpid(pid, &status, WNOHANG) != pid) {
		const struct ublksrv_io_desc *iod;

		tag = next_req(self, 100);
		if (tag == -ETIMEDOUT)
			continue;
		ASSERT_LE(0, tag);
		iod = uzc_iod(&self->d, tag);
		if (ublksrv_get_op(iod) == UBLK_IO_OP_WRITE) {
			EXPECT_TRUE(iod->op_flags & UBLK_IO_F_FUA);
			rets_read(self->map, rets);
			EXPECT_EQ(iod->op_flags & ~0xffU, rets[0]);
			writes++;
		}
		ASSERT_EQ(0, uzc_serve_default(&self->d, tag));
	}
	EXPECT_EQ(0, WEXITSTATUS(status));
	EXPECT_EQ(1, writes);
}

/* a redirected WRITE lands in the file; the server moved no data */
TEST_F(bpf, redirect_write_lands_in_file)
{
	struct prog_opts o;
	struct uzc_io io;
	void *buf;
	int tag;

	opts_default(&o, self->file, self->d.q.ring_fd, self->map);
	ASSERT_EQ(0, reg_prog(self, load_redirect(&o)));
	buf = io_start(self, &io, UZC_WRITE, 65536, 7);
	ASSERT_NE(NULL, buf);
	tag = next_req(self, WAIT_MS);
	ASSERT_LE(0, tag);
	EXPECT_EQ(1, uzc_iod(&self->d, tag)->addr);
	EXPECT_EQ(1, serve_redirected(self, tag));
	EXPECT_EQ(65536, uzc_io_wait(&io));
	EXPECT_TRUE(file_has(self->file, buf, 65536));
	free(buf);
}

/* a redirected READ, whole or in pieces, returns the file's bytes */
TEST_F(bpf, redirect_read_fills_pages)
{
	static const __u32 pieces[] = { 0, 4096, 16384 };
	char *want = uzc_xalloc(65536);
	struct prog_opts o;
	struct uzc_io io;
	unsigned int i;
	char *buf;
	int tag;

	ASSERT_NE(NULL, want);
	uzc_fill(want, 65536, 3);
	ASSERT_EQ(65536, pwrite(self->file, want, 65536, SECTOR << 9));
	for (i = 0; i < 3; i++) {
		if (self->registered)
			ASSERT_EQ(0, unreg_prog(self));
		opts_default(&o, self->file, self->d.q.ring_fd, self->map);
		o.piece = pieces[i];
		o.nr = pieces[i] ? 65536 / pieces[i] : 1;
		ASSERT_EQ(0, reg_prog(self, load_redirect(&o)))
			TH_LOG("%s", verifier_log);
		buf = io_start(self, &io, UZC_READ, 65536, 0);
		ASSERT_NE(NULL, buf);
		tag = next_req(self, WAIT_MS);
		ASSERT_LE(0, tag);
		EXPECT_EQ(o.nr, serve_redirected(self, tag));
		EXPECT_EQ(65536, uzc_io_wait(&io));
		EXPECT_EQ(0, memcmp(buf, want, 65536)) TH_LOG("piece %u",
							       pieces[i]);
		free(buf);
	}
	free(want);
}

/*
 * A redirect whose SQEs leave bytes unmoved is passed to the server, its
 * SQEs never submitted: a READ gets the server's bytes (not pages nobody
 * filled), a WRITE is the server's to store (not partly lost).
 */
TEST_F(bpf, redirect_uncovered_is_passed)
{
	static const enum uzc_io_op ops[] = { UZC_READ, UZC_WRITE };
	struct prog_opts o;
	struct uzc_io io;
	char *buf, *zero;
	unsigned int i;
	int tag;

	opts_default(&o, self->file, self->d.q.ring_fd, self->map);
	o.piece = 4096;		/* one SQE: the first 4 KiB of 8 */
	ASSERT_EQ(0, reg_prog(self, load_redirect(&o)));
	zero = calloc(1, 8192);
	ASSERT_NE(NULL, zero);
	for (i = 0; i < 2; i++) {
		buf = io_start(self, &io, ops[i], 8192, 1);
		ASSERT_NE(NULL, buf);
		tag = next_req(self, WAIT_MS);
		ASSERT_LE(0, tag);
		EXPECT_FALSE(uzc_iod(&self->d, tag)->op_flags & UBLK_IO_F_BPF);
		ASSERT_EQ(0, uzc_serve_default(&self->d, tag));
		EXPECT_EQ(8192, uzc_io_wait(&io));
		if (ops[i] == UZC_READ) {
			EXPECT_EQ(0, memcmp(buf, zero, 8192));
		} else {
			EXPECT_TRUE(file_has(self->file, zero, 8192));
		}
		EXPECT_EQ(0, self->nr_cqes[tag]);
		EXPECT_TRUE(uzc_cq_quiet(&self->d.q, 100));
		free(buf);
	}
	free(zero);
}

/*
 * Every errno of the helper; a refused SQE is not queued, so the redirect
 * has none and the request is passed to the server.
 */
enum helper_err { WRONG_ON_READ, WRONG_ON_WRITE, NOT_RW, PAST_END, ZERO_LEN,
		  LINKED, DRAINED, SIZE_32, NR_HELPER_ERR };

static const struct {
	const char *what;
	int err;
	enum uzc_io_op op;
} helper_errs[NR_HELPER_ERR] = {
	[WRONG_ON_READ]	= { "WRITE SQE on a READ", -EACCES, UZC_READ },
	[WRONG_ON_WRITE] = { "READ SQE on a WRITE", -EACCES, UZC_WRITE },
	[NOT_RW]	= { "not READ or WRITE", -EOPNOTSUPP, UZC_READ },
	[PAST_END]	= { "past the request", -EFAULT, UZC_WRITE },
	[ZERO_LEN]	= { "zero length", -EFAULT, UZC_WRITE },
	[LINKED]	= { "linked", -EINVAL, UZC_WRITE },
	[DRAINED]	= { "drained", -EINVAL, UZC_WRITE },
	[SIZE_32]	= { "size 32", -EINVAL, UZC_WRITE },
};

static void helper_err_opts(struct prog_opts *o, enum helper_err e)
{
	switch (e) {
	case WRONG_ON_READ:	o->opcode = IORING_OP_WRITE; break;
	case WRONG_ON_WRITE:	o->opcode = IORING_OP_READ; break;
	case NOT_RW:		o->opcode = IORING_OP_READV; break;
	case PAST_END:		o->addr_bias = 512; break;
	case ZERO_LEN:		o->zero_len = true; break;
	case LINKED:		o->sqe_flags = IOSQE_IO_LINK; break;
	case DRAINED:		o->sqe_flags = IOSQE_IO_DRAIN; break;
	case SIZE_32:		o->sqe_len = 32; break;
	case NR_HELPER_ERR:	break;
	}
}

TEST_F(bpf, helper_errors)
{
	long long rets[UBLK_BPF_MAX_SQES + 1];
	struct prog_opts o;
	unsigned int e;

	for (e = 0; e < NR_HELPER_ERR; e++) {
		if (self->registered)
			ASSERT_EQ(0, unreg_prog(self));
		opts_default(&o, self->file, self->d.q.ring_fd, self->map);
		helper_err_opts(&o, e);
		ASSERT_EQ(0, reg_prog(self, load_redirect(&o)))
			TH_LOG("%s: %s", helper_errs[e].what, verifier_log);
		expect_passed(_metadata, self, helper_errs[e].op, 4096,
			      helper_errs[e].what);
		rets_read(self->map, rets);
		EXPECT_EQ(helper_errs[e].err, rets[0])
			TH_LOG("%s", helper_errs[e].what);
	}
}

/* UBLK_BPF_MAX_SQES per request: the one more is refused, -ENOSPC */
TEST_F(bpf, sqes_per_request_bounded)
{
	long long rets[UBLK_BPF_MAX_SQES + 1];
	struct prog_opts o;
	struct uzc_io io;
	void *buf;
	int tag, i;

	opts_default(&o, self->file, self->d.q.ring_fd, self->map);
	o.nr = UBLK_BPF_MAX_SQES + 1;
	o.piece = 512;
	ASSERT_EQ(0, reg_prog(self, load_redirect(&o)))
		TH_LOG("%s", verifier_log);
	buf = io_start(self, &io, UZC_WRITE, 16 * 512, 5);
	ASSERT_NE(NULL, buf);
	tag = next_req(self, WAIT_MS);
	ASSERT_LE(0, tag);
	rets_read(self->map, rets);
	for (i = 0; i < UBLK_BPF_MAX_SQES; i++)
		EXPECT_EQ(0, rets[i]) TH_LOG("SQE %d", i);
	EXPECT_EQ(-ENOSPC, rets[UBLK_BPF_MAX_SQES]);
	EXPECT_EQ(UBLK_BPF_MAX_SQES, uzc_iod(&self->d, tag)->addr);
	EXPECT_EQ(UBLK_BPF_MAX_SQES, serve_redirected(self, tag));
	EXPECT_EQ(16 * 512, uzc_io_wait(&io));
	EXPECT_TRUE(file_has(self->file, buf, 16 * 512));
	free(buf);
}

/*
 * An SQE that moves fewer bytes than it asked (a READ past the end of a
 * short file) fails the request although the server commits it whole:
 * the reader never gets pages nobody filled.
 */
TEST_F(bpf, short_sqe_fails_request)
{
	struct prog_opts o;
	struct uzc_io io;
	void *buf;
	int tag;

	ASSERT_EQ(0, ftruncate(self->file, (SECTOR << 9) + 4096));
	opts_default(&o, self->file, self->d.q.ring_fd, self->map);
	ASSERT_EQ(0, reg_prog(self, load_redirect(&o)));
	buf = io_start(self, &io, UZC_READ, 8192, 0);
	ASSERT_NE(NULL, buf);
	tag = next_req(self, WAIT_MS);
	ASSERT_LE(0, tag);
	ASSERT_TRUE(wait_prog_cqes(self, tag, 1, WAIT_MS));
	EXPECT_EQ(4096, self->res[tag][0]);
	forget_cqes(self, tag);
	/* the server trusts it all the same */
	ASSERT_EQ(0, uzc_commit(&self->d, tag, 8192));
	EXPECT_EQ(-EIO, uzc_io_wait(&io));
	free(buf);
}

/* an SQE that fails (a WRITE to a read-only fd) fails the request */
TEST_F(bpf, failed_sqe_fails_request)
{
	struct prog_opts o;
	struct uzc_io io;
	char path[64];
	void *buf;
	int tag, ro;

	snprintf(path, sizeof(path), "/proc/self/fd/%d", self->file);
	ro = open(path, O_RDONLY);
	ASSERT_LE(0, ro);
	opts_default(&o, ro, self->d.q.ring_fd, self->map);
	ASSERT_EQ(0, reg_prog(self, load_redirect(&o)));
	buf = io_start(self, &io, UZC_WRITE, 4096, 9);
	ASSERT_NE(NULL, buf);
	tag = next_req(self, WAIT_MS);
	ASSERT_LE(0, tag);
	ASSERT_TRUE(wait_prog_cqes(self, tag, 1, WAIT_MS));
	EXPECT_EQ(-EBADF, self->res[tag][0]);
	forget_cqes(self, tag);
	ASSERT_EQ(0, uzc_commit(&self->d, tag, 4096));
	EXPECT_EQ(-EIO, uzc_io_wait(&io));
	close(ro);
	free(buf);
}

/*
 * A pipe as the SQE's file parks a READ SQE until the test writes: the
 * request in flight with the server's commit done, the SQE not.
 */
struct parked {
	int pipe[2];
	struct uzc_io io;
	char *buf;
	int tag;
};

static int park(FIXTURE_DATA(bpf) *self, struct parked *pk, bool commit)
{
	struct prog_opts o;

	if (pipe(pk->pipe))
		return -errno;
	opts_default(&o, pk->pipe[0], self->d.q.ring_fd, self->map);
	o.piece = 4096;
	if (reg_prog(self, load_redirect(&o)))
		return -EINVAL;
	pk->buf = io_start(self, &pk->io, UZC_READ, 4096, 0);
	if (!pk->buf)
		return -ENOMEM;
	pk->tag = next_req(self, WAIT_MS);
	if (pk->tag < 0)
		return pk->tag;
	if (!(uzc_iod(&self->d, pk->tag)->op_flags & UBLK_IO_F_BPF))
		return -EPROTO;
	if (commit && uzc_commit(&self->d, pk->tag, 4096))
		return -EIO;
	return 0;
}

/* the bytes the parked READ gets */
static int unpark(struct parked *pk, unsigned int seed)
{
	char data[4096];

	uzc_fill(data, sizeof(data), seed);
	return write(pk->pipe[1], data, sizeof(data)) == sizeof(data) ? 0 : -1;
}

static bool parked_got(struct parked *pk, unsigned int seed)
{
	char data[4096];

	uzc_fill(data, sizeof(data), seed);
	return !memcmp(pk->buf, data, sizeof(data));
}

static void park_end(struct parked *pk)
{
	close(pk->pipe[0]);
	close(pk->pipe[1]);
	free(pk->buf);
}

/* the server's early commit does not complete the request before its SQE */
TEST_F(bpf, commit_early_waits_for_sqe)
{
	struct parked pk;

	ASSERT_EQ(0, park(self, &pk, true));
	EXPECT_FALSE(uzc_io_done(&pk.io, 300));
	ASSERT_EQ(0, unpark(&pk, 11));
	EXPECT_EQ(4096, uzc_io_wait(&pk.io));
	EXPECT_TRUE(parked_got(&pk, 11));
	EXPECT_TRUE(wait_prog_cqes(self, pk.tag, 1, WAIT_MS));
	EXPECT_EQ(4096, self->res[pk.tag][0]);
	park_end(&pk);
}

/*
 * Unregister with an SQE in flight: the request keeps its SQE and
 * completes when it does; the next request goes to the server.
 */
TEST_F(bpf, unregister_under_io)
{
	struct uzc_io io;
	struct parked pk;
	void *buf;
	int tag;

	ASSERT_EQ(0, park(self, &pk, true));
	ASSERT_EQ(0, unreg_prog(self));
	ASSERT_EQ(0, unpark(&pk, 12));
	EXPECT_EQ(4096, uzc_io_wait(&pk.io));
	EXPECT_TRUE(parked_got(&pk, 12));
	EXPECT_TRUE(wait_prog_cqes(self, pk.tag, 1, WAIT_MS));
	forget_cqes(self, pk.tag);

	buf = io_start(self, &io, UZC_WRITE, 4096, 2);
	ASSERT_NE(NULL, buf);
	tag = next_req(self, WAIT_MS);
	ASSERT_LE(0, tag);
	EXPECT_FALSE(uzc_iod(&self->d, tag)->op_flags & UBLK_IO_F_BPF);
	ASSERT_EQ(0, uzc_commit(&self->d, tag, 4096));
	EXPECT_EQ(4096, uzc_io_wait(&io));
	free(buf);
	park_end(&pk);
}

/* the next CQE of the server's own (not a program SQE's) within @ms */
static int next_own_cqe(FIXTURE_DATA(bpf) *self, __u64 *ud, int ms)
{
	struct __kernel_timespec ts = { .tv_sec = ms / 1000,
					.tv_nsec = (ms % 1000) * 1000000LL };
	struct io_uring_cqe *cqe;
	int res;

	for (;;) {
		if (io_uring_wait_cqe_timeout(&self->d.q, &cqe, &ts))
			return -ETIMEDOUT;
		*ud = cqe->user_data;
		res = cqe->res;
		io_uring_cqe_seen(&self->d.q, cqe);
		if (!count_prog_cqe(self, *ud, res))
			return res;
	}
}

/* submit a NOP or WRITE of @buf to @fd, IOSQE_IO_DRAIN, user_data @ud */
static int submit_drained(FIXTURE_DATA(bpf) *self, int fd, const void *buf,
			  __u64 ud)
{
	struct io_uring_sqe *sqe = io_uring_get_sqe(&self->d.q);

	if (!sqe)
		return -EBUSY;
	if (fd < 0)
		io_uring_prep_nop(sqe);
	else
		io_uring_prep_write(sqe, fd, buf, 4096, 0);
	sqe->flags |= IOSQE_IO_DRAIN;
	sqe->user_data = ud;
	return io_uring_submit(&self->d.q) == 1 ? 0 : -EIO;
}

/*
 * Drain orders the server's SQEs only: a drained request submitted while
 * a program's SQE is in flight runs at once (it does not wait for the
 * SQE's CQE).  One tag, held by the server: no FETCH is in flight.
 */
TEST_F(bpf, drain_does_not_wait_for_program_sqe)
{
	struct parked pk;
	__u64 ud = 0;

	ASSERT_EQ(0, uzc_dev_destroy(&self->d));
	ASSERT_EQ(0, uzc_dev_create(&self->d, FLAGS, 1, UZC_ZC_MAX_IO,
				    DEV_SIZE, true));
	ASSERT_EQ(0, park(self, &pk, false));
	ASSERT_EQ(0, submit_drained(self, -1, NULL, 0x1234));
	EXPECT_EQ(0, next_own_cqe(self, &ud, WAIT_MS))
		TH_LOG("the drained NOP waits for the parked program SQE");
	EXPECT_EQ(0x1234, ud);
	EXPECT_EQ(0, self->nr_cqes[pk.tag]);
	ASSERT_EQ(0, unpark(&pk, 13));
	ASSERT_TRUE(wait_prog_cqes(self, pk.tag, 1, WAIT_MS));
	EXPECT_EQ(4096, self->res[pk.tag][0]);
	forget_cqes(self, pk.tag);
	if (ud != 0x1234)	/* the NOP came after the SQE after all */
		EXPECT_EQ(0, next_own_cqe(self, &ud, WAIT_MS));
	ASSERT_EQ(0, uzc_commit(&self->d, pk.tag, 4096));
	EXPECT_EQ(4096, uzc_io_wait(&pk.io));
	EXPECT_TRUE(parked_got(&pk, 13));
	park_end(&pk);
}

/*
 * The review's shape: a drained WRITE to a pipe, submitted while the
 * FETCH is in flight, and a READ request the program redirects to that
 * pipe.  The drained WRITE waits for the FETCH's CQE only, then fills
 * the pipe for the program's READ, which was submitted after it; counted
 * in drain, the READ would wait for the WRITE and the WRITE for the READ
 * until the server died.  One tag.
 */
TEST_F(bpf, drain_feeds_later_program_read)
{
	char *data = uzc_xalloc(4096), *buf;
	int p[2], tag = -1, wrote = -1, res;
	bool unblocked = false;
	struct prog_opts o;
	struct uzc_io io;
	__u64 ud;

	ASSERT_NE(NULL, data);
	ASSERT_EQ(0, pipe(p));
	ASSERT_EQ(0, uzc_dev_destroy(&self->d));
	ASSERT_EQ(0, uzc_dev_create(&self->d, FLAGS, 1, UZC_ZC_MAX_IO,
				    DEV_SIZE, true));
	opts_default(&o, p[0], self->d.q.ring_fd, self->map);
	o.piece = 4096;
	ASSERT_EQ(0, reg_prog(self, load_redirect(&o)));
	uzc_fill(data, 4096, 21);
	ASSERT_EQ(0, submit_drained(self, p[1], data, 0x1234));
	/* the drained WRITE waits for the FETCH */
	EXPECT_TRUE(uzc_cq_quiet(&self->d.q, 100));
	buf = io_start(self, &io, UZC_READ, 4096, 0);
	ASSERT_NE(NULL, buf);
	/* the FETCH's CQE and the drained WRITE's; the program READ's below */
	while (tag < 0 || wrote < 0) {
		res = next_own_cqe(self, &ud, WAIT_MS);
		if (res == -ETIMEDOUT && !unblocked) {
			/* stuck: fill the pipe from here to end the case */
			EXPECT_FALSE(true)
				TH_LOG("hung: FETCH %s, WRITE %d, READ CQEs %u",
				       tag < 0 ? "pending" : "done", wrote,
				       self->nr_cqes[0]);
			ASSERT_EQ(4096, write(p[1], data, 4096));
			unblocked = true;
			continue;
		}
		ASSERT_NE(-ETIMEDOUT, res);
		if (ud == 0x1234) {
			wrote = res;
		} else {
			self->d.nr_active--;
			tag = ud & 0xffff;
		}
	}
	EXPECT_EQ(4096, wrote);
	ASSERT_TRUE(wait_prog_cqes(self, 0, 1, WAIT_MS));
	EXPECT_EQ(4096, self->res[0][0]);
	EXPECT_TRUE(uzc_iod(&self->d, tag)->op_flags & UBLK_IO_F_BPF);
	ASSERT_EQ(0, uzc_commit(&self->d, tag, 4096));
	EXPECT_EQ(4096, uzc_io_wait(&io));
	EXPECT_EQ(0, memcmp(buf, data, 4096));
	forget_cqes(self, 0);
	close(p[0]);
	close(p[1]);
	free(buf);
	free(data);
}

/*
 * A server that enters its ring through io_uring_register_ring_fd() and
 * closed the ring's fd: its requests are redirected all the same.  The
 * program passes the closed fd's number where the RFC's helper took a
 * ring fd, as a program written for it would (the number may be reused
 * by the time a request comes, for the block device io_start() opens:
 * either way not a ring, which v2's helper refused); v3's takes no fd.
 */
TEST_F(bpf, registered_ring_fd_server)
{
	long long rets[UBLK_BPF_MAX_SQES + 1];
	static const enum uzc_io_op ops[] = { UZC_WRITE, UZC_READ };
	char *want = uzc_xalloc(16384), *buf;
	int ring_fd = self->d.q.ring_fd, hidden, tag;
	struct prog_opts o;
	struct uzc_io io;
	unsigned int i;

	ASSERT_NE(NULL, want);
	ASSERT_EQ(1, io_uring_register_ring_fd(&self->d.q));
	/*
	 * liburing 2.3 has no io_uring_close_ring_fd(): close the fd the
	 * program names here; io_uring_enter() goes through the registered
	 * index, and the file stays open under another number for what
	 * liburing does with the fd itself (unregister and exit at teardown)
	 */
	hidden = fcntl(ring_fd, F_DUPFD_CLOEXEC, 512);
	ASSERT_LE(0, hidden);
	ASSERT_EQ(0, close(ring_fd));
	self->d.q.ring_fd = hidden;
	opts_default(&o, self->file, ring_fd, self->map);
	ASSERT_EQ(0, reg_prog(self, load_redirect(&o)));
	for (i = 0; i < ARRAY_SIZE(ops); i++) {
		buf = io_start(self, &io, ops[i], 16384, 60);
		ASSERT_NE(NULL, buf);
		tag = next_req(self, WAIT_MS);
		ASSERT_LE(0, tag);
		rets_read(self->map, rets);
		EXPECT_EQ(0, rets[0]) TH_LOG("op %d", ops[i]);
		if (uzc_iod(&self->d, tag)->op_flags & UBLK_IO_F_BPF) {
			EXPECT_EQ(1, serve_redirected(self, tag));
		} else {
			EXPECT_FALSE(true) TH_LOG("op %d passed", ops[i]);
			ASSERT_EQ(0, uzc_serve_default(&self->d, tag));
		}
		EXPECT_EQ(16384, uzc_io_wait(&io));
		/* the WRITE's bytes, read back through the program */
		if (ops[i] == UZC_WRITE)
			memcpy(want, buf, 16384);
		else
			EXPECT_EQ(0, memcmp(buf, want, 16384));
		EXPECT_TRUE(file_has(self->file, want, 16384));
		free(buf);
	}
	free(want);
}

/*
 * The server's ring set up as servers do (REVIEW.md, where the op runs):
 * SQPOLL (the commands, the task work and the program's SQEs all come
 * from the poll thread), DEFER_TASKRUN | SINGLE_ISSUER (the task work
 * runs when the server waits), COOP_TASKRUN; a redirected READ and WRITE
 * each move their data.  (ublk 6.12 refuses its commands on an IOPOLL
 * ring: it has no ->uring_cmd_iopoll.)  Three devices one after another:
 * the harness's 30 s ran out on the debug kernel in a loaded TCG guest.
 */
TEST_F_TIMEOUT(bpf, ring_setups, 120)
{
	static const __u32 setups[] = {
		IORING_SETUP_SQPOLL,
		IORING_SETUP_DEFER_TASKRUN | IORING_SETUP_SINGLE_ISSUER,
		IORING_SETUP_COOP_TASKRUN | IORING_SETUP_TASKRUN_FLAG,
	};
	const size_t len = 16384;
	char *want = uzc_xalloc(len), *buf;
	struct prog_opts o;
	struct uzc_io io;
	unsigned int i;
	int tag;

	ASSERT_NE(NULL, want);
	for (i = 0; i < ARRAY_SIZE(setups); i++) {
		if (self->registered)
			ASSERT_EQ(0, unreg_prog(self));
		ASSERT_EQ(0, uzc_dev_destroy(&self->d));
		ring_extra_flags = setups[i];
		ASSERT_EQ(0, uzc_dev_create(&self->d, FLAGS, DEPTH,
					    UZC_ZC_MAX_IO, DEV_SIZE, true))
			TH_LOG("setup flags %#x", setups[i]);
		opts_default(&o, self->file, self->d.q.ring_fd, self->map);
		ASSERT_EQ(0, reg_prog(self, load_redirect(&o)));
		/* READ: the file's bytes reach the reader */
		uzc_fill(want, len, 40 + i);
		ASSERT_EQ(len, pwrite(self->file, want, len, SECTOR << 9));
		buf = io_start(self, &io, UZC_READ, len, 0);
		ASSERT_NE(NULL, buf);
		tag = next_req(self, WAIT_MS);
		ASSERT_LE(0, tag) TH_LOG("setup flags %#x", setups[i]);
		EXPECT_EQ(1, serve_redirected(self, tag));
		EXPECT_EQ(len, uzc_io_wait(&io));
		EXPECT_EQ(0, memcmp(buf, want, len))
			TH_LOG("setup flags %#x", setups[i]);
		free(buf);
		/* WRITE: the writer's bytes reach the file */
		buf = io_start(self, &io, UZC_WRITE, len, 50 + i);
		ASSERT_NE(NULL, buf);
		tag = next_req(self, WAIT_MS);
		ASSERT_LE(0, tag);
		EXPECT_EQ(1, serve_redirected(self, tag));
		EXPECT_EQ(len, uzc_io_wait(&io));
		EXPECT_TRUE(file_has(self->file, buf, len))
			TH_LOG("setup flags %#x", setups[i]);
		free(buf);
	}
	ring_extra_flags = 0;
	free(want);
}

/*
 * A copy-mode device (UBLK_F_BPF without USER_COPY): a redirected READ
 * fills the request's pages and never the server's buffer, and the
 * request references the program's SQEs take do not open user copy:
 * pwrite() and pread() on the char device fail as without UBLK_F_BPF.
 */
TEST_F(bpf, copy_mode_redirects_without_user_copy)
{
	const size_t len = 65536;
	const __u64 pos = UBLKSRV_IO_BUF_OFFSET;	/* queue 0 */
	char *want = uzc_xalloc(len), *got = uzc_xalloc(len), *buf;
	struct prog_opts o;
	struct uzc_io io;
	int tag;

	ASSERT_NE(NULL, want);
	ASSERT_NE(NULL, got);
	ASSERT_EQ(0, uzc_dev_destroy(&self->d));
	uzc_copy_bufs = uzc_xalloc(DEPTH * UZC_ZC_MAX_IO);
	ASSERT_NE(NULL, uzc_copy_bufs);
	memset(uzc_copy_bufs, 0x5a, DEPTH * UZC_ZC_MAX_IO);
	ASSERT_EQ(0, uzc_dev_create(&self->d, UBLK_F_BPF, DEPTH, UZC_ZC_MAX_IO,
				    DEV_SIZE, true));
	ASSERT_FALSE(self->d.flags & UBLK_F_USER_COPY);
	uzc_fill(want, len, 17);
	ASSERT_EQ(len, pwrite(self->file, want, len, SECTOR << 9));
	opts_default(&o, self->file, self->d.q.ring_fd, self->map);
	ASSERT_EQ(0, reg_prog(self, load_redirect(&o)));
	buf = io_start(self, &io, UZC_READ, len, 0);
	ASSERT_NE(NULL, buf);
	tag = next_req(self, WAIT_MS);
	ASSERT_LE(0, tag);
	/* a READ request takes data by pwrite() in user copy */
	memset(got, 0x77, len);
	EXPECT_EQ(-1, pwrite(self->d.cdev_fd, got, 4096,
			     pos + ((__u64)tag << UBLK_TAG_OFF)));
	EXPECT_EQ(EINVAL, errno);
	EXPECT_EQ(-1, pread(self->d.cdev_fd, got, 4096,
			    pos + ((__u64)tag << UBLK_TAG_OFF)));
	EXPECT_EQ(EINVAL, errno);
	EXPECT_EQ(1, serve_redirected(self, tag));
	EXPECT_EQ(len, uzc_io_wait(&io));
	EXPECT_EQ(0, memcmp(buf, want, len));
	memset(got, 0x5a, len);
	EXPECT_EQ(0, memcmp(uzc_copy_bufs + (size_t)tag * UZC_ZC_MAX_IO, got,
			    len));
	/* the device goes before the buffers it names */
	EXPECT_EQ(0, unreg_prog(self));
	EXPECT_EQ(0, uzc_dev_destroy(&self->d));
	free(uzc_copy_bufs);
	uzc_copy_bufs = NULL;
	free(buf);
	free(want);
	free(got);
}

/* a one-tag device whose program redirects READs to the backing file */
static void one_tag_redirect(struct __test_metadata *_metadata,
			     FIXTURE_DATA(bpf) *self)
{
	struct prog_opts o;

	ASSERT_EQ(0, uzc_dev_destroy(&self->d));
	ASSERT_EQ(0, uzc_dev_create(&self->d, FLAGS, 1, UZC_ZC_MAX_IO,
				    DEV_SIZE, true));
	opts_default(&o, self->file, self->d.q.ring_fd, self->map);
	ASSERT_EQ(0, reg_prog(self, load_redirect(&o)));
}

/* submit a READ of 4096 bytes from @fd (a pipe), @flags, user_data @ud */
static int submit_read(FIXTURE_DATA(bpf) *self, int fd, void *buf,
		       __u8 flags, __u64 ud)
{
	struct io_uring_sqe *sqe = io_uring_get_sqe(&self->d.q);

	if (!sqe)
		return -EBUSY;
	io_uring_prep_read(sqe, fd, buf, 4096, 0);
	sqe->flags |= flags;
	sqe->user_data = ud;
	return 0;
}

/* a one-tag case whose server READs a page of @data from pipe @p */
struct pipe_case {
	int p[2];
	char *data, *got;
};

static void start_pipe_case(struct __test_metadata *_metadata,
			    FIXTURE_DATA(bpf) *self, struct pipe_case *pc)
{
	pc->data = uzc_xalloc(4096);
	pc->got = uzc_xalloc(4096);
	ASSERT_NE(NULL, pc->data);
	ASSERT_NE(NULL, pc->got);
	ASSERT_EQ(0, pipe(pc->p));
	one_tag_redirect(_metadata, self);
}

/*
 * The end: the server's READ got @pc's data, the request of @tag is
 * committed and its block I/O @io (buffer @buf) done, all freed.
 */
static void end_pipe_case(struct __test_metadata *_metadata,
			  FIXTURE_DATA(bpf) *self, struct pipe_case *pc,
			  int tag, struct uzc_io *io, char *buf)
{
	EXPECT_EQ(0, memcmp(pc->got, pc->data, 4096));
	EXPECT_EQ(0, uzc_commit(&self->d, tag, 4096));
	EXPECT_EQ(4096, uzc_io_wait(io));
	forget_cqes(self, tag);
	close(pc->p[0]);
	close(pc->p[1]);
	free(buf);
	free(pc->data);
	free(pc->got);
}

/*
 * A program SQE is never held behind a drained request: the server's
 * drained NOP waits behind its own READ of an empty pipe, and the SQE of
 * a READ request that comes meanwhile completes before the pipe is
 * written.  One tag.
 */
TEST_F(bpf, drain_pending_does_not_hold_program_sqe)
{
	struct pipe_case pc;
	struct uzc_io io;
	int tag, res;
	char *buf;
	__u64 ud;

	start_pipe_case(_metadata, self, &pc);
	ASSERT_EQ(0, submit_read(self, pc.p[0], pc.got, 0, 0x1001));
	ASSERT_EQ(1, io_uring_submit(&self->d.q));
	ASSERT_EQ(0, submit_drained(self, -1, NULL, 0x1234));
	EXPECT_TRUE(uzc_cq_quiet(&self->d.q, 100));
	buf = io_start(self, &io, UZC_READ, 4096, 0);
	ASSERT_NE(NULL, buf);
	tag = next_req(self, WAIT_MS);
	ASSERT_LE(0, tag);
	/* the program's READ of the file, with the NOP still deferred */
	EXPECT_TRUE(wait_prog_cqes(self, tag, 1, WAIT_MS))
		TH_LOG("the program SQE waits behind the drained NOP");
	EXPECT_EQ(0, self->d.nr_active);
	uzc_fill(pc.data, 4096, 31);
	ASSERT_EQ(4096, write(pc.p[1], pc.data, 4096));
	/* then the server's READ and the NOP, in that order */
	res = next_own_cqe(self, &ud, WAIT_MS);
	EXPECT_EQ(0x1001, ud);
	EXPECT_EQ(4096, res);
	res = next_own_cqe(self, &ud, WAIT_MS);
	EXPECT_EQ(0x1234, ud);
	EXPECT_EQ(0, res);
	if (self->nr_cqes[tag] < 1)
		EXPECT_TRUE(wait_prog_cqes(self, tag, 1, WAIT_MS));
	EXPECT_EQ(4096, self->res[tag][0]);
	end_pipe_case(_metadata, self, &pc, tag, &io, buf);
}

/*
 * A drained request submitted after a program SQE's CQE was posted runs
 * at once: the CQE counted in ->cq_extra as it was posted, so the SQ's
 * sequence and the CQ's tail still agree.  One tag, held by the server.
 */
TEST_F(bpf, drain_after_program_cqe)
{
	struct uzc_io io;
	int tag, res;
	void *buf;
	__u64 ud;

	one_tag_redirect(_metadata, self);
	buf = io_start(self, &io, UZC_READ, 4096, 0);
	ASSERT_NE(NULL, buf);
	tag = next_req(self, WAIT_MS);
	ASSERT_LE(0, tag);
	ASSERT_TRUE(wait_prog_cqes(self, tag, 1, WAIT_MS));
	ASSERT_EQ(0, submit_drained(self, -1, NULL, 0x1234));
	res = next_own_cqe(self, &ud, WAIT_MS);
	EXPECT_EQ(0, res) TH_LOG("the drained NOP never ran");
	EXPECT_EQ(0x1234, ud);
	ASSERT_EQ(0, uzc_commit(&self->d, tag, 4096));
	EXPECT_EQ(4096, uzc_io_wait(&io));
	forget_cqes(self, tag);
	free(buf);
}

/*
 * IOSQE_IO_DRAIN inside a link drains the request after the link: a
 * program SQE submitted in between does not take that over, so the
 * server's next SQE is still drained behind the linked READ.  One tag.
 */
TEST_F(bpf, drain_after_link_not_taken_by_program_sqe)
{
	struct io_uring_sqe *sqe;
	struct pipe_case pc;
	int tag, res, i;
	bool nop_c = false;
	struct uzc_io io;
	char *buf;
	__u64 ud;

	start_pipe_case(_metadata, self, &pc);
	/* A: READ of an empty pipe, linked to B: a NOP with IOSQE_IO_DRAIN */
	ASSERT_EQ(0, submit_read(self, pc.p[0], pc.got, IOSQE_IO_LINK,
				 0x1001));
	sqe = io_uring_get_sqe(&self->d.q);
	ASSERT_NE(NULL, sqe);
	io_uring_prep_nop(sqe);
	sqe->flags |= IOSQE_IO_DRAIN;
	sqe->user_data = 0x1002;
	ASSERT_EQ(2, io_uring_submit(&self->d.q));
	/* a READ request: the program's SQE comes from the FETCH's task work */
	buf = io_start(self, &io, UZC_READ, 4096, 0);
	ASSERT_NE(NULL, buf);
	tag = next_req(self, WAIT_MS);
	ASSERT_LE(0, tag);
	ASSERT_TRUE(wait_prog_cqes(self, tag, 1, WAIT_MS));
	/* C: a plain NOP, drained behind A and B by B's flag */
	sqe = io_uring_get_sqe(&self->d.q);
	ASSERT_NE(NULL, sqe);
	io_uring_prep_nop(sqe);
	sqe->user_data = 0x1003;
	ASSERT_EQ(1, io_uring_submit(&self->d.q));
	EXPECT_TRUE(uzc_cq_quiet(&self->d.q, 100))
		TH_LOG("the NOP after the link was not drained");
	uzc_fill(pc.data, 4096, 32);
	ASSERT_EQ(4096, write(pc.p[1], pc.data, 4096));
	for (i = 0; i < 3; i++) {
		res = next_own_cqe(self, &ud, WAIT_MS);
		ASSERT_NE(-ETIMEDOUT, res) TH_LOG("CQE %d of A, B, C", i);
		if (ud == 0x1003)
			nop_c = true;
		else
			EXPECT_FALSE(nop_c) TH_LOG("C before %#llx",
						   (unsigned long long)ud);
		EXPECT_EQ(ud == 0x1001 ? 4096 : 0, res);
	}
	end_pipe_case(_metadata, self, &pc, tag, &io, buf);
}

/*
 * The queue ring exits with an SQE in flight and no commit: the SQE is
 * cancelled, the request fails, nothing leaks or warns, and the device
 * can be deleted.
 */
TEST_F(bpf, ring_exit_with_sqe_in_flight)
{
	char line[256];
	struct parked pk;
	int kmsg;

	kmsg = uzc_kmsg_from_now();
	ASSERT_EQ(0, park(self, &pk, false));
	uzc_queue_close(&self->d);
	EXPECT_EQ(-EIO, uzc_io_wait(&pk.io));
	self->registered = false;	/* gone with the device */
	EXPECT_EQ(0, uzc_dev_del(&self->d));
	self->d.dev_id = -1;
	EXPECT_FALSE(uzc_kmsg_settle(kmsg, 500, line, sizeof(line)))
		TH_LOG("%s", line);
	if (kmsg >= 0)
		close(kmsg);
	park_end(&pk);
}

/*
 * The daemon's queue ring and device, with a redirect program parking each
 * READ on @pipe_rd; with @hold_ring a child the daemon forks keeps the ring
 * open after the daemon dies (fork() without exec, as a helper would).
 * Tells the test the device id, the holder's pid (or 0) and 'c' after the
 * commit of the first request on @ready.
 */
static void parked_daemon(FIXTURE_DATA(bpf) *self, int pipe_rd, int ready,
			  bool hold_ring)
{
	struct prog_opts o;
	struct uzc_dev d;
	pid_t holder = 0;
	int tag;
	char c;

	if (uzc_dev_create(&d, FLAGS, DEPTH, UZC_ZC_MAX_IO, DEV_SIZE, true))
		_exit(2);
	opts_default(&o, pipe_rd, d.q.ring_fd, self->map);
	o.piece = 4096;
	if (uzc_ctrl_cmd(&d, UBLK_U_CMD_REG_BPF_PROG, load_redirect(&o),
			 NULL, 0))
		_exit(3);
	if (hold_ring) {
		holder = fork();
		if (holder < 0)
			_exit(4);
		if (!holder) {
			/* the char device must not stay open: DEL_DEV waits for it */
			munmap(d.iods, d.iods_len);
			close(d.cdev_fd);
			for (;;)
				pause();
		}
	}
	c = d.dev_id;
	if (write(ready, &c, 1) != 1 ||
	    write(ready, &holder, sizeof(holder)) != sizeof(holder))
		_exit(5);
	tag = uzc_next_req(&d, 60000);
	if (tag < 0)
		_exit(6);
	uzc_commit(&d, tag, 4096);
	c = 'c';
	if (write(ready, &c, 1) != 1)
		_exit(7);
	for (;;)
		pause();
}

/*
 * The daemon is killed with an SQE in flight after its commit: the request
 * fails once the daemon's exit cancels the SQE, and the device is deleted,
 * also when the ring outlives the daemon (@hold_ring): exit must not wait
 * for the ring's last close.
 */
static void daemon_killed_with_sqe(FIXTURE_DATA(bpf) *self,
				   struct __test_metadata *_metadata,
				   bool hold_ring)
{
	struct parked pk;
	int status, ready[2];
	pid_t pid, holder;
	bool done;
	char c;

	ASSERT_EQ(0, pipe(ready));
	/* the device's queue moves to a child, which becomes the daemon */
	uzc_queue_close(&self->d);
	ASSERT_EQ(0, uzc_dev_del(&self->d));
	self->d.dev_id = -1;
	self->registered = false;
	ASSERT_EQ(0, pipe(pk.pipe));
	pid = fork();
	ASSERT_LE(0, pid);
	if (!pid)
		parked_daemon(self, pk.pipe[0], ready[1], hold_ring);
	ASSERT_EQ(1, read(ready[0], &c, 1));
	ASSERT_EQ(sizeof(holder), read(ready[0], &holder, sizeof(holder)));
	self->d.dev_id = c;
	snprintf(self->d.bdev_path, sizeof(self->d.bdev_path),
		 "/dev/ublkb%d", self->d.dev_id);
	pk.buf = io_start(self, &pk.io, UZC_READ, 4096, 0);
	ASSERT_NE(NULL, pk.buf);
	ASSERT_EQ(1, read(ready[0], &c, 1));
	EXPECT_FALSE(uzc_io_done(&pk.io, 200));
	kill(pid, SIGKILL);
	ASSERT_EQ(pid, waitpid(pid, &status, 0));
	done = uzc_io_done(&pk.io, WAIT_MS);
	EXPECT_TRUE(done);
	/* on failure, the holder's exit frees the ring and the test ends */
	if (!done && holder > 0)
		kill(holder, SIGKILL);
	EXPECT_EQ(-EIO, uzc_io_wait(&pk.io));
	EXPECT_TRUE(uzc_deleted_within(&self->d, WAIT_MS));
	if (holder > 0)
		kill(holder, SIGKILL);
	close(ready[0]);
	close(ready[1]);
	park_end(&pk);
}

TEST_F(bpf, daemon_killed_with_sqe_in_flight)
{
	daemon_killed_with_sqe(self, _metadata, false);
}

/* REVIEW.md: the ring outlives the daemon (a child forked without exec) */
TEST_F(bpf, daemon_killed_ring_outlives_daemon)
{
	daemon_killed_with_sqe(self, _metadata, true);
}

/*
 * Delete with an SQE in flight (committed): the request completes with
 * its data once the SQE does, and the delete then finishes.
 */
TEST_F(bpf, delete_waits_for_sqe)
{
	struct parked pk;
	pid_t del;

	ASSERT_EQ(0, park(self, &pk, true));
	ASSERT_EQ(0, unreg_prog(self));
	del = uzc_delete_start(&self->d);
	ASSERT_LT(0, del);
	usleep(200000);
	ASSERT_EQ(0, unpark(&pk, 14));
	EXPECT_EQ(4096, uzc_io_wait(&pk.io));
	EXPECT_TRUE(parked_got(&pk, 14));
	uzc_queue_close(&self->d);
	EXPECT_TRUE(uzc_delete_wait(&self->d, del, WAIT_MS));
	self->d.dev_id = -1;
	park_end(&pk);
}

/* many redirected I/Os of mixed sizes agree with the file */
TEST_F(bpf, redirect_loop_verifies)
{
	static const size_t sizes[] = { 512, 4096, 12288, 65536, 131072 };
	struct prog_opts o;
	unsigned int i;

	opts_default(&o, self->file, self->d.q.ring_fd, self->map);
	ASSERT_EQ(0, reg_prog(self, load_redirect(&o)));
	for (i = 0; i < 20; i++) {
		size_t len = sizes[i % 5];
		struct uzc_io io;
		char *w, *r;
		int tag;

		w = io_start(self, &io, UZC_WRITE, len, 100 + i);
		ASSERT_NE(NULL, w);
		tag = next_req(self, WAIT_MS);
		ASSERT_LE(0, tag);
		ASSERT_EQ(1, serve_redirected(self, tag));
		ASSERT_EQ((ssize_t)len, uzc_io_wait(&io));
		r = io_start(self, &io, UZC_READ, len, 0);
		ASSERT_NE(NULL, r);
		tag = next_req(self, WAIT_MS);
		ASSERT_LE(0, tag);
		ASSERT_EQ(1, serve_redirected(self, tag));
		ASSERT_EQ((ssize_t)len, uzc_io_wait(&io));
		EXPECT_EQ(0, memcmp(w, r, len)) TH_LOG("I/O %u, %zu bytes", i,
						       len);
		free(w);
		free(r);
	}
}

int main(int argc, char **argv)
{
	uzc_require(uzc_bpf_missing(), "bpf");
	return test_harness_run(argc, argv);
}
