// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "backing.h"
#include "matrix.h"
#include "size.h"
#include "ublk.h"

/* docs/abtool.md, "The matrix": null/loop/mirror x 4K/64K/512K x
 * read/write, QD16, on tmpfs files; mirror-4 writes, where zero copy
 * should matter most; and loop and mirror-2 at 64K on ram disks too, so
 * that the in-kernel rows (which need block devices under md) are seen
 * on both media without doubling the run; and the bpf RFC's own
 * benchmark, loop at 2M QD16 with direct I/O (its cover letter's claim:
 * server CPU 12.5% -> 1% at the same bandwidth). */
const char matrix_default[] =
	"target=null,loop,mirror-2 rw=randread,randwrite bs=4k,64k,512k iodepth=16\n"
	"target=mirror-4 rw=randwrite bs=64k,512k iodepth=16\n"
	"target=loop,mirror-2 backing=brd rw=randread,randwrite bs=64k iodepth=16\n"
	"target=loop backing=brd rw=randread,randwrite bs=2m iodepth=16\n";

const char matrix_quick[] =
	"target=null rw=randread bs=4k iodepth=16\n"
	"target=loop,mirror-2 rw=randwrite bs=64k iodepth=16\n"
	"target=loop backing=brd rw=randwrite bs=64k iodepth=16\n";

#define MAX_VALUES 16

struct axis {
	char key[16];
	char *values[MAX_VALUES];
	int nr;
};

/*
 * A cell names its legs ("mirror-2") when its target's number of
 * backings varies; one that takes a fixed number is named alone ("loop").
 */
static bool legs_spelled(const struct ublk_target_ops *t)
{
	return t->min_backing != t->max_backing;
}

/* "NAME" or "NAME-N", as the target's entry in the table says it takes */
static int parse_target(const char *s, struct matrix_cell *c)
{
	const char *dash = strchr(s, '-');
	size_t n = dash ? (size_t)(dash - s) : strlen(s);
	const struct ublk_target_ops *t;
	char *end;

	if (n >= sizeof(c->target))
		return -EINVAL;
	memcpy(c->target, s, n);
	c->target[n] = '\0';
	t = ublk_target_find(c->target);
	if (!t)
		return -EINVAL;
	if (!legs_spelled(t)) {
		c->legs = t->min_backing;
		return dash ? -EINVAL : 0;
	}
	if (!dash)
		return -EINVAL;
	c->legs = strtoul(dash + 1, &end, 10);
	return *end || c->legs < (unsigned int)t->min_backing ||
	       c->legs > (unsigned int)t->max_backing ? -EINVAL : 0;
}

static int set_value(struct matrix_cell *c, const char *key, const char *v)
{
	uint64_t n;

	if (!strcmp(key, "target"))
		return parse_target(v, c);
	if (!strcmp(key, "backing")) {
		if (!backing_find(v))
			return -EINVAL;
		snprintf(c->backing, sizeof(c->backing), "%s", v);
		return 0;
	}
	if (!strcmp(key, "rw"))
		return wl_rw_parse(v, &c->rw);
	if (!strcmp(key, "bs")) {
		if (parse_size(v, &n) || !n || n % 512 || n > (1u << 30))
			return -EINVAL;
		c->bs = n;
		return 0;
	}
	if (!strcmp(key, "iodepth") || !strcmp(key, "jobs")) {
		if (wl_parse_uint(v, 1, 4096, &n))
			return -EINVAL;
		*(key[0] == 'i' ? &c->iodepth : &c->jobs) = n;
		return 0;
	}
	return -ENOENT;
}

static bool cell_equal(const struct matrix_cell *a, const struct matrix_cell *b)
{
	return !strcmp(a->target, b->target) && a->legs == b->legs &&
	       !strcmp(a->backing, b->backing) && a->rw == b->rw &&
	       a->bs == b->bs && a->iodepth == b->iodepth && a->jobs == b->jobs;
}

/* Append the product of axes[i..] on top of the partial cell base. */
static int expand(struct matrix *m, struct axis *axes, int nr, int i,
		  struct matrix_cell base, char *err, size_t errlen, int line)
{
	int j, ret;

