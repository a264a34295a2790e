// SPDX-License-Identifier: GPL-2.0
/*
 * zc_fuzz: the workload, a thread doing verified O_DIRECT block I/O on
 * /dev/ublkbN in lockstep batches.  It describes each batch before it
 * starts, so the server knows every request it will get; reads are
 * checked against a shadow copy of the device, and the last pass writes
 * the whole device and reads it all back.  Its data come from its own
 * stream (W.rng), apart from the server's fuzz decisions.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "zc_fuzz.h"

struct workload W = { .mu = PTHREAD_MUTEX_INITIALIZER,
	.cv = PTHREAD_COND_INITIALIZER, .fd = -1 };

static __u64 wrnd_below(__u64 n)
{
	return n ? rng_next(&W.rng) % n : 0;
}

static void wl_fill(void *p, size_t len)
{
	unsigned char *c = p;
	size_t i;

	for (i = 0; i + 8 <= len; i += 8) {
		__u64 v = rng_next(&W.rng);

		memcpy(c + i, &v, 8);
	}
	for (; i < len; i++)
		c[i] = rng_next(&W.rng);
}

/* lay @io out in 1..4 pieces, 4-byte aligned, in its part of the arena */
static void wl_layout(struct wio *io, int k, bool odd)
{
	char *base = W.arena + k * W.per_io, *p = base;
	unsigned int left = io->len, i;

	io->nvec = odd ? 1 + wrnd_below(4) : 1;
	if ((unsigned int)io->nvec > io->len / 512)
		io->nvec = io->len / 512;
	for (i = 0; i < (unsigned int)io->nvec; i++) {
		unsigned int sz = i == (unsigned int)io->nvec - 1 ? left :
			512 * (1 + wrnd_below(left / 512 - (io->nvec - i) + 1));

		if (odd)
			p += 4 * wrnd_below(1024);	/* < 4K, 4-aligned */
		io->iov[i].iov_base = p;
		io->iov[i].iov_len = sz;
		p += sz;
		left -= sz;
	}
	if (p > base + W.per_io)
		abort();	/* per_io covers the worst case */
}

/*
 * I/Os of a batch neither overlap nor touch: the block layer cannot merge
 * them, so each is one request, whatever the timing, and a seed replays.
 */
static bool overlaps(const struct batch *b, __u64 off, unsigned int len)
{
	int i;

	for (i = 0; i < b->nr; i++)
		if (off < b->io[i].off + b->io[i].len + 512 &&
		    b->io[i].off < off + len + 512)
			return true;
	return false;
}

static void wl_build_random(struct batch *b)
{
	unsigned int maxn = cfg.depth < 6 ? cfg.depth : 6;
	unsigned int n = 1 + wrnd_below(maxn), k, tries;
	unsigned long long sectors = cfg.dev_size >> 9;

	memset(b, 0, sizeof(*b));
	for (k = 0; k < n; k++) {
		struct wio *io = &b->io[b->nr];
		unsigned int s;

		for (tries = 0; tries < 8; tries++) {
			/* mostly small, sometimes up to max_io */
			s = wrnd_below(4) ? 1 + wrnd_below(32) :
				1 + wrnd_below(cfg.max_io >> 9);
			io->len = s << 9;
			io->off = wrnd_below(sectors - s + 1) << 9;
			if (!overlaps(b, io->off, io->len))
				break;
		}
		if (tries == 8)
			continue;
		io->op = wrnd_below(2) ? UBLK_IO_OP_WRITE : UBLK_IO_OP_READ;
		wl_layout(io, b->nr, wrnd_below(2));
		b->nr++;
	}
	b->flushes = wrnd_below(100) < 8;
}

/* the final pass: write the whole device, then read it all back */
static void wl_build_final(struct batch *b)
{
	memset(b, 0, sizeof(*b));
	if (W.phase == 1 && W.pos >= cfg.dev_size) {
		W.phase = 2;
		W.pos = 0;
	}
	if (W.phase == 2 && W.pos >= cfg.dev_size) {
		b->finished = true;
		return;
	}
	while (b->nr < (int)cfg.depth && W.pos < cfg.dev_size) {
		struct wio *io = &b->io[b->nr];

		io->op = W.phase == 1 ? UBLK_IO_OP_WRITE : UBLK_IO_OP_READ;
		io->off = W.pos;
		io->len = cfg.max_io;
		if (io->off + io->len > cfg.dev_size)
			io->len = cfg.dev_size - io->off;
		wl_layout(io, b->nr, false);
		W.pos += io->len;
		b->nr++;
	}
}

/*
 * run the batch; returns false if an I/O did not end as it must: its
 * length, or -EIO where the server said it must fail (@failed[i])
 */
