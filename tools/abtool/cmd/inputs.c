// SPDX-License-Identifier: GPL-2.0
/* Refuse inputs that would pool trials twice or across runs; see inputs.h. */
#include <errno.h>
#include <limits.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "errmsg.h"
#include "inputs.h"
#include "report.h"

struct input_id {
	bool known;		/* a regular file we could read */
	dev_t dev;
	ino_t ino;
	off_t size;
	uint64_t hash;
};

/* FNV-1a over the file: cheap, and a collision is 2^-64 unlikely. */
static int hash_file(const char *path, uint64_t *hash)
{
	unsigned char buf[65536];
	uint64_t h = 0xcbf29ce484222325ULL;
	ssize_t got, i;
	int fd = open(path, O_RDONLY | O_CLOEXEC);

	if (fd < 0)
		return -errno;
	while ((got = read(fd, buf, sizeof(buf))) > 0)
		for (i = 0; i < got; i++)
			h = (h ^ buf[i]) * 0x100000001b3ULL;
	close(fd);
	if (got < 0)
		return -EIO;
	*hash = h;
	return 0;
}

static void identify(const char *path, struct input_id *id)
{
	struct stat st;

	memset(id, 0, sizeof(*id));
	/* only regular files: reading a pipe here would eat its trials */
	if (stat(path, &st) || !S_ISREG(st.st_mode))
		return;
	id->dev = st.st_dev;
	id->ino = st.st_ino;
	id->size = st.st_size;
	id->known = !hash_file(path, &id->hash);
}

static const char *same(const struct input_id *a, const struct input_id *b)
{
	if (!a->known || !b->known)
		return NULL;
	if (a->dev == b->dev && a->ino == b->ino)
		return "are the same file";
	if (a->size == b->size && a->hash == b->hash)
		return "have the same content";
	return NULL;
}

int inputs_check_distinct(char *const *paths, size_t n, char *err,
			  size_t errlen)
{
	struct input_id *ids = calloc(n ? n : 1, sizeof(*ids));
	size_t i, j, stdin_seen = 0;
	const char *why;
	int ret = 0;

	if (!ids)
		return set_err(err, errlen, -ENOMEM, "out of memory");
	for (i = 0; i < n && !ret; i++) {
		if (!strcmp(paths[i], "-")) {
			if (stdin_seen++)
				ret = set_err(err, errlen, -EINVAL,
					      "standard input (-) is given "
					      "twice");
			continue;
		}
		identify(paths[i], &ids[i]);
		for (j = 0; j < i && !ret; j++) {
			why = same(&ids[j], &ids[i]);
			if (why)
				ret = set_err(err, errlen, -EINVAL,
					      "%s and %s %s: their trials "
					      "would count twice; give each "
					      "file once", paths[j], paths[i],
					      why);
		}
	}
	free(ids);
	return ret;
}

/* ---- the records ---- */

static const char *where(const struct trial *t, char *buf, size_t len)
{
	snprintf(buf, len, "%s:%u", t->source ? t->source : "?", t->line);
	return buf;
}

static bool has_ids(const struct trial *t)
{
	return t->boot >= 0 && t->trial >= 0;
}

static int cmp_cell(const struct trial_cell *a, const struct trial_cell *b)
{
	int d = strcmp(a->target, b->target);

	if (!d)
		d = (a->legs > b->legs) - (a->legs < b->legs);
	if (!d)
		d = strcmp(a->backing, b->backing);
	if (!d)
		d = strcmp(a->rw, b->rw);
	if (!d)
		d = (a->bs > b->bs) - (a->bs < b->bs);
	if (!d)
		d = (a->iodepth > b->iodepth) - (a->iodepth < b->iodepth);
	if (!d)
		d = (a->jobs > b->jobs) - (a->jobs < b->jobs);
	return d;
}

/*
 * The key a record must not share with another of its run: what it
 * measured (config, cell) and when (boot, trial; the date for records
 * from before boot and trial ids).
 */
