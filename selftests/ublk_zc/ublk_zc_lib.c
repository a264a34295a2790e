// SPDX-License-Identifier: GPL-2.0
/*
 * Minimal in-test ublk server for the ublk_zc selftests, see ublk_zc_lib.h.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <linux/capability.h>
#include <linux/fs.h>
#include <linux/sock_diag.h>
#include <linux/sockios.h>
#include <net/if.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <netinet/in.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/ptrace.h>
#include <sys/wait.h>

#include "ublk_zc_lib.h"
#include "uzc_bpf.h"
#include "uapi/fused.h"
#include "uapi/upstream.h"
#include "kselftest.h"

#define CTRL_DEV	"/dev/ublk-control"

static int ctrl_init(struct uzc_dev *d)
{
	int ret;

	if (d->ctrl_ready)
		return 0;
	d->ctrl_fd = open(CTRL_DEV, O_RDWR);
	if (d->ctrl_fd < 0)
		return -errno;
	ret = io_uring_queue_init(4, &d->ctrl, IORING_SETUP_SQE128);
	if (ret) {
		close(d->ctrl_fd);
		return ret;
	}
	d->ctrl_ready = true;
	return 0;
}

static void ctrl_exit(struct uzc_dev *d)
{
	if (!d->ctrl_ready)
		return;
	io_uring_queue_exit(&d->ctrl);
	close(d->ctrl_fd);
	d->ctrl_ready = false;
}

static void prep_ctrl(struct uzc_dev *d, struct io_uring_sqe *sqe, __u32 op,
		      __u64 data0, void *buf, __u32 len)
{
	struct ublksrv_ctrl_cmd *cmd = (struct ublksrv_ctrl_cmd *)sqe->cmd;

	memset(sqe, 0, 2 * sizeof(*sqe));
	sqe->opcode = IORING_OP_URING_CMD;
	sqe->fd = d->ctrl_fd;
	sqe->cmd_op = op;
	sqe->user_data = op;
	cmd->dev_id = d->dev_id;
	cmd->queue_id = (__u16)-1;
	cmd->addr = (__u64)(uintptr_t)buf;
	cmd->len = len;
	cmd->data[0] = data0;
}

/* submit the control command prepared and return its result */
static int ctrl_run(struct uzc_dev *d)
{
	struct io_uring_cqe *cqe;
	int ret;

	ret = io_uring_submit_and_wait(&d->ctrl, 1);
	if (ret < 0)
		return ret;
	ret = io_uring_wait_cqe(&d->ctrl, &cqe);
	if (ret)
		return ret;
	ret = cqe->res;
	io_uring_cqe_seen(&d->ctrl, cqe);
	return ret;
}

int uzc_ctrl_cmd(struct uzc_dev *d, __u32 op, __u64 data0, void *buf,
		 __u32 len)
{
	struct io_uring_sqe *sqe;
	int ret;

	ret = ctrl_init(d);
	if (ret)
		return ret;
	sqe = io_uring_get_sqe(&d->ctrl);
	if (!sqe)
		return -EBUSY;
	prep_ctrl(d, sqe, op, data0, buf, len);
	return ctrl_run(d);
}

bool uzc_have_ops(void)
{
	struct io_uring_probe *p = io_uring_get_probe();
	bool ok;

	if (!p)
		return false;
	ok = io_uring_opcode_supported(p, UZC_OP_SPLICE_FROM) &&
	     io_uring_opcode_supported(p, UZC_OP_BUF_REMOVE);
	io_uring_free_probe(p);
	return ok;
}

int uzc_get_features(__u64 *features)
{
	struct uzc_dev d = { .dev_id = -1 };
	int ret;

	*features = 0;
	ret = uzc_ctrl_cmd(&d, UBLK_U_CMD_GET_FEATURES, 0, features,
			   sizeof(*features));
	ctrl_exit(&d);
	return ret;
}

const char *uzc_prereq(void)
{
	if (geteuid())
		return "needs root";
	if (access(CTRL_DEV, R_OK | W_OK))
		return "no " CTRL_DEV;
	return NULL;
}

const char *uzc_variant(void)
{
	const char *v = getenv("UBLK_ZC_VARIANT");

	return v && *v ? v : NULL;
}

/*
 * The data paths variant @v must have, from the registry ./variants
 * beside the test programs (lines "variant base matrix paths...", the
 * file the project's scripts read too), as " p1 p2 ... " in @paths;
 * false when the file does not list @v.
 */
static bool uzc_registry_paths(const char *v, char *paths, size_t len)
{
	char self[PATH_MAX], file[PATH_MAX + sizeof("/variants")];
	char line[256], name[64];
	ssize_t n = readlink("/proc/self/exe", self, sizeof(self) - 1);
	bool found = false;
	char *slash;
	int skip;
	FILE *f;

	if (n <= 0)
		return false;
	self[n] = '\0';
	slash = strrchr(self, '/');
	*slash = '\0';
	snprintf(file, sizeof(file), "%s/variants", self);
	f = fopen(file, "r");
	if (!f)
		ksft_exit_fail_msg("UBLK_ZC_VARIANT=%s: cannot read %s: %s\n",
				   v, file, strerror(errno));
	while (!found && fgets(line, sizeof(line), f)) {
		skip = -1;
		if (line[0] == '#' ||
		    sscanf(line, "%63s %*s %*s %n", name, &skip) != 1 ||
		    skip < 0 || strcmp(name, v))
			continue;
		line[strcspn(line, "\n")] = '\0';
		snprintf(paths, len, " %s ", line + skip);
		found = true;
	}
	fclose(f);
	return found;
}

bool uzc_must_have(const char *path)
{
	const char *v = uzc_variant();
	char paths[256], word[32];

	if (!v)
		return false;
	if (!path)
		return true;
	/* a variant the registry does not know must have everything */
	if (!uzc_registry_paths(v, paths, sizeof(paths)))
		return true;
	snprintf(word, sizeof(word), " %s ", path);
	return strstr(paths, word);
}

void uzc_require(const char *why, const char *path)
{
	/* absent on a kernel that must have it: a failure, not a skip */
	if (why && uzc_must_have(uzc_prereq() ? NULL : path))
		ksft_exit_fail_msg("%s, but UBLK_ZC_VARIANT=%s must have it\n",
				   why, uzc_variant());
	if (why)
		ksft_exit_skip("%s\n", why);
}