	if (i == nr) {
		const struct ublk_target_ops *t = ublk_target_find(base.target);

		/* no backings, no media: the backing values collapse to one cell */
		if (!base.legs)
			base.backing[0] = '\0';
		else if (!(t->media & backing_media(backing_find(base.backing)))) {
			snprintf(err, errlen, "line %d: target %s takes no "
				 "backing=%s", line, base.target, base.backing);
			return -EINVAL;
		}
		for (j = 0; j < (int)m->nr; j++)
			if (cell_equal(&m->cells[j], &base))
				return 0;
		if (m->nr == MATRIX_MAX_CELLS) {
			snprintf(err, errlen, "line %d: more than %d cells",
				 line, MATRIX_MAX_CELLS);
			return -EINVAL;
		}
		m->cells[m->nr++] = base;
		return 0;
	}
	for (j = 0; j < axes[i].nr; j++) {
		struct matrix_cell c = base;

		ret = set_value(&c, axes[i].key, axes[i].values[j]);
		if (ret) {
			snprintf(err, errlen, ret == -ENOENT ?
				 "line %d: unknown key '%s'" :
				 "line %d: bad %s value '%s'",
				 line, axes[i].key, axes[i].values[j]);
			return -EINVAL;
		}
		ret = expand(m, axes, nr, i + 1, c, err, errlen, line);
		if (ret)
			return ret;
	}
	return 0;
}

static int parse_line(struct matrix *m, char *s, int line, char *err,
		      size_t errlen)
{
	struct matrix_cell base = {
		.target = "null", .backing = "tmpfs", .rw = WL_RW_RANDREAD, .bs = 4096,
		.iodepth = 16, .jobs = 1,
	};
	struct axis axes[8];
	char *tok, *save = NULL;
	int nr = 0;

	for (tok = strtok_r(s, " \t", &save); tok;
	     tok = strtok_r(NULL, " \t", &save)) {
		char *eq = strchr(tok, '='), *v, *vsave = NULL;
		struct axis *a = &axes[nr];

		if (!eq || eq == tok || !eq[1] || (size_t)(eq - tok) >= sizeof(a->key)) {
			snprintf(err, errlen, "line %d: '%s' is not key=values",
				 line, tok);
			return -EINVAL;
		}
		if (nr == 8) {
			snprintf(err, errlen, "line %d: too many keys", line);
			return -EINVAL;
		}
		*eq = '\0';
		snprintf(a->key, sizeof(a->key), "%s", tok);
		a->nr = 0;
		for (v = strtok_r(eq + 1, ",", &vsave); v;
		     v = strtok_r(NULL, ",", &vsave)) {
			if (a->nr == MAX_VALUES) {
				snprintf(err, errlen, "line %d: too many values for %s",
					 line, a->key);
				return -EINVAL;
			}
			a->values[a->nr++] = v;
		}
		nr++;
	}
	return nr ? expand(m, axes, nr, 0, base, err, errlen, line) : 0;
}

int matrix_parse(struct matrix *m, const char *text, char *err, size_t errlen)
{
	char *copy = strdup(text), *s;
	int line = 0, ret = 0;

	if (!copy)
		return -ENOMEM;
	/* strtok_r would merge empty lines and break line numbers */
	for (s = copy; s && !ret; ) {
		char *nl = strchr(s, '\n'), *hash;

		if (nl)
			*nl = '\0';
		line++;
		hash = strchr(s, '#');
		if (hash)
			*hash = '\0';
		ret = parse_line(m, s, line, err, errlen);
		s = nl ? nl + 1 : NULL;
	}
	free(copy);
	return ret;
}

int matrix_parse_file(struct matrix *m, const char *path, char *err,
		      size_t errlen)
{
	FILE *f = fopen(path, "r");
	char *text = NULL;
	size_t cap = 0;
	ssize_t n;
	int ret;

	if (!f) {
		snprintf(err, errlen, "cannot open matrix %s: %s", path,
			 strerror(errno));
		return -errno;
	}
	n = getdelim(&text, &cap, '\0', f);
	fclose(f);
	if (n < 0) {
		free(text);
		snprintf(err, errlen, "cannot read matrix %s", path);
		return -EIO;
	}
	ret = matrix_parse(m, text, err, errlen);
	free(text);
	return ret;
}

void matrix_cell_name(const struct matrix_cell *c, char *buf, size_t len)
{
	const struct ublk_target_ops *t = ublk_target_find(c->target);
	char legs[32] = "";

	if (t && legs_spelled(t))
		snprintf(legs, sizeof(legs), "-%u", c->legs);
	if (*c->backing)
		snprintf(legs + strlen(legs), sizeof(legs) - strlen(legs),
			 "@%s", c->backing);
	if (c->bs % (1u << 20) == 0)
		snprintf(buf, len, "%s%s %s %uM qd%u", c->target, legs,
			 wl_rw_name(c->rw), c->bs >> 20, c->iodepth);
	else if (c->bs % 1024 == 0)
		snprintf(buf, len, "%s%s %s %uK qd%u", c->target, legs,
			 wl_rw_name(c->rw), c->bs >> 10, c->iodepth);
	else
		snprintf(buf, len, "%s%s %s %u qd%u", c->target, legs,
			 wl_rw_name(c->rw), c->bs, c->iodepth);
}
