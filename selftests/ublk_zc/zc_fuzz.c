// SPDX-License-Identifier: GPL-2.0
/*
 * Bounded, seeded fuzzer for the zero-copy uAPIs of the two kernel series:
 *
 *  - splice-rsrc: IORING_OP_SPLICE_FROM (58) installs ublk request pages in
 *    a registered-buffer slot, READ_FIXED / WRITE_FIXED / SEND_ZC use it,
 *    IORING_OP_BUF_REMOVE (59) empties the slot;
 *  - fused: IORING_OP_FUSED_CMD (58, SQE128), primary
 *    UBLK_U_IO_FUSED_SUBMIT_IO, secondary READ/WRITE/SEND/RECV/SEND_ZC.
 *
 * The program is the ublk server of one device (one queue) and serves it
 * for a workload thread that does verified O_DIRECT I/O on /dev/ublkbN in
 * lockstep batches: the server knows every block request of a batch before
 * it starts fuzzing, so the state of every tag (owned, committed, idle) is
 * known exactly.  While it holds the requests of a batch it sends
 * randomised SQEs at the new ops on a "fuzz ring" (slots, offsets, lengths,
 * directions, flags, links, fds, tags, orders, ring teardown), serves each
 * request through its legitimate path (zero copy on a separate ring, or
 * user copy) and commits it.
 *
 * Every CQE is checked twice: against the errno set the series documents
 * for the op (cover letter, uapi headers) and against a model of the
 * kernel state that predicts the exact result (e.g. -EACCES for a buffer
 * used in the wrong direction).  Data are checked by the workload on every
 * read, by a final full write + read-back of the device, and by comparing
 * the server's backing file and its mirror with the workload's shadow copy.
 *
 * Usage: zc_fuzz [-n OPS] [-s SEED] [-v]; env UBLK_ZC_FUZZ_OPS,
 * UBLK_ZC_FUZZ_SEED, UBLK_ZC_FLAVOR=debug (smaller device).  Exit 4 (skip)
 * when the kernel has neither series; exit 1 instead when UBLK_ZC_VARIANT
 * names a series the kernel should have (splice-rsrc, fused), or another
 * variant than the series found.
 *
 * This file is the driver: configuration, the batches that tie the
 * server to the workload, setup and the summary; zc_fuzz.h lists the
 * other parts.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <netinet/in.h>
#include <sys/socket.h>

#include "zc_fuzz.h"
#include "kselftest.h"

/* ------------------------------------------------------------------ */
/* configuration, randomness, reporting                                */

#define MAX_REPORTS	25

struct config cfg;
enum series series;
static __u64 rng;	/* the server's stream: every fuzz decision */

__u64 rnd(void)
{
	return rng_next(&rng);
}

__u64 rnd_below(__u64 n)
{
	return n ? rnd() % n : 0;
}

bool chance(unsigned int pct)
{
	return rnd_below(100) < pct;
}

static unsigned long nr_fail;	/* checks that failed */
static unsigned long nr_reports;

void report(const char *fmt, ...)
{
	va_list ap;

	nr_fail++;
	if (++nr_reports > MAX_REPORTS)
		return;
	printf("# FAIL: ");
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	printf("\n");
	fflush(stdout);
}

const char *errname(int res)
{
	const char *n;

	if (res >= 0)
		return "ok";
	n = strerrorname_np(-res);
	return n ? n : "E?";
}

/* ------------------------------------------------------------------ */
/* batches                                                              */

struct files F = { .cdev = -1, .ctrl = -1, .backing = -1, .mirror = -1,
	.scratch = -1, .ro = -1, .udp_tx = -1, .udp_sink = -1, .udp_rx = -1,
	.closed = 977 };
struct uzc_dev D;		/* the device, served by main() */
static unsigned long nr_stray, nr_batches;

/* one fuzz step: a submission, or something done to the ring itself */
static int fuzz_step(void)
{
	struct op ops[MAX_SUB];
	unsigned int r = rnd_below(100);
	int n;

	if (series == S_SPLICE)
		settle();

	if (r < 3)
		return teardown_op();
	if (series == S_SPLICE && r < 8) {
		table_op();
		return 0;
	}
	if (series == S_SPLICE && r < 10) {
		clone_op();
		return 0;
	}
	n = gen_sub(ops);
	fuzz_submit(ops, n);
	return 0;
}