const char *uzc_zc_missing(void)
{
	__u64 features;

	if (uzc_get_features(&features))
		return "UBLK_U_CMD_GET_FEATURES failed";
	/* ops 65 and 66: the 7.3 series, if GET_FEATURES agrees */
	if (uzc_splice_uapi()->v73) {
		if (!ublk_features_upstream(features))
			return "io_uring has ops 65/66 but ublk lacks 7.3's feature bits";
		if (!(features & UBLK_F_LEND))
			return "ublk does not advertise UBLK_F_LEND (splice-rsrc on 7.3)";
		return NULL;
	}
	if (!(features & UBLK_F_SUPPORT_ZERO_COPY))
		return "ublk does not advertise UBLK_F_SUPPORT_ZERO_COPY";
	/*
	 * upstream's bit 0 is REGISTER_IO_BUF, and it has ops 58 and 59 of
	 * its own (RECV_ZC, EPOLL_WAIT): not the 6.12 series' zero copy
	 */
	if (ublk_features_upstream(features))
		return "upstream ublk: UBLK_F_SUPPORT_ZERO_COPY and ops 58/59 are not a 6.12 series' there";
	return NULL;
}

const char *uzc_unsupported(void)
{
	const char *why = uzc_prereq();

	if (why)
		return why;
	if (!uzc_have_ops())
		return "io_uring lacks IORING_OP_SPLICE_FROM/BUF_REMOVE (58/59, or 65/66 on 7.3)";
	return uzc_zc_missing();
}

const char *uzc_fused_unsupported(void)
{
	const char *why = uzc_prereq();
	struct io_uring_probe *p;
	bool ok;

	if (why)
		return why;
	p = io_uring_get_probe();
	if (!p)
		return "io_uring probe failed";
	ok = io_uring_opcode_supported(p, IORING_OP_FUSED_CMD) &&
	     !io_uring_opcode_supported(p, IORING_OP_FUSED_CMD + 1);
	io_uring_free_probe(p);
	if (!ok)
		return "io_uring lacks IORING_OP_FUSED_CMD (58 only)";
	return uzc_zc_missing();
}

bool uzc_kernel_upstream(void)
{
	__u64 features;

	return !uzc_prereq() && !uzc_get_features(&features) &&
	       ublk_features_upstream(features);
}

const char *uzc_regbuf_unsupported(void)
{
	const char *why = uzc_prereq();
	__u64 features;

	if (why)
		return why;
	if (uzc_get_features(&features))
		return "UBLK_U_CMD_GET_FEATURES failed";
	if (!(features & UBLK_F_REG_IO_BUF))
		return "ublk does not advertise UBLK_F_REG_IO_BUF";
	if (!(features & UBLK_F_AUTO_BUF_REG))
		return "ublk does not advertise UBLK_F_AUTO_BUF_REG";
	return NULL;
}

unsigned int uzc_logical_bs_shift = 9;
unsigned int uzc_discard_sectors;
unsigned int uzc_extra_attrs;

/* uzc_kernel_upstream(), asked once per process (GET_FEATURES) */
static bool uzc_kernel_upstream_cached(void)
{
	static int upstream = -1;

	if (upstream < 0)
		upstream = uzc_kernel_upstream();
	return upstream;
}

int uzc_dev_add(struct uzc_dev *d, __u64 flags, unsigned int depth,
		unsigned int max_io, unsigned long long dev_size,
		bool volatile_cache)
{
	struct ublksrv_ctrl_dev_info info;
	struct ublk_params p;
	int ret;

	memset(d, 0, sizeof(*d));
	d->dev_id = -1;
	d->cdev_fd = -1;
	d->depth = depth;
	d->max_io = max_io;
	d->dev_size = dev_size;
	if (depth > UZC_MAX_DEPTH)
		return -EINVAL;

	memset(&info, 0, sizeof(info));
	info.nr_hw_queues = 1;
	info.queue_depth = depth;
	info.max_io_buf_bytes = max_io;
	info.dev_id = -1;
	info.ublksrv_pid = getpid();
	info.flags = flags;
	/*
	 * 7.x scans partitions from a work item after START_DEV, with a READ
	 * that may come after the start command's serving loop returned:
	 * a test that fetches requests itself would take it for its own
	 * request, or never serve it while the scan holds the disk's open
	 * mutex.  The tests' devices have no partitions to find.
	 */
	if (uzc_kernel_upstream_cached())
		info.flags |= UBLK_F_NO_AUTO_PART_SCAN;
	ret = uzc_ctrl_cmd(d, UBLK_U_CMD_ADD_DEV, 0, &info, sizeof(info));
	if (ret)
		return ret;
	d->dev_id = info.dev_id;
	d->flags = info.flags;
	snprintf(d->cdev_path, sizeof(d->cdev_path), "/dev/ublkc%d", d->dev_id);
	snprintf(d->bdev_path, sizeof(d->bdev_path), "/dev/ublkb%d", d->dev_id);

	memset(&p, 0, sizeof(p));
	p.len = sizeof(p);
	p.types = UBLK_PARAM_TYPE_BASIC;
	p.basic.attrs = volatile_cache ? UBLK_ATTR_VOLATILE_CACHE : 0;
	p.basic.attrs |= uzc_extra_attrs;
	p.basic.logical_bs_shift = uzc_logical_bs_shift;
	p.basic.physical_bs_shift = 12;
	p.basic.io_opt_shift = 12;
	p.basic.io_min_shift = uzc_logical_bs_shift;
	p.basic.max_sectors = max_io >> 9;
	p.basic.dev_sectors = dev_size >> 9;
	if (uzc_discard_sectors) {
		p.types |= UBLK_PARAM_TYPE_DISCARD;
		p.discard.discard_granularity = 4096;
		p.discard.max_discard_sectors = uzc_discard_sectors;
		p.discard.max_write_zeroes_sectors = uzc_discard_sectors;
		p.discard.max_discard_segments = 1;
	}
	ret = uzc_ctrl_cmd(d, UBLK_U_CMD_SET_PARAMS, 0, &p, sizeof(p));
	if (ret) {
		uzc_ctrl_cmd(d, UBLK_U_CMD_DEL_DEV, 0, NULL, 0);
		return ret;
	}
	return 0;
}

static void prep_io_cmd(struct uzc_dev *d, struct io_uring_sqe *sqe,
			__u32 op, int tag, int res)
{
	struct ublksrv_io_cmd *cmd = (struct ublksrv_io_cmd *)&sqe->addr3;

	memset(sqe, 0, sizeof(*sqe));
	sqe->opcode = IORING_OP_URING_CMD;
	sqe->fd = d->cdev_fd;
	sqe->cmd_op = op;
	sqe->user_data = UZC_UD_IO | tag;
	cmd->q_id = 0;
	cmd->tag = tag;
	cmd->result = res;
	cmd->addr = uzc_copy_bufs ?
		(__u64)(uintptr_t)(uzc_copy_bufs + (size_t)tag * d->max_io) : 0;
	/* UBLK_F_AUTO_BUF_REG: the slot of the tag's next request */
	if (uzc_auto_buf_slots)
		sqe->addr = tag | (__u64)uzc_auto_buf_flags << 16;
}

