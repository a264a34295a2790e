/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What the bpf data path (path_bpf.c) and its program
 * (ublk_redirect.bpf.c) share: the one value of the program's array map,
 * which tells the program where a request's bytes live and on which ring
 * to queue its SQEs, and the user_data the program gives them.  Both
 * sides include this file, so it uses <linux/types.h> only.
 */
#ifndef UZC_SRV_UBLK_REDIRECT_H
#define UZC_SRV_UBLK_REDIRECT_H

#include <linux/types.h>

#define UBLK_REDIRECT_MAX_QUEUES	16	/* UBLK_MAX_QUEUES */
#define UBLK_REDIRECT_MAX_FILES		8	/* UBLK_MAX_BACKINGS */

/* the targets of ublk/targets/, as the program maps them */
enum ublk_redirect_kind {
	UBLK_REDIRECT_NULL,	/* read file[1] (zeros), write file[0] (sink), at 0 */
	UBLK_REDIRECT_LOOP,	/* file[0] at the request's offset */
	UBLK_REDIRECT_MIRROR,	/* write every file, read file[read_leg] */
	UBLK_REDIRECT_STRIPE,	/* RAID-0 over the files in 1 << chunk_shift */
};

struct ublk_redirect_layout {
	__u32 kind;		/* enum ublk_redirect_kind */
	__u32 nr_files;		/* files of the target, <= MAX_FILES */
	__u32 read_leg;		/* mirror: the file that serves reads */
	__u32 chunk_shift;	/* stripe: log2 of the chunk in bytes */
	/*
	 * Fixed-file index of the target's file i in every queue ring's
	 * table (the SQEs go with IOSQE_FIXED_FILE, as every path's legs)
	 */
	__u32 file[UBLK_REDIRECT_MAX_FILES];
	/* queue q's ring is set up (its files registered): else pass */
	__u8 queue_ready[UBLK_REDIRECT_MAX_QUEUES];
};

/*
 * user_data of the program's SQEs, in the layout of ublk.h's ublk_ud():
 * bits 0-15 the tag, 16-23 the kind (UD_AUX: path private), 24-31 the
 * SQE's index.  path_bpf.c asserts that the two layouts agree.
 */
#define UBLK_REDIRECT_UD_KIND		4
#define UBLK_REDIRECT_UD_KIND_SHIFT	16
#define UBLK_REDIRECT_UD_INDEX_SHIFT	24

/* the name of the program and of its map in the object */
#define UBLK_REDIRECT_PROG		"ublk_redirect"
#define UBLK_REDIRECT_MAP		"ublk_redirect_map"

#endif
