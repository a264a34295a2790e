// SPDX-License-Identifier: GPL-2.0
/*
 * kublk as a peer server of `abtool run` (kublk.h): its configs, the
 * cells it can serve as abtool's server would, its command lines and
 * what it prints, and the life cycle of one of its devices.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "uapi/base.h"
#include "uapi/regbuf.h"

#include "kublk.h"

/* 7.3's; the base headers abtool builds against predate it */
#ifndef UBLK_F_BATCH_IO
#define UBLK_F_BATCH_IO		(1ULL << 15)
#endif

#define KUBLK_TIMEOUT_MS	60000	/* add or del; kublk del waits 10 s */
#define KUBLK_MAX_ID		1024	/* device ids abtool looks after */

const struct kublk_config kublk_configs[KUBLK_NR_CONFIGS] = {
	{
		.row = { .name = "kublk-z",
			 .help = "upstream's kublk -z: REGISTER_IO_BUF, the "
				 "backing I/O and UNREGISTER_IO_BUF linked" },
		.flags = { "-z" },
		/*
		 * Bit 0 means REGISTER_IO_BUF only where upstream defined
		 * it, with AUTO_BUF_REG beside it: splice-rsrc and fused
		 * give bit 0 meanings of their own
		 */
		.needs = UBLK_F_SUPPORT_ZERO_COPY | UBLK_F_AUTO_BUF_REG,
	},
	{
		.row = { .name = "kublk-auto_zc",
			 .help = "kublk --auto_zc: request pages registered at "
				 "delivery (AUTO_BUF_REG)" },
		.flags = { "--auto_zc" },
		.needs = UBLK_F_AUTO_BUF_REG,
	},
	{
		.row = { .name = "kublk-batch",
			 .help = "kublk -b --auto_zc: BATCH_IO's batched "
				 "commands with AUTO_BUF_REG" },
		.flags = { "-b", "--auto_zc" },
		.needs = UBLK_F_BATCH_IO | UBLK_F_AUTO_BUF_REG,
	},
};

const struct kublk_config *kublk_config_of(const struct ublk_path_ops *p)
{
	unsigned int i;

	for (i = 0; i < KUBLK_NR_CONFIGS; i++)
		if (p == &kublk_configs[i].row)
			return &kublk_configs[i];
	return NULL;
}

const struct kublk_config *kublk_config_find(const char *name)
{
	unsigned int i;

	for (i = 0; i < KUBLK_NR_CONFIGS; i++)
		if (!strcmp(name, kublk_configs[i].row.name))
			return &kublk_configs[i];
	return NULL;
}

static int fail(int ret, char *buf, size_t len, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(buf, len, fmt, ap);
	va_end(ap);
	return ret;
}

int kublk_cell_check(const struct kublk_cell *c, char *why, size_t len)
{
	if (strcmp(c->target, "null") && strcmp(c->target, "loop") &&
	    strcmp(c->target, "stripe"))
		return fail(-EOPNOTSUPP, why, len, "kublk has no %s target",
			    c->target);
	if (c->nr_backing > KUBLK_MAX_BACKINGS)
		return fail(-EOPNOTSUPP, why, len, "kublk takes at most %d "
			    "backing files", KUBLK_MAX_BACKINGS);
	/* abtool serves such an I/O as one request, kublk would split it */
	if (c->max_io_bytes > KUBLK_MAX_IO_BYTES)
		return fail(-EOPNOTSUPP, why, len, "kublk's requests are at "
			    "most %uK, abtool's %uK", KUBLK_MAX_IO_BYTES >> 10,
			    c->max_io_bytes >> 10);
	if (c->depth > KUBLK_MAX_DEPTH)
		return fail(-EOPNOTSUPP, why, len, "kublk's queues are at most "
			    "%d deep", KUBLK_MAX_DEPTH);
	/* stripe.c: a power of two in 4K..512K */
	if (!strcmp(c->target, "stripe") &&
	    (c->chunk < 4096 || c->chunk > (512u << 10) ||
	     (c->chunk & (c->chunk - 1))))
		return fail(-EOPNOTSUPP, why, len, "kublk's stripe chunk is "
			    "4K..512K, not %u", c->chunk);
	return 0;
}

