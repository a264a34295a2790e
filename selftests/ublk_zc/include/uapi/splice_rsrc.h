/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The uAPI of the splice-rsrc series (patches/splice-rsrc), for code that
 * is built against headers without it: the ublk_zc selftests and abtool
 * (tools/abtool, data path "splice"), both of which probe the running
 * kernel for these ops.  Defined here once; a kernel with the series has
 * the same numbers in include/uapi/linux/io_uring.h, where they are
 * members of enum io_uring_op (#ifndef cannot see those: it only keeps
 * this header out of the way of a future header that makes them macros).
 * liburing.h comes first: it includes its own copy of io_uring.h under
 * the kernel's include guard, so a series kernel's enum is never parsed
 * after these macros (and if it came first, they name the same numbers).
 *
 * Op 58 is IORING_OP_FUSED_CMD on a fused kernel: a kernel that has op
 * 58 runs splice-rsrc if it also has op 59 (uapi/fused.h).
 */
#ifndef UBLK_ZC_UAPI_SPLICE_RSRC_H
#define UBLK_ZC_UAPI_SPLICE_RSRC_H

#include <liburing.h>

/* install pages lent by a file (ublk: a request) in a registered-buffer slot */
#ifndef IORING_OP_SPLICE_FROM
#define IORING_OP_SPLICE_FROM	58
#endif
/* empty a slot that SPLICE_FROM filled */
#ifndef IORING_OP_BUF_REMOVE
#define IORING_OP_BUF_REMOVE	59
#endif

/*
 * ublk device flag of v6 (8/8): each READ/WRITE request is lent into the
 * slot named in the sqe->addr of the FETCH/COMMIT_AND_FETCH that hands it
 * over, and its commit empties that slot.  Bit 49: clear of upstream's
 * flags and of the regbuf series' UBLK_F_REG_IO_BUF (48), so that
 * UBLK_U_CMD_GET_FEATURES alone tells the kernels apart.
 */
#ifndef UBLK_F_AUTO_LEND
#define UBLK_F_AUTO_LEND		(1ULL << 49)
#define UBLK_AUTO_LEND_SLOT_MASK	0xffffULL
#endif

/*
 * The series on Linux 7.3 (patches/splice-rsrc-7.3) numbers after 7.3's
 * own: ops 65 and 66 (7.3 ends at IORING_OP_URING_CMD128, 64), the
 * lending flag UBLK_F_LEND is bit 21 (bit 0 is REGISTER_IO_BUF there)
 * and UBLK_F_AUTO_LEND bit 22 (7.3 ends at bit 20).  The names above
 * keep the 6.12 numbers (the fused and bpf detection relies on them);
 * code that lends asks uzc_splice_uapi() for the running kernel's.
 * These, too, are for code built against the base (6.12) headers: a
 * 7.3 series header would make UBLK_F_AUTO_LEND bit 22.
 */
#define IORING_OP_SPLICE_FROM_73	65
#define IORING_OP_BUF_REMOVE_73		66
#ifndef UBLK_F_LEND
#define UBLK_F_LEND			(1ULL << 21)
#endif
#define UBLK_F_AUTO_LEND_73		(1ULL << 22)

/* the splice-rsrc numbers of the running kernel */
struct uzc_splice_uapi {
	unsigned char op_splice_from;	/* IORING_OP_SPLICE_FROM */
	unsigned char op_buf_remove;	/* IORING_OP_BUF_REMOVE */
	unsigned long long f_lend;	/* device flag: lends by SPLICE_FROM */
	unsigned long long f_auto_lend;	/* device flag: lends at delivery */
	int v73;			/* the 7.3 series' numbers */
};

/*
 * Which numbering to use: a kernel with ops 65 and 66 runs the 7.3
 * series (stock 7.3 has neither; a 6.12 kernel ends at 59 or 60).  That
 * picks the numbers only; whether the kernel really is a splice-rsrc
 * kernel is uzc_splice_features_ok()'s question, asked of GET_FEATURES.
 * The probe runs once per program (per translation unit: same answer).
 */
static inline const struct uzc_splice_uapi *uzc_splice_uapi(void)
{
	static const struct uzc_splice_uapi u612 = {
		IORING_OP_SPLICE_FROM, IORING_OP_BUF_REMOVE,
		1ULL << 0, UBLK_F_AUTO_LEND, 0,
	};
	static const struct uzc_splice_uapi u73 = {
		IORING_OP_SPLICE_FROM_73, IORING_OP_BUF_REMOVE_73,
		UBLK_F_LEND, UBLK_F_AUTO_LEND_73, 1,
	};
	static const struct uzc_splice_uapi *u;

	if (!u) {
		struct io_uring_probe *p = io_uring_get_probe();
		int v73 = p &&
			io_uring_opcode_supported(p, IORING_OP_SPLICE_FROM_73) &&
			io_uring_opcode_supported(p, IORING_OP_BUF_REMOVE_73);

		if (p)
			io_uring_free_probe(p);
		u = v73 ? &u73 : &u612;
	}
	return u;
}

#define UZC_OP_SPLICE_FROM	(uzc_splice_uapi()->op_splice_from)
#define UZC_OP_BUF_REMOVE	(uzc_splice_uapi()->op_buf_remove)
#define UZC_F_LEND		(uzc_splice_uapi()->f_lend)
#define UZC_F_AUTO_LEND		(uzc_splice_uapi()->f_auto_lend)
/*
 * A lent buffer imported in the wrong direction: -EACCES on the 6.12
 * series; -EFAULT on 7.3, whose kernel buffers (io_import_fixed()) the
 * 7.3 series lends through, as for UBLK_U_IO_REGISTER_IO_BUF.
 */
#define UZC_EDIR		(uzc_splice_uapi()->v73 ? -EFAULT : -EACCES)
/* the kernel runs the 7.3 series: where 7.3's own rules differ (tests) */
#define UZC_V73			(uzc_splice_uapi()->v73)

/*
 * GET_FEATURES confirms the numbering: the 7.3 series reports 7.3's own
 * bits (UBLK_F_UPSTREAM_ONLY in uapi/upstream.h, which the caller passes
 * as @upstream) and UBLK_F_LEND; the 6.12 series none of 7.3's and bit 0.
 * Stock 7.3 (bit 0 and ops 58/59 with other meanings, no op 65) and the
 * other 6.12 series fail it.
 */
static inline int uzc_splice_features_ok(unsigned long long features,
					 int upstream)
{
	const struct uzc_splice_uapi *u = uzc_splice_uapi();

	return u->v73 ? upstream && (features & u->f_lend) :
			!upstream && (features & u->f_lend);
}

#endif
