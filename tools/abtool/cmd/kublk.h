/* SPDX-License-Identifier: GPL-2.0 */
/*
 * kublk, the ublk server upstream ships in its selftests
 * (tools/testing/selftests/ublk), measured by `abtool run` as a peer of
 * abtool's own server: each config below is a row of the run beside the
 * data paths and the in-kernel row.  For a cell, abtool starts kublk on
 * the backings its own server would use, with the same queue count and
 * depth, waits for /dev/ublkbN, runs the identical workload with the
 * same counters on kublk's daemon, and deletes the device with `kublk
 * del` whatever happened (a killed kublk leaves a device only DEL_DEV
 * removes).
 *
 * What kublk cannot be told, and so where it differs from abtool's
 * server on the same cell: its largest request is 1 MiB
 * (UBLK_IO_MAX_BYTES, fixed; abtool's is max(512K, bs)); its null target
 * answers each request with a NOP (abtool's reads the bytes out of a
 * memfd) on a device of 250 GiB whose segments stop at 4K boundaries
 * (32 x 4K: a 512K request reaches kublk as four); its queue rings are
 * COOP_TASKRUN | SINGLE_ISSUER | DEFER_TASKRUN (abtool's SUBMIT_ALL |
 * COOP_TASKRUN).  The workload is held to the bytes abtool's device has.
 */
#ifndef ABTOOL_KUBLK_H
#define ABTOOL_KUBLK_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "ublk.h"

/* where kublk is in a tree that has built upstream's selftests */
#define KUBLK_TREE_PATH	"build/trees/upstream/tools/testing/selftests/ublk/kublk"
/* kublk.h's limits, fixed at its build */
#define KUBLK_MAX_IO_BYTES	(1u << 20)	/* UBLK_IO_MAX_BYTES */
#define KUBLK_MAX_DEPTH		1024		/* UBLK_QUEUE_DEPTH */
#define KUBLK_MAX_BACKINGS	4		/* MAX_BACK_FILES */
#define KUBLK_NR_CONFIGS	3
#define KUBLK_OUT_MAX		4096	/* what `kublk add` prints, and more */

/*
 * One way of running kublk: @row is what the run sees (its name is the
 * records' path; it has no ublk ops), @flags the `kublk add` options, and
 * @needs the UBLK_F_* the kernel must offer.
 */
struct kublk_config {
	struct ublk_path_ops row;
	const char *flags[3];		/* NULL-terminated */
	uint64_t needs;
};

extern const struct kublk_config kublk_configs[KUBLK_NR_CONFIGS];

/* The config whose row is @p, or NULL (another kind of row). */
const struct kublk_config *kublk_config_of(const struct ublk_path_ops *p);
const struct kublk_config *kublk_config_find(const char *name);

/* A cell as abtool's own server would serve it. */
struct kublk_cell {
	const char *target;		/* null, loop, mirror, stripe */
	const char *backing[UBLK_MAX_BACKINGS];
	unsigned int nr_backing;
	unsigned int nr_queues, depth;
	uint32_t max_io_bytes;		/* abtool's largest request */
	uint32_t chunk;			/* stripe */
};

/*
 * 0 when kublk can serve @c as abtool's server would, else -EOPNOTSUPP
 * and why (short: it goes into the "skipped" record).
 */
int kublk_cell_check(const struct kublk_cell *c, char *why, size_t len);

/* 0 when a kernel with @features can run @k, else -EOPNOTSUPP and why. */
int kublk_probe(const struct kublk_config *k, uint64_t features, char *why,
		size_t len);

/*
 * The `kublk add` command line for @c into @argv (NULL-terminated, at
 * most @cap entries with the NULL); @num holds the numbers' text.  The
 * argument count, or -E2BIG.
 */
struct kublk_argv_buf {
	char queues[12], depth[12], chunk[12];
};
int kublk_add_argv(const char *kublk, const struct kublk_config *k,
		   const struct kublk_cell *c, struct kublk_argv_buf *num,
		   const char **argv, size_t cap);

/*
 * `kublk add`'s report of the device it made ("dev id N: ..." and
 * "... daemon pid P ..."): 0, or -EINVAL when either is missing.
 */
int kublk_parse_add(const char *out, int *dev_id, pid_t *daemon_pid);

/*
 * The default kublk of the abtool binary at @exe: in the tree two
 * folders up (tools/abtool/abtool -> TOP/KUBLK_TREE_PATH).  0 or
 * -ENAMETOOLONG.
 */
int kublk_path_from_exe(const char *exe, char *buf, size_t len);
/* The same from /proc/self/exe; 0 or -errno. */
int kublk_default_path(char *buf, size_t len);

/* A device kublk serves. */
struct kublk_dev {
	int id;			/* -1: none */
	pid_t daemon;		/* kublk's serving process */
	char blk[32];		/* /dev/ublkbN */
};

/*
 * `kublk add` for @c with @k; on success @d names the device and its
 * daemon.  On failure no device of it stays (ids that appeared during
 * the add are deleted).  0 or -errno with a message.
 */
int kublk_add(const char *kublk, const struct kublk_config *k,
	      const struct kublk_cell *c, struct kublk_dev *d,
	      char *err, size_t errlen);
/*
 * `kublk del -n ID`, then make sure the device is gone (abtool's own
 * STOP_DEV and DEL_DEV when kublk left it).  0 once the device is gone,
 * with a note in @err when kublk itself failed (its wait for the daemon
 * needs inotify); else -errno with a message.
 */
int kublk_del(const char *kublk, struct kublk_dev *d, char *err,
	      size_t errlen);

#endif