static const struct {
	uint64_t flag;
	const char *name;
} feature_names[] = {
	{ UBLK_F_SUPPORT_ZERO_COPY, "UBLK_F_SUPPORT_ZERO_COPY" },
	{ UBLK_F_AUTO_BUF_REG, "UBLK_F_AUTO_BUF_REG" },
	{ UBLK_F_BATCH_IO, "UBLK_F_BATCH_IO" },
};

int kublk_probe(const struct kublk_config *k, uint64_t features, char *why,
		size_t len)
{
	uint64_t missing = k->needs & ~features;
	size_t i, used;

	if (!missing)
		return 0;
	used = (size_t)snprintf(why, len, "kernel ublk lacks");
	for (i = 0; i < sizeof(feature_names) / sizeof(feature_names[0]); i++)
		if ((missing & feature_names[i].flag) && used < len)
			used += (size_t)snprintf(why + used, len - used, " %s",
						 feature_names[i].name);
	if (used < len)
		snprintf(why + used, len - used, " (kublk %s)", k->flags[0]);
	return -EOPNOTSUPP;
}

int kublk_add_argv(const char *kublk, const struct kublk_config *k,
		   const struct kublk_cell *c, struct kublk_argv_buf *num,
		   const char **argv, size_t cap)
{
	const char *head[] = { kublk, "add", "-t", c->target, "-q",
			       num->queues, "-d", num->depth };
	size_t n = 0, i;

#define PUSH(s) do { if (n + 1 >= cap) return -E2BIG; argv[n++] = (s); } while (0)
	snprintf(num->queues, sizeof(num->queues), "%u", c->nr_queues);
	snprintf(num->depth, sizeof(num->depth), "%u", c->depth);
	snprintf(num->chunk, sizeof(num->chunk), "%u", c->chunk);
	for (i = 0; i < sizeof(head) / sizeof(head[0]); i++)
		PUSH(head[i]);
	for (i = 0; i < sizeof(k->flags) / sizeof(k->flags[0]) && k->flags[i]; i++)
		PUSH(k->flags[i]);
	/* a target option: kublk's own getopt passes it on to stripe.c */
	if (!strcmp(c->target, "stripe")) {
		PUSH("--chunk_size");
		PUSH(num->chunk);
	}
	for (i = 0; i < c->nr_backing; i++)
		PUSH(c->backing[i]);
#undef PUSH
	argv[n] = NULL;
	return (int)n;
}

int kublk_parse_add(const char *out, int *dev_id, pid_t *daemon_pid)
{
	const char *line, *next, *p;
	int id = -1, pid = -1, v;
	char buf[256];

	/*
	 * ublk_ctrl_dump(): "dev id %d: nr_hw_queues ..." at the start of
	 * a line, then "\tmax rq size %d daemon pid %d flags ..."
	 */
	for (line = out; *line; line = next) {
		next = strchr(line, '\n');
		next = next ? next + 1 : line + strlen(line);
		snprintf(buf, sizeof(buf), "%.*s", (int)(next - line), line);
		if (id < 0 && sscanf(buf, "dev id %d:", &v) == 1 && v >= 0)
			id = v;
		p = strstr(buf, "daemon pid ");
		if (pid < 0 && p && sscanf(p, "daemon pid %d", &v) == 1 && v > 0)
			pid = v;
	}
	if (id < 0 || pid < 0)
		return -EINVAL;
	*dev_id = id;
	*daemon_pid = pid;
	return 0;
}

int kublk_path_from_exe(const char *exe, char *buf, size_t len)
{
	char top[PATH_MAX];
	char *slash;
	int i;

	if (snprintf(top, sizeof(top), "%s", exe) >= (int)sizeof(top))
		return -ENAMETOOLONG;
	/* TOP/tools/abtool/abtool: three names off */
	for (i = 0; i < 3; i++) {
		slash = strrchr(top, '/');
		if (!slash)
			return -EINVAL;
		*slash = '\0';
	}
	if (snprintf(buf, len, "%s/%s", top, KUBLK_TREE_PATH) >= (int)len)
		return -ENAMETOOLONG;
	return 0;
}

