// SPDX-License-Identifier: GPL-2.0
/*
 * autobuf: 6.16's UBLK_F_AUTO_BUF_REG (patches/regbuf 4/4 on 6.12; on
 * 7.3 upstream's, the same bit and sqe->addr layout).  Each FETCH
 * and COMMIT_AND_FETCH names, in its SQE's addr field (struct
 * ublk_auto_buf_reg), the slot of the queue ring's buffer table that the
 * tag's next request goes to: slot = tag.  The driver registers the
 * request's pages there before it posts the CQE that hands the request
 * over, and the COMMIT_AND_FETCH that completes the request empties the
 * slot.  The legs are READ_FIXED/WRITE_FIXED into the slot at once: the
 * registration is the handoff, on the null target too, and a request
 * costs its legs and its commit, no other SQE.
 *
 * No UBLK_AUTO_BUF_REG_FALLBACK: every tag has its own slot, which its
 * commit empties before its next request is registered, so registration
 * can only fail for lack of memory.  The driver then fails that request
 * with an I/O error, which the workload sees, as it would see a failed
 * REGISTER_IO_BUF on the regbuf path.
 */
#include <errno.h>
#include <stdio.h>

#include "path_common.h"
#include "uapi/regbuf.h"

static int autobuf_probe(uint64_t features, char *why, size_t whylen)
{
	if (features & UBLK_F_AUTO_BUF_REG)
		return 0;
	snprintf(why, whylen, "kernel ublk lacks UBLK_F_AUTO_BUF_REG "
		 "(regbuf series, Linux 6.16+)");
	return -EOPNOTSUPP;
}

static uint64_t autobuf_cmd_sqe_addr(const struct ublk_queue *q,
				     unsigned int tag)
{
	const struct ublk_auto_buf_reg reg = { .index = tag };

	(void)q;
	return ublk_auto_buf_reg_to_sqe_addr(&reg);
}

const struct ublk_path_ops path_autobuf = {
	.name = "autobuf",
	.help = "request pages registered at delivery: AUTO_BUF_REG (regbuf)",
	.dev_flags = UBLK_F_AUTO_BUF_REG,
	.probe = autobuf_probe,
	.queue_init = path_slot_table_init,
	.start = path_in_slot_start,
	.cqe = path_in_slot_cqe,
	.cmd_sqe_addr = autobuf_cmd_sqe_addr,
};
