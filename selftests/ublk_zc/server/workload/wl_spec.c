// SPDX-License-Identifier: GPL-2.0
/* Workload options: defaults, parsing by name, checks, description. */
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "errmsg.h"
#include "size.h"
#include "workload.h"

#define WL_MAX_BS	(64u << 20)
#define WL_MAX_IODEPTH	32768		/* IORING_MAX_ENTRIES */
#define WL_MAX_JOBS	1024

const struct wl_option wl_options[] = {
	{ "rw", "MODE", "read, write, randread, randwrite, rw or randrw (default read)" },
	{ "bs", "SIZE", "bytes per I/O, a multiple of 512: 4k, 64K, 1M (default 4k)" },
	{ "iodepth", "N", "I/Os in flight per job (default 1)" },
	{ "jobs", "N", "threads, each with its own ring and slice of the region (default 1)" },
	{ "runtime", "TIME", "length of the timed phase: 30, 10s, 500ms, 2m (default: until size is done)" },
	{ "size", "SIZE", "bytes to transfer over all jobs (default: one pass over the region)" },
	{ "ramp", "TIME", "warm-up before the timed phase, excluded from results (default 0)" },
	{ "seed", "N", "seed of offsets, mix and data; same seed, same workload (default 1)" },
	{ "rwmixread", "PCT", "percentage of reads in rw and randrw (default 50)" },
	{ "offset", "SIZE", "start of the region on the device (default 0)" },
	{ "length", "SIZE", "length of the region (default: to the end of the device)" },
	{ "verify", NULL, "write checksummed patterns and check every read" },
	{ "verify-only", NULL, "read the whole region once and check it (after a --verify write pass)" },
	{ "direct", NULL, "O_DIRECT (default on; --direct=0 for buffered I/O)" },
	{ "fixedbufs", NULL, "register the buffers, use READ_FIXED/WRITE_FIXED" },
};
const size_t wl_options_len = sizeof(wl_options) / sizeof(wl_options[0]);

const struct wl_option_alias wl_option_aliases[] = {
	{ "numjobs", "jobs" }, { "ramp_time", "ramp" }, { "randseed", "seed" },
	{ "verify_only", "verify-only" }, { "readwrite", "rw" },
};
const size_t wl_option_aliases_len =
	sizeof(wl_option_aliases) / sizeof(wl_option_aliases[0]);

void wl_spec_init(struct wl_spec *spec)
{
	memset(spec, 0, sizeof(*spec));
	spec->rw = WL_RW_READ;
	spec->bs = 4096;
	spec->iodepth = 1;
	spec->jobs = 1;
	spec->seed = 1;
	spec->rwmixread = 50;
	spec->direct = true;
}


static int set_size(const char *name, const char *value, uint64_t *out,
		    char *err, size_t errlen)
{
	if (parse_size(value, out))
		return set_err(err, errlen, -EINVAL,
			    "--%s: '%s' is not a size (e.g. 4096, 4k, 64K, 1M, 2G)",
			    name, value);
	return 0;
}

static int set_u32(const char *name, const char *value, uint64_t min,
		   uint64_t max, uint32_t *out, char *err, size_t errlen)
{
	uint64_t v;

	if (wl_parse_uint(value, min, max, &v))
		return set_err(err, errlen, -EINVAL,
			    "--%s: '%s' is not a whole number from %" PRIu64 " to %" PRIu64,
			    name, value, min, max);
	*out = (uint32_t)v;
	return 0;
}

static int set_time(const char *name, const char *value, uint64_t *ms,
		    char *err, size_t errlen)
{
	if (wl_parse_duration_ms(value, ms))
		return set_err(err, errlen, -EINVAL,
			    "--%s: '%s' is not a duration (e.g. 30, 10s, 500ms, 2m)",
			    name, value);
	return 0;
}

static int set_bool(const char *name, const char *value, bool *out,
		    char *err, size_t errlen)
{
	if (wl_parse_bool(value, out))
		return set_err(err, errlen, -EINVAL,
			    "--%s: '%s' is not a boolean (1/0, yes/no, on/off)",
			    name, value);
	return 0;
}

