// SPDX-License-Identifier: GPL-2.0
/*
 * fused: the fused-command series (Ming Lei's V2 ported to 6.12).  Every
 * leg is one IORING_OP_FUSED_CMD in a 128-byte SQE: the primary half is
 * UBLK_U_IO_FUSED_SUBMIT_IO naming {q_id, tag}, which lends the request
 * pages; the secondary half is a READ or WRITE whose addr is a byte
 * offset into them.  One secondary per fused command, so a mirror write
 * costs N fused commands: that is this design's cost, measured as is.
 *
 * The null target has one leg like every other path: one fused command
 * per request, whose secondary reads the null target's memfd or writes
 * /dev/null.
 */
#include <errno.h>
#include <stdio.h>
#include <sys/ioctl.h>

#include "path_common.h"
#include "uapi/fused.h"
/* splice-rsrc's second op: a kernel with it uses 58 for SPLICE_FROM */
#include "uapi/splice_rsrc.h"
#include "uapi/upstream.h"

static int fused_probe(uint64_t features, char *why, size_t whylen)
{
	/*
	 * upstream has op 58 (RECV_ZC), bit 0 (REGISTER_IO_BUF) and io
	 * command 0x23 (REGISTER_IO_BUF again): refused by its feature
	 * bits, not only because it also has op 59
	 */
	if (ublk_features_upstream(features)) {
		snprintf(why, whylen, "upstream ublk: op 58 is not FUSED_CMD "
			 "there (fused series, 6.12)");
		return -EOPNOTSUPP;
	}
	if (!(features & UBLK_F_SUPPORT_ZERO_COPY) ||
	    !uring_op_supported(IORING_OP_FUSED_CMD) ||
	    uring_op_supported(IORING_OP_BUF_REMOVE)) {
		snprintf(why, whylen, "kernel lacks IORING_OP_FUSED_CMD or ublk "
			 "UBLK_F_SUPPORT_ZERO_COPY (fused series)");
		return -EOPNOTSUPP;
	}
	return 0;
}

/* leg i as one fused command: primary names the request, secondary moves */
static void fused_prep_leg(struct ublk_queue *q, unsigned int tag, int i)
{
	const struct ublk_leg *leg = &q->ios[tag].legs[i];
	struct io_uring_sqe *sqe = ublk_get_sqe(q);
	struct io_uring_sqe *secondary = sqe + 1;
	struct ublksrv_io_cmd *cmd = (struct ublksrv_io_cmd *)sqe->cmd;
	int fd = ublk_fixed_backing(leg->backing);
	void *at = (void *)(uintptr_t)leg->buf_off;

	sqe->opcode = IORING_OP_FUSED_CMD;
	sqe->fd = UBLK_FIXED_CDEV;
	ublk_sqe_fixed_file(sqe);
	sqe->cmd_op = UBLK_U_IO_FUSED_SUBMIT_IO;
	sqe->user_data = ublk_ud(tag, UD_LEG, i);
	cmd->q_id = q->q_id;
	cmd->tag = tag;
	if (path_is_write(q, tag))
		io_uring_prep_write(secondary, fd, at, leg->len, leg->off);
	else
		io_uring_prep_read(secondary, fd, at, leg->len, leg->off);
	ublk_sqe_fixed_file(secondary);
}

static void fused_start(struct ublk_queue *q, unsigned int tag)
{
	struct ublk_io *io = &q->ios[tag];
	int n = path_map_request(q, tag), i;

	if (n == 0)
		ublk_commit(q, tag, path_result(q, tag));
	for (i = 0; i < n; i++) {
		fused_prep_leg(q, tag, i);
		io->pending++;
	}
}

static void fused_cqe(struct ublk_queue *q, unsigned int tag,
		      unsigned int kind, unsigned int leg, int res)
{
	/* a short secondary: another fused command for the rest */
	if (ublk_leg_advance(q, tag, kind, leg, &res)) {
		fused_prep_leg(q, tag, leg);
		return;
	}
	if (ublk_leg_done(q, tag, res))
		ublk_commit(q, tag, path_result(q, tag));
}

const struct ublk_path_ops path_fused = {
	.name = "fused",
	.help = "one IORING_OP_FUSED_CMD per leg lends the request pages (fused)",
	.dev_flags = UBLK_F_USER_COPY | UBLK_F_SUPPORT_ZERO_COPY,
	.sqe128 = true,
	.probe = fused_probe,
	.start = fused_start,
	.cqe = fused_cqe,
};