static int cmp_key(const struct trial *a, const struct trial *b)
{
	int d = strcmp(a->variant, b->variant);

	if (!d)
		d = strcmp(a->path, b->path);
	if (!d)
		d = cmp_cell(&a->cell, &b->cell);
	if (!d)
		d = (has_ids(a) > has_ids(b)) - (has_ids(a) < has_ids(b));
	if (!d && has_ids(a))
		d = a->boot != b->boot ? (a->boot > b->boot) - (a->boot < b->boot) :
		    (a->trial > b->trial) - (a->trial < b->trial);
	if (!d && !has_ids(a))
		d = strcmp(a->date, b->date);
	return d;
}

static int cmp_key_ptr(const void *x, const void *y)
{
	const struct trial *a = *(const struct trial *const *)x;
	const struct trial *b = *(const struct trial *const *)y;
	int d = cmp_key(a, b);

	/* stable within a key: the first record read comes first */
	return d ? d : (a > b) - (a < b);
}

/* Same key: the same record read twice, or the same trial of two runs? */
static bool same_run(const struct trial *a, const struct trial *b)
{
	if (*a->run_id || *b->run_id)
		return !strcmp(a->run_id, b->run_id);
	return !strcmp(a->date, b->date);
}

/* "base/copy null randread 4K qd16, boot 0, trial 1, run R" */
static void describe(const struct trial *t, char *buf, size_t len)
{
	char cell[256], when[TRIAL_STR_MAX + 16];

	report_cell_label(&t->cell, cell, sizeof(cell));
	if (has_ids(t))
		snprintf(when, sizeof(when), "boot %d, trial %d", t->boot,
			 t->trial);
	else
		snprintf(when, sizeof(when), "date %s", t->date);
	snprintf(buf, len, "%s/%s %s, %s%s%s", t->variant, t->path, cell,
		 when, *t->run_id ? ", run " : "", t->run_id);
}

/*
 * One key twice: the same record read twice, always wrong; or the same
 * trial of two runs, wrong where it pools them into one column (every
 * --by but file, whose columns are files) unless --pool.
 */
static bool at_fault(const struct trial *a, const struct trial *b,
		     const struct inputs_rules *rules)
{
	if (same_run(a, b))
		return true;
	if (rules->by == REPORT_BY_FILE && a->source != b->source)
		return false;
	return !rules->pool;
}

static int check_duplicates(const struct trial_set *set,
			    const struct inputs_rules *rules,
			    char *err, size_t errlen)
{
	const struct trial **v = malloc((set->nr ? set->nr : 1) * sizeof(*v));
	const struct trial *first = NULL, *second = NULL;
	char wa[PATH_MAX], wb[PATH_MAX], what[1024];
	size_t i, j, k, l;

	if (!v)
		return set_err(err, errlen, -ENOMEM, "out of memory");
	for (i = 0; i < set->nr; i++)
		v[i] = &set->trials[i];
	qsort(v, set->nr, sizeof(*v), cmp_key_ptr);
	/*
	 * Every pair of a key's records (a handful at most); of the pairs
	 * at fault, name the one whose second record comes first in the
	 * input: where reading the files in order goes wrong
	 */
	for (i = 0; i < set->nr; i = j) {
		for (j = i + 1; j < set->nr && !cmp_key(v[i], v[j]); j++)
			;
		for (k = i; k < j; k++)
			for (l = k + 1; l < j; l++)
				if (at_fault(v[k], v[l], rules) &&
				    (!second || v[l] < second)) {
					first = v[k];
					second = v[l];
				}
	}
	free(v);
	if (!second)
		return 0;
	describe(first, what, sizeof(what));
	where(first, wa, sizeof(wa));
	where(second, wb, sizeof(wb));
	if (same_run(first, second))
		return set_err(err, errlen, -EINVAL,
			       "%s and %s are the same trial (%s): a record "
			       "counted twice doubles n; give each once",
			       wa, wb, what);
	return set_err(err, errlen, -EINVAL,
		       "%s and %s are the same trial (%s) of two runs (%s, "
		       "%s): their boots are not one sample; compare one run, "
		       "or give --pool", wa, wb, what,
		       *first->run_id ? first->run_id : "no run id",
		       *second->run_id ? second->run_id : "no run id");
}