/* is [start, start + bytes) made of @op I/Os of the batch? */
static bool in_batch(const struct batch *b, unsigned int op, __u64 start,
		     __u64 bytes)
{
	__u64 pos = start, end = start + bytes;
	int i;

	while (pos < end) {
		for (i = 0; i < b->nr; i++)
			if (b->io[i].op == op && b->io[i].off <= pos &&
			    pos < b->io[i].off + b->io[i].len)
				break;
		if (i == b->nr)
			return false;
		pos = b->io[i].off + b->io[i].len;
	}
	return true;
}

static int deadline_ms(void)
{
	return cfg.debug ? 180000 : 60000;
}

/* take a request the batch does not explain: serve it plainly */
static void stray(int tag)
{
	nr_stray++;
	if (nr_stray <= 5)
		printf("# stray request: tag %d op %u %u bytes at %llu\n", tag,
		       M.tag[tag].op, M.tag[tag].bytes, M.tag[tag].start);
	serve(tag);
}

static int take_req(int tag)
{
	const struct ublksrv_io_desc *iod = uzc_iod(&D, tag);
	struct mtag *t = &M.tag[tag];

	t->state = T_OWNED;
	t->lend = L_FREE;
	t->op = ublksrv_get_op(iod);
	t->bytes = iod->nr_sectors << 9;
	t->start = (__u64)iod->start_sector << 9;
	return t->op;
}

/* receive every request of the batch; they are all held afterwards */
static int collect(const struct batch *b, int *held, int *nheld)
{
	__u64 want[2] = { 0, 0 }, got[2] = { 0, 0 };
	int flushes = 0, waited = 0, i;

	for (i = 0; i < b->nr; i++)
		want[b->io[i].op == UBLK_IO_OP_WRITE] += b->io[i].len;
	*nheld = 0;
	while (got[0] < want[0] || got[1] < want[1] || flushes < b->flushes) {
		int tag = uzc_next_req(&D, 100), op;

		if (tag == -ETIMEDOUT) {
			waited += 100;
			if (waited > deadline_ms())
				return -ETIMEDOUT;
			continue;
		}
		if (tag < 0)
			return tag;
		op = take_req(tag);
		if (op == UBLK_IO_OP_FLUSH && flushes < b->flushes) {
			flushes++;
		} else if ((op == UBLK_IO_OP_READ || op == UBLK_IO_OP_WRITE) &&
			   in_batch(b, op, M.tag[tag].start,
				    M.tag[tag].bytes)) {
			got[op == UBLK_IO_OP_WRITE] += M.tag[tag].bytes;
		} else {
			stray(tag);
			continue;
		}
		held[(*nheld)++] = tag;
	}
	sort_tags(&M, (unsigned int *)held, *nheld);
	return 0;
}

/* give back every loan the fuzz ring still holds, in some order */
static int release_all(void)
{
	unsigned int order[MAX_SLOTS], n = 0, i, r = rnd_below(100);

	for (i = 0; i < M.nslots; i++)
		if (M.slot[i].kind == SL_KERNEL)
			order[n++] = i;
	if (!n)
		return 0;
	if (r < 8)
		return teardown_op();
	if (r < 14) {
		unsigned int ns = M.nslots;

		nr_ops++;
		check_reg("unregister buffers (release)",
			  io_uring_unregister_buffers(&FR), 0);
		for (i = 0; i < ns; i++)
			slot_drop(&M, i);
		M.table = false;
		M.nslots = 0;
		nr_ops++;
		check_reg("register sparse buffers (release)",
			  io_uring_register_buffers_sparse(&FR, ns), 0);
		M.table = true;
		M.nslots = ns;
		return 0;
	}
	for (i = 0; i < n; i++) {		/* shuffle */
		unsigned int j = i + rnd_below(n - i), t = order[i];

		order[i] = order[j];
		order[j] = t;
	}
	for (i = 0; i < n; i++) {
		struct op o;

		memset(&o, 0, sizeof(o));
		o.idx = ++nr_ops;
		o.kind = K_REMOVE;
		o.fdc = C_MINUS1;
		uzc_prep_buf_remove(&o.sqe[0], order[i]);
		if (chance(40))
			o.sqe[0].flags = IOSQE_CQE_SKIP_SUCCESS;
		o.skip = o.sqe[0].flags;
		fuzz_submit(&o, 1);
	}
	for (i = 0; i < M.nslots; i++)
		if (M.slot[i].kind == SL_KERNEL)
			return teardown_op();	/* a remove failed */
	return 0;
}

