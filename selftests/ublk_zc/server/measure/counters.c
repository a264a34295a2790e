// SPDX-License-Identifier: GPL-2.0
#include <dirent.h>
#include <errno.h>
#include <linux/perf_event.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "counters.h"

#define MAX_TASK_SCANS	4	/* re-scan for threads born while opening */

static const struct {
	const char *name;
	__u32 type;
	__u64 config;
} counter_defs[CNT_NR] = {
	[CNT_TASK_CLOCK] = { "task-clock", PERF_TYPE_SOFTWARE,
			     PERF_COUNT_SW_TASK_CLOCK },
	[CNT_CONTEXT_SWITCHES] = { "context-switches", PERF_TYPE_SOFTWARE,
				   PERF_COUNT_SW_CONTEXT_SWITCHES },
	[CNT_PAGE_FAULTS] = { "page-faults", PERF_TYPE_SOFTWARE,
			      PERF_COUNT_SW_PAGE_FAULTS },
	[CNT_CPU_MIGRATIONS] = { "cpu-migrations", PERF_TYPE_SOFTWARE,
				 PERF_COUNT_SW_CPU_MIGRATIONS },
	[CNT_INSTRUCTIONS] = { "instructions", PERF_TYPE_HARDWARE,
			       PERF_COUNT_HW_INSTRUCTIONS },
	[CNT_CYCLES] = { "cycles", PERF_TYPE_HARDWARE,
			 PERF_COUNT_HW_CPU_CYCLES },
};

/* value, time enabled, time running: the read_format we ask for */
struct reading {
	uint64_t value, enabled, running;
};

struct task_events {
	pid_t tid;
	int fd[CNT_NR];			/* -1: not open */
	struct reading base[CNT_NR];	/* at start */
};

/* The fallback's cumulative sample of a process. */
struct sample {
	uint64_t cpu_ns, ctx, faults;
};

struct counters {
	pid_t pid;
	bool self;
	bool use_perf;
	bool running;
	bool exclude_kernel_hw;
	bool present[CNT_NR];
	struct task_events *tasks;
	unsigned int ntasks;
	struct counters_values frozen;	/* at stop */
	struct sample fb_start;		/* fallback */
	char note[256];
};

bool counters_cpu_time_is_own(const char *clock, long cpus)
{
	return strcmp(clock, "icount") || cpus == 1;
}

const char *counters_name(enum counter_id id)
{
	return (unsigned int)id < CNT_NR ? counter_defs[id].name : "?";
}

const char *counters_source(const struct counters *c)
{
	if (c->use_perf)
		return "perf_event_open";
	return c->self ? "getrusage" : "procfs";
}

const char *counters_note(const struct counters *c)
{
	return c->note;
}

static void add_note(struct counters *c, const char *fmt, const char *arg,
		     int err)
{
	size_t n = strlen(c->note);

	snprintf(c->note + n, sizeof(c->note) - n, "%s", n ? "; " : "");
	n = strlen(c->note);
	snprintf(c->note + n, sizeof(c->note) - n, fmt, arg, strerror(err));
}

static int perf_open(enum counter_id id, pid_t tid, bool exclude_kernel)
{
	struct perf_event_attr attr = {
		.size = sizeof(attr),
		.type = counter_defs[id].type,
		.config = counter_defs[id].config,
		.disabled = 1,
		.inherit = 1,
		.exclude_hv = 1,
		.exclude_kernel = exclude_kernel,
		.read_format = PERF_FORMAT_TOTAL_TIME_ENABLED |
			       PERF_FORMAT_TOTAL_TIME_RUNNING,
	};

	return syscall(SYS_perf_event_open, &attr, tid, -1, -1,
		       PERF_FLAG_FD_CLOEXEC);
}

static bool have_task(const struct counters *c, pid_t tid)
{
	unsigned int i;

	for (i = 0; i < c->ntasks; i++)
		if (c->tasks[i].tid == tid)
			return true;
	return false;
}