unsigned int uzc_auto_buf_slots;
__u8 uzc_auto_buf_flags;
char *uzc_copy_bufs;
int (*uzc_queue_ring_init)(struct uzc_dev *d);

int uzc_queue_open(struct uzc_dev *d)
{
	size_t len = d->depth * sizeof(struct ublksrv_io_desc);
	long pg = sysconf(_SC_PAGESIZE);
	unsigned int i;
	int ret, tries;

	for (tries = 0; tries < 500; tries++) {
		d->cdev_fd = open(d->cdev_path,
				  d->cdev_read_only ? O_RDONLY : O_RDWR);
		if (d->cdev_fd >= 0 || errno != ENOENT)
			break;
		usleep(10000);
	}
	if (d->cdev_fd < 0)
		return -errno;

	d->iods_len = (len + pg - 1) / pg * pg;
	d->iods = mmap(NULL, d->iods_len, PROT_READ, MAP_SHARED | MAP_POPULATE,
		       d->cdev_fd, UBLKSRV_CMD_BUF_OFFSET);
	if (d->iods == MAP_FAILED) {
		ret = -errno;
		d->iods = NULL;
		return ret;
	}
	if (uzc_queue_ring_init)
		ret = uzc_queue_ring_init(d);
	else
		ret = io_uring_queue_init(2 * d->depth, &d->q, 0);
	if (ret)
		return ret;
	d->q_ready = true;
	if (uzc_auto_buf_slots) {
		ret = io_uring_register_buffers_sparse(&d->q,
						       uzc_auto_buf_slots);
		if (ret)
			return ret;
	}

	for (i = 0; i < d->depth; i++) {
		struct io_uring_sqe *sqe = io_uring_get_sqe(&d->q);

		if (!sqe)
			return -EBUSY;
		prep_io_cmd(d, sqe, UBLK_U_IO_FETCH_REQ, i, 0);
	}
	ret = io_uring_submit(&d->q);
	if (ret < 0)
		return ret;
	d->nr_active = d->depth;
	return 0;
}

void uzc_queue_close(struct uzc_dev *d)
{
	if (d->q_ready)
		io_uring_queue_exit(&d->q);
	d->q_ready = false;
	if (d->iods)
		munmap(d->iods, d->iods_len);
	d->iods = NULL;
	if (d->cdev_fd >= 0)
		close(d->cdev_fd);
	d->cdev_fd = -1;
}

/* one completion of the queue ring; returns tag, -ETIMEDOUT or -ENODEV */
static int reap_io(struct uzc_dev *d, int timeout_ms)
{
	struct __kernel_timespec ts = {
		.tv_sec = timeout_ms / 1000,
		.tv_nsec = (timeout_ms % 1000) * 1000000LL,
	};
	struct io_uring_cqe *cqe;
	int ret, tag, res;

	for (;;) {
		if (!d->nr_active)
			return -ENODEV;
		ret = io_uring_wait_cqe_timeout(&d->q, &cqe, &ts);
		if (ret == -ETIME || ret == -EINTR)
			return -ETIMEDOUT;
		if (ret)
			return ret;
		tag = cqe->user_data & 0xffff;
		res = cqe->res;
		io_uring_cqe_seen(&d->q, cqe);
		d->nr_active--;
		if (res == UBLK_IO_RES_OK)
			return tag;
		/* UBLK_IO_RES_ABORT or an error: this tag is done */
	}
}

int uzc_next_req(struct uzc_dev *d, int timeout_ms)
{
	if (d->nr_pending) {
		int tag = d->pending[0];

		memmove(d->pending, d->pending + 1,
			--d->nr_pending * sizeof(d->pending[0]));
		return tag;
	}
	return reap_io(d, timeout_ms);
}

int uzc_commit(struct uzc_dev *d, int tag, int res)
{
	struct io_uring_sqe *sqe = io_uring_get_sqe(&d->q);
	int ret;

	if (!sqe)
		return -EBUSY;
	prep_io_cmd(d, sqe, UBLK_U_IO_COMMIT_AND_FETCH_REQ, tag, res);
	ret = io_uring_submit(&d->q);
	if (ret < 0)
		return ret;
	d->nr_active++;
	return 0;
}

int uzc_commit_answer(struct uzc_dev *d, int tag, int ms)
{
	struct __kernel_timespec ts = { .tv_sec = ms / 1000,
					.tv_nsec = (ms % 1000) * 1000000LL };
	struct io_uring_cqe *cqe;
	__u64 ud;
	int res;

	for (;;) {
		if (io_uring_wait_cqe_timeout(&d->q, &cqe, &ts))
			return -ETIMEDOUT;
		ud = cqe->user_data;
		res = cqe->res;
		io_uring_cqe_seen(&d->q, cqe);
		if (ud & UZC_UD_IO)
			d->nr_active--;
		if (ud == (UZC_UD_IO | tag))
			return res;
	}
}

int uzc_full_pipe(int p[2])
{
	char fill[4096];

	if (pipe2(p, O_NONBLOCK))
		return -errno;
	if (fcntl(p[1], F_SETPIPE_SZ, 4096) != 4096)
		return -errno;
	memset(fill, 'f', sizeof(fill));
	return write(p[1], fill, sizeof(fill)) == sizeof(fill) ? 0 : -EIO;
}

/*
 * The witness: a pipe whose only writer sits in the ring's file table
 * reads EOF once the ring's context is freed, after its requests were
 * cancelled.  Returns the read end, or -errno.
 */
static int ring_teardown_witness(int ring_fd)
{
	int p[2], ret;

	if (pipe2(p, O_CLOEXEC))
		return -errno;
	ret = syscall(__NR_io_uring_register, ring_fd, IORING_REGISTER_FILES,
		      &p[1], 1);
	ret = ret < 0 ? -errno : 0;
	close(p[1]);
	if (ret) {
		close(p[0]);
		return ret;
	}
	return p[0];
}

static int ring_teardown_wait(int witness, int ms)
{
	struct pollfd pfd = { .fd = witness, .events = POLLIN };
	int ret = poll(&pfd, 1, ms);

	if (ret < 0)
		ret = -errno;
	else
		ret = pfd.revents & POLLHUP ? 0 : -ETIME;
	close(witness);
	return ret;
}

