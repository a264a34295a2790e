// SPDX-License-Identifier: GPL-2.0
/*
 * copy: ublk's built-in data path.  The driver copies a WRITE's pages into
 * the tag's daemon buffer before handing the request out, and copies the
 * buffer into a READ's pages at COMMIT; the target uses the buffer.
 */
#include "path_common.h"

static int copy_probe(uint64_t features, char *why, size_t whylen)
{
	(void)features, (void)why, (void)whylen;
	return 0;
}

static void copy_start(struct ublk_queue *q, unsigned int tag)
{
	int n = path_map_request(q, tag);

	if (n == 0)
		ublk_commit(q, tag, path_result(q, tag));
	else if (n > 0)
		ublk_submit_legs(q, tag, q->ios[tag].buf);
}

static void copy_cqe(struct ublk_queue *q, unsigned int tag,
		     unsigned int kind, unsigned int leg, int res)
{
	if (ublk_leg_short(q, tag, kind, leg, &res))
		return;
	if (ublk_leg_done(q, tag, res))
		ublk_commit(q, tag, path_result(q, tag));
}

const struct ublk_path_ops path_copy = {
	.name = "copy",
	.help = "the driver copies between request pages and a daemon buffer",
	.dev_flags = 0,
	.daemon_buffers = true,
	.kernel_copies = true,
	.probe = copy_probe,
	.start = copy_start,
	.cqe = copy_cqe,
};
