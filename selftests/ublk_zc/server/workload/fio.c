// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include <json-c/json.h>

#include "errmsg.h"
#include "exit_codes.h"
#include "fio.h"
#include "prog.h"

#define FIO_MAX_ARGS	128
#define FIO_MAX_PCTS	64
#define FIO_MAX_PARTS	64	/* job entries x directions merged */


/* ---- JSON helpers: missing keys read as 0 ---- */

static struct json_object *get(struct json_object *o, const char *key)
{
	struct json_object *v = NULL;

	return o && json_object_object_get_ex(o, key, &v) ? v : NULL;
}

static double get_double(struct json_object *o, const char *key)
{
	struct json_object *v = get(o, key);

	return v ? json_object_get_double(v) : 0;
}

static uint64_t get_u64(struct json_object *o, const char *key)
{
	struct json_object *v = get(o, key);

	return v ? json_object_get_uint64(v) : 0;
}

/* ---- percentiles of several parts, merged ---- */

/* One job entry's direction: its count and fio's percentile curve. */
struct lat_part {
	uint64_t n, min, max;
	double mean;
	unsigned int npct;
	double pct[FIO_MAX_PCTS];
	uint64_t val[FIO_MAX_PCTS];
};

struct lat_parts {
	unsigned int nr;
	struct lat_part part[FIO_MAX_PARTS];
};

static void read_part(struct json_object *clat, struct lat_part *p)
{
	struct json_object *pcts = get(clat, "percentile");

	memset(p, 0, sizeof(*p));
	p->n = get_u64(clat, "N");
	p->min = get_u64(clat, "min");
	p->max = get_u64(clat, "max");
	p->mean = get_double(clat, "mean");
	if (!pcts)
		return;
	json_object_object_foreach(pcts, key, val) {
		if (p->npct == FIO_MAX_PCTS)
			break;
		p->pct[p->npct] = strtod(key, NULL);
		p->val[p->npct++] = json_object_get_uint64(val);
	}
}

/* The share of part @p at or below @x, read off its percentile curve. */
static double part_cdf(const struct lat_part *p, uint64_t x)
{
	double best = 0;
	unsigned int k;

	for (k = 0; k < p->npct; k++)
		if (p->val[k] <= x && p->pct[k] > best)
			best = p->pct[k];
	return best;
}

/* The smallest listed value at which the count-weighted mixture reaches pct. */
static uint64_t mixture_percentile(const struct lat_parts *ps, double pct)
{
	uint64_t best = UINT64_MAX, total = 0, x, top = 0;
	unsigned int i, k, j;
	double f;

	for (i = 0; i < ps->nr; i++)
		total += ps->part[i].n;
	if (!total)
		return 0;
	for (i = 0; i < ps->nr; i++) {
		for (k = 0; k < ps->part[i].npct; k++) {
			x = ps->part[i].val[k];
			if (x > top)
				top = x;
			if (x >= best)
				continue;
			for (f = 0, j = 0; j < ps->nr; j++)
				f += part_cdf(&ps->part[j], x) * ps->part[j].n;
			if (f / total >= pct - 1e-9)
				best = x;
		}
	}
	return best == UINT64_MAX ? top : best;
}

static void merge_parts(const struct lat_parts *ps, struct wl_lat_summary *l)
{
	double sum = 0;
	uint64_t n = 0;
	unsigned int i;

	memset(l, 0, sizeof(*l));
	l->min_ns = UINT64_MAX;
	for (i = 0; i < ps->nr; i++) {
		const struct lat_part *p = &ps->part[i];

		if (!p->n)
			continue;
		n += p->n;
		sum += p->mean * p->n;
		if (p->min < l->min_ns)
			l->min_ns = p->min;
		if (p->max > l->max_ns)
			l->max_ns = p->max;
	}
	if (!n) {
		l->min_ns = 0;
		return;
	}
	l->mean_ns = (uint64_t)(sum / n + 0.5);
	l->p50_ns = mixture_percentile(ps, 50.0);
	l->p99_ns = mixture_percentile(ps, 99.0);
	l->p999_ns = mixture_percentile(ps, 99.9);
	/* fio reports a bucket's value, which can pass the exact max */
	if (l->p50_ns > l->max_ns)
		l->p50_ns = l->max_ns;
	if (l->p99_ns > l->max_ns)
		l->p99_ns = l->max_ns;
	if (l->p999_ns > l->max_ns)
		l->p999_ns = l->max_ns;
}