/* Open every present counter on @tid; ESRCH (thread gone) is no error. */
static int open_task(struct counters *c, pid_t tid)
{
	struct task_events *t, *tasks;
	bool hw;
	int i;

	tasks = realloc(c->tasks, (c->ntasks + 1) * sizeof(*tasks));
	if (!tasks)
		return -ENOMEM;
	c->tasks = tasks;
	t = &tasks[c->ntasks];
	memset(t, 0, sizeof(*t));
	t->tid = tid;
	for (i = 0; i < CNT_NR; i++) {
		t->fd[i] = -1;
		if (!c->present[i])
			continue;
		hw = counter_defs[i].type == PERF_TYPE_HARDWARE;
		t->fd[i] = perf_open(i, tid, hw && c->exclude_kernel_hw);
		if (t->fd[i] < 0 && errno == ESRCH)
			break;
		/* a PMU may refuse more events: count what it allows */
		if (t->fd[i] < 0 && !hw)
			return -errno;
	}
	if (i < CNT_NR) {	/* the thread exited under us */
		while (i--)
			if (t->fd[i] >= 0)
				close(t->fd[i]);
		return 0;
	}
	c->ntasks++;
	return 0;
}

/* Open new threads of the process; returns how many, or -errno. */
static int scan_tasks(struct counters *c)
{
	char path[64];
	struct dirent *de;
	int added = 0, ret = 0;
	DIR *dir;
	pid_t tid;

	snprintf(path, sizeof(path), "/proc/%d/task", c->pid);
	dir = opendir(path);
	if (!dir)
		return errno == ENOENT ? -ESRCH : -errno;
	while (!ret && (de = readdir(dir))) {
		tid = atoi(de->d_name);
		if (tid <= 0 || have_task(c, tid))
			continue;
		ret = open_task(c, tid);
		added++;
	}
	closedir(dir);
	return ret ? ret : added;
}

/*
 * Decide what this kernel gives us by opening on the main thread: the
 * software counters must work (else: fallback), hardware ones may not.
 */
static bool probe_perf(struct counters *c)
{
	int i, fd;

	for (i = 0; i < CNT_NR; i++) {
		bool hw = counter_defs[i].type == PERF_TYPE_HARDWARE;

		fd = perf_open(i, c->pid, false);
		if (fd < 0 && hw && (errno == EACCES || errno == EPERM)) {
			fd = perf_open(i, c->pid, true);
			if (fd >= 0 && !c->exclude_kernel_hw) {
				c->exclude_kernel_hw = true;
				add_note(c, "%s: user space only (kernel: %s)",
					 "hardware counters", EACCES);
			}
		}
		if (fd >= 0) {
			close(fd);
			c->present[i] = true;
			continue;
		}
		if (!hw) {
			add_note(c, "perf_event_open(%s): %s; using /proc and getrusage",
				 counter_defs[i].name, errno);
			return false;
		}
		if (errno == ENOENT || errno == EOPNOTSUPP || errno == ENODEV)
			add_note(c, "%s: no hardware PMU here (%s)",
				 counter_defs[i].name, errno);
		else
			add_note(c, "%s: not available (%s)",
				 counter_defs[i].name, errno);
	}
	return true;
}

static int open_perf(struct counters *c)
{
	int round, ret;

	for (round = 0; round < MAX_TASK_SCANS; round++) {
		ret = scan_tasks(c);
		if (ret <= 0)
			return ret;
	}
	return 0;
}

static void close_tasks(struct counters *c)
{
	unsigned int i;
	int k;

	for (i = 0; i < c->ntasks; i++)
		for (k = 0; k < CNT_NR; k++)
			if (c->tasks[i].fd[k] >= 0)
				close(c->tasks[i].fd[k]);
	free(c->tasks);
	c->tasks = NULL;
	c->ntasks = 0;
}

