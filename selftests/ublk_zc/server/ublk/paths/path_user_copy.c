// SPDX-License-Identifier: GPL-2.0
/*
 * user_copy: UBLK_F_USER_COPY.  The daemon reads a WRITE's data from the
 * char device (pread at the request's position) before the legs, and
 * writes a READ's data to it after the legs, then commits.
 */
#include <errno.h>
#include <stdio.h>

#include "path_common.h"

enum { STAGE_COPY_IN = PATH_STAGE_PRIVATE, STAGE_COPY_OUT };

static int user_copy_probe(uint64_t features, char *why, size_t whylen)
{
	if (features & UBLK_F_USER_COPY)
		return 0;
	snprintf(why, whylen, "kernel ublk lacks UBLK_F_USER_COPY");
	return -EOPNOTSUPP;
}

static void user_copy_start(struct ublk_queue *q, unsigned int tag)
{
	struct ublk_io *io = &q->ios[tag];
	int n = path_map_request(q, tag);

	if (n < 0)
		return;
	if (path_is_write(q, tag)) {
		io->stage = STAGE_COPY_IN;
		ublk_submit_user_copy(q, tag, false);
	} else if (n > 0) {
		io->stage = PATH_STAGE_LEGS;
		ublk_submit_legs(q, tag, io->buf);
	} else {
		io->stage = STAGE_COPY_OUT;
		ublk_submit_user_copy(q, tag, true);
	}
}

static void user_copy_cqe(struct ublk_queue *q, unsigned int tag,
			  unsigned int kind, unsigned int leg, int res)
{
	struct ublk_io *io = &q->ios[tag];

	if (ublk_leg_short(q, tag, kind, leg, &res))
		return;
	if (!ublk_leg_done(q, tag, res))
		return;
	if (io->res < 0 || io->stage == PATH_STAGE_FLUSH ||
	    io->stage == STAGE_COPY_OUT ||
	    (io->stage == PATH_STAGE_LEGS && path_is_write(q, tag))) {
		ublk_commit(q, tag, path_result(q, tag));
		return;
	}
	if (io->stage == STAGE_COPY_IN) {
		io->stage = PATH_STAGE_LEGS;
		if (io->nr_legs)
			ublk_submit_legs(q, tag, io->buf);
		else
			ublk_commit(q, tag, path_result(q, tag));
		return;
	}
	/* a READ's legs are done: hand the data to the request */
	io->stage = STAGE_COPY_OUT;
	ublk_submit_user_copy(q, tag, true);
}

const struct ublk_path_ops path_user_copy = {
	.name = "user_copy",
	.help = "the daemon copies with pread/pwrite on /dev/ublkcN",
	.dev_flags = UBLK_F_USER_COPY,
	.daemon_buffers = true,
	.probe = user_copy_probe,
	.start = user_copy_start,
	.cqe = user_copy_cqe,
};