/* ---- job entries ---- */

struct fio_totals {
	struct lat_parts rd, wr, all;
	uint64_t max_runtime_ms;
};

static void add_part(struct lat_parts *ps, const struct lat_part *p)
{
	if (p->n && ps->nr < FIO_MAX_PARTS)
		ps->part[ps->nr++] = *p;
}

static void add_dir(struct json_object *dir, bool write, struct wl_result *r,
		    struct fio_totals *t)
{
	struct lat_part part;

	if (!dir)
		return;
	if (write) {
		r->write_ios += get_u64(dir, "total_ios");
		r->write_bytes += get_u64(dir, "io_bytes");
	} else {
		r->read_ios += get_u64(dir, "total_ios");
		r->read_bytes += get_u64(dir, "io_bytes");
	}
	r->iops += get_double(dir, "iops");
	r->bw_bytes_per_s += get_double(dir, "bw_bytes");
	read_part(get(dir, "clat_ns"), &part);
	add_part(write ? &t->wr : &t->rd, &part);
	add_part(&t->all, &part);
}

static bool option_is_on(struct json_object *opts, const char *key)
{
	struct json_object *v = get(opts, key);

	return v && !strcmp(json_object_get_string(v), "1");
}

static void add_job(struct json_object *job, struct wl_result *r,
		    struct fio_totals *t)
{
	uint64_t runtime_ms = get_u64(job, "job_runtime");
	double cpu_ns_per_pct = runtime_ms * 1e6 / 100.0;
	int error = (int)get_u64(job, "error");

	add_dir(get(job, "read"), false, r, t);
	add_dir(get(job, "write"), true, r, t);
	if (runtime_ms > t->max_runtime_ms)
		t->max_runtime_ms = runtime_ms;
	r->cpu_user_ns += (uint64_t)(get_double(job, "usr_cpu") * cpu_ns_per_pct);
	r->cpu_sys_ns += (uint64_t)(get_double(job, "sys_cpu") * cpu_ns_per_pct);
	r->cpu_ns = r->cpu_user_ns + r->cpu_sys_ns;	/* fio's own split */
	r->ctx_switches += get_u64(job, "ctx");
	r->page_faults += get_u64(job, "majf") + get_u64(job, "minf");
	if (option_is_on(get(job, "job options"), "direct"))
		r->direct = true;
	if (error == EILSEQ)	/* fio's verify failure */
		r->verify_errors++;
	else if (error && !r->error)
		r->error = error;
}

static const char *json_start(const char *text)
{
	const char *p = text;

	while (p && *p != '{')
		p = (p = strchr(p, '\n')) ? p + 1 : NULL;
	return p;
}

int fio_parse_json(const char *text, struct wl_result *r, char *err,
		   size_t errlen)
{
	const char *start = json_start(text);
	struct json_object *root, *jobs;
	struct fio_totals *t;
	size_t i, n;

	memset(r, 0, sizeof(*r));
	lathist_init(&r->lat);
	snprintf(r->source, sizeof(r->source), "fio");
	root = start ? json_tokener_parse(start) : NULL;
	if (!root)
		return set_err(err, errlen, -1, "fio output holds no JSON object");
	jobs = get(root, "jobs");
	if (!jobs || !json_object_is_type(jobs, json_type_array)) {
		json_object_put(root);
		return set_err(err, errlen, -1, "fio JSON has no \"jobs\" array");
	}
	t = calloc(1, sizeof(*t));
	if (!t) {
		json_object_put(root);
		return set_err(err, errlen, -1, "out of memory");
	}
	if (option_is_on(get(root, "global options"), "direct"))
		r->direct = true;
	n = json_object_array_length(jobs);
	for (i = 0; i < n; i++)
		add_job(json_object_array_get_idx(jobs, i), r, t);
	r->ios = r->read_ios + r->write_ios;
	r->bytes = r->read_bytes + r->write_bytes;
	r->elapsed_ns = t->max_runtime_ms * 1000000ULL;
	merge_parts(&t->rd, &r->lat_read);
	merge_parts(&t->wr, &r->lat_write);
	merge_parts(&t->all, &r->lat_all);
	free(t);
	json_object_put(root);
	return 0;
}

/* ---- running fio ---- */