static int wait_batch(void)
{
	int waited = 0;

	while (!wl_is_done()) {
		int tag = uzc_next_req(&D, 20);

		if (tag >= 0) {
			take_req(tag);
			stray(tag);
			continue;
		}
		if (tag != -ETIMEDOUT)
			return tag;
		waited += 20;
		if (waited > deadline_ms())
			return -ETIMEDOUT;
	}
	return 0;
}

static int run_batches(void)
{
	int held[MAX_DEPTH], nheld, i, n, ret;
	struct batch b;

	for (;;) {
		bool fuzz;

		for (i = 0; i < (int)cfg.depth; i++)
			memset(&M.tag[i], 0, sizeof(M.tag[i]));
		fuzz = nr_ops < cfg.ops;
		wl_next(&b, !fuzz);
		if (b.finished)
			return 0;
		nr_batches++;
		ret = collect(&b, held, &nheld);
		if (ret) {
			report("seed %llu batch %lu: requests did not arrive (%d)",
			       cfg.seed, nr_batches, ret);
			return ret;
		}
		for (n = fuzz ? rnd_below(4) : 0; n > 0; n--) {
			ret = fuzz_step();
			if (ret)
				return ret;
		}
		for (i = 0; i < nheld; i++) {	/* serve in random order */
			int j = i + rnd_below(nheld - i), t = held[i];

			held[i] = held[j];
			held[j] = t;
			ret = fuzz && chance(45) ? fuzz_step() : 0;
			if (ret)
				return ret;
			serve(held[i]);
			ret = fuzz && chance(35) ? fuzz_step() : 0;
			if (ret)
				return ret;
		}
		/* uses and removals after commit */
		for (n = fuzz ? rnd_below(3) : 0; n > 0; n--) {
			ret = fuzz_step();
			if (ret)
				return ret;
		}
		ret = series == S_SPLICE ? release_all() : 0;
		if (ret)
			return ret;
		reap_fuzz(0, NULL);
		ret = wait_batch();
		if (ret) {
			report("seed %llu batch %lu: block I/O did not complete (%d); fuzz ring slots:",
			       cfg.seed, nr_batches, ret);
			for (i = 0; i < (int)M.nslots; i++)
				printf("#   slot %d kind %d tag %u\n", i,
				       M.slot[i].kind, M.slot[i].tag);
			return ret;
		}
	}
}

/* ------------------------------------------------------------------ */
/* setup, teardown, main                                                */

#define ZC_FLAGS	(UBLK_F_USER_COPY | UBLK_F_SUPPORT_ZERO_COPY)

/* which series does this kernel run? NULL and @series set, or why not */
static const char *detect(void)
{
	const char *why = uzc_prereq();
	struct io_uring_probe *p;
	bool s58, s59;

	if (why)
		return why;
	p = io_uring_get_probe();
	if (!p)
		return "io_uring_get_probe() failed";
	/* op 58: SPLICE_FROM or FUSED_CMD; only splice-rsrc has 59 */
	s58 = io_uring_opcode_supported(p, OP_SPLICE_FROM);
	s59 = io_uring_opcode_supported(p, OP_BUF_REMOVE);
	io_uring_free_probe(p);
	if (!s58)
		return "io_uring has neither IORING_OP_SPLICE_FROM/BUF_REMOVE (58/59, splice-rsrc) nor IORING_OP_FUSED_CMD (58, fused)";
	series = s59 ? S_SPLICE : S_FUSED;
	return uzc_zc_missing();
}

static int tmp_file(char *path, size_t len, const char *name, int flags)
{
	int fd;

	snprintf(path, len, "/tmp/zc_fuzz.%s.XXXXXX", name);
	fd = mkstemp(path);
	if (fd >= 0 && flags != O_RDWR) {
		close(fd);
		fd = open(path, flags);
	}
	return fd;
}