/* String field at @off of struct trial */
#define FIELD(t, off)	((const char *)(t) + (off))

/*
 * A column with more than one value of the field at @off: run ids ("" is
 * a value too: a record that does not say is not of the same run as one
 * that does) or, with !@empty_counts, series commits.
 */
static int check_one(const struct trial_set *set, enum report_by by,
		     size_t off, bool empty_counts, const char *what,
		     char *err, size_t errlen)
{
	char la[2 * TRIAL_STR_MAX + 2], lb[2 * TRIAL_STR_MAX + 2];
	char wa[PATH_MAX], wb[PATH_MAX];
	const struct trial *t, *u;

	trial_set_for_each(set, t) {
		if (*t->skipped || (!empty_counts && !*FIELD(t, off)))
			continue;
		report_config_label(t, by, la, sizeof(la));
		/* against the column's first such record */
		for (u = set->trials; u < t; u++) {
			if (*u->skipped || (!empty_counts && !*FIELD(u, off)))
				continue;
			report_config_label(u, by, lb, sizeof(lb));
			if (!strcmp(la, lb))
				break;
		}
		if (u == t || !strcmp(FIELD(u, off), FIELD(t, off)))
			continue;
		return set_err(err, errlen, -EINVAL,
			       "%s pools trials of two %s: %s (%s) and %s "
			       "(%s): they are no one sample; compare one "
			       "run, or give --pool", la, what,
			       *FIELD(u, off) ? FIELD(u, off) : "none",
			       where(u, wa, sizeof(wa)),
			       *FIELD(t, off) ? FIELD(t, off) : "none",
			       where(t, wb, sizeof(wb)));
	}
	return 0;
}

/* --by file: a column per file, so a file must be one config. */
static int check_by_file(const struct trial_set *set, char *err,
			 size_t errlen)
{
	const struct trial *t, *first;
	char wa[PATH_MAX], wb[PATH_MAX];
	size_t f;

	for (f = 0; f < set->nr_files; f++) {
		first = NULL;
		trial_set_for_each(set, t) {
			if (t->source != set->files[f] || *t->skipped)
				continue;
			if (!first) {
				first = t;
				continue;
			}
			if (!strcmp(first->variant, t->variant) &&
			    !strcmp(first->path, t->path))
				continue;
			return set_err(err, errlen, -EINVAL,
				       "--by file: %s holds %s/%s (%s) and "
				       "%s/%s (%s), which would be pooled "
				       "into one column; give one file per "
				       "config, or --by variant,path",
				       set->files[f], first->variant,
				       first->path, where(first, wa,
							  sizeof(wa)),
				       t->variant, t->path,
				       where(t, wb, sizeof(wb)));
		}
	}
	return 0;
}

static int check_not_empty(const struct trial_set *set, char *err,
			   size_t errlen)
{
	const struct trial *t;
	size_t f;

	for (f = 0; f < set->nr_files; f++) {
		trial_set_for_each(set, t)
			if (t->source == set->files[f])
				break;
		if (t == set->trials + set->nr)
			return set_err(err, errlen, -EINVAL,
				       "%s: no trial records", set->files[f]);
	}
	return 0;
}

int inputs_check_records(const struct trial_set *set,
			 const struct inputs_rules *rules,
			 char *err, size_t errlen)
{
	int ret = check_not_empty(set, err, errlen);

	if (!ret)
		ret = check_duplicates(set, rules, err, errlen);
	if (!ret && !rules->pool)
		ret = check_one(set, rules->by, offsetof(struct trial, run_id),
				true, "runs", err, errlen);
	if (!ret && !rules->pool)
		ret = check_one(set, rules->by,
				offsetof(struct trial, series_commit), false,
				"series commits", err, errlen);
	if (!ret && rules->by == REPORT_BY_FILE)
		ret = check_by_file(set, err, errlen);
	return ret;
}