int uzc_ring_exit_wait(struct io_uring *ring, int ms)
{
	int witness = ring_teardown_witness(ring->ring_fd);

	io_uring_queue_exit(ring);
	return witness < 0 ? witness : ring_teardown_wait(witness, ms);
}

int uzc_kmsg_from_now(void)
{
	int fd = open("/dev/kmsg", O_RDONLY | O_NONBLOCK);

	if (fd >= 0)
		lseek(fd, 0, SEEK_END);
	return fd;
}

/* whether @rec is a kernel report uzc_kmsg_report() looks for */
static bool uzc_kmsg_is_report(const char *rec)
{
	static const char *const what[] = {
		"WARNING:", "refcount_t:", "BUG:", "KASAN", "underflow",
	};
	unsigned int i;

	for (i = 0; i < sizeof(what) / sizeof(what[0]); i++)
		if (strstr(rec, what[i]))
			return true;
	return false;
}

bool uzc_kmsg_report(int fd, char *line, size_t len)
{
	char rec[4096];
	bool seen = false;
	ssize_t n;

	if (fd < 0)
		return false;
	for (;;) {
		n = read(fd, rec, sizeof(rec) - 1);
		/* EPIPE: records were overwritten; the reader moved on */
		if (n < 0 && errno == EPIPE)
			continue;
		if (n <= 0)
			break;
		rec[n] = 0;
		if (seen || !uzc_kmsg_is_report(rec))
			continue;
		seen = true;
		if (len)
			snprintf(line, len, "%s", rec);
	}
	return seen;
}

bool uzc_kmsg_settle(int fd, int ms, char *line, size_t len)
{
	bool seen;

	usleep(ms * 1000);
	seen = uzc_kmsg_report(fd, line, len);
	if (fd >= 0)
		close(fd);
	return seen;
}

int uzc_serve_default(struct uzc_dev *d, int tag)
{
	const struct ublksrv_io_desc *iod = uzc_iod(d, tag);
	unsigned int op = ublksrv_get_op(iod);
	size_t bytes = (size_t)iod->nr_sectors << 9;
	int res = 0;

	if (op == UBLK_IO_OP_READ) {
		void *zero = calloc(1, bytes);

		res = -ENOMEM;
		if (zero) {
			res = pwrite(d->cdev_fd, zero, bytes,
				     uzc_pos(0, tag, 0));
			if (res < 0)
				res = -errno;
			free(zero);
		}
	} else if (op == UBLK_IO_OP_WRITE) {
		res = bytes;
	}
	return uzc_commit(d, tag, res);
}

/* run an async control command while serving the queue */
static int ctrl_serving(struct uzc_dev *d, __u32 op, __u64 data0)
{
	struct io_uring_sqe *sqe;
	struct io_uring_cqe *cqe;
	int ret, tag;

	ret = ctrl_init(d);
	if (ret)
		return ret;
	sqe = io_uring_get_sqe(&d->ctrl);
	if (!sqe)
		return -EBUSY;
	prep_ctrl(d, sqe, op, data0, NULL, 0);
	ret = io_uring_submit(&d->ctrl);
	if (ret < 0)
		return ret;
	for (;;) {
		if (!io_uring_peek_cqe(&d->ctrl, &cqe)) {
			ret = cqe->res;
			io_uring_cqe_seen(&d->ctrl, cqe);
			return ret;
		}
		if (!d->q_ready || !d->nr_active) {
			ret = io_uring_wait_cqe(&d->ctrl, &cqe);
			if (ret)
				return ret;
			continue;
		}
		tag = reap_io(d, 20);
		if (tag >= 0)
			uzc_serve_default(d, tag);
	}
}

int uzc_dev_start(struct uzc_dev *d)
{
	int ret = ctrl_serving(d, UBLK_U_CMD_START_DEV, getpid());

	if (!ret)
		d->started = true;
	return ret;
}

int uzc_dev_create(struct uzc_dev *d, __u64 flags, unsigned int depth,
		   unsigned int max_io, unsigned long long dev_size,
		   bool volatile_cache)
{
	int ret;

	ret = uzc_dev_add(d, flags, depth, max_io, dev_size, volatile_cache);
	if (ret)
		return ret;
	ret = uzc_queue_open(d);
	if (!ret)
		ret = uzc_dev_start(d);
	if (ret)
		uzc_dev_destroy(d);
	return ret;
}

int uzc_dev_destroy(struct uzc_dev *d)
{
	int ret = 0, ret2;

	if (d->dev_id < 0)
		return 0;
	if (d->started && d->q_ready)
		ret = ctrl_serving(d, UBLK_U_CMD_STOP_DEV, 0);
	uzc_queue_close(d);
	ret2 = uzc_dev_del(d);
	return ret ? ret : ret2;
}

int uzc_dev_del(struct uzc_dev *d)
{
	int ret = 0;

	if (d->dev_id < 0)
		return 0;
	/* stopping a stopped device is harmless, it may have died */
	uzc_ctrl_cmd(d, UBLK_U_CMD_STOP_DEV, 0, NULL, 0);
	ret = uzc_ctrl_cmd(d, UBLK_U_CMD_DEL_DEV, 0, NULL, 0);
	ctrl_exit(d);
	d->dev_id = -1;
	return ret;
}

int uzc_dev_wait_state(struct uzc_dev *d, __u16 state, int ms)
{
	struct ublksrv_ctrl_dev_info info;
	int ret;

	for (;;) {
		ret = uzc_ctrl_cmd(d, UBLK_U_CMD_GET_DEV_INFO, 0, &info,
				   sizeof(info));
		if (ret)
			return ret;
		if (info.state == state)
			return 0;
		if (ms <= 0)
			return -ETIMEDOUT;
		usleep(10000);
		ms -= 10;
	}
}

int uzc_dev_recover(struct uzc_dev *d)
{
	int ret;

	/* the queue is aborted in the daemon's exit work: a little later */
	ret = uzc_dev_wait_state(d, UBLK_S_DEV_QUIESCED, 5000);
	if (ret)
		return ret;
	ret = uzc_ctrl_cmd(d, UBLK_U_CMD_START_USER_RECOVERY, 0, NULL, 0);
	if (!ret)
		ret = uzc_queue_open(d);
	if (!ret)
		ret = uzc_ctrl_cmd(d, UBLK_U_CMD_END_USER_RECOVERY, getpid(),
				   NULL, 0);
	if (!ret)
		d->started = true;
	return ret;
}