struct counters *counters_open(pid_t pid, unsigned int flags)
{
	struct counters *c;
	int ret;

	if (kill(pid, 0) && errno == ESRCH)
		return NULL;
	c = calloc(1, sizeof(*c));
	if (!c)
		return NULL;
	c->pid = pid;
	c->self = pid == getpid();
	if (flags & COUNTERS_NO_PERF)
		snprintf(c->note, sizeof(c->note),
			 "perf_event_open not used (asked); using %s",
			 c->self ? "getrusage" : "/proc");
	else
		c->use_perf = probe_perf(c);
	if (c->use_perf && (flags & COUNTERS_NO_HW))
		c->present[CNT_INSTRUCTIONS] = c->present[CNT_CYCLES] = false;
	if (!c->use_perf) {
		c->present[CNT_TASK_CLOCK] = true;
		c->present[CNT_CONTEXT_SWITCHES] = true;
		c->present[CNT_PAGE_FAULTS] = true;
	}
	memcpy(c->frozen.present, c->present, sizeof(c->present));
	if (!c->use_perf)
		return c;
	ret = open_perf(c);
	if (ret < 0) {
		close_tasks(c);
		free(c);
		errno = -ret;
		return NULL;
	}
	return c;
}

struct counters *counters_open_self(void)
{
	return counters_open(getpid(), 0);
}

struct counters *counters_open_pid(pid_t pid)
{
	return counters_open(pid, 0);
}

/* ---- perf readings ---- */

static int read_fd(int fd, struct reading *r)
{
	uint64_t buf[3];

	if (read(fd, buf, sizeof(buf)) != sizeof(buf))
		return -1;
	r->value = buf[0];
	r->enabled = buf[1];
	r->running = buf[2];
	return 0;
}

static void perf_values(struct counters *c, struct counters_values *v)
{
	struct reading now, d;
	unsigned int i;
	int k;

	for (i = 0; i < c->ntasks; i++) {
		for (k = 0; k < CNT_NR; k++) {
			struct task_events *t = &c->tasks[i];

			if (t->fd[k] < 0 || read_fd(t->fd[k], &now))
				continue;
			d.value = now.value - t->base[k].value;
			d.enabled = now.enabled - t->base[k].enabled;
			d.running = now.running - t->base[k].running;
			if (d.running && d.running < d.enabled) {
				d.value = (uint64_t)((double)d.value *
						     d.enabled / d.running);
				v->scaled[k] = true;
			}
			v->value[k] += d.value;
		}
	}
}

/* ---- the fallback ---- */

static uint64_t tv_ns(const struct timeval *tv)
{
	return (uint64_t)tv->tv_sec * 1000000000ULL + tv->tv_usec * 1000ULL;
}

static void add_rusage(struct sample *s, int who)
{
	struct rusage ru;

	if (getrusage(who, &ru))
		return;
	s->cpu_ns += tv_ns(&ru.ru_utime) + tv_ns(&ru.ru_stime);
	s->ctx += ru.ru_nvcsw + ru.ru_nivcsw;
	s->faults += ru.ru_minflt + ru.ru_majflt;
}

static uint64_t task_ctx_switches(pid_t pid, pid_t tid)
{
	char path[96], line[128];
	unsigned long long n;
	uint64_t sum = 0;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/task/%d/status", pid, tid);
	f = fopen(path, "r");
	if (!f)
		return 0;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "voluntary_ctxt_switches: %llu", &n) == 1 ||
		    sscanf(line, "nonvoluntary_ctxt_switches: %llu", &n) == 1)
			sum += n;
	fclose(f);
	return sum;
}

