/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The uAPI of the regbuf series (patches/regbuf: Linux 6.15's
 * UBLK_U_IO_REGISTER_IO_BUF / UNREGISTER_IO_BUF and 6.16's
 * UBLK_F_AUTO_BUF_REG on 6.12), for code built against headers without
 * it: the ublk_zc selftests and abtool (data paths "regbuf" and
 * "autobuf").  A kernel with the series has the same values in
 * include/uapi/linux/ublk_cmd.h; its macros win.
 *
 * Numbers: the commands are upstream's (0x23, 0x24; the fused series
 * uses 0x23 for UBLK_U_IO_FUSED_SUBMIT_IO on its own kernels), and so
 * are UBLK_F_AUTO_BUF_REG (bit 11), UBLK_IO_F_NEED_REG_BUF and the
 * sqe->addr layout.  Upstream's device flag for REGISTER_IO_BUF is
 * UBLK_F_SUPPORT_ZERO_COPY (bit 0), which splice-rsrc and fused give
 * meanings of their own: the series uses UBLK_F_REG_IO_BUF, bit 48, so
 * that UBLK_U_CMD_GET_FEATURES alone tells the designs apart.
 */
#ifndef UBLK_ZC_UAPI_REGBUF_H
#define UBLK_ZC_UAPI_REGBUF_H

#include <sys/ioctl.h>
#include <linux/types.h>
#include <linux/ublk_cmd.h>

#ifndef UBLK_F_REG_IO_BUF
#define UBLK_F_REG_IO_BUF		(1ULL << 48)
#endif
#ifndef UBLK_F_AUTO_BUF_REG
#define UBLK_F_AUTO_BUF_REG		(1ULL << 11)
#endif
#ifndef UBLK_U_IO_REGISTER_IO_BUF
#define UBLK_U_IO_REGISTER_IO_BUF	_IOWR('u', 0x23, struct ublksrv_io_cmd)
#define UBLK_U_IO_UNREGISTER_IO_BUF	_IOWR('u', 0x24, struct ublksrv_io_cmd)
#endif
#ifndef UBLK_IO_F_NEED_REG_BUF
#define UBLK_IO_F_NEED_REG_BUF		(1U << 17)
#endif

/* a header with UBLK_AUTO_BUF_REG_FALLBACK has the struct and helpers */
#ifndef UBLK_AUTO_BUF_REG_FALLBACK
#define UBLK_AUTO_BUF_REG_FALLBACK	(1 << 0)
#define UBLK_AUTO_BUF_REG_F_MASK	UBLK_AUTO_BUF_REG_FALLBACK

struct ublk_auto_buf_reg {
	__u16	index;
	__u8	flags;
	__u8	reserved0;
	__u32	reserved1;
};

static inline __u64
ublk_auto_buf_reg_to_sqe_addr(const struct ublk_auto_buf_reg *reg)
{
	return (__u64)reg->index | (__u64)reg->flags << 16 |
		(__u64)reg->reserved0 << 24 | (__u64)reg->reserved1 << 32;
}
#endif

#endif