static const char *canonical_name(const char *name)
{
	size_t i;

	while (*name == '-')
		name++;
	for (i = 0; i < wl_option_aliases_len; i++)
		if (!strcmp(name, wl_option_aliases[i].alias))
			return wl_option_aliases[i].name;
	return name;
}

static const struct wl_option *find_option(const char *name)
{
	size_t i;

	for (i = 0; i < wl_options_len; i++)
		if (!strcmp(name, wl_options[i].name))
			return &wl_options[i];
	return NULL;
}

static int set_value(struct wl_spec *s, const char *n, const char *v,
		     char *err, size_t errlen)
{
	uint64_t u;
	int ret;

	if (!strcmp(n, "rw")) {
		if (wl_rw_parse(v, &s->rw))
			return set_err(err, errlen, -EINVAL,
				    "--rw: '%s' is not one of read, write, randread, randwrite, rw, randrw",
				    v);
		return 0;
	}
	if (!strcmp(n, "bs")) {
		ret = set_size(n, v, &u, err, errlen);
		if (!ret && (u < 512 || u % 512 || u > WL_MAX_BS))
			ret = set_err(err, errlen, -EINVAL,
				   "--bs: %s is not a multiple of 512 from 512 to 64M",
				   v);
		if (!ret)
			s->bs = (uint32_t)u;
		return ret;
	}
	if (!strcmp(n, "iodepth"))
		return set_u32(n, v, 1, WL_MAX_IODEPTH, &s->iodepth, err,
			       errlen);
	if (!strcmp(n, "jobs"))
		return set_u32(n, v, 1, WL_MAX_JOBS, &s->jobs, err, errlen);
	if (!strcmp(n, "rwmixread"))
		return set_u32(n, v, 0, 100, &s->rwmixread, err, errlen);
	if (!strcmp(n, "runtime"))
		return set_time(n, v, &s->runtime_ms, err, errlen);
	if (!strcmp(n, "ramp"))
		return set_time(n, v, &s->ramp_ms, err, errlen);
	if (!strcmp(n, "size"))
		return set_size(n, v, &s->size, err, errlen);
	if (!strcmp(n, "offset"))
		return set_size(n, v, &s->offset, err, errlen);
	if (!strcmp(n, "length"))
		return set_size(n, v, &s->length, err, errlen);
	if (!strcmp(n, "seed")) {
		if (wl_parse_uint(v, 0, UINT64_MAX, &s->seed))
			return set_err(err, errlen, -EINVAL,
				    "--seed: '%s' is not a whole number", v);
		return 0;
	}
	if (!strcmp(n, "verify"))
		return set_bool(n, v, &s->verify, err, errlen);
	if (!strcmp(n, "verify-only"))
		return set_bool(n, v, &s->verify_only, err, errlen);
	if (!strcmp(n, "direct"))
		return set_bool(n, v, &s->direct, err, errlen);
	if (!strcmp(n, "fixedbufs"))
		return set_bool(n, v, &s->fixed_bufs, err, errlen);
	return set_err(err, errlen, -EINVAL, "unknown workload option '--%s'", n);
}

int wl_parse_option(struct wl_spec *spec, const char *name, const char *value,
		    char *err, size_t errlen)
{
	const char *n = canonical_name(name);
	const struct wl_option *opt = find_option(n);

	if (!opt)
		return set_err(err, errlen, -EINVAL, "unknown workload option '--%s'", n);
	if (opt->arg && (!value || !*value))
		return set_err(err, errlen, -EINVAL, "--%s: needs a value (%s)", n,
			    opt->arg);
	return set_value(spec, n, value, err, errlen);
}

