// SPDX-License-Identifier: GPL-2.0
/*
 * bpf: the eBPF design (patches/bpf, UBLK_F_BPF).  A BPF_PROG_TYPE_UBLK
 * program (bpf/ublk_redirect.bpf.c, built into the binary) runs on each
 * request before the server sees it: it queues the target's legs as
 * READ/WRITE SQEs whose buffer is the request's own pages, and ublk
 * submits them on the queue's ring.  The request then reaches the server
 * marked UBLK_IO_F_BPF, iod->addr holding how many SQEs went in; the
 * server moves no data, counts their CQEs (user_data: the tag, kind
 * UD_AUX, the SQE's index) and commits the request's bytes, or the first
 * -errno.  Those CQEs come before or after the request's own FETCH CQE,
 * so they are counted per tag apart from struct ublk_io, which the
 * queue resets when the FETCH CQE arrives.  The kernel completes the
 * request after both the commit and the last SQE, and fails it itself if
 * an SQE came back short: unlike the other paths, a short leg cannot go
 * again (the null target's zero source, a memfd, never stops short).
 *
 * A request the program passes (FLUSH and other non-data ops, a stripe
 * request of more pieces than the helper takes SQEs, an SQE it refused)
 * or that ublk passes (a READ whose SQEs miss bytes) arrives unmarked
 * and is served as user_copy serves it, which is why the device has
 * UBLK_F_USER_COPY and the daemon buffers.
 *
 * One program and map per device: queue 0 loads the program, fills the
 * map with the target's layout and registers the program
 * (UBLK_U_CMD_REG_BPF_PROG, CAP_SYS_ADMIN); every queue then adds its
 * ring's fd, the only ring the helper lets the program's SQEs go to.
 * All of it happens before START_DEV, so no request meets a half-filled
 * map.  Queue 0's exit unregisters it.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "path_common.h"
#include "prog.h"
#include "uapi/ublk_bpf.h"
#include "bpf/ublk_redirect.h"
/* generated from bpf/ublk_redirect.bpf.c: the object as a C array */
#include "ublk_redirect_bpf_obj.h"

/* the program builds user_data in ublk_ud()'s layout, with kind UD_AUX */
_Static_assert(UBLK_REDIRECT_UD_KIND == UD_AUX, "user_data kind");
_Static_assert(UBLK_REDIRECT_UD_KIND_SHIFT == UBLK_UD_KIND_SHIFT &&
	       UBLK_REDIRECT_UD_INDEX_SHIFT == UBLK_UD_LEG_SHIFT,
	       "user_data layout");
_Static_assert(UBLK_REDIRECT_MAX_QUEUES >= UBLK_MAX_QUEUES &&
	       UBLK_REDIRECT_MAX_FILES >= UBLK_MAX_BACKINGS,
	       "the program's map must hold every queue and backing");

extern const struct ublk_path_ops path_user_copy;

/* The CQEs of the program's SQEs for the request on one tag. */
struct bpf_tag {
	unsigned int arrived;	/* CQEs so far */
	unsigned int expected;	/* SQEs submitted (iod->addr), once handed over */
	bool handed_over;	/* the request's FETCH CQE came */
	int res;		/* the first failed SQE's -errno, else 0 */
};

/* The device's program, held by queue 0. */
struct bpf_dev {
	struct bpf_object *obj;
	int map_fd;
	bool registered;
	struct ublk_redirect_layout layout;
};

struct bpf_queue {
	struct bpf_dev *dev;	/* queue 0's */
	struct bpf_tag tags[];
};

static int bpf_probe(uint64_t features, char *why, size_t whylen)
{
	if (features & UBLK_F_BPF)
		return 0;
	snprintf(why, whylen, "kernel ublk lacks UBLK_F_BPF "
		 "(BPF_PROG_TYPE_UBLK, bpf series, CONFIG_BLK_DEV_UBLK_BPF)");
	return -EOPNOTSUPP;
}

static struct bpf_queue *bpf_queue_of(const struct ublk_queue *q)
{
	return q->path_priv;
}

/* What the program needs to know of the target: where its legs go. */
static int bpf_fill_layout(const struct ublk_tgt *t,
			   struct ublk_redirect_layout *l)
{
	const char *name = t->ops->name;
	int i;

	memset(l, 0, sizeof(*l));
	if (!strcmp(name, "null"))
		l->kind = UBLK_REDIRECT_NULL;
	else if (!strcmp(name, "loop"))
		l->kind = UBLK_REDIRECT_LOOP;
	else if (!strcmp(name, "mirror"))
		l->kind = UBLK_REDIRECT_MIRROR;
	else if (!strcmp(name, "stripe"))
		l->kind = UBLK_REDIRECT_STRIPE;
	else
		return -EOPNOTSUPP;
	l->nr_files = t->nr_fds;
	l->read_leg = t->read_leg;
	/* a power of two (target_stripe.c checks) */
	if (t->cfg.chunk)
		l->chunk_shift = __builtin_ctz(t->cfg.chunk);
	for (i = 0; i < t->nr_fds; i++)
		l->file[i] = ublk_fixed_backing(i);
	return 0;
}

static int bpf_update_map(struct bpf_dev *bd)
{
	__u32 key = 0;

	return bpf_map_update_elem(bd->map_fd, &key, &bd->layout, BPF_ANY) ?
	       -errno : 0;
}

/*
 * Open the built-in object, give the program its type (libbpf 1.1 does
 * not know BPF_PROG_TYPE_UBLK, so no section name gives it) and load it;
 * the program's fd, or -errno.  libbpf prints the verifier's reasons.
 */
