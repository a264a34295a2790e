// SPDX-License-Identifier: GPL-2.0
/*
 * zc_fuzz: the fuzz ring itself.  Its setup is random (SQE128,
 * SUBMIT_ALL, IOPOLL, a sparse table of random size, registered files),
 * and besides the SQEs it runs, the fuzzer does things to the ring:
 * buffer table updates and unregistration, a clone of its table into
 * another ring, and teardown with buffers installed.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <sys/syscall.h>

#include "zc_fuzz.h"

struct io_uring FR;		/* fuzz ring: torn down at random */
void *ubuf[MAX_SLOTS];		/* user buffers for table slots */
unsigned long nr_teardowns;
unsigned long nr_teardown_lent;	/* with buffers installed */

/* ------------------------------------------------------------------ */
/* opening and closing it                                               */

void fuzz_ring_close(void)
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

int fuzz_ring_open(void)
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
/* table, clone and teardown: register-time ops on the fuzz ring        */

void table_op(void)
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
void clone_op(void)
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

int teardown_op(void)
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
