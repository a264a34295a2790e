// SPDX-License-Identifier: GPL-2.0
/*
 * Bounded, seeded fuzzer for the zero-copy uAPIs of three kernel series:
 *
 *  - splice-rsrc: IORING_OP_SPLICE_FROM (58) installs ublk request pages in
 *    a registered-buffer slot, READ_FIXED / WRITE_FIXED / SEND_ZC use it,
 *    IORING_OP_BUF_REMOVE (59) empties the slot; on Linux 7.3 (variant
 *    splice-rsrc-7.3: ops 65/66) the model takes 7.3's rules where they
 *    differ (v73 in zc_fuzz.h: fixed buffers looked up at issue, 7.3's
 *    errnos, cloned kernel buffers), each naming its 7.3 function;
 *  - fused: IORING_OP_FUSED_CMD (58, SQE128), primary
 *    UBLK_U_IO_FUSED_SUBMIT_IO, secondary READ/WRITE/SEND/RECV/SEND_ZC;
 *  - bpf: a UBLK_F_BPF device's BPF_PROG_TYPE_UBLK program queues SQEs
 *    on the request's pages with bpf_ublk_queue_sqe() (helper 212) and
 *    redirects the request to them (UBLK_U_CMD_REG/UNREG_BPF_PROG).
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
 * The seed also picks where the server's FETCH/COMMIT live: on a queue
 * ring of their own, or on the fuzz ring itself (which then goes only at
 * the end, with a committed request still lent: the device must delete),
 * and the fuzz ring's setup (SQE128, SUBMIT_ALL, IOPOLL, SQPOLL, table,
 * files).  Besides the series' ops the fuzzer aims fixed-buffer I/O at
 * files with only ->read()/->write() (eventfd, inotify), parks a READ on a
 * fixed pipe across table updates and unregisters, and drains.
 *
 * On the bpf series there is no fuzz ring: the fuzzing is the program's.
 * Before each batch runs, the server fills the program's map with
 * randomised helper calls for each of its I/Os (zc_fuzz_bpf.c says
 * which); the model predicts, from the cover letter, every helper
 * return, whether the request is redirected, every CQE of its SQEs and
 * which block I/O must fail, and REG/UNREG (good and bad) run while the
 * server holds the batch.  Ops are the batches' I/Os and the control
 * commands; -m does not apply (the SQEs go to the queue ring).
 *
 * Usage: zc_fuzz [-n OPS] [-s SEED] [-m split|same] [-v]; env
 * UBLK_ZC_FUZZ_OPS, UBLK_ZC_FUZZ_SEED, UBLK_ZC_FUZZ_MODE,
 * UBLK_ZC_FLAVOR=debug (smaller device).  Exit 4 (skip)
 * when the kernel has none of the series; exit 1 instead when
 * UBLK_ZC_VARIANT names a series the kernel should have (splice-rsrc,
 * fused, bpf), or another variant than the series found.
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
#include <limits.h>
#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <netinet/in.h>
#include <sys/eventfd.h>
#include <sys/inotify.h>
#include <sys/socket.h>
#include <sys/stat.h>

#include "zc_fuzz.h"
#include "uapi/ublk_bpf.h"
#include "kselftest.h"

/* ------------------------------------------------------------------ */
/* configuration, randomness, reporting                                */

#define MAX_REPORTS	25

struct config cfg;
enum series series;
bool v73;
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
	.closed = 977, .evfd = -1, .inotify = -1, .pipe = { -1, -1 } };
struct uzc_dev D;		/* the device, served by main() */
static unsigned long nr_stray, nr_batches;