static int bpf_load(struct bpf_dev *bd)
{
	LIBBPF_OPTS(bpf_object_open_opts, opts,
		    .object_name = UBLK_REDIRECT_PROG);
	struct bpf_program *prog;
	struct bpf_map *map;
	int ret;

	bd->obj = bpf_object__open_mem(ublk_redirect_bpf_obj,
				       sizeof(ublk_redirect_bpf_obj), &opts);
	if (!bd->obj)
		return -errno;
	prog = bpf_object__find_program_by_name(bd->obj, UBLK_REDIRECT_PROG);
	map = bpf_object__find_map_by_name(bd->obj, UBLK_REDIRECT_MAP);
	if (!prog || !map)
		return -ENOENT;
	ret = bpf_program__set_type(prog, (enum bpf_prog_type)UBLK_BPF_PROG_TYPE);
	if (ret < 0)
		return ret;
	ret = bpf_object__load(bd->obj);
	if (ret < 0)
		return ret;
	bd->map_fd = bpf_map__fd(map);
	return bpf_program__fd(prog);
}

/* Queue 0: load the program, describe the target, register it. */
static int bpf_dev_setup(struct ublk_queue *q, struct bpf_dev *bd)
{
	struct ublk_dev *d = q->dev;
	int prog_fd, ret;

	ret = bpf_fill_layout(&d->tgt, &bd->layout);
	if (ret < 0) {
		fprintf(stderr, "%s: bpf: no program for target %s\n",
			prog_name(), d->tgt.ops->name);
		return ret;
	}
	prog_fd = bpf_load(bd);
	if (prog_fd < 0) {
		fprintf(stderr, "%s: bpf: cannot load the program: %s\n",
			prog_name(), strerror(-prog_fd));
		return prog_fd;
	}
	ret = bpf_update_map(bd);
	if (ret < 0)
		return ret;
	ret = ublk_ctrl_dev_cmd(d, UBLK_U_CMD_REG_BPF_PROG, prog_fd);
	if (ret < 0) {
		fprintf(stderr, "%s: bpf: UBLK_U_CMD_REG_BPF_PROG: %s\n",
			prog_name(), strerror(-ret));
		return ret;
	}
	bd->registered = true;
	return 0;
}

static int bpf_queue_init(struct ublk_queue *q)
{
	struct bpf_queue *bq;
	int ret;

	bq = calloc(1, sizeof(*bq) + q->depth * sizeof(bq->tags[0]));
	if (!bq)
		return -ENOMEM;
	q->path_priv = bq;
	if (q->q_id == 0) {
		bq->dev = calloc(1, sizeof(*bq->dev));
		if (!bq->dev)
			return -ENOMEM;
		ret = bpf_dev_setup(q, bq->dev);
		if (ret < 0)
			return ret;
	} else {
		bq->dev = bpf_queue_of(&q->dev->queues[0])->dev;
	}
	bq->dev->layout.queue_ready[q->q_id] = 1;
	return bpf_update_map(bq->dev);
}

static void bpf_dev_teardown(struct ublk_queue *q, struct bpf_dev *bd)
{
	int ret;

	if (bd->registered) {
		ret = ublk_ctrl_dev_cmd(q->dev, UBLK_U_CMD_UNREG_BPF_PROG, 0);
		if (ret < 0)
			fprintf(stderr, "%s: bpf: UBLK_U_CMD_UNREG_BPF_PROG: %s\n",
				prog_name(), strerror(-ret));
	}
	bpf_object__close(bd->obj);
	free(bd);
}

static void bpf_queue_exit(struct ublk_queue *q)
{
	struct bpf_queue *bq = bpf_queue_of(q);

	if (!bq)
		return;
	if (q->q_id == 0 && bq->dev)
		bpf_dev_teardown(q, bq->dev);
	free(bq);
	q->path_priv = NULL;
}

/* Every SQE of the redirected request on tag is back: commit it. */
static void bpf_commit(struct ublk_queue *q, unsigned int tag)
{
	struct bpf_tag *t = &bpf_queue_of(q)->tags[tag];
	int res = t->res < 0 ? t->res :
		  (int)(ublk_iod(q, tag)->nr_sectors << 9);

	memset(t, 0, sizeof(*t));
	ublk_commit(q, tag, res);
}

static void bpf_start(struct ublk_queue *q, unsigned int tag)
{
	const struct ublksrv_io_desc *iod = ublk_iod(q, tag);
	struct bpf_tag *t = &bpf_queue_of(q)->tags[tag];

	if (!(iod->op_flags & UBLK_IO_F_BPF)) {
		path_user_copy.start(q, tag);
		return;
	}
	t->handed_over = true;
	t->expected = iod->addr;
	/* all SQEs may be back already, or none submitted (it then fails) */
	if (t->arrived >= t->expected)
		bpf_commit(q, tag);
}

static void bpf_cqe(struct ublk_queue *q, unsigned int tag, unsigned int kind,
		    unsigned int index, int res)
{
	struct bpf_tag *t = &bpf_queue_of(q)->tags[tag];

	if (kind != UBLK_REDIRECT_UD_KIND) {
		path_user_copy.cqe(q, tag, kind, index, res);
		return;
	}
	t->arrived++;
	if (res < 0 && t->res == 0)
		t->res = res;
	if (t->handed_over && t->arrived >= t->expected)
		bpf_commit(q, tag);
}

const struct ublk_path_ops path_bpf = {
	.name = "bpf",
	.help = "a BPF program queues the legs as SQEs on the request pages (bpf)",
	.dev_flags = UBLK_F_BPF | UBLK_F_USER_COPY,
	/* the passed requests go the user_copy way */
	.daemon_buffers = true,
	.unasked_cqes = UBLK_BPF_MAX_SQES,
	.probe = bpf_probe,
	.queue_init = bpf_queue_init,
	.queue_exit = bpf_queue_exit,
	.start = bpf_start,
	.cqe = bpf_cqe,
};