int wl_spec_check(const struct wl_spec *s, char *err, size_t errlen)
{
	if (s->bs < 512 || s->bs % 512 || s->bs > WL_MAX_BS)
		return set_err(err, errlen, -EINVAL, "--bs: %u is not a multiple of 512 from 512 to 64M",
			    s->bs);
	if (!s->iodepth || s->iodepth > WL_MAX_IODEPTH)
		return set_err(err, errlen, -EINVAL, "--iodepth: %u is not from 1 to %u",
			    s->iodepth, WL_MAX_IODEPTH);
	if (!s->jobs || s->jobs > WL_MAX_JOBS)
		return set_err(err, errlen, -EINVAL, "--jobs: %u is not from 1 to %u",
			    s->jobs, WL_MAX_JOBS);
	if (s->rwmixread > 100)
		return set_err(err, errlen, -EINVAL, "--rwmixread: %u is over 100",
			    s->rwmixread);
	if (s->offset % 512)
		return set_err(err, errlen, -EINVAL, "--offset: %" PRIu64 " is not a multiple of 512",
			    s->offset);
	if (s->length && s->length < s->bs)
		return set_err(err, errlen, -EINVAL, "--length: %" PRIu64 " is smaller than one block (bs=%u)",
			    s->length, s->bs);
	if (s->size && s->size < s->bs)
		return set_err(err, errlen, -EINVAL, "--size: %" PRIu64 " is smaller than one block (bs=%u)",
			    s->size, s->bs);
	if (s->verify_only && s->rw != WL_RW_READ)
		return set_err(err, errlen, -EINVAL, "--verify-only: reads the region in order; it does not combine with --rw=%s",
			    wl_rw_name(s->rw));
	return 0;
}

/* 4096 -> "4k", 3<<20 -> "3M"; anything else in bytes. */
static void fmt_size(char *buf, size_t len, uint64_t v)
{
	static const char units[] = "kMGT";
	int i;

	for (i = 4; i >= 1; i--) {
		uint64_t unit = 1ULL << (10 * i);

		if (v && v % unit == 0) {
			snprintf(buf, len, "%" PRIu64 "%c", v / unit,
				 units[i - 1]);
			return;
		}
	}
	snprintf(buf, len, "%" PRIu64, v);
}

static void fmt_ms(char *buf, size_t len, uint64_t ms)
{
	if (ms % 1000)
		snprintf(buf, len, "%" PRIu64 "ms", ms);
	else
		snprintf(buf, len, "%" PRIu64 "s", ms / 1000);
}

#define APPEND(...)							\
	do {								\
		if (n < len)						\
			n += snprintf(buf + n, len - n, __VA_ARGS__);	\
	} while (0)

void wl_spec_describe(const struct wl_spec *s, char *buf, size_t len)
{
	char a[32];
	size_t n = 0;

	if (!len)
		return;
	buf[0] = '\0';
	fmt_size(a, sizeof(a), s->bs);
	APPEND("%s bs=%s iodepth=%u jobs=%u",
	       s->verify_only ? "verify-only" : wl_rw_name(s->rw), a,
	       s->iodepth, s->jobs);
	if (wl_rw_is_mixed(s->rw))
		APPEND(" rwmixread=%u", s->rwmixread);
	if (s->size) {
		fmt_size(a, sizeof(a), s->size);
		APPEND(" size=%s", a);
	}
	if (s->runtime_ms) {
		fmt_ms(a, sizeof(a), s->runtime_ms);
		APPEND(" runtime=%s", a);
	}
	if (s->ramp_ms) {
		fmt_ms(a, sizeof(a), s->ramp_ms);
		APPEND(" ramp=%s", a);
	}
	if (s->offset) {
		fmt_size(a, sizeof(a), s->offset);
		APPEND(" offset=%s", a);
	}
	if (s->length) {
		fmt_size(a, sizeof(a), s->length);
		APPEND(" length=%s", a);
	}
	APPEND(" seed=%" PRIu64 "%s%s%s", s->seed,
	       s->verify && !s->verify_only ? " verify" : "",
	       s->direct ? "" : " direct=0", s->fixed_bufs ? " fixedbufs" : "");
}

void wl_print_options(FILE *f)
{
	char left[40];
	size_t i;

	for (i = 0; i < wl_options_len; i++) {
		const struct wl_option *o = &wl_options[i];

		snprintf(left, sizeof(left), "--%s%s%s", o->name,
			 o->arg ? "=" : "", o->arg ? o->arg : "");
		fprintf(f, "  %-22s %s\n", left, o->help);
	}
}
