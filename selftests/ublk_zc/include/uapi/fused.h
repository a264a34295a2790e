/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The uAPI of the fused-command series (patches/fused), for code that is
 * built against headers without it: the ublk_zc selftests and abtool
 * (tools/abtool, data path "fused"), both of which probe the running
 * kernel for the op.  Defined here once; a kernel with the series has
 * the same values in include/uapi/linux/io_uring.h (an enum io_uring_op
 * member, see uapi/splice_rsrc.h on why that cannot clash) and
 * include/uapi/linux/ublk_cmd.h (a macro: the kernel's wins).
 *
 * Op 58 is IORING_OP_SPLICE_FROM on a splice-rsrc kernel: a kernel that
 * has op 58 runs the fused series if it lacks op 59 (IORING_OP_LAST there).
 */
#ifndef UBLK_ZC_UAPI_FUSED_H
#define UBLK_ZC_UAPI_FUSED_H

#include <liburing.h>
#include <sys/ioctl.h>
#include <linux/ublk_cmd.h>

/* one SQE128: a uring_cmd that lends a buffer, a request that uses it */
#ifndef IORING_OP_FUSED_CMD
#define IORING_OP_FUSED_CMD	58
#endif
/* the primary for ublk: lends the pages of request {q_id, tag} */
#ifndef UBLK_U_IO_FUSED_SUBMIT_IO
#define UBLK_U_IO_FUSED_SUBMIT_IO	_IOWR('u', 0x23, struct ublksrv_io_cmd)
#endif

#endif