static int udp_socket(bool nonblock)
{
	return socket(AF_INET, SOCK_DGRAM | (nonblock ? SOCK_NONBLOCK : 0), 0);
}

static int setup_files(void)
{
	struct sockaddr_in sa = { .sin_family = AF_INET };
	socklen_t sl = sizeof(sa);
	char ro_path[64];
	int i, big = 4 << 20;

	F.backing = tmp_file(F.backing_path, sizeof(F.backing_path), "backing",
			     O_RDWR);
	F.mirror = tmp_file(F.mirror_path, sizeof(F.mirror_path), "mirror",
			    O_RDWR);
	F.scratch = tmp_file(F.scratch_path, sizeof(F.scratch_path), "scratch",
			     O_RDWR);
	if (F.backing < 0 || F.mirror < 0 || F.scratch < 0)
		return -errno;
	snprintf(ro_path, sizeof(ro_path), "/proc/self/fd/%d", F.scratch);
	F.ro = open(ro_path, O_RDONLY);
	/* zeros, like the shadow; sized so that reads are never short */
	if (ftruncate(F.backing, cfg.dev_size) ||
	    ftruncate(F.mirror, cfg.dev_size) ||
	    ftruncate(F.scratch, 8 << 20))
		return -errno;
	F.ctrl = open("/dev/ublk-control", O_RDWR);

	uzc_loopback_up();
	F.udp_sink = udp_socket(true);
	F.udp_tx = udp_socket(false);
	F.udp_rx = udp_socket(true);
	if (F.ro < 0 || F.ctrl < 0 || F.udp_sink < 0 || F.udp_tx < 0 ||
	    F.udp_rx < 0)
		return -errno;
	sa.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	if (bind(F.udp_sink, (void *)&sa, sizeof(sa)) ||
	    getsockname(F.udp_sink, (void *)&sa, &sl) ||
	    connect(F.udp_tx, (void *)&sa, sizeof(sa)))
		return -errno;
	setsockopt(F.udp_sink, SOL_SOCKET, SO_RCVBUF, &big, sizeof(big));
	close(F.closed);	/* a number that names no file */

	for (i = 0; i < MAX_SLOTS; i++)
		if (posix_memalign(&ubuf[i], 4096, UBUF_LEN))
			return -ENOMEM;
	if (posix_memalign(&bounce, 4096, cfg.max_io))
		return -ENOMEM;
	return 0;
}

static void cleanup_files(void)
{
	unlink(F.backing_path);
	unlink(F.mirror_path);
	unlink(F.scratch_path);
}

/* the server's copies must hold what the workload wrote */
static unsigned long long compare_file(int fd, const char *what,
				       unsigned long *bad)
{
	const size_t chunk = 1 << 20;
	unsigned long long at, done = 0;
	char *buf = malloc(chunk);

	for (at = 0; buf && at < cfg.dev_size; at += chunk) {
		size_t len = cfg.dev_size - at < chunk ? cfg.dev_size - at :
			     chunk;
		size_t d;

		if (pread(fd, buf, len, at) != (ssize_t)len) {
			(*bad)++;
			break;
		}
		d = uzc_cmp(W.shadow + at, buf, len);
		if (d) {
			(*bad)++;
			printf("# %s differs from the data written at offset %llu\n",
			       what, at + d - 1);
			break;
		}
		done += len;
	}
	free(buf);
	return done;
}

static void usage(const char *prog)
{
	printf("usage: %s [-n OPS] [-s SEED] [-v]...\n"
	       "  -n OPS   fuzz operations, at least (env UBLK_ZC_FUZZ_OPS)\n"
	       "  -s SEED  reproduce a run (env UBLK_ZC_FUZZ_SEED)\n"
	       "  -v       verbose (-vv: every op, -vvv: every SQE)\n"
	       "  env UBLK_ZC_FLAVOR=debug: smaller device for debug kernels\n",
	       prog);
}

