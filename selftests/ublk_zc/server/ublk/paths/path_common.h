/* SPDX-License-Identifier: GPL-2.0 */
#ifndef ABTOOL_PATH_COMMON_H
#define ABTOOL_PATH_COMMON_H

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

#endif
