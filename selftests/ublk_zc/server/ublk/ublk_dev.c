// SPDX-License-Identifier: GPL-2.0
/*
 * Device life cycle: add, set params, queues, start, serve until told to
 * stop, stop, delete.  Every device is recorded in UBLK_STATE_DIR with
 * its daemon's pid so that a later start can delete the devices of a
 * daemon that was killed (ublk keeps such a device until DEL_DEV).
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "errmsg.h"
#include "prog.h"
#include "target.h"

#define UBLK_STATE_DIR "/run/abtool"

static void state_path(int dev_id, char *buf, size_t len)
{
	snprintf(buf, len, UBLK_STATE_DIR "/ublk%d.pid", dev_id);
}

static void state_record(int dev_id)
{
	char path[64];
	FILE *f;

	mkdir(UBLK_STATE_DIR, 0755);
	state_path(dev_id, path, sizeof(path));
	f = fopen(path, "w");
	if (f) {
		fprintf(f, "%d\n", getpid());
		fclose(f);
	}
}

static void state_forget(int dev_id)
{
	char path[64];

	state_path(dev_id, path, sizeof(path));
	unlink(path);
}

static int open_cdev(int dev_id)
{
	char path[64];
	int i, fd;

	snprintf(path, sizeof(path), "/dev/ublkc%d", dev_id);
	/* devtmpfs creates the node asynchronously */
	for (i = 0; i < 100; i++) {
		fd = open(path, O_RDWR | O_CLOEXEC);
		if (fd >= 0 || errno != ENOENT)
			return fd < 0 ? -errno : fd;
		usleep(10000);
	}
	return -ENOENT;
}

static int set_params(struct ublk_dev *d)
{
	struct ublk_params p = {
		.types = UBLK_PARAM_TYPE_BASIC,
		.basic = {
			.logical_bs_shift = 9,
			.physical_bs_shift = 12,
			.io_opt_shift = 12,
			.io_min_shift = 9,
			.max_sectors = d->max_io_bytes >> 9,
			.dev_sectors = d->tgt.dev_size >> 9,
		},
	};

	/* backings have a cache to flush; null's sinks do not */
	if (d->tgt.nr_flush)
		p.basic.attrs = UBLK_ATTR_VOLATILE_CACHE;
	return ublk_ctrl_set_params(d, &p);
}

int ublk_dev_create(struct ublk_dev *d, const struct ublk_dev_config *c,
		    char *err, size_t errlen)
{
	const struct ublk_target_ops *tops = ublk_target_find(c->target);
	const struct ublk_path_ops *path = ublk_path_find(c->path);
	uint64_t features = 0;
	unsigned int i;
	int ret;

	memset(d, 0, sizeof(*d));
	d->ctrl_fd = d->cdev_fd = -1;
	d->dev_id = -1;
	if (!tops)
		return set_err(err, errlen, -EINVAL, "unknown target '%s'",
			       c->target);
	if (!path)
		return set_err(err, errlen, -EINVAL, "unknown data path '%s'",
			       c->path);
	if (c->tgt.nr_backing < tops->min_backing ||
	    c->tgt.nr_backing > tops->max_backing)
		return set_err(err, errlen, -EINVAL,
			       "target %s takes %d..%d backing files, not %d",
			       tops->name, tops->min_backing, tops->max_backing,
			       c->tgt.nr_backing);
	if (!c->nr_queues || c->nr_queues > UBLK_MAX_QUEUES)
		return set_err(err, errlen, -EINVAL, "queues must be 1..%d",
			       UBLK_MAX_QUEUES);
	if (!c->depth || c->depth > UBLK_MAX_QUEUE_DEPTH)
		return set_err(err, errlen, -EINVAL, "depth must be 1..%d",
			       UBLK_MAX_QUEUE_DEPTH);
	if (c->max_io_bytes < 4096 || c->max_io_bytes % 4096)
		return set_err(err, errlen, -EINVAL,
			       "max I/O size must be a multiple of 4K");

	d->path = path;
	d->nr_queues = c->nr_queues;
	d->depth = c->depth;
	d->max_io_bytes = c->max_io_bytes;
	d->tgt.ops = tops;
	d->tgt.cfg = c->tgt;
	d->tgt.max_io_bytes = c->max_io_bytes;

	ret = ublk_ctrl_open(d);
	if (ret < 0)
		return set_err(err, errlen, ret,
			       "cannot open %s: %s (is ublk_drv there?)",
			       UBLK_CTRL_DEV, strerror(-ret));
	ret = ublk_ctrl_get_features(d, &features);
	if (ret < 0)
		return set_err(err, errlen, ret, "UBLK_U_CMD_GET_FEATURES: %s",
			       strerror(-ret));
	ret = path->probe(features, err, errlen);
	if (ret < 0)
		return ret;
	ret = tops->open(&d->tgt, err, errlen);
	if (ret < 0)
		return ret;

	d->dev_flags = path->dev_flags_for ? path->dev_flags_for(features) :
		       path->dev_flags;
	d->info.nr_hw_queues = d->nr_queues;
	d->info.queue_depth = d->depth;
	d->info.max_io_buf_bytes = d->max_io_bytes;
	d->info.flags = d->dev_flags | UBLK_F_CMD_IOCTL_ENCODE;
	ret = ublk_ctrl_add(d);
	if (ret < 0)
		return set_err(err, errlen, ret, "UBLK_U_CMD_ADD_DEV: %s",
			       strerror(-ret));
	state_record(d->dev_id);

	ret = open_cdev(d->dev_id);
	if (ret < 0)
		return set_err(err, errlen, ret, "cannot open /dev/ublkc%d: %s",
			       d->dev_id, strerror(-ret));
	d->cdev_fd = ret;
	ret = set_params(d);
	if (ret < 0)
		return set_err(err, errlen, ret, "UBLK_U_CMD_SET_PARAMS: %s",
			       strerror(-ret));
	for (i = 0; i < d->nr_queues; i++) {
		ret = ublk_queue_setup(d, i);
		if (ret < 0)
			return set_err(err, errlen, ret, "queue %u setup: %s",
				       i, strerror(-ret));
		if (c->shared_stats)
			d->queues[i].stats = &c->shared_stats[i];
	}
	return 0;
}