static void parse(int argc, char **argv)
{
	const char *e;
	struct timespec ts;
	int c;

	e = getenv("UBLK_ZC_FLAVOR");
	cfg.debug = e && !strcmp(e, "debug");
	cfg.ops = cfg.debug ? 2000 : 3000;
	cfg.depth = 8;
	cfg.max_io = cfg.debug ? 64 << 10 : 128 << 10;
	cfg.dev_size = cfg.debug ? 4ULL << 20 : 16ULL << 20;
	cfg.cqe_wait_ms = cfg.debug ? 30000 : 10000;
	clock_gettime(CLOCK_REALTIME, &ts);
	cfg.seed = (ts.tv_sec * 1000000007ULL) ^ ts.tv_nsec ^ getpid();
	e = getenv("UBLK_ZC_FUZZ_OPS");
	if (e)
		cfg.ops = strtoul(e, NULL, 0);
	e = getenv("UBLK_ZC_FUZZ_SEED");
	if (e)
		cfg.seed = strtoull(e, NULL, 0);
	while ((c = getopt(argc, argv, "n:s:vh")) != -1) {
		switch (c) {
		case 'n':
			cfg.ops = strtoul(optarg, NULL, 0);
			break;
		case 's':
			cfg.seed = strtoull(optarg, NULL, 0);
			break;
		case 'v':
			cfg.verbose++;
			break;
		default:
			usage(argv[0]);
			exit(c == 'h' ? 0 : 1);
		}
	}
}

static void hung(int sig)
{
	(void)sig;
	printf("# FAIL: seed %llu: stopping/deleting the device hangs (a request never completed)\n",
	       cfg.seed);
	printf("not ok 1 device teardown hangs\n");
	_exit(KSFT_FAIL);
}

