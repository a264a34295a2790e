/* SPDX-License-Identifier: GPL-2.0 */
/*
 * ublk and io_uring uAPI of the base kernel (Linux 6.12) that the ublk_zc
 * selftests name and headers older than it may lack (Debian 12's
 * /usr/include is 6.1: no UBLK_F_USER_COPY, no UBLK_U_CMD_GET_FEATURES),
 * like kublk's ublk_dep.h: the real headers win.  Not enough for 6.1
 * headers as a whole (UBLK_U_CMD_ADD_DEV, UBLK_U_IO_FETCH_REQ,
 * UBLKSRV_IO_BUF_OFFSET, ... are newer too): the tests build against
 * 6.12's, a kernel tree's own (KHDR_INCLUDES) or build/headers/base.
 */
#ifndef UBLK_ZC_UAPI_BASE_H
#define UBLK_ZC_UAPI_BASE_H

#include <liburing.h>
#include <sys/ioctl.h>
#include <linux/ublk_cmd.h>

#ifndef UBLK_F_SUPPORT_ZERO_COPY
#define UBLK_F_SUPPORT_ZERO_COPY	(1ULL << 0)
#endif
#ifndef UBLK_F_USER_RECOVERY
#define UBLK_F_USER_RECOVERY		(1ULL << 3)
#endif
#ifndef UBLK_F_USER_RECOVERY_REISSUE
#define UBLK_F_USER_RECOVERY_REISSUE	(1ULL << 4)
#endif
#ifndef UBLK_F_USER_COPY
#define UBLK_F_USER_COPY		(1ULL << 7)
#endif
#ifndef UBLK_U_CMD_GET_FEATURES
#define UBLK_U_CMD_GET_FEATURES		_IOR('u', 0x13, struct ublksrv_ctrl_cmd)
#endif
#ifndef IORING_RECVSEND_FIXED_BUF
#define IORING_RECVSEND_FIXED_BUF	(1U << 2)
#endif

#endif