static int queues_failed(struct ublk_dev *d)
{
	unsigned int i;

	for (i = 0; i < d->nr_queues; i++)
		if (d->queues[i].error)
			return d->queues[i].error;
	return 0;
}

/*
 * Join the queue threads that have ended; true when all have.  A queue
 * thread ends on its own when every FETCH came back aborted: the device
 * was stopped or deleted behind the server's back (abtool del).
 */
static bool queues_ended(struct ublk_dev *d, bool *joined)
{
	unsigned int i, n = 0;

	for (i = 0; i < d->nr_queues; i++) {
		if (!joined[i] && pthread_tryjoin_np(d->queues[i].thread, NULL) == 0)
			joined[i] = true;
		n += joined[i];
	}
	return n == d->nr_queues;
}

/*
 * Start the queue threads and the device, tell ready_fd the device id,
 * and serve until *stop is set (by a signal handler), a queue fails or
 * the device goes away.
 */
int ublk_dev_run(struct ublk_dev *d, volatile int *stop, int ready_fd)
{
	struct timespec tick = { 0, 50 * 1000 * 1000 };
	bool joined[UBLK_MAX_QUEUES] = { false };
	unsigned int i, started = 0;
	int ret;

	for (i = 0; i < d->nr_queues; i++, started++) {
		ret = -pthread_create(&d->queues[i].thread, NULL,
				      ublk_queue_thread, &d->queues[i]);
		if (ret)
			break;
	}
	if (started == d->nr_queues) {
		/* returns once every queue has its FETCH commands queued */
		ret = ublk_ctrl_start(d, getpid());
		if (ret == 0 && ready_fd >= 0 &&
		    dprintf(ready_fd, "%d\n", d->dev_id) < 0)
			ret = -errno;
	}
	while (ret == 0 && !*stop && !queues_failed(d)) {
		if (queues_ended(d, joined)) {
			fprintf(stderr, "%s: ublk%d: stopped from outside\n",
				prog_name(), d->dev_id);
			break;
		}
		nanosleep(&tick, NULL);
	}

	/* STOP_DEV aborts every FETCH with -ENODEV: the threads then end */
	ublk_ctrl_stop(d);
	for (i = 0; i < started; i++)
		if (!joined[i])
			pthread_join(d->queues[i].thread, NULL);
	return ret ? ret : queues_failed(d);
}

void ublk_dev_destroy(struct ublk_dev *d)
{
	unsigned int i;

	for (i = 0; i < d->nr_queues; i++)
		ublk_queue_teardown(&d->queues[i]);
	/* DEL_DEV waits until the char device is closed */
	if (d->cdev_fd >= 0)
		close(d->cdev_fd);
	d->cdev_fd = -1;
	if (d->dev_id >= 0 && d->ctrl_fd >= 0) {
		ublk_ctrl_del(d);
		state_forget(d->dev_id);
	}
	ublk_ctrl_close(d);
	if (d->tgt.ops)
		target_close_backings(&d->tgt);
}

/* Delete the devices of daemons that died; returns how many. */
int ublk_cleanup_stale(FILE *log)
{
	DIR *dir = opendir(UBLK_STATE_DIR);
	struct dirent *de;
	int n = 0;

	if (!dir)
		return 0;
	while ((de = readdir(dir))) {
		struct ublk_dev d = { .dev_id = -1 };
		char path[300];
		int dev_id, pid = 0;
		FILE *f;

		if (sscanf(de->d_name, "ublk%d.pid", &dev_id) != 1)
			continue;
		snprintf(path, sizeof(path), UBLK_STATE_DIR "/%s", de->d_name);
		f = fopen(path, "r");
		if (f) {
			if (fscanf(f, "%d", &pid) != 1)
				pid = 0;
			fclose(f);
		}
		if (pid > 0 && (kill(pid, 0) == 0 || errno != ESRCH))
			continue;
		if (ublk_ctrl_open(&d) == 0) {
			d.dev_id = dev_id;
			ublk_ctrl_stop(&d);
			if (ublk_ctrl_del(&d) == 0 && log)
				fprintf(log, "%s: deleted ublk%d of dead daemon %d\n",
					prog_name(), dev_id, pid);
			ublk_ctrl_close(&d);
		}
		unlink(path);
		n++;
	}
	closedir(dir);
	return n;
}
