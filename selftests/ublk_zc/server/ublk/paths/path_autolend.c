// SPDX-License-Identifier: GPL-2.0
/*
 * autolend: splice-rsrc's UBLK_F_AUTO_LEND (patches/splice-rsrc 8/8).
 * Each FETCH and COMMIT_AND_FETCH names, in its SQE's addr field, the
 * slot of the queue ring's buffer table that the tag's next request is
 * lent into: slot = tag.  The driver lends the request's pages there, as
 * an IORING_OP_SPLICE_FROM of the whole request would, before it posts
 * the CQE that hands the request over, and the COMMIT_AND_FETCH that
 * completes the request empties the slot, as IORING_OP_BUF_REMOVE would.
 * The legs are READ_FIXED/WRITE_FIXED into the slot at once: a request
 * costs its legs and its commit, no other SQE, as on autobuf.
 *
 * The loan fails only if the slot is taken (never here: every tag has
 * its own slot, which its commit empties before its next request comes)
 * or for lack of memory; the driver then fails that request with an I/O
 * error without handing it over, which the workload sees, as it would
 * see a failed SPLICE_FROM on the splice path.
 */
#include <errno.h>
#include <stdio.h>

#include "path_common.h"
#include "uapi/splice_rsrc.h"
#include "uapi/upstream.h"

static int autolend_probe(uint64_t features, char *why, size_t whylen)
{
	/* 6.12: bits 49 and 0; 7.3: bits 22 and 21 with 7.3's own */
	if ((features & UZC_F_AUTO_LEND) &&
	    uzc_splice_features_ok(features, ublk_features_upstream(features)))
		return 0;
	snprintf(why, whylen, "kernel ublk lacks UBLK_F_AUTO_LEND "
		 "(splice-rsrc series v6)");
	return -EOPNOTSUPP;
}

static uint64_t autolend_dev_flags(uint64_t features)
{
	(void)features;
	return UBLK_F_USER_COPY | UZC_F_LEND | UZC_F_AUTO_LEND;
}

static uint64_t autolend_cmd_sqe_addr(const struct ublk_queue *q,
				      unsigned int tag)
{
	(void)q;
	return tag;
}

const struct ublk_path_ops path_autolend = {
	.name = "autolend",
	.help = "request pages lent at delivery: AUTO_LEND (splice-rsrc v6)",
	.dev_flags = UBLK_F_USER_COPY | UBLK_F_SUPPORT_ZERO_COPY |
		     UBLK_F_AUTO_LEND,
	.dev_flags_for = autolend_dev_flags,
	.probe = autolend_probe,
	.queue_init = path_slot_table_init,
	.start = path_in_slot_start,
	.cqe = path_in_slot_cqe,
	.cmd_sqe_addr = autolend_cmd_sqe_addr,
};
