/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The uAPI of the bpf series (patches/bpf: Xiaoguang Wang's RFC v2 of
 * the eBPF design on 6.12), for code built against headers without it:
 * the ublk_zc selftests.  A kernel with the series has the same values
 * in include/uapi/linux/ublk_cmd.h and bpf.h; its macros win.
 *
 * Numbers: the control commands are the RFC's (0x0a, 0x0b, free
 * upstream), and so is the helper's id (212, the first after 6.12's
 * last helper).  BPF_PROG_TYPE_UBLK follows BPF_PROG_TYPE_NETFILTER (32)
 * in 6.12's enum.  UBLK_F_BPF is bit 50 and UBLK_IO_F_BPF bit 24: the
 * bits below are upstream's or the other designs' (regbuf 48, splice-rsrc
 * 49), so that UBLK_U_CMD_GET_FEATURES alone tells the kernels apart.
 */
#ifndef UBLK_ZC_UAPI_UBLK_BPF_H
#define UBLK_ZC_UAPI_UBLK_BPF_H

/*
 * <linux/ioctl.h>, not <sys/ioctl.h>: the bpf path's program includes
 * this file too, and glibc's headers do not build for clang -target bpf
 */
#include <linux/ioctl.h>
#include <linux/types.h>
#include <linux/ublk_cmd.h>

#define UBLK_BPF_PROG_TYPE		33	/* BPF_PROG_TYPE_UBLK */
#define UBLK_BPF_FUNC_QUEUE_SQE		212	/* BPF_FUNC_ublk_queue_sqe */

#ifndef UBLK_F_BPF
#define UBLK_F_BPF			(1ULL << 50)
#define UBLK_BPF_MAX_SQES		16
#endif
#ifndef UBLK_IO_F_BPF
#define UBLK_IO_F_BPF			(1U << 24)
#endif

/* a header with UBLK_U_CMD_REG_BPF_PROG has the context and verdicts */
#ifndef UBLK_U_CMD_REG_BPF_PROG
#define UBLK_U_CMD_REG_BPF_PROG		_IOWR('u', 0x0a, struct ublksrv_ctrl_cmd)
#define UBLK_U_CMD_UNREG_BPF_PROG	_IOWR('u', 0x0b, struct ublksrv_ctrl_cmd)

struct ublk_bpf_ctx {
	__u16	q_id;
	__u16	tag;
	__u8	op;
	__u8	reserved[3];
	__u32	nr_sectors;
	__u32	op_flags;
	__u64	start_sector;
};

enum {
	UBLK_BPF_IO_ABORTED = 0,
	UBLK_BPF_IO_DROP,
	UBLK_BPF_IO_PASS,
	UBLK_BPF_IO_REDIRECT,
};
#endif

#endif
