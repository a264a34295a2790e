// SPDX-License-Identifier: GPL-2.0
#include <ctype.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "rw_mode.h"

static const char *const rw_names[WL_RW_NR] = {
	[WL_RW_READ] = "read",
	[WL_RW_WRITE] = "write",
	[WL_RW_RANDREAD] = "randread",
	[WL_RW_RANDWRITE] = "randwrite",
	[WL_RW_RW] = "rw",
	[WL_RW_RANDRW] = "randrw",
};

int wl_rw_parse(const char *s, enum wl_rw *rw)
{
	int i;

	if (!s)
		return -EINVAL;
	if (!strcmp(s, "readwrite")) {	/* fio's other name for rw */
		*rw = WL_RW_RW;
		return 0;
	}
	for (i = 0; i < WL_RW_NR; i++) {
		if (!strcmp(s, rw_names[i])) {
			*rw = i;
			return 0;
		}
	}
	return -EINVAL;
}

const char *wl_rw_name(enum wl_rw rw)
{
	return (unsigned int)rw < WL_RW_NR ? rw_names[rw] : "?";
}

bool wl_rw_is_random(enum wl_rw rw)
{
	return rw == WL_RW_RANDREAD || rw == WL_RW_RANDWRITE ||
	       rw == WL_RW_RANDRW;
}

bool wl_rw_is_mixed(enum wl_rw rw)
{
	return rw == WL_RW_RW || rw == WL_RW_RANDRW;
}

bool wl_rw_does_read(enum wl_rw rw)
{
	return rw != WL_RW_WRITE && rw != WL_RW_RANDWRITE;
}

bool wl_rw_does_write(enum wl_rw rw)
{
	return rw != WL_RW_READ && rw != WL_RW_RANDREAD;
}

int wl_parse_uint(const char *s, uint64_t min, uint64_t max, uint64_t *v)
{
	unsigned long long x;
	char *end;

	if (!s || !isdigit((unsigned char)*s))
		return -EINVAL;
	errno = 0;
	x = strtoull(s, &end, 10);
	if (errno || *end || x < min || x > max)
		return -EINVAL;
	*v = x;
	return 0;
}

int wl_parse_duration_ms(const char *s, uint64_t *ms)
{
	static const struct { const char *sfx; uint64_t num, den; } units[] = {
		{ "", 1000, 1 }, { "s", 1000, 1 }, { "ms", 1, 1 },
		{ "us", 1, 1000 }, { "m", 60000, 1 }, { "h", 3600000, 1 },
	};
	unsigned long long x;
	char *end;
	size_t i;

	if (!s || !isdigit((unsigned char)*s))
		return -EINVAL;
	errno = 0;
	x = strtoull(s, &end, 10);
	if (errno)
		return -EINVAL;
	for (i = 0; i < sizeof(units) / sizeof(units[0]); i++) {
		if (strcasecmp(end, units[i].sfx))
			continue;
		if (x > UINT64_MAX / units[i].num ||
		    (x * units[i].num) % units[i].den)
			return -EINVAL;
		*ms = x * units[i].num / units[i].den;
		return 0;
	}
	return -EINVAL;
}

int wl_parse_bool(const char *s, bool *b)
{
	static const char *const yes[] = { "1", "yes", "true", "on" };
	static const char *const no[] = { "0", "no", "false", "off" };
	size_t i;

	if (!s) {
		*b = true;
		return 0;
	}
	for (i = 0; i < 4; i++) {
		if (!strcasecmp(s, yes[i])) {
			*b = true;
			return 0;
		}
		if (!strcasecmp(s, no[i])) {
			*b = false;
			return 0;
		}
	}
	return -EINVAL;
}
