// SPDX-License-Identifier: GPL-2.0
/*
 * regbuf: the design Linux merged, 6.15's UBLK_U_IO_REGISTER_IO_BUF and
 * UBLK_U_IO_UNREGISTER_IO_BUF (patches/regbuf 2/4 on 6.12, and upstream
 * 7.3 as is: same commands, numbers and arguments; the device flag is
 * the port's UBLK_F_REG_IO_BUF on 6.12, upstream's UBLK_F_SUPPORT_ZERO_COPY
 * on 7.3, see regbuf_dev_flags()).  Per request:
 * REGISTER_IO_BUF puts the request's pages in slot = tag of the queue
 * ring's buffer table, the legs are READ_FIXED/WRITE_FIXED at byte
 * offsets into the slot (a mirror's N writes and a stripe's chunks all
 * use the one registration), UNREGISTER_IO_BUF empties the slot, and
 * COMMIT_AND_FETCH completes the request once the legs are back.
 *
 * Register, legs and unregister go in one submission, unlinked, in that
 * order.  Upstream's kublk links them instead, which works from 6.15 on,
 * where a fixed buffer is imported at issue; on 6.12 a *_FIXED request
 * imports it at prep, and a link preps its members before its head runs,
 * so a leg linked behind the REGISTER would find the slot empty
 * (-EFAULT; the series' cover letter).  On 7.3 the unlinked order works
 * as well: the legs import the slot at issue, behind the REGISTER.  Unlinked, each SQE is prepared
 * and issued in submission order, and REGISTER and UNREGISTER complete
 * inline: the legs find the slot full and hold the buffer themselves,
 * so the UNREGISTER right behind them only empties the slot, and the
 * request completes when both its commit and its last leg are done.
 *
 * REGISTER and UNREGISTER post a CQE only when they fail
 * (IOSQE_CQE_SKIP_SUCCESS), as splice's install and remove do, so both
 * designs cost N + 2 SQEs and N CQEs per request besides the commit.
 */
#include <errno.h>
#include <stdio.h>

#include "path_common.h"
#include "uapi/regbuf.h"
#include "uapi/upstream.h"

enum { AUX_REGISTER, AUX_UNREGISTER };

/*
 * The flag that gives a device REGISTER_IO_BUF: the port's bit 48, or
 * upstream's bit 0 on an upstream kernel.  Bit 0 alone does not say so:
 * splice-rsrc and fused report it for their own designs (uapi/upstream.h).
 */
static uint64_t regbuf_dev_flags(uint64_t features)
{
	if (features & UBLK_F_REG_IO_BUF)
		return UBLK_F_REG_IO_BUF;
	if (ublk_features_upstream(features) &&
	    (features & UBLK_F_SUPPORT_ZERO_COPY))
		return UBLK_F_SUPPORT_ZERO_COPY;
	return 0;
}

static int regbuf_probe(uint64_t features, char *why, size_t whylen)
{
	if (regbuf_dev_flags(features))
		return 0;
	snprintf(why, whylen, "kernel ublk lacks UBLK_U_IO_REGISTER_IO_BUF "
		 "(regbuf series: UBLK_F_REG_IO_BUF; upstream: "
		 "UBLK_F_SUPPORT_ZERO_COPY)");
	return -EOPNOTSUPP;
}

/*
 * REGISTER_IO_BUF (slot = tag) or UNREGISTER_IO_BUF of it; the CQE, which
 * comes only on failure, says which of the two failed (AUX_*).
 */
static void prep_buf_cmd(struct ublk_queue *q, unsigned int tag,
			 unsigned int which)
{
	struct io_uring_sqe *sqe = ublk_get_sqe(q);
	struct ublksrv_io_cmd *cmd = (struct ublksrv_io_cmd *)sqe->cmd;

	sqe->opcode = IORING_OP_URING_CMD;
	sqe->fd = UBLK_FIXED_CDEV;
	ublk_sqe_fixed_file(sqe);
	sqe->cmd_op = which == AUX_REGISTER ? UBLK_U_IO_REGISTER_IO_BUF :
		      UBLK_U_IO_UNREGISTER_IO_BUF;
	sqe->flags |= IOSQE_CQE_SKIP_SUCCESS;
	sqe->user_data = ublk_ud(tag, UD_AUX, which);
	cmd->q_id = q->q_id;
	cmd->tag = tag;
	cmd->addr = tag;
}

static void prep_leg(struct ublk_queue *q, unsigned int tag, int i)
{
	path_prep_fixed_leg(q, tag, i, tag);
	q->ios[tag].pending++;
}

static void regbuf_start(struct ublk_queue *q, unsigned int tag)
{
	int n = path_map_request(q, tag), i;

	/* no legs, no bytes: nothing to register */
	if (n == 0)
		ublk_commit(q, tag, path_result(q, tag));
	if (n <= 0)
		return;
	prep_buf_cmd(q, tag, AUX_REGISTER);
	for (i = 0; i < n; i++)
		prep_leg(q, tag, i);
	prep_buf_cmd(q, tag, AUX_UNREGISTER);
}

/*
 * Legs cut short go again once every leg is back: the slot was emptied
 * in the first submission, so the request is registered again (it is
 * still the server's: not committed) for the legs that have a rest.
 */
static void regbuf_again(struct ublk_queue *q, unsigned int tag)
{
	struct ublk_io *io = &q->ios[tag];
	int i;

	prep_buf_cmd(q, tag, AUX_REGISTER);
	for (i = 0; i < io->nr_legs; i++)
		if (io->legs_again & (1ULL << i))
			prep_leg(q, tag, i);
	io->legs_again = 0;
	prep_buf_cmd(q, tag, AUX_UNREGISTER);
}

static void regbuf_cqe(struct ublk_queue *q, unsigned int tag,
		       unsigned int kind, unsigned int leg, int res)
{
	if (kind == UD_AUX)
		path_slot_op_failed(q, tag, leg == AUX_REGISTER ?
				    "REGISTER_IO_BUF" : "UNREGISTER_IO_BUF",
				    res);
	else
		path_slot_leg_back(q, tag, kind, leg, res, regbuf_again);
}

const struct ublk_path_ops path_regbuf = {
	.name = "regbuf",
	.help = "REGISTER_IO_BUF puts the request pages in the buffer table (regbuf)",
	.dev_flags = UBLK_F_REG_IO_BUF,
	.dev_flags_for = regbuf_dev_flags,
	.probe = regbuf_probe,
	.queue_init = path_slot_table_init,
	.start = regbuf_start,
	.cqe = regbuf_cqe,
};