static bool wl_run(struct batch *b, bool *failed)
{
	struct __kernel_timespec ts = { .tv_sec = 5 };
	struct io_uring_cqe *cqe;
	int i, want = b->nr + b->flushes, got = 0, waited = 0;
	int res[MAX_DEPTH];
	bool ok = true;

	for (i = 0; i < b->nr; i++) {
		struct wio *io = &b->io[i];
		struct io_uring_sqe *sqe = io_uring_get_sqe(&W.ring);
		int v;

		if (io->op == UBLK_IO_OP_WRITE) {
			for (v = 0; v < io->nvec; v++)
				wl_fill(io->iov[v].iov_base,
					io->iov[v].iov_len);
			io_uring_prep_writev(sqe, W.fd, io->iov, io->nvec,
					     io->off);
		} else {
			io_uring_prep_readv(sqe, W.fd, io->iov, io->nvec,
					    io->off);
		}
		sqe->user_data = i;
	}
	if (b->flushes) {
		struct io_uring_sqe *sqe = io_uring_get_sqe(&W.ring);

		io_uring_prep_fsync(sqe, W.fd, 0);
		sqe->user_data = 1000;
	}
	io_uring_submit(&W.ring);
	while (got < want) {
		if (io_uring_wait_cqe_timeout(&W.ring, &cqe, &ts)) {
			waited += 5;
			if (W.stop || waited > 600)
				return false;
			continue;
		}
		i = cqe->user_data;
		if (i == 1000 && cqe->res != 0) {
			W.errors++;
			if (W.errors <= 5)
				printf("# workload: flush returned %d\n",
				       cqe->res);
			ok = false;
		} else if (i != 1000) {
			res[i] = cqe->res;
		}
		io_uring_cqe_seen(&W.ring, cqe);
		got++;
	}
	/* every commit is in: the server's marks are final */
	pthread_mutex_lock(&W.mu);
	for (i = 0; i < b->nr; i++)
		failed[i] = W.must_fail[i];
	pthread_mutex_unlock(&W.mu);
	for (i = 0; i < b->nr; i++) {
		int want_res = failed[i] ? -EIO : (int)b->io[i].len;

		if (res[i] == want_res)
			continue;
		W.errors++;
		if (W.errors <= 5)
			printf("# workload: I/O %d (%s %u bytes at %llu) returned %d, expected %d (seed %llu)\n",
			       i, b->io[i].op == UBLK_IO_OP_WRITE ? "write" :
			       "read", b->io[i].len, b->io[i].off, res[i],
			       want_res, cfg.seed);
		ok = false;
	}
	return ok;
}

/* a failed I/O (@failed) has no data: a WRITE leaves the shadow as is */
static void wl_check(const struct batch *b, const bool *failed)
{
	int i, v;

	for (i = 0; i < b->nr; i++) {
		const struct wio *io = &b->io[i];
		unsigned long long at = io->off;

		if (failed[i]) {
			W.failed++;
			continue;
		}

		for (v = 0; v < io->nvec; v++) {
			const void *p = io->iov[v].iov_base;
			size_t len = io->iov[v].iov_len, d;

			if (io->op == UBLK_IO_OP_WRITE) {
				memcpy(W.shadow + at, p, len);
				W.written += len;
			} else {
				d = uzc_cmp(W.shadow + at, p, len);
				if (d) {
					W.mismatches++;
					if (W.mismatches <= 5)
						printf("# workload: read of %u bytes at %llu differs at device offset %llu\n",
						       io->len, io->off,
						       at + d - 1);
				}
				W.verified += len;
				if (W.phase == 2)
					W.final_verified += len;
			}
			at += len;
		}
		W.ios++;
	}
}

void *wl_thread(void *arg)
{
	bool failed[MAX_DEPTH];
	struct batch b;
	int i;

	(void)arg;
	for (i = 0; i < 500 && W.fd < 0; i++) {
		W.fd = open(D.bdev_path, O_RDWR | O_DIRECT);
		if (W.fd < 0)
			usleep(10000);
	}
	if (W.fd < 0 || io_uring_queue_init(2 * MAX_DEPTH, &W.ring, 0)) {
		printf("# workload: cannot open %s\n", D.bdev_path);
		W.errors++;
	}
	for (;;) {
		pthread_mutex_lock(&W.mu);
		while (!W.go && !W.stop)
			pthread_cond_wait(&W.cv, &W.mu);
		if (W.stop) {
			pthread_mutex_unlock(&W.mu);
			break;
		}
		W.go = false;
		if (W.final_req && !W.phase)
			W.phase = 1;
		pthread_mutex_unlock(&W.mu);

		if (W.fd < 0) {
			memset(&b, 0, sizeof(b));
			b.finished = true;
		} else if (W.phase) {
			wl_build_final(&b);
		} else {
			wl_build_random(&b);
		}

		pthread_mutex_lock(&W.mu);
		W.b = b;
		W.published = true;
		pthread_cond_broadcast(&W.cv);
		while (W.hold && !b.finished && !W.armed && !W.stop)
			pthread_cond_wait(&W.cv, &W.mu);
		W.armed = false;
		pthread_mutex_unlock(&W.mu);
		if (b.finished)
			continue;

		if (wl_run(&b, failed))
			wl_check(&b, failed);
		W.batches++;
		pthread_mutex_lock(&W.mu);
		W.done = true;
		pthread_cond_broadcast(&W.cv);
		pthread_mutex_unlock(&W.mu);
	}
	if (W.fd >= 0) {
		io_uring_queue_exit(&W.ring);
		close(W.fd);
	}
	return NULL;
}

/* ask for the next batch and wait until it is described */
void wl_next(struct batch *b, bool final)
{
	pthread_mutex_lock(&W.mu);
	W.final_req |= final;
	W.published = W.done = false;
	W.go = true;
	pthread_cond_broadcast(&W.cv);
	while (!W.published)
		pthread_cond_wait(&W.cv, &W.mu);
	*b = W.b;
	pthread_mutex_unlock(&W.mu);
}

void wl_go(void)
{
	pthread_mutex_lock(&W.mu);
	W.armed = true;
	pthread_cond_broadcast(&W.cv);
	pthread_mutex_unlock(&W.mu);
}

bool wl_is_done(void)
{
	bool d;

	pthread_mutex_lock(&W.mu);
	d = W.done;
	pthread_mutex_unlock(&W.mu);
	return d;
}