int kublk_default_path(char *buf, size_t len)
{
	char exe[PATH_MAX];
	ssize_t n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);

	if (n < 0)
		return -errno;
	exe[n] = '\0';
	return kublk_path_from_exe(exe, buf, len);
}

static long long now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000LL + ts.tv_nsec / 1000000;
}

/*
 * Run @argv (argv[0] a path) with its stdout and stderr into @out
 * (NUL-terminated, the rest dropped), for at most @timeout_ms.  Its exit
 * status (128 + N for signal N), or -errno (-ETIMEDOUT: killed).
 */
static int run_cmd(const char *const *argv, char *out, size_t outlen,
		   int timeout_ms)
{
	long long deadline = now_ms() + timeout_ms;
	struct pollfd p = { .events = POLLIN };
	int fds[2], status = 0, ret = 0;
	size_t used = 0;
	char scratch[512];
	ssize_t n;
	pid_t pid;

	if (pipe2(fds, O_CLOEXEC))
		return -errno;
	fflush(NULL);
	pid = fork();
	if (pid < 0) {
		ret = -errno;
		close(fds[0]);
		close(fds[1]);
		return ret;
	}
	if (pid == 0) {
		/* kublk's complaints go with its output, into messages */
		dup2(fds[1], STDOUT_FILENO);
		dup2(fds[1], STDERR_FILENO);
		/* kublk's daemon keeps what it inherits for as long as it
		 * serves: none of abtool's files (the trial output, the
		 * server counters) */
		close_range(3, ~0U, 0);
		execv(argv[0], (char *const *)argv);
		_exit(127);
	}
	close(fds[1]);
	p.fd = fds[0];
	for (;;) {
		long long left = deadline - now_ms();
		int r = left > 0 ? poll(&p, 1, (int)left) : 0;

		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0) {
			kill(pid, SIGKILL);
			ret = r ? -errno : -ETIMEDOUT;
			break;
		}
		if (used + 1 < outlen)
			n = read(fds[0], out + used, outlen - 1 - used);
		else
			n = read(fds[0], scratch, sizeof(scratch));
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		if (used + 1 < outlen)
			used += (size_t)n;
	}
	if (outlen)
		out[used] = '\0';
	close(fds[0]);
	while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
		;
	if (ret)
		return ret;
	if (WIFSIGNALED(status))
		return 128 + WTERMSIG(status);
	return WEXITSTATUS(status);
}

/* Whether ublk device @id exists: its char device is registered. */
static bool ublk_id_exists(int id)
{
	char path[64];
	struct stat st;

	snprintf(path, sizeof(path), "/sys/class/ublk-char/ublkc%d", id);
	return stat(path, &st) == 0;
}

/* The ublk ids present now, below KUBLK_MAX_ID, as a bitmap. */
static void ublk_ids(unsigned char map[KUBLK_MAX_ID / 8])
{
	DIR *dir = opendir("/sys/class/ublk-char");
	struct dirent *de;
	int id;

	memset(map, 0, KUBLK_MAX_ID / 8);
	if (!dir)
		return;
	while ((de = readdir(dir)))
		if (sscanf(de->d_name, "ublkc%d", &id) == 1 && id >= 0 &&
		    id < KUBLK_MAX_ID)
			map[id / 8] |= 1u << (id % 8);
	closedir(dir);
}

/* Wait up to 2 s for device @id to go; whether it went. */
static bool wait_gone(int id)
{
	int i;

	for (i = 0; i < 200 && ublk_id_exists(id); i++)
		usleep(10000);
	return !ublk_id_exists(id);
}

/* "kublk add -t null ..." into @buf, for messages. */
static void join_argv(const char *const *argv, char *buf, size_t len)
{
	size_t used = 0, i;
	const char *name = strrchr(argv[0], '/');

	buf[0] = '\0';
	for (i = 0; argv[i] && used < len; i++)
		used += (size_t)snprintf(buf + used, len - used, "%s%s",
					 i ? " " : "",
					 i ? argv[i] : name ? name + 1 : argv[0]);
}