int uzc_serving_setup(struct uzc_dev *d, unsigned int depth,
		      struct io_uring *ring, unsigned int entries,
		      unsigned int ring_flags, unsigned int slots)
{
	int ret;

	ret = uzc_dev_create(d, UZC_ZC_FLAGS, depth, UZC_ZC_MAX_IO,
			     UZC_ZC_DEV_SIZE, false);
	if (ret) {
		/* a failed SET_PARAMS deletes the device, keeps its id */
		d->dev_id = -1;
		return ret;
	}
	ret = io_uring_queue_init(entries, ring, ring_flags);
	if (ret) {
		uzc_dev_destroy(d);
		return ret;
	}
	ret = io_uring_register_buffers_sparse(ring, slots);
	if (ret) {
		io_uring_queue_exit(ring);
		uzc_dev_destroy(d);
	}
	return ret;
}

int uzc_serving_teardown(struct uzc_dev *d, struct io_uring *ring)
{
	if (d->dev_id < 0)
		return 0;
	io_uring_queue_exit(ring);
	return uzc_dev_destroy(d);
}

static void *io_thread(void *arg)
{
	struct uzc_io *io = arg;
	ssize_t ret;

	switch (io->op) {
	case UZC_READ:
		ret = preadv(io->fd, io->iov, io->iovcnt, io->off);
		break;
	case UZC_WRITE:
		ret = pwritev(io->fd, io->iov, io->iovcnt, io->off);
		break;
	case UZC_DISCARD:
	case UZC_WRITE_ZEROES: {
		__u64 range[2] = { io->off, io->iov[0].iov_len };

		ret = ioctl(io->fd, io->op == UZC_DISCARD ? BLKDISCARD :
			    BLKZEROOUT, range);
		break;
	}
	default:
		ret = fsync(io->fd);
		break;
	}
	io->ret = ret < 0 ? -errno : ret;
	__atomic_store_n(&io->done, 1, __ATOMIC_RELEASE);
	return NULL;
}

int uzc_io_start(struct uzc_dev *d, struct uzc_io *io, enum uzc_io_op op,
		 const struct iovec *iov, int iovcnt, off_t off)
{
	memset(io, 0, sizeof(*io));
	if (iovcnt > 16)
		return -EINVAL;
	io->fd = open(d->bdev_path, O_RDWR | O_DIRECT);
	if (io->fd < 0)
		return -errno;
	io->op = op;
	memcpy(io->iov, iov, iovcnt * sizeof(*iov));
	io->iovcnt = iovcnt;
	io->off = off;
	if (pthread_create(&io->thread, NULL, io_thread, io)) {
		close(io->fd);
		return -EAGAIN;
	}
	return 0;
}

ssize_t uzc_io_wait(struct uzc_io *io)
{
	pthread_join(io->thread, NULL);
	close(io->fd);
	return io->ret;
}

bool uzc_io_done(struct uzc_io *io, int ms)
{
	while (!__atomic_load_n(&io->done, __ATOMIC_ACQUIRE)) {
		if (ms-- <= 0)
			return false;
		usleep(1000);
	}
	return true;
}

void uzc_prep_splice_from(struct io_uring_sqe *sqe, int fd, __u64 pos,
			  __u32 len, __u16 slot)
{
	memset(sqe, 0, sizeof(*sqe));
	sqe->opcode = UZC_OP_SPLICE_FROM;
	sqe->fd = fd;
	sqe->off = pos;
	sqe->len = len;
	sqe->buf_index = slot;
}

void uzc_prep_buf_remove(struct io_uring_sqe *sqe, __u16 slot)
{
	memset(sqe, 0, sizeof(*sqe));
	sqe->opcode = UZC_OP_BUF_REMOVE;
	sqe->fd = -1;
	sqe->buf_index = slot;
}

int uzc_wait_cqes(struct io_uring *ring, unsigned int nr, int *res,
		  __u64 *ud, int timeout_ms)
{
	struct __kernel_timespec ts = {
		.tv_sec = timeout_ms / 1000,
		.tv_nsec = (timeout_ms % 1000) * 1000000LL,
	};
	struct io_uring_cqe *cqe;
	unsigned int i;
	int ret;

	for (i = 0; i < nr; i++) {
		ret = io_uring_wait_cqe_timeout(ring, &cqe, &ts);
		if (ret)
			return ret == -ETIME ? -ETIMEDOUT : ret;
		if (res)
			res[i] = cqe->res;
		if (ud)
			ud[i] = cqe->user_data;
		io_uring_cqe_seen(ring, cqe);
	}
	return 0;
}

int uzc_submit_wait(struct io_uring *ring, unsigned int nr, int *res,
		    __u64 *ud, int timeout_ms)
{
	int ret = io_uring_submit(ring);

	return ret < 0 ? ret : uzc_wait_cqes(ring, nr, res, ud, timeout_ms);
}

void uzc_fill(void *buf, size_t len, unsigned int seed)
{
	unsigned char *p = buf;
	unsigned int x = seed * 2654435761u + 1;
	size_t i;

	for (i = 0; i < len; i++) {
		x ^= x << 13;
		x ^= x >> 17;
		x ^= x << 5;
		p[i] = x;
	}
}

size_t uzc_cmp(const void *a, const void *b, size_t len)
{
	const unsigned char *x = a, *y = b;
	size_t i;

	for (i = 0; i < len; i++)
		if (x[i] != y[i])
			return i + 1;
	return 0;
}

int uzc_loopback_up(void)
{
	struct ifreq ifr = { .ifr_name = "lo" };
	int s = socket(AF_INET, SOCK_DGRAM, 0), ret = 0;

	if (s < 0)
		return -errno;
	if (ioctl(s, SIOCGIFFLAGS, &ifr) == 0 && !(ifr.ifr_flags & IFF_UP)) {
		ifr.ifr_flags |= IFF_UP;
		if (ioctl(s, SIOCSIFFLAGS, &ifr))
			ret = -errno;
	}
	close(s);
	return ret;
}

