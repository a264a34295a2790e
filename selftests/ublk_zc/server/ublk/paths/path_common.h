/* SPDX-License-Identifier: GPL-2.0 */
#ifndef UZC_SRV_PATH_COMMON_H
#define UZC_SRV_PATH_COMMON_H

#include "ublk.h"

/* io->stage values shared by the paths; paths add their own after these */
enum {
	PATH_STAGE_LEGS = 0,
	PATH_STAGE_FLUSH,
	PATH_STAGE_PRIVATE,
};

int path_map_request(struct ublk_queue *q, unsigned int tag);
int path_result(struct ublk_queue *q, unsigned int tag);
bool path_is_write(struct ublk_queue *q, unsigned int tag);
void path_prep_fixed_leg(struct ublk_queue *q, unsigned int tag, int i,
			 unsigned int slot);

/*
 * The paths that put the request's pages in a slot for the legs and take
 * them out again in the same submission (splice, regbuf): the put or the
 * take named OP failed, with RES...
 */
void path_slot_op_failed(struct ublk_queue *q, unsigned int tag,
			 const char *op, int res);
/*
 * ...and a leg is back: a short one is marked to go again; once every
 * leg is back, AGAIN sends the marked ones (with the pages put back), or
 * the request is committed.
 */
void path_slot_leg_back(struct ublk_queue *q, unsigned int tag,
			unsigned int kind, unsigned int leg, int res,
			void (*again)(struct ublk_queue *q, unsigned int tag));

/* the slot paths' buffer table: one empty slot per tag */
int path_slot_table_init(struct ublk_queue *q);

/*
 * The paths whose request arrives with its pages already in slot = tag
 * (autobuf, autolend): the legs go at once; a short one goes again at
 * once (the slot holds the pages till the commit); the last commits.
 */
void path_in_slot_start(struct ublk_queue *q, unsigned int tag);
void path_in_slot_cqe(struct ublk_queue *q, unsigned int tag,
		      unsigned int kind, unsigned int leg, int res);

#endif