/* one fuzz step: a submission, or something done to the ring itself */
static int fuzz_step(void)
{
	struct op ops[MAX_SUB];
	unsigned int r = rnd_below(100);
	int n;

	if (series == S_BPF) {
		bpf_step();
		return 0;
	}
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
	if (r >= 10 && r < 14) {
		/* a READ parks on a fixed pipe, for a while */
		if (!M.parked)
			park_op();
		else if (chance(50))
			unpark_op();
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

/* FM_SAME: a FETCH's CQE on the fuzz ring is the queue's */
bool queue_cqe(const struct io_uring_cqe *cqe)
{
	if (!M.fetch_here || !(cqe->user_data & UZC_UD_IO))
		return false;
	D.nr_active--;
	if (cqe->res == UBLK_IO_RES_OK)
		D.pending[D.nr_pending++] = cqe->user_data & 0xffff;
	return true;
}

static bool req_pending(void)
{
	return D.nr_pending || !D.nr_active;
}

/* the next request, wherever the FETCHes are */
static int next_req(int timeout_ms)
{
	if (series == S_BPF)	/* the program's CQEs come there too */
		return bpf_next_req(timeout_ms);
	if (!M.fetch_here || D.nr_pending)
		return uzc_next_req(&D, timeout_ms);
	reap_fuzz(timeout_ms, req_pending);
	if (D.nr_pending)
		return uzc_next_req(&D, 0);
	return D.nr_active ? -ETIMEDOUT : -ENODEV;
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
		int tag = next_req(100), op;

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
		reregister_op("release", M.nslots);
		return 0;
	}
	if (r < 24) {
		/* an update over each lent slot: they go at once */
		for (i = 0; i < n; i++) {
			struct iovec none = { NULL, 0 };
			__u64 utag = 0;

			nr_ops++;
			check_reg("buffer update (release)",
				  io_uring_register_buffers_update_tag(FR,
					order[i], &none, &utag, 1), 1);
			slot_drop(&M, order[i]);
		}
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
		int tag = next_req(20);

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
		if (series == S_BPF) {
			/* the program's values before the requests exist */
			bpf_arm(&b, fuzz);
			nr_ops += b.nr;
			wl_go();
		}
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
		if (series != S_BPF)
			reap_fuzz(0, NULL);
		ret = wait_batch();
		if (!ret && series == S_BPF)
			ret = bpf_batch_end();
		if (ret) {
			report("seed %llu batch %lu: block I/O did not complete (%d)%s; fuzz ring slots:",
			       cfg.seed, nr_batches, ret, M.parked ?
			       " while a READ is parked on a fixed file (a release waits for it?)" :
			       "");
			for (i = 0; i < (int)M.nslots; i++)
				printf("#   slot %d kind %d tag %u\n", i,
				       M.slot[i].kind, M.slot[i].tag);
			return ret;
		}
	}
}

/* ------------------------------------------------------------------ */
/* setup, teardown, main                                                */

#define ZC_FLAGS	UZC_ZC_FLAGS
#define BPF_FLAGS	(UBLK_F_USER_COPY | UBLK_F_BPF)

/* which series does this kernel run? NULL and @series set, or why not */
static const char *detect(void)
{
	const char *why = uzc_prereq();
	struct io_uring_probe *p;
	__u64 features;
	bool s58, s59;

	if (why)
		return why;
	/* the bpf series: UBLK_F_BPF, no new io_uring op */
	if (!uzc_get_features(&features) && (features & UBLK_F_BPF)) {
		series = S_BPF;
		return NULL;
	}
	p = io_uring_get_probe();
	if (!p)
		return "io_uring_get_probe() failed";
	/* op 58: SPLICE_FROM or FUSED_CMD; only splice-rsrc has 59 */
	s58 = io_uring_opcode_supported(p, OP_SPLICE_FROM);
	s59 = io_uring_opcode_supported(p, OP_BUF_REMOVE);
	io_uring_free_probe(p);
	if (!s58)
		return "io_uring has neither IORING_OP_SPLICE_FROM/BUF_REMOVE (58/59, splice-rsrc) nor IORING_OP_FUSED_CMD (58, fused), and ublk no UBLK_F_BPF (bpf)";
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

/*
 * A file with only ->read(): an inotify fd with one event that is never
 * read (without it io_uring would wait for one, polling, before the READ
 * reaches ->read(), which refuses it); /dev/kmsg on kernels without
 * CONFIG_INOTIFY_USER.  The fd, or -errno.
 */
static int read_only_fop_file(void)
{
	char path[64];
	int ifd = inotify_init1(IN_NONBLOCK), fd;

	if (ifd < 0 && errno == ENOSYS) {
		ifd = open("/dev/kmsg", O_RDONLY | O_NONBLOCK);
		if (ifd >= 0)
			printf("# ->read()-only file: /dev/kmsg (no inotify in this kernel)\n");
		return ifd < 0 ? -errno : ifd;
	}
	if (ifd < 0)
		return -errno;
	fd = tmp_file(path, sizeof(path), "inotify", O_RDWR);
	if (fd < 0 || inotify_add_watch(ifd, path, IN_ATTRIB) < 0 ||
	    fchmod(fd, 0640))
		return -errno;
	close(fd);
	unlink(path);
	return ifd;
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
	F.evfd = eventfd(0, EFD_NONBLOCK);
	/* blocking: a READ of it parks in io_uring instead of -EAGAIN */
	if (F.evfd < 0 || pipe(F.pipe))
		return -errno;
	F.inotify = read_only_fop_file();
	if (F.inotify < 0)
		return F.inotify;
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
	printf("usage: %s [-n OPS] [-s SEED] [-m split|same] [-v]...\n"
	       "  -n OPS   fuzz operations, at least (env UBLK_ZC_FUZZ_OPS)\n"
	       "  -s SEED  reproduce a run (env UBLK_ZC_FUZZ_SEED)\n"
	       "  -m MODE  FETCH/COMMIT on their own ring (split) or on the fuzz\n"
	       "           ring (same); default: the seed's (env UBLK_ZC_FUZZ_MODE)\n"
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
	e = getenv("UBLK_ZC_FUZZ_MODE");
	while ((c = getopt(argc, argv, "n:s:m:vh")) != -1) {
		switch (c) {
		case 'm':
			e = optarg;
			break;
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
	if (e && *e) {
		if (strcmp(e, "split") && strcmp(e, "same")) {
			usage(argv[0]);
			exit(1);
		}
		cfg.mode = strcmp(e, "same") ? FM_SPLIT : FM_SAME;
		cfg.mode_forced = true;
	} else {
		/* a third of the seeds: apart from the rnd() stream */
		__u64 h = cfg.seed ^ 0x6665746368ULL;	/* "fetch" */

		cfg.mode = rng_next(&h) % 3 == 0 ? FM_SAME : FM_SPLIT;
	}
}

static const char *const series_name[] = { "splice-rsrc", "fused", "bpf" };
/* the data path of uzc_must_have() that each series is */
static const char *const series_path[] = { "splice", "fused", "bpf" };

static const char *hang_what = "stopping/deleting the device hangs (a request never completed)";

/* FM_SAME: the queue ring is the fuzz ring, set up by uzc_queue_open() */
static int same_ring_init(struct uzc_dev *d)
{
	F.cdev = d->cdev_fd;
	return fuzz_ring_setup(&d->q);
}

/*
 * FM_SAME, at the end: one more WRITE, lent on the ring that carries the
 * FETCHes, written to the backing file through the loan, committed on the
 * same ring while still lent (it must not complete yet), then the ring
 * exits (with a READ parked on a fixed file, sometimes): the request must
 * complete with its committed result, and the device must delete (the
 * caller's alarm catches a hang).  Its data are the shadow's, so the
 * files still match.
 */
static int end_same_ring(void)
{
	const unsigned int len = cfg.max_io;
	const __u64 off = rnd_below(cfg.dev_size / len) * len;
	struct io_uring_sqe *sqe;
	struct iovec iov;
	struct uzc_io io;
	int tag, slot, res[2], waited = 0;
	bool leg = chance(70), park = chance(50);
	void *buf;

	if (posix_memalign(&buf, 4096, len))
		return -ENOMEM;
	memcpy(buf, W.shadow + off, len);
	iov.iov_base = buf;
	iov.iov_len = len;
	if (uzc_io_start(&D, &io, UZC_WRITE, &iov, 1, off))
		return -EIO;
	for (;;) {
		tag = next_req(100);
		if (tag == -ETIMEDOUT && (waited += 100) < deadline_ms())
			continue;
		if (tag < 0)
			return tag;
		take_req(tag);
		if (M.tag[tag].op == UBLK_IO_OP_WRITE &&
		    M.tag[tag].start == off && M.tag[tag].bytes == len)
			break;
		stray(tag);
	}
	if (!M.table) {
		nr_ops++;
		check_reg("register sparse buffers (end)",
			  io_uring_register_buffers_sparse(FR, 4), 0);
		M.table = true;
		M.nslots = 4;
	}
	slot = pick_slot(&M, SL_EMPTY, 0);
	if (slot < 0) {
		struct iovec none = { NULL, 0 };
		__u64 utag = 0;

		slot = 0;
		nr_ops++;
		check_reg("buffer update (end)",
			  io_uring_register_buffers_update_tag(FR, 0, &none,
							       &utag, 1), 1);
	}
	sqe = io_uring_get_sqe(FR);
	memset(sqe, 0, M.sqe128 ? 128 : 64);
	uzc_prep_splice_from(sqe, F.cdev, uzc_pos(0, tag, 0), len, slot);
	sqe->user_data = UZC_UD_IO - 1;
	sqe = io_uring_get_sqe(FR);
	memset(sqe, 0, M.sqe128 ? 128 : 64);
	if (leg)
		io_uring_prep_write_fixed(sqe, F.backing, NULL, len, off, slot);
	else
		io_uring_prep_nop(sqe);
	sqe->user_data = UZC_UD_IO - 2;
	nr_ops += 2;
	io_uring_submit(FR);
	res[0] = res[1] = INT_MIN;
	while (res[0] == INT_MIN || res[1] == INT_MIN) {
		struct io_uring_cqe *cqe;
		struct __kernel_timespec ts = { .tv_sec = cfg.cqe_wait_ms / 1000 };

		if (io_uring_wait_cqe_timeout(FR, &cqe, &ts))
			break;
		if (cqe->user_data == UZC_UD_IO - 1)
			res[0] = cqe->res;
		else if (cqe->user_data == UZC_UD_IO - 2)
			res[1] = cqe->res;
		else if (!queue_cqe(cqe) && !park_cqe(cqe))
			report("seed %llu: unexpected CQE 0x%llx at the end",
			       cfg.seed, (unsigned long long)cqe->user_data);
		io_uring_cqe_seen(FR, cqe);
	}
	if (res[0] != (int)len || res[1] != (leg ? (int)len : 0)) {
		nr_mismatch_model++;
		report("seed %llu: lend on the FETCH ring: SPLICE_FROM %d, %s %d, expected %u and %u",
		       cfg.seed, res[0], leg ? "WRITE_FIXED" : "NOP", res[1],
		       len, leg ? len : 0);
	}
	M.tag[tag].lend = L_HELD;
	if (park)
		park_op();
	uzc_commit(&D, tag, len);
	M.tag[tag].state = T_DONE;
	if (uzc_io_done(&io, 200)) {
		nr_mismatch_model++;
		report("seed %llu: the WRITE completed at COMMIT while its pages were still lent",
		       cfg.seed);
	}
	printf("# same ring: COMMIT of a %u-byte WRITE still lent%s%s, then ring exit\n",
	       len, leg ? " (a leg wrote it)" : "",
	       M.parked ? ", a READ parked on a fixed file" : "");
	hang_what = "the ring with the FETCHes exited with a committed request lent: the request or the delete hangs";
	fuzz_ring_close();
	if (!uzc_io_done(&io, UZC_DEADLINE_MS)) {
		nr_mismatch_model++;
		report("seed %llu: ring exit: the committed, lent WRITE did not complete within %d ms",
		       cfg.seed, UZC_DEADLINE_MS);
		return -ETIMEDOUT;
	}
	if (uzc_io_wait(&io) != len) {
		nr_mismatch_model++;
		report("seed %llu: ring exit: the committed, lent WRITE ended with %zd, not %u",
		       cfg.seed, io.ret, len);
	}
	free(buf);
	return 0;
}

/* what the fuzz ring saw (splice-rsrc, fused) */
static void print_ring_summary(void)
{
	printf("# %lu SEND_ZC notifications (%lu without F_MORE, from failed links: a 6.12 quirk)\n",
	       nr_notifs, nr_quirk_notif);
	if (series == S_SPLICE)
		printf("# %lu removed/dropped loans probed, %lu still lent at the first probe (max %lu retries)\n",
		       nr_settled, nr_settle_late, max_settle_tries);
	printf("# %lu READs parked on a fixed pipe, %lu released; %lu unregisters with one parked (%lu loans dropped)\n",
	       nr_parks, nr_unparks, nr_unreg_parked, nr_unreg_parked_lent);
	printf("# eventfd/inotify targets: %lu ops, %lu refused (%s); drains: %lu drained SQEs, %lu deferred ops, %lu BUF_REMOVE after a drained NOP (%lu ok)\n",
	       NC.rwonly, NC.rwonly_refused, v73 ? "EFAULT" : "EOPNOTSUPP",
	       NC.drained, NC.deferred,
	       NC.nop_remove, NC.nop_remove_ok);
	printf("# SQPOLL: %lu rings, %lu ops, %lu EPERM; FETCH on the fuzz ring: %lu ops beside it\n",
	       NC.sqpoll_rings, NC.sqpoll_ops, NC.sqpoll_eperm,
	       NC.same_ring_ops);
}

static void hung(int sig)
{
	(void)sig;
	printf("# FAIL: seed %llu: %s\n", cfg.seed, hang_what);
	printf("not ok 1 device teardown hangs\n");
	_exit(KSFT_FAIL);
}

int main(int argc, char **argv)
{
	unsigned long bad_backing = 0, bad_mirror = 0;
	unsigned long long cmp_backing = 0, cmp_mirror = 0;
	struct timespec t0, t1;
	const char *why;
	bool joined = false;
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
		    uzc_must_have("splice") || uzc_must_have("fused") ||
		    uzc_must_have("bpf")))
		ksft_exit_fail_msg("%s, but UBLK_ZC_VARIANT=%s must have it\n",
				   why, uzc_variant());
	if (why)
		ksft_exit_skip("%s\n", why);
	if (uzc_variant() && !uzc_must_have(series_path[series]))
		ksft_exit_fail_msg("the kernel has the %s series' uAPI, but UBLK_ZC_VARIANT=%s\n",
				   series_name[series], uzc_variant());
	if (series == S_BPF)	/* the program's SQEs go to the queue ring */
		cfg.mode = FM_SPLIT;
	v73 = series == S_SPLICE && UZC_V73;
	printf("# series %s%s, %lu ops, device %llu MiB, depth %u, max_io %u KiB%s, FETCH %s%s\n",
	       series_name[series], v73 ? " (7.3 model)" : "", cfg.ops,
	       cfg.dev_size >> 20, cfg.depth, cfg.max_io >> 10,
	       cfg.debug ? " (debug flavor)" : "",
	       cfg.mode == FM_SAME ? "on the fuzz ring" : "on its own ring",
	       cfg.mode_forced ? " (forced)" : "");
	ksft_set_plan(6);
	clock_gettime(CLOCK_MONOTONIC, &t0);

	ret = setup_files();
	if (ret)
		ksft_exit_fail_msg("setup: %s\n", strerror(-ret));
	mem_guard_setup();
	if (cfg.mode == FM_SAME)
		uzc_queue_ring_init = same_ring_init;
	if (series == S_BPF) {
		ret = bpf_setup();
		if (ret)
			ksft_exit_fail_msg("bpf program and map: %s\n",
					   strerror(-ret));
		uzc_queue_ring_init = bpf_ring_init;
		bpf_add_refused();
	}
	W.shadow = calloc(1, cfg.dev_size);
	W.per_io = cfg.max_io + 4 * 4096 + 4096;
	if (posix_memalign((void **)&W.arena, 4096, MAX_DEPTH * W.per_io) ||
	    !W.shadow)
		ksft_exit_fail_msg("out of memory\n");

	ret = uzc_dev_create(&D, series == S_BPF ? BPF_FLAGS : ZC_FLAGS,
			     cfg.depth, cfg.max_io, cfg.dev_size, true);
	if (ret) {
		cleanup_files();
		ksft_exit_fail_msg("create device: %s\n", strerror(-ret));
	}
	F.cdev = D.cdev_fd;
	if (series != S_BPF && !(D.flags & UZC_F_LEND))
		ksft_exit_fail_msg("device lost UZC_F_LEND\n");
	if (series == S_BPF && !(D.flags & UBLK_F_BPF))
		ksft_exit_fail_msg("device lost UBLK_F_BPF\n");
	W.hold = series == S_BPF;
	ret = io_uring_queue_init(64, &DR, IORING_SETUP_SUBMIT_ALL |
				  (series == S_FUSED ? IORING_SETUP_SQE128 : 0));
	if (!ret && series == S_SPLICE)
		ret = io_uring_register_buffers_sparse(&DR, cfg.depth);
	if (!ret && cfg.mode == FM_SPLIT)
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
	if (series != S_BPF)
		reap_fuzz(0, NULL);
	/* a lent buffer that is never given back would hang the delete */
	signal(SIGALRM, hung);
	/* the end lends with SPLICE_FROM: splice-rsrc's op, not fused's */
	if (!ret && M.fetch_here && series == S_SPLICE) {
		pthread_join(W.th, NULL);
		joined = true;
		alarm(cfg.debug ? 300 : 120);
		ret = end_same_ring();
		if (ret)
			report("seed %llu: the end on the FETCH ring failed (%d)",
			       cfg.seed, ret);
	}
	if (M.parked)
		unpark_op_data();
	fuzz_ring_close();
	alarm(cfg.debug ? 300 : 120);
	if (ret) {
		/* stopping the device fails the I/O the workload waits for */
		io_uring_queue_exit(&DR);
		uzc_dev_destroy(&D);
		if (!joined)
			pthread_join(W.th, NULL);
	} else {
		if (!joined)
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
	if (series != S_BPF)	/* the bpf series has no fuzz ring */
		print_ring_summary();
	if (series == S_BPF)
		bpf_summary();
	else
		print_hist();
	printf("# legit: %lu requests served (%lu zero copy, %lu user copy), %lu failures, %lu stray requests\n",
	       nr_legit, nr_legit_zc, nr_legit_copy, nr_legit_fail, nr_stray);
	printf("# workload: %lu batches, %lu I/Os (%lu failed as they must), %llu bytes written, %llu bytes verified (final read-back %llu), %lu mismatches, %lu errors\n",
	       W.batches, W.ios, W.failed, W.written, W.verified,
	       W.final_verified, W.mismatches, W.errors);
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
	/*
	 * Every report() is a failure, also those no check above counts
	 * (a second CQE, a CQE of no SQE, a notification without F_MORE,
	 * a submit that consumed the SQEs otherwise): none may pass unseen.
	 */
	ksft_test_result(!nr_fail, "nothing else reported (%lu reports)\n",
			 nr_fail);
	ksft_finished();
}