int uzc_tcp_pair(int *tx, int *rx, int sndbuf, int rcvbuf)
{
	struct sockaddr_in sa = { .sin_family = AF_INET };
	socklen_t sl = sizeof(sa);
	int ls, ret;

	*tx = *rx = -1;
	uzc_loopback_up();
	sa.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	ls = socket(AF_INET, SOCK_STREAM, 0);
	*tx = socket(AF_INET, SOCK_STREAM, 0);
	/*
	 * Sizes before listen()/connect(): the accepted socket inherits the
	 * listener's receive buffer, and the window scale is fixed by the
	 * handshake.
	 */
	if (ls < 0 || *tx < 0 ||
	    (rcvbuf && setsockopt(ls, SOL_SOCKET, SO_RCVBUF, &rcvbuf,
				  sizeof(rcvbuf))) ||
	    (sndbuf && setsockopt(*tx, SOL_SOCKET, SO_SNDBUF, &sndbuf,
				  sizeof(sndbuf))) ||
	    bind(ls, (struct sockaddr *)&sa, sizeof(sa)) || listen(ls, 1) ||
	    getsockname(ls, (struct sockaddr *)&sa, &sl) ||
	    connect(*tx, (struct sockaddr *)&sa, sizeof(sa)))
		goto fail;
	*rx = accept(ls, NULL, NULL);
	if (*rx < 0)
		goto fail;
	close(ls);
	return 0;
fail:
	ret = -errno;
	if (ls >= 0)
		close(ls);
	if (*tx >= 0)
		close(*tx);
	*tx = *rx = -1;
	return ret;
}

int uzc_tcp_full_pair(int *tx, int *rx)
{
	char fill[4096] = { 0 };
	int ret;

	/* small buffers both ways: a few pages fill them */
	ret = uzc_tcp_pair(tx, rx, 4096, 4096);
	if (ret)
		return ret;
	while (send(*tx, fill, sizeof(fill), MSG_DONTWAIT) > 0)
		;
	if (errno == EAGAIN)
		return 0;
	ret = -errno;
	close(*tx);
	close(*rx);
	*tx = *rx = -1;
	return ret;
}

bool uzc_read_full(int fd, void *buf, size_t len)
{
	size_t got;
	ssize_t n;

	for (got = 0; got < len; got += n) {
		n = read(fd, (char *)buf + got, len - got);
		if (n <= 0)
			return false;
	}
	return true;
}

/* bytes queued in @tx (not yet acked) plus bytes waiting in @rx */
static int tcp_in_flight(int tx, int rx)
{
	int outq = 0, inq = 0;

	if (ioctl(tx, SIOCOUTQ, &outq) || ioctl(rx, SIOCINQ, &inq))
		return -errno;
	return outq + inq;
}

int uzc_tcp_wait_queued(int tx, int rx, int len, int ms)
{
	int n = 0;

	while (ms-- > 0) {
		n = tcp_in_flight(tx, rx);
		if (n == len)
			break;
		usleep(1000);
	}
	return n;
}

int uzc_wmem_queued(int fd)
{
	__u32 mem[SK_MEMINFO_VARS];
	socklen_t l = sizeof(mem);

	if (getsockopt(fd, SOL_SOCKET, SO_MEMINFO, mem, &l))
		return -errno;
	return mem[SK_MEMINFO_WMEM_QUEUED];
}

void *uzc_contiguous_run(char *area, size_t area_len, size_t len)
{
	size_t pg = 4096, i, run = 0;
	__u64 e, prev = 0;
	int fd;

	fd = open("/proc/self/pagemap", O_RDONLY);
	if (fd < 0)
		return NULL;
	for (i = 0; i < area_len / pg; i++) {
		if (pread(fd, &e, 8, ((uintptr_t)area / pg + i) * 8) != 8)
			break;
		e &= (1ULL << 55) - 1;		/* the PFN */
		run = e && i && e == prev + 1 ? run + 1 : 1;
		prev = e;
		if (e && run * pg == len) {
			close(fd);
			return area + (i + 1 - run) * pg;
		}
	}
	close(fd);
	return NULL;
}

pid_t uzc_delete_start(struct uzc_dev *d)
{
	pid_t pid;
	int fd;

	pid = fork();
	if (pid < 0)
		return -errno;
	if (pid == 0) {
		/*
		 * Keep only the control: an inherited /dev/ublkbN (of a block
		 * I/O that did not end) would make DEL_DEV wait for this very
		 * child, and a child stuck in STOP_DEV must not hold the TAP
		 * output open.
		 */
		fd = open("/dev/null", O_WRONLY);
		if (fd >= 0) {
			dup2(fd, STDOUT_FILENO);
			dup2(fd, STDERR_FILENO);
		}
		/*
		 * Nor the queue's mappings: the descriptors' mmap holds the
		 * char device, the ring's the ring, so DEL_DEV, waiting for
		 * the device's release, would wait for this child too, while
		 * the parent still serves.
		 */
		if (d->iods)
			munmap(d->iods, d->iods_len);
		if (d->q_ready)
			io_uring_queue_exit(&d->q);
		for (fd = 3; fd < 1024; fd++)
			if (fd != d->ctrl_fd && fd != d->ctrl.ring_fd)
				close(fd);
		_exit(uzc_dev_del(d) ? 1 : 0);
	}
	return pid;
}

bool uzc_delete_wait(struct uzc_dev *d, pid_t pid, int ms)
{
	int status, waited;

	for (waited = 0; waited <= ms; waited += 20) {
		if (waitpid(pid, &status, WNOHANG) == pid) {
			d->dev_id = -1;
			return WIFEXITED(status) && !WEXITSTATUS(status);
		}
		usleep(20000);
	}
	d->dev_id = -1;		/* leave it to the stuck child */
	return false;
}

bool uzc_deleted_within(struct uzc_dev *d, int ms)
{
	pid_t pid = uzc_delete_start(d);

	return pid > 0 && uzc_delete_wait(d, pid, ms);
}

void *uzc_write_start(struct uzc_dev *d, struct uzc_io *io, size_t len,
		      unsigned int seed)
{
	struct iovec iov;
	void *buf;

	if (posix_memalign(&buf, 4096, len))
		return NULL;
	uzc_fill(buf, len, seed);
	iov.iov_base = buf;
	iov.iov_len = len;
	if (uzc_io_start(d, io, UZC_WRITE, &iov, 1, UZC_TEST_SECTOR * 512)) {
		free(buf);
		return NULL;
	}
	return buf;
}

void uzc_srv_init(struct uzc_srv *s)
{
	memset(s, 0, sizeof(*s));
	s->d.dev_id = -1;
	s->d.cdev_fd = -1;
	s->ready[0] = s->ready[1] = s->pipe[0] = s->pipe[1] = -1;
}

/* the daemon: serve until the test's WRITE, then hand it to @fn */
static char srv_daemon(struct uzc_srv *s, uzc_srv_fn fn)
{
	struct uzc_dev *d = &s->d;
	int tag;

	if (uzc_queue_open(d))
		return '1';
	for (;;) {
		tag = uzc_next_req(d, 60000);
		if (tag < 0)
			return '2';
		if (ublksrv_get_op(uzc_iod(d, tag)) == UBLK_IO_OP_WRITE &&
		    uzc_iod(d, tag)->start_sector == UZC_TEST_SECTOR)
			break;
		uzc_serve_default(d, tag);
	}
	return fn(s, tag, uzc_iod(d, tag)->nr_sectors << 9);
}