int kublk_add(const char *kublk, const struct kublk_config *k,
	      const struct kublk_cell *c, struct kublk_dev *d,
	      char *err, size_t errlen)
{
	unsigned char before[KUBLK_MAX_ID / 8], after[KUBLK_MAX_ID / 8];
	struct kublk_argv_buf num;
	const char *argv[24];
	char out[KUBLK_OUT_MAX], cmd[512], *nl;
	struct kublk_dev stray;
	int ret, id;

	d->id = -1;
	d->daemon = -1;
	d->blk[0] = '\0';
	if (kublk_add_argv(kublk, k, c, &num, argv, 24) < 0)
		return fail(-E2BIG, err, errlen, "kublk add: too many arguments");
	if (access(kublk, X_OK))
		return fail(-ENOENT, err, errlen, "no kublk at %s", kublk);
	ublk_ids(before);
	ret = run_cmd(argv, out, sizeof(out), KUBLK_TIMEOUT_MS);
	if (!ret && !kublk_parse_add(out, &d->id, &d->daemon)) {
		snprintf(d->blk, sizeof(d->blk), "/dev/ublkb%d", d->id);
		return 0;
	}
	/*
	 * kublk deletes a device it could not start, but not one whose
	 * daemon died after the add, nor one it made before being killed
	 */
	ublk_ids(after);
	for (id = 0; id < KUBLK_MAX_ID; id++) {
		if (!(after[id / 8] & ~before[id / 8] & (1u << (id % 8))))
			continue;
		stray.id = id;
		kublk_del(kublk, &stray, NULL, 0);
	}
	d->id = -1;
	join_argv(argv, cmd, sizeof(cmd));
	for (nl = out; (nl = strchr(nl, '\n')); )
		*nl = nl[1] ? ';' : '\0';	/* one line */
	if (ret < 0)
		return fail(ret, err, errlen, "`%s`: %s", cmd, strerror(-ret));
	return fail(-EIO, err, errlen, "`%s` %s%d%s%s", cmd,
		    ret ? "exited " : "printed no device: status ", ret,
		    *out ? ": " : "", out);
}

/* abtool's own STOP_DEV and DEL_DEV of device @id (kublk del did not). */
static void ctrl_delete(int id)
{
	struct ublk_dev *u = calloc(1, sizeof(*u));

	if (!u)
		return;
	u->dev_id = -1;
	if (ublk_ctrl_open(u) == 0) {
		u->dev_id = id;
		ublk_ctrl_stop(u);
		ublk_ctrl_del(u);
		ublk_ctrl_close(u);
	}
	free(u);
}

int kublk_del(const char *kublk, struct kublk_dev *d, char *err,
	      size_t errlen)
{
	char id[16], out[KUBLK_OUT_MAX] = "", *nl;
	const char *argv[] = { kublk, "del", "-n", id, NULL };
	int ret, n = d->id;

	if (errlen)
		err[0] = '\0';
	if (n < 0)
		return 0;
	d->id = -1;
	snprintf(id, sizeof(id), "%d", n);
	/* a missing binary still leaves the device to delete below */
	ret = access(kublk, X_OK) ? -ENOENT :
	      run_cmd(argv, out, sizeof(out), KUBLK_TIMEOUT_MS);
	for (nl = out; (nl = strchr(nl, '\n')); )
		*nl = nl[1] ? ';' : '\0';	/* one line */
	if (wait_gone(n)) {
		/*
		 * kublk del waits for its daemon through inotify and says so
		 * when it cannot, after deleting the device all the same
		 */
		if (ret)
			fail(0, err, errlen, "kublk del -n %d: %s %d%s%s, but "
			     "the device is gone", n, ret < 0 ? "error" :
			     "status", ret, *out ? ": " : "", out);
		return 0;
	}
	ctrl_delete(n);
	if (wait_gone(n))
		return fail(-EIO, err, errlen, "kublk del -n %d left the "
			    "device (status %d%s%s): abtool deleted it", n, ret,
			    *out ? ": " : "", out);
	return fail(-EBUSY, err, errlen, "ublk%d stays after kublk del -n %d "
		    "and DEL_DEV", n, n);
}