static int proc_sample(pid_t pid, struct sample *s)
{
	unsigned long minflt, majflt, utime, stime;
	char path[64], buf[1024], *p;
	struct dirent *de;
	long tick = sysconf(_SC_CLK_TCK);
	size_t n;
	DIR *dir;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/stat", pid);
	f = fopen(path, "r");
	if (!f)
		return -1;
	n = fread(buf, 1, sizeof(buf) - 1, f);
	fclose(f);
	buf[n] = '\0';
	p = strrchr(buf, ')');	/* comm may hold spaces and parens */
	if (!p || sscanf(p + 1, " %*c %*d %*d %*d %*d %*d %*u %lu %*u %lu %*u %lu %lu",
			 &minflt, &majflt, &utime, &stime) != 4)
		return -1;
	s->cpu_ns = (uint64_t)(utime + stime) * (1000000000ULL / tick);
	s->faults = minflt + majflt;
	s->ctx = 0;
	snprintf(path, sizeof(path), "/proc/%d/task", pid);
	dir = opendir(path);
	while (dir && (de = readdir(dir)))
		if (atoi(de->d_name) > 0)
			s->ctx += task_ctx_switches(pid, atoi(de->d_name));
	if (dir)
		closedir(dir);
	return 0;
}

static int fallback_sample(struct counters *c, struct sample *s)
{
	memset(s, 0, sizeof(*s));
	if (!c->self)
		return proc_sample(c->pid, s);
	add_rusage(s, RUSAGE_SELF);
	add_rusage(s, RUSAGE_CHILDREN);	/* e.g. fio, once waited for */
	return 0;
}

static int fallback_values(struct counters *c, struct counters_values *v)
{
	struct sample now;

	if (fallback_sample(c, &now))
		return -1;
	v->value[CNT_TASK_CLOCK] = now.cpu_ns - c->fb_start.cpu_ns;
	v->value[CNT_CONTEXT_SWITCHES] = now.ctx - c->fb_start.ctx;
	v->value[CNT_PAGE_FAULTS] = now.faults - c->fb_start.faults;
	return 0;
}

/* ---- start, stop, read ---- */

static int current_values(struct counters *c, struct counters_values *v)
{
	memset(v, 0, sizeof(*v));
	memcpy(v->present, c->present, sizeof(v->present));
	if (!c->use_perf)
		return fallback_values(c, v);
	perf_values(c, v);
	return 0;
}

int counters_start(struct counters *c)
{
	unsigned int i;
	int k;

	if (!c->use_perf) {
		c->running = true;
		return fallback_sample(c, &c->fb_start);
	}
	/*
	 * Base readings instead of PERF_EVENT_IOC_RESET: a reset does not
	 * clear what exited inherited threads already folded into the parent.
	 */
	for (i = 0; i < c->ntasks; i++) {
		for (k = 0; k < CNT_NR; k++) {
			struct task_events *t = &c->tasks[i];

			if (t->fd[k] < 0)
				continue;
			ioctl(t->fd[k], PERF_EVENT_IOC_DISABLE, 0);
			if (read_fd(t->fd[k], &t->base[k]))
				memset(&t->base[k], 0, sizeof(t->base[k]));
		}
	}
	for (i = 0; i < c->ntasks; i++)
		for (k = 0; k < CNT_NR; k++)
			if (c->tasks[i].fd[k] >= 0)
				ioctl(c->tasks[i].fd[k],
				      PERF_EVENT_IOC_ENABLE, 0);
	c->running = true;
	return 0;
}

int counters_stop(struct counters *c)
{
	unsigned int i;
	int k;

	if (c->use_perf)
		for (i = 0; i < c->ntasks; i++)
			for (k = 0; k < CNT_NR; k++)
				if (c->tasks[i].fd[k] >= 0)
					ioctl(c->tasks[i].fd[k],
					      PERF_EVENT_IOC_DISABLE, 0);
	c->running = false;
	return current_values(c, &c->frozen);
}

int counters_read(struct counters *c, struct counters_values *v)
{
	if (!c->running) {
		*v = c->frozen;
		return 0;
	}
	return current_values(c, v);
}

void counters_close(struct counters *c)
{
	if (!c)
		return;
	close_tasks(c);
	free(c);
}