int uzc_srv_start(struct uzc_srv *s, __u64 flags, unsigned int depth,
		  uzc_srv_fn fn, unsigned int mode, size_t len)
{
	char st = 0, fill[4096];
	struct pollfd pf;

	uzc_srv_init(s);
	s->mode = mode;
	if (pipe(s->ready) || pipe2(s->pipe, O_NONBLOCK))
		return -errno;
	/* one page, full: a write of request pages to it parks */
	if (fcntl(s->pipe[1], F_SETPIPE_SZ, 4096) != 4096)
		return -errno;
	memset(fill, 'f', sizeof(fill));
	if (write(s->pipe[1], fill, sizeof(fill)) != sizeof(fill))
		return -errno;
	if (uzc_dev_add(&s->d, flags, depth, UZC_ZC_MAX_IO, UZC_ZC_DEV_SIZE,
			false))
		return -ENODEV;

	s->pid = fork();
	if (s->pid < 0)
		return -errno;
	if (s->pid == 0) {
		close(s->ready[0]);
		s->d.ctrl_ready = false;	/* the parent's */
		st = srv_daemon(s, fn);
		if (write(s->ready[1], &s->holder, sizeof(s->holder)) !=
		    sizeof(s->holder) ||
		    write(s->ready[1], &s->out, sizeof(s->out)) !=
		    sizeof(s->out) || write(s->ready[1], &st, 1) != 1)
			_exit(4);
		/* the case kills the daemon when it wants it gone */
		for (;;)
			pause();
	}
	close(s->ready[1]);
	s->ready[1] = -1;
	if (uzc_ctrl_cmd(&s->d, UBLK_U_CMD_START_DEV, s->pid, NULL, 0))
		return -EIO;
	s->buf = uzc_write_start(&s->d, &s->io, len, 51);
	if (!s->buf)
		return -EIO;
	pf.fd = s->ready[0];
	pf.events = POLLIN;
	if (poll(&pf, 1, 30000) != 1)
		return -ETIMEDOUT;
	if (read(s->ready[0], &s->holder, sizeof(s->holder)) !=
	    sizeof(s->holder) ||
	    read(s->ready[0], &s->out, sizeof(s->out)) != sizeof(s->out))
		return -EPROTO;
	if (read(s->ready[0], &st, 1) != 1 || st != 'r')
		return -EPROTO;
	return 0;
}

int uzc_srv_fork_holder(struct uzc_srv *s, bool keep_queue_ring)
{
	struct uzc_dev *d = &s->d;

	s->holder = fork();
	if (s->holder < 0)
		return -errno;
	if (s->holder == 0) {
		int fd = open("/dev/null", O_WRONLY);

		munmap(d->iods, d->iods_len);
		close(d->cdev_fd);
		if (d->q_ready && !keep_queue_ring)
			io_uring_queue_exit(&d->q);
		/*
		 * Nor the TAP output or the daemon's report: a holder the
		 * test never learnt of (a start that failed after the fork)
		 * must not keep the runner's pipe open, and it ends on its
		 * own (SIGALRM) after any case's timeout.
		 */
		if (fd >= 0) {
			dup2(fd, STDOUT_FILENO);
			dup2(fd, STDERR_FILENO);
			close(fd);
		}
		close(s->ready[1]);
		alarm(UZC_HOLDER_MAX_S);
		for (;;)
			pause();
	}
	return 0;
}

void uzc_srv_kill(struct uzc_srv *s)
{
	int status;

	kill(s->pid, SIGKILL);
	waitpid(s->pid, &status, 0);
	s->pid = 0;
}

bool uzc_srv_close(struct uzc_srv *s)
{
	bool ok = true;

	/* the holder was reparented when its parent died: no wait */
	if (s->holder > 0)
		kill(s->holder, SIGKILL);
	/* a case that stopped early leaves no device behind */
	if (s->d.dev_id >= 0 && s->d.ctrl_ready) {
		if (s->pid > 0)
			uzc_srv_kill(s);
		uzc_queue_close(&s->d);
		ok = uzc_deleted_within(&s->d, UZC_DEADLINE_MS);
	}
	if (s->ready[0] >= 0)
		close(s->ready[0]);
	if (s->pipe[0] >= 0)
		close(s->pipe[0]);
	if (s->pipe[1] >= 0)
		close(s->pipe[1]);
	s->ready[0] = s->pipe[0] = s->pipe[1] = -1;
	free(s->buf);
	s->buf = NULL;
	return ok;
}

int uzc_stop_at_exit(pid_t pid)
{
	int status;

	if (ptrace(PTRACE_SEIZE, pid, 0, PTRACE_O_TRACEEXIT) ||
	    kill(pid, SIGUSR1))
		return -errno;
	/* the signal's delivery stop: let SIGUSR1 through */
	if (waitpid(pid, &status, 0) != pid)
		return -errno;
	if (!WIFSTOPPED(status) || WSTOPSIG(status) != SIGUSR1)
		return -EPROTO;
	if (ptrace(PTRACE_CONT, pid, 0, SIGUSR1))
		return -errno;
	/* then the exit's */
	if (waitpid(pid, &status, 0) != pid)
		return -errno;
	return status >> 8 == (SIGTRAP | (PTRACE_EVENT_EXIT << 8)) ? 0 : -EPROTO;
}

int uzc_take_fd(pid_t pid, int fd)
{
	int pidfd, ret;

	pidfd = syscall(SYS_pidfd_open, pid, 0);
	if (pidfd < 0)
		return -errno;
	ret = syscall(SYS_pidfd_getfd, pidfd, fd, 0);
	if (ret < 0)
		ret = -errno;
	close(pidfd);
	return ret;
}