static int build_argv(char *words, const char *job, const char *dev,
		      char **argv, char *filename, size_t fnlen, char *err,
		      size_t errlen)
{
	static char fmt[] = "--output-format=json", grp[] = "--group_reporting";
	static char name[] = "--name=abtool";
	const char *bin = getenv("ABTOOL_FIO");
	int argc = 0;
	char *w;

	argv[argc++] = (char *)(bin && *bin ? bin : "fio");
	argv[argc++] = fmt;
	argv[argc++] = grp;
	if (dev) {
		snprintf(filename, fnlen, "--filename=%s", dev);
		argv[argc++] = filename;
	}
	if (job[0] != '-') {
		argv[argc++] = (char *)job;	/* a job file */
		argv[argc] = NULL;
		return 0;
	}
	if (!strstr(job, "--name="))
		argv[argc++] = name;
	for (w = strtok(words, " \t\n"); w; w = strtok(NULL, " \t\n")) {
		if (argc == FIO_MAX_ARGS - 1)
			return set_err(err, errlen, -1, "--fio: more than %d options",
				    FIO_MAX_ARGS - 8);
		argv[argc++] = w;
	}
	argv[argc] = NULL;
	return 0;
}

static char *read_all(int fd)
{
	size_t len = 0, cap = 65536;
	char *buf = malloc(cap), *nbuf;
	ssize_t n;

	while (buf) {
		if (len + 1 == cap) {
			nbuf = realloc(buf, cap *= 2);
			if (!nbuf)
				free(buf);
			buf = nbuf;
			if (!buf)
				break;
		}
		n = read(fd, buf + len, cap - 1 - len);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		len += n;
	}
	if (buf)
		buf[len] = '\0';
	return buf;
}

static pid_t spawn(char **argv, int *out_fd)
{
	int pfd[2], devnull;
	pid_t pid;

	if (pipe2(pfd, O_CLOEXEC))
		return -1;
	pid = fork();
	if (pid < 0) {
		close(pfd[0]);
		close(pfd[1]);
		return -1;
	}
	if (!pid) {
		devnull = open("/dev/null", O_RDONLY);
		if (devnull >= 0)
			dup2(devnull, STDIN_FILENO);
		dup2(pfd[1], STDOUT_FILENO);
		execvp(argv[0], argv);
		fprintf(stderr, "%s: %s: %s\n", prog_name(), argv[0], strerror(errno));
		_exit(AB_EXIT_NOT_FOUND);
	}
	close(pfd[1]);
	*out_fd = pfd[0];
	return pid;
}

int fio_run(const char *job, const char *dev, struct wl_result *res,
	    char *err, size_t errlen)
{
	char *argv[FIO_MAX_ARGS], *words = strdup(job ? job : ""), *out;
	char filename[4200];
	int fd, status = 0, ret;
	pid_t pid;

	memset(res, 0, sizeof(*res));
	if (!words || !job || !*job) {
		free(words);
		return set_err(err, errlen, -1, "--fio: no job file or options");
	}
	if (build_argv(words, job, dev, argv, filename, sizeof(filename), err,
		       errlen)) {
		free(words);
		return -1;
	}
	pid = spawn(argv, &fd);
	if (pid < 0) {
		free(words);
		return set_err(err, errlen, -1, "fio: %s", strerror(errno));
	}
	out = read_all(fd);
	close(fd);
	while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
		;
	free(words);
	if (WIFEXITED(status) && WEXITSTATUS(status) == AB_EXIT_NOT_FOUND)
		ret = set_err(err, errlen, -1, "fio could not be run (is it installed? $ABTOOL_FIO names another binary)");
	else if (!out)
		ret = set_err(err, errlen, -1, "out of memory");
	else if (!json_start(out) && !(WIFEXITED(status) && !WEXITSTATUS(status)))
		ret = set_err(err, errlen, -1, "fio failed (%s %d) and printed no JSON",
			   WIFEXITED(status) ? "exit status" : "signal",
			   WIFEXITED(status) ? WEXITSTATUS(status) : WTERMSIG(status));
	else
		ret = fio_parse_json(out, res, err, errlen);
	if (!ret && res->error)
		ret = set_err(err, errlen, -1, "fio: a job failed with error %d (%s)",
			   res->error, strerror(res->error));
	else if (!ret && !WIFEXITED(status))
		ret = set_err(err, errlen, -1, "fio: killed by signal %d",
			   WTERMSIG(status));
	free(out);
	return ret;
}