int main(int argc, char **argv)
{
	unsigned long bad_backing = 0, bad_mirror = 0;
	unsigned long long cmp_backing = 0, cmp_mirror = 0;
	struct timespec t0, t1;
	const char *why;
	double secs;
	int ret;

	parse(argc, argv);
	setvbuf(stdout, NULL, _IOLBF, 0);
	ksft_print_header();
	printf("# seed %llu\n", cfg.seed);
	rng = cfg.seed;
	W.rng = cfg.seed ^ 0x776f726b6c6f6164ULL;	/* "workload" */
	why = detect();
	/*
	 * On a series kernel (UBLK_ZC_VARIANT) the fuzzer must find that
	 * series' uAPI, not skip and not find the other series'
	 */
	if (why && (uzc_prereq() ? uzc_must_have(NULL) :
		    uzc_must_have("splice") || uzc_must_have("fused")))
		ksft_exit_fail_msg("%s, but UBLK_ZC_VARIANT=%s must have it\n",
				   why, uzc_variant());
	if (why)
		ksft_exit_skip("%s\n", why);
	if (uzc_variant() && !uzc_must_have(series == S_SPLICE ? "splice" : "fused"))
		ksft_exit_fail_msg("the kernel has the %s series' uAPI, but UBLK_ZC_VARIANT=%s\n",
				   series == S_SPLICE ? "splice-rsrc" : "fused",
				   uzc_variant());
	printf("# series %s, %lu ops, device %llu MiB, depth %u, max_io %u KiB%s\n",
	       series == S_SPLICE ? "splice-rsrc" : "fused", cfg.ops,
	       cfg.dev_size >> 20, cfg.depth, cfg.max_io >> 10,
	       cfg.debug ? " (debug flavor)" : "");
	ksft_set_plan(5);
	clock_gettime(CLOCK_MONOTONIC, &t0);

	ret = setup_files();
	if (ret)
		ksft_exit_fail_msg("setup: %s\n", strerror(-ret));
	W.shadow = calloc(1, cfg.dev_size);
	W.per_io = cfg.max_io + 4 * 4096 + 4096;
	if (posix_memalign((void **)&W.arena, 4096, MAX_DEPTH * W.per_io) ||
	    !W.shadow)
		ksft_exit_fail_msg("out of memory\n");

	ret = uzc_dev_create(&D, ZC_FLAGS, cfg.depth, cfg.max_io,
			     cfg.dev_size, true);
	if (ret) {
		cleanup_files();
		ksft_exit_fail_msg("create device: %s\n", strerror(-ret));
	}
	F.cdev = D.cdev_fd;
	if (!(D.flags & UBLK_F_SUPPORT_ZERO_COPY))
		ksft_exit_fail_msg("device lost UBLK_F_SUPPORT_ZERO_COPY\n");
	ret = io_uring_queue_init(64, &DR, IORING_SETUP_SUBMIT_ALL |
				  (series == S_FUSED ? IORING_SETUP_SQE128 : 0));
	if (!ret && series == S_SPLICE)
		ret = io_uring_register_buffers_sparse(&DR, cfg.depth);
	if (!ret)
		ret = fuzz_ring_open();
	if (ret)
		ksft_exit_fail_msg("rings: %s\n", strerror(-ret));
	if (pthread_create(&W.th, NULL, wl_thread, NULL))
		ksft_exit_fail_msg("workload thread\n");

	ret = run_batches();

	pthread_mutex_lock(&W.mu);
	W.stop = true;
	pthread_cond_broadcast(&W.cv);
	pthread_mutex_unlock(&W.mu);
	reap_fuzz(0, NULL);
	fuzz_ring_close();
	/* a lent buffer that is never given back would hang the delete */
	signal(SIGALRM, hung);
	alarm(cfg.debug ? 300 : 120);
	if (ret) {
		/* stopping the device fails the I/O the workload waits for */
		io_uring_queue_exit(&DR);
		uzc_dev_destroy(&D);
		pthread_join(W.th, NULL);
	} else {
		pthread_join(W.th, NULL);
		io_uring_queue_exit(&DR);
		if (uzc_dev_destroy(&D))
			report("device delete failed");
	}
	alarm(0);
	if (!ret) {
		cmp_backing = compare_file(F.backing, "backing file",
					   &bad_backing);
		cmp_mirror = compare_file(F.mirror, "mirror file",
					  &bad_mirror);
	}
	cleanup_files();
	clock_gettime(CLOCK_MONOTONIC, &t1);
	secs = t1.tv_sec - t0.tv_sec + (t1.tv_nsec - t0.tv_nsec) / 1e9;

	printf("# seed %llu: %lu ops (target %lu) in %lu batches, %.1f s, %lu ring teardowns (%lu with buffers installed)\n",
	       cfg.seed, nr_ops, cfg.ops, nr_batches, secs, nr_teardowns,
	       nr_teardown_lent);
	printf("# %lu SEND_ZC notifications (%lu without F_MORE, from failed links: a 6.12 quirk)\n",
	       nr_notifs, nr_quirk_notif);
	if (series == S_SPLICE)
		printf("# %lu removed/dropped loans probed, %lu still lent at the first probe (max %lu retries)\n",
		       nr_settled, nr_settle_late, max_settle_tries);
	print_hist();
	printf("# legit: %lu requests served (%lu zero copy, %lu user copy), %lu failures, %lu stray requests\n",
	       nr_legit, nr_legit_zc, nr_legit_copy, nr_legit_fail, nr_stray);
	printf("# workload: %lu batches, %lu I/Os, %llu bytes written, %llu bytes verified (final read-back %llu), %lu mismatches, %lu errors\n",
	       W.batches, W.ios, W.written, W.verified, W.final_verified,
	       W.mismatches, W.errors);
	printf("# server files: backing %llu and mirror %llu bytes compared, %lu mismatches\n",
	       cmp_backing, cmp_mirror, bad_backing + bad_mirror);
	printf("# checks failed: %lu undocumented results, %lu model mismatches, %lu total reports\n",
	       nr_undocumented, nr_mismatch_model, nr_fail);
	if (nr_fail)
		printf("# reproduce: zc_fuzz -s %llu -n %lu\n", cfg.seed,
		       cfg.ops);

	ksft_test_result(!nr_undocumented, "every CQE within the documented errno set\n");
	ksft_test_result(!nr_mismatch_model, "every CQE as the model predicts\n");
	ksft_test_result(!ret && !nr_legit_fail, "legitimate data path served every request\n");
	ksft_test_result(!ret && !W.mismatches && !W.errors &&
			 W.final_verified == cfg.dev_size,
			 "workload data verified, full device read back\n");
	ksft_test_result(!ret && !bad_backing && !bad_mirror &&
			 cmp_backing == cfg.dev_size &&
			 cmp_mirror == cfg.dev_size,
			 "backing and mirror files hold the data written\n");
	ksft_finished();
}
