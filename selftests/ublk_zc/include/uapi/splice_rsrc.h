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

#endif
