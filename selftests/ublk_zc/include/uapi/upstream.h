/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The uAPI of upstream Linux (7.3, the variant "upstream") that the base
 * kernel's (6.12) headers lack, for code built against them: abtool and
 * the ublk_zc selftests, which probe the running kernel.  A 7.3 header
 * has the same values; its macros win.  Also: how to tell 7.3's ublk
 * from the project's 6.12 kernels, whose series reuse numbers that 7.3
 * gives other meanings.
 *
 * Numbers the 6.12 series share with 7.3 (checked against 7.3's
 * include/uapi/linux/ublk_cmd.h and io_uring.h):
 *
 *   same meaning   UBLK_U_IO_REGISTER_IO_BUF / UNREGISTER_IO_BUF (0x23,
 *                  0x24), UBLK_F_AUTO_BUF_REG (bit 11), struct
 *                  ublk_auto_buf_reg and its sqe->addr packing,
 *                  UBLK_IO_F_NEED_REG_BUF (bit 17): the regbuf port's
 *                  (uapi/regbuf.h)
 *   collisions     UBLK_F_SUPPORT_ZERO_COPY (bit 0): REGISTER_IO_BUF on
 *                  7.3, lending through IORING_OP_SPLICE_FROM on
 *                  splice-rsrc, IORING_OP_FUSED_CMD on fused (the regbuf
 *                  port uses bit 48 instead; plain 6.12 does not report
 *                  bit 0);
 *                  io_uring ops 58 and 59: IORING_OP_RECV_ZC and
 *                  IORING_OP_EPOLL_WAIT on 7.3, SPLICE_FROM and
 *                  BUF_REMOVE on splice-rsrc, 58 FUSED_CMD on fused, so
 *                  "ops 58 and 59 plus bit 0" reads 7.3 as splice-rsrc;
 *                  io command 0x23: UBLK_U_IO_FUSED_SUBMIT_IO on fused
 *   free on 7.3    bits 48 (UBLK_F_REG_IO_BUF), 49 (UBLK_F_AUTO_LEND), 50
 *                  (UBLK_F_BPF), UBLK_IO_F_BPF (op_flags bit 24), control
 *                  commands 0x0a/0x0b (bpf), BPF prog type 33 and helper
 *                  212 (7.3 ends at 32 and 211).  7.3's ADD_DEV drops
 *                  flags it does not know without an error, so a path
 *                  must not create a device with one of these on 7.3:
 *                  each path's probe asks GET_FEATURES for its bit first
 *
 * So the kernel is told apart by GET_FEATURES: 7.3 reports bits that no
 * 6.12 kernel of the project sets (UBLK_F_UPSTREAM_ONLY), and a path of
 * a 6.12 series refuses a kernel that has them, whatever its opcodes
 * say.  A port of a series to 7.3 needs opcodes and bits of its own.
 */
#ifndef UBLK_ZC_UAPI_UPSTREAM_H
#define UBLK_ZC_UAPI_UPSTREAM_H

#include <stdbool.h>
#include <liburing.h>
#include <sys/ioctl.h>
#include <linux/types.h>
#include <linux/ublk_cmd.h>

#ifndef UBLK_F_UPDATE_SIZE
#define UBLK_F_UPDATE_SIZE		(1ULL << 10)
#endif
#ifndef UBLK_F_QUIESCE
#define UBLK_F_QUIESCE			(1ULL << 12)
#endif
#ifndef UBLK_F_PER_IO_DAEMON
#define UBLK_F_PER_IO_DAEMON		(1ULL << 13)
#endif
#ifndef UBLK_F_BUF_REG_OFF_DAEMON
#define UBLK_F_BUF_REG_OFF_DAEMON	(1ULL << 14)
#endif
#ifndef UBLK_F_BATCH_IO
#define UBLK_F_BATCH_IO			(1ULL << 15)
#endif
#ifndef UBLK_F_INTEGRITY
#define UBLK_F_INTEGRITY		(1ULL << 16)
#endif
#ifndef UBLK_F_SAFE_STOP_DEV
#define UBLK_F_SAFE_STOP_DEV		(1ULL << 17)
#endif
#ifndef UBLK_F_NO_AUTO_PART_SCAN
#define UBLK_F_NO_AUTO_PART_SCAN	(1ULL << 18)
#endif
#ifndef UBLK_F_SHMEM_ZC
#define UBLK_F_SHMEM_ZC			(1ULL << 19)
#endif
#ifndef UBLK_F_IO_DESC_SIZE
#define UBLK_F_IO_DESC_SIZE		(1ULL << 20)
#endif

/*
 * Bits Linux added after 6.12 that none of the project's 6.12 kernels
 * sets (bit 11, AUTO_BUF_REG, is the regbuf port's too).  7.3 reports
 * all of them but INTEGRITY, which needs CONFIG_BLK_DEV_INTEGRITY.
 */
#define UBLK_F_UPSTREAM_ONLY						\
	(UBLK_F_UPDATE_SIZE | UBLK_F_QUIESCE | UBLK_F_PER_IO_DAEMON |	\
	 UBLK_F_BUF_REG_OFF_DAEMON | UBLK_F_BATCH_IO | UBLK_F_INTEGRITY | \
	 UBLK_F_SAFE_STOP_DEV | UBLK_F_NO_AUTO_PART_SCAN |		\
	 UBLK_F_SHMEM_ZC | UBLK_F_IO_DESC_SIZE)

/* GET_FEATURES says: an upstream ublk (7.x), not a 6.12 series kernel */
static inline bool ublk_features_upstream(__u64 features)
{
	return features & UBLK_F_UPSTREAM_ONLY;
}

/* UBLK_F_BATCH_IO: one command prepares, commits or fetches many tags */
#ifndef UBLK_U_IO_PREP_IO_CMDS
#define UBLK_U_IO_PREP_IO_CMDS		_IOWR('u', 0x25, struct ublk_batch_io)
#define UBLK_U_IO_COMMIT_IO_CMDS	_IOWR('u', 0x26, struct ublk_batch_io)
#define UBLK_U_IO_FETCH_IO_CMDS		_IOWR('u', 0x27, struct ublk_batch_io)

/* one element of a PREP or COMMIT buffer, before the optional fields */
struct ublk_elem_header {
	__u16	tag;
	__u16	buf_index;	/* UBLK_F_AUTO_BUF_REG: slot of the next request */
	__s32	result;		/* COMMIT only */
};

/* the command, in the SQE's cmd area; sqe->addr holds the elements */
struct ublk_batch_io {
	__u16	q_id;
#define UBLK_BATCH_F_HAS_ZONE_LBA		(1 << 0)
#define UBLK_BATCH_F_HAS_BUF_ADDR		(1 << 1)
#define UBLK_BATCH_F_AUTO_BUF_REG_FALLBACK	(1 << 2)
	__u16	flags;
	__u16	nr_elem;
	__u8	elem_bytes;
	__u8	reserved;
	__u64	reserved2;
};
#endif

/* a multishot uring_cmd (FETCH_IO_CMDS), with a provided buffer */
#ifndef IORING_URING_CMD_MULTISHOT
#define IORING_URING_CMD_MULTISHOT	(1U << 1)
#endif

/*
 * IOU_PBUF_RING_INC (6.12): a provided buffer is consumed piecewise, as
 * much as each completion needs.  An enum member in the kernel's and
 * newer liburing's io_uring.h, which #ifndef cannot see: named apart.
 */
#define UBLK_ZC_PBUF_RING_INC		2

#endif
