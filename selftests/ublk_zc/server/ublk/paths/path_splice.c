// SPDX-License-Identifier: GPL-2.0
/*
 * splice: the splice-rsrc series.  Each request's pages are installed in
 * the ring's registered-buffer table (slot = tag) with IORING_OP_SPLICE_FROM,
 * the legs are READ_FIXED/WRITE_FIXED at byte offsets into that buffer,
 * and IORING_OP_BUF_REMOVE empties the slot; all in one submission,
 * unlinked.  This relies on the series' ordering rule: unlinked SQEs are
 * prepared and issued in submission order, install and remove complete
 * inline, and a leg takes its own reference to the buffer at prep, so
 * the legs run concurrently and outlive the remove.
 *
 * Install and remove post CQEs only when they fail (CQE_SKIP_SUCCESS),
 * so a mirror write costs N + 2 SQEs and N CQEs.
 */
#include <errno.h>
#include <stdio.h>

#include "path_common.h"
#include "uapi/splice_rsrc.h"
#include "uapi/upstream.h"

enum { AUX_INSTALL, AUX_REMOVE };

static int splice_probe(uint64_t features, char *why, size_t whylen)
{
	/*
	 * The series on 7.3: ops 65/66 (uzc_splice_uapi()) and, in
	 * GET_FEATURES, 7.3's bits and UBLK_F_LEND (bit 21).
	 */
	if (uzc_splice_uapi()->v73) {
		if (uzc_splice_features_ok(features,
					   ublk_features_upstream(features)))
			return 0;
		snprintf(why, whylen, "io_uring has ops 65/66 but ublk lacks "
			 "UBLK_F_LEND (splice-rsrc series, 7.3)");
		return -EOPNOTSUPP;
	}
	/*
	 * the fused series also adds op 58; only splice-rsrc has both.
	 * Upstream has both as well (RECV_ZC, EPOLL_WAIT) and bit 0 (for
	 * REGISTER_IO_BUF): its own feature bits tell it apart.
	 */
	if (ublk_features_upstream(features)) {
		snprintf(why, whylen, "upstream ublk: ops 58/59 are not "
			 "SPLICE_FROM/BUF_REMOVE there (splice-rsrc series, 6.12)");
		return -EOPNOTSUPP;
	}
	if (!(features & UBLK_F_SUPPORT_ZERO_COPY) ||
	    !uring_op_supported(IORING_OP_SPLICE_FROM) ||
	    !uring_op_supported(IORING_OP_BUF_REMOVE)) {
		snprintf(why, whylen, "kernel lacks IORING_OP_SPLICE_FROM/BUF_REMOVE "
			 "or ublk UBLK_F_SUPPORT_ZERO_COPY (splice-rsrc series)");
		return -EOPNOTSUPP;
	}
	return 0;
}

/*
 * What install and remove share: both act on slot = tag, and their CQE,
 * when there is one, names which of the two it is (AUX_*) for
 * splice_cqe().
 */
static void prep_slot(struct io_uring_sqe *sqe, unsigned int tag,
		      unsigned int which, bool skip_success)
{
	sqe->buf_index = tag;
	sqe->user_data = ublk_ud(tag, UD_AUX, which);
	if (skip_success)
		sqe->flags |= IOSQE_CQE_SKIP_SUCCESS;
}

/*
 * Install the request's pages in slot = tag: SPLICE_FROM reads them from
 * /dev/ublkcN at the tag's user-copy position.  Its CQE comes only on
 * failure; success shows in the legs that use the slot.
 */
static void prep_install(struct ublk_queue *q, unsigned int tag)
{
	unsigned int len = ublk_iod(q, tag)->nr_sectors << 9;
	uint64_t pos = ublk_user_copy_pos(q->q_id, tag);
	struct io_uring_sqe *sqe = ublk_get_sqe(q);

	io_uring_prep_rw(UZC_OP_SPLICE_FROM, sqe, UBLK_FIXED_CDEV, NULL, len,
			 pos);
	ublk_sqe_fixed_file(sqe);
	prep_slot(sqe, tag, AUX_INSTALL, true);
}

/* Empty slot = tag; the legs keep their own references to the pages. */
static void prep_remove(struct ublk_queue *q, unsigned int tag,
			bool skip_success)
{
	struct io_uring_sqe *sqe = ublk_get_sqe(q);

	io_uring_prep_rw(UZC_OP_BUF_REMOVE, sqe, -1, NULL, 0, 0);
	prep_slot(sqe, tag, AUX_REMOVE, skip_success);
}

static void prep_leg(struct ublk_queue *q, unsigned int tag, int i)
{
	path_prep_fixed_leg(q, tag, i, tag);
	q->ios[tag].pending++;
}

static void splice_start(struct ublk_queue *q, unsigned int tag)
{
	struct ublk_io *io = &q->ios[tag];
	int n = path_map_request(q, tag), i;

	if (n < 0)
		return;
	prep_install(q, tag);
	for (i = 0; i < n; i++)
		prep_leg(q, tag, i);
	/* with no legs (null) the remove's CQE tells us the handoff is done */
	prep_remove(q, tag, n > 0);
	if (!n)
		io->pending++;
}

/*
 * Legs cut short go again once every leg is back: the slot was emptied in
 * the first submission, so the pages are lent again (the loan ended with
 * the last leg) for the legs that have a rest.
 */
static void splice_again(struct ublk_queue *q, unsigned int tag)
{
	struct ublk_io *io = &q->ios[tag];
	int i;

	prep_install(q, tag);
	for (i = 0; i < io->nr_legs; i++)
		if (io->legs_again & (1ULL << i))
			prep_leg(q, tag, i);
	io->legs_again = 0;
	prep_remove(q, tag, true);
}

/* bit 0 on the 6.12 series, UBLK_F_LEND (bit 21) on the 7.3 one */
static uint64_t splice_dev_flags(uint64_t features)
{
	(void)features;
	return UBLK_F_USER_COPY | UZC_F_LEND;
}

static void splice_cqe(struct ublk_queue *q, unsigned int tag,
		       unsigned int kind, unsigned int leg, int res)
{
	struct ublk_io *io = &q->ios[tag];

	/* a skipped-on-success install/remove failed */
	if (kind == UD_AUX && (io->nr_legs || leg == AUX_INSTALL))
		path_slot_op_failed(q, tag, leg == AUX_INSTALL ?
				    "SPLICE_FROM" : "BUF_REMOVE", res);
	else
		path_slot_leg_back(q, tag, kind, leg, res, splice_again);
}

const struct ublk_path_ops path_splice = {
	.name = "splice",
	.help = "request pages installed as a registered buffer (splice-rsrc)",
	.dev_flags = UBLK_F_USER_COPY | UBLK_F_SUPPORT_ZERO_COPY,
	.dev_flags_for = splice_dev_flags,
	.probe = splice_probe,
	.queue_init = path_slot_table_init,
	.start = splice_start,
	.cqe = splice_cqe,
};