int uzc_scm_pass(int fd)
{
	union {
		char buf[CMSG_SPACE(sizeof(int))];
		struct cmsghdr align;
	} ctl;
	char c = 'f';
	struct iovec iov = { .iov_base = &c, .iov_len = 1 };
	struct msghdr mh = {
		.msg_iov = &iov, .msg_iovlen = 1,
		.msg_control = ctl.buf, .msg_controllen = sizeof(ctl.buf),
	};
	struct cmsghdr *cm;
	int sv[2], ret = 0, got;

	if (socketpair(AF_UNIX, SOCK_DGRAM, 0, sv))
		return -errno;
	memset(&ctl, 0, sizeof(ctl));
	cm = CMSG_FIRSTHDR(&mh);
	cm->cmsg_level = SOL_SOCKET;
	cm->cmsg_type = SCM_RIGHTS;
	cm->cmsg_len = CMSG_LEN(sizeof(int));
	memcpy(CMSG_DATA(cm), &fd, sizeof(int));
	if (sendmsg(sv[0], &mh, 0) != 1) {
		ret = -errno;
		goto out;
	}
	/* it went through: take it back, so that nothing stays in flight */
	mh.msg_controllen = sizeof(ctl.buf);
	if (recvmsg(sv[1], &mh, 0) != 1) {
		ret = -errno;
		goto out;
	}
	cm = CMSG_FIRSTHDR(&mh);
	if (cm && cm->cmsg_type == SCM_RIGHTS) {
		memcpy(&got, CMSG_DATA(cm), sizeof(int));
		close(got);
	}
out:
	close(sv[0]);
	close(sv[1]);
	return ret;
}

/* CAP_SYS_ADMIN out of every set of this task; 0 or -errno */
static int drop_sys_admin(void)
{
	struct __user_cap_header_struct h = {
		.version = _LINUX_CAPABILITY_VERSION_3,
	};
	struct __user_cap_data_struct c[_LINUX_CAPABILITY_U32S_3];
	unsigned int i = CAP_TO_INDEX(CAP_SYS_ADMIN);
	__u32 m = CAP_TO_MASK(CAP_SYS_ADMIN);

	if (syscall(SYS_capget, &h, c))
		return -errno;
	c[i].effective &= ~m;
	c[i].permitted &= ~m;
	c[i].inheritable &= ~m;
	if (syscall(SYS_capset, &h, c))
		return -errno;
	return 0;
}

int uzc_ctrl_cmd_path(struct uzc_dev *d, __u32 op, __u64 data0)
{
	struct ublksrv_ctrl_cmd *cmd;
	struct io_uring_sqe *sqe;
	char path[32];
	int len;

	len = snprintf(path, sizeof(path), "/dev/ublkc%d", d->dev_id);
	sqe = io_uring_get_sqe(&d->ctrl);
	if (!sqe)
		return -EBUSY;
	prep_ctrl(d, sqe, op, data0, path, len);
	cmd = (struct ublksrv_ctrl_cmd *)sqe->cmd;
	cmd->dev_path_len = len;
	return ctrl_run(d);
}

struct unpriv_answer {
	int add, del;
	__u64 flags;
	int dev_id;
};

/* ADD_DEV without CAP_SYS_ADMIN; then DEL_DEV unless @keep */
static void unprivileged_child(__u64 flags, bool keep, struct unpriv_answer *a)
{
	struct ublksrv_ctrl_dev_info info;
	struct uzc_dev d;
	__u64 features;

	memset(&d, 0, sizeof(d));
	d.dev_id = -1;
	d.cdev_fd = -1;
	/* opens the control and its ring, as root */
	if (uzc_ctrl_cmd(&d, UBLK_U_CMD_GET_FEATURES, 0, &features,
			 sizeof(features)) || drop_sys_admin())
		return;
	memset(&info, 0, sizeof(info));
	info.nr_hw_queues = 1;
	info.queue_depth = 4;
	info.max_io_buf_bytes = 64 << 10;
	info.dev_id = -1;
	info.ublksrv_pid = getpid();
	info.flags = flags | UBLK_F_UNPRIVILEGED_DEV;
	a->add = uzc_ctrl_cmd(&d, UBLK_U_CMD_ADD_DEV, 0, &info, sizeof(info));
	if (a->add)
		return;
	a->flags = info.flags;
	a->dev_id = d.dev_id = info.dev_id;
	if (!keep)
		a->del = uzc_ctrl_cmd_path(&d, UBLK_U_CMD_DEL_DEV, 0);
}

static int unprivileged_add(__u64 flags, bool keep, struct unpriv_answer *a)
{
	int p[2], status;
	pid_t pid;

	memset(a, 0, sizeof(*a));
	a->add = a->del = -ECHILD;
	if (pipe(p))
		return -errno;
	pid = fork();
	if (pid < 0) {
		close(p[0]);
		close(p[1]);
		return -errno;
	}
	if (pid == 0) {
		close(p[0]);
		unprivileged_child(flags, keep, a);
		_exit(write(p[1], a, sizeof(*a)) == sizeof(*a) ? 0 : 1);
	}
	close(p[1]);
	if (read(p[0], a, sizeof(*a)) != sizeof(*a))
		a->add = a->del = -ECHILD;
	close(p[0]);
	waitpid(pid, &status, 0);
	return a->add;
}

int uzc_unprivileged_add(__u64 flags, __u64 *got, int *del)
{
	struct unpriv_answer a;
	int ret = unprivileged_add(flags, false, &a);

	*got = a.flags;
	*del = a.del;
	return ret;
}

int uzc_unprivileged_dev(struct uzc_dev *d, __u64 flags)
{
	struct unpriv_answer a;
	int ret;

	memset(d, 0, sizeof(*d));
	d->dev_id = -1;
	d->cdev_fd = -1;
	ret = unprivileged_add(flags, true, &a);
	if (ret)
		return ret;
	d->dev_id = a.dev_id;
	d->flags = a.flags;
	return 0;
}

void *uzc_pread_holder_fn(void *arg)
{
	struct uzc_pread_holder *h = arg;

	h->ret = pread(h->d->cdev_fd, h->area, 4096, uzc_pos(0, h->tag, 0));
	return NULL;
}

int uzc_sys_bpf(int cmd, union bpf_attr *attr)
{
	return syscall(__NR_bpf, cmd, attr, sizeof(*attr));
}

int uzc_bpf_load(const struct bpf_insn *insns, unsigned int n, int type,
		 char *log, unsigned int log_size)
{
	union bpf_attr attr;
	int fd, attempt;

	memset(&attr, 0, sizeof(attr));
	attr.prog_type = type;
	attr.insns = (unsigned long)insns;
	attr.insn_cnt = n;
	attr.license = (unsigned long)"GPL";
	attr.log_buf = (unsigned long)log;
	attr.log_size = log_size;
	attr.log_level = 1;
	/*
	 * The verifier gives up with -EAGAIN when a signal is pending, and
	 * io_uring's task work for this thread (TIF_NOTIFY_SIGNAL) counts as
	 * one: run it (by returning to user space) and try again, as libbpf
	 * does.
	 */
	for (attempt = 0; attempt < 5; attempt++) {
		log[0] = 0;
		fd = uzc_sys_bpf(BPF_PROG_LOAD, &attr);
		if (fd >= 0 || errno != EAGAIN)
			break;
	}
	return fd < 0 ? -errno : fd;
}
