// SPDX-License-Identifier: GPL-2.0
/* Two runs for `abtool replicate`: read each, refuse one run twice; see runs.h. */
#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "errmsg.h"
#include "inputs.h"
#include "runs.h"

#define PREFIX	"trials-"
#define SUFFIX	".jsonl"

static int is_trials_file(const struct dirent *d)
{
	size_t n = strlen(d->d_name);

	return n > strlen(PREFIX) + strlen(SUFFIX) &&
	       !strncmp(d->d_name, PREFIX, strlen(PREFIX)) &&
	       !strcmp(d->d_name + n - strlen(SUFFIX), SUFFIX);
}

static int add_file(struct run_input *in, const char *dir, const char *name)
{
	char **v = realloc(in->files, (in->nr_files + 1) * sizeof(*v));
	int len;

	if (!v)
		return -ENOMEM;
	in->files = v;
	len = dir ? asprintf(&v[in->nr_files], "%s/%s", dir, name) :
		    asprintf(&v[in->nr_files], "%s", name);
	if (len < 0)
		return -ENOMEM;
	in->nr_files++;
	return 0;
}

/* A directory's trials-*.jsonl in name order, or the file itself. */
static int list_files(struct run_input *in, char *err, size_t errlen)
{
	struct dirent **names;
	struct stat st;
	int n, i, ret = 0;

	if (stat(in->arg, &st))
		return set_err(err, errlen, -errno, "%s: %s", in->arg,
			       strerror(errno));
	if (!S_ISDIR(st.st_mode))
		return add_file(in, NULL, in->arg);
	n = scandir(in->arg, &names, is_trials_file, alphasort);
	if (n < 0)
		return set_err(err, errlen, -errno, "%s: %s", in->arg,
			       strerror(errno));
	for (i = 0; i < n; i++) {
		if (!ret)
			ret = add_file(in, in->arg, names[i]->d_name);
		free(names[i]);
	}
	free(names);
	if (!ret && !n)
		return set_err(err, errlen, -ENOENT, "%s: no " PREFIX "*"
			       SUFFIX " in it: not a result directory of "
			       "make ab", in->arg);
	return ret;
}

/* The run ids of @set, "" for records without one. */
static int distinct_runs(const struct trial_set *set, struct strlist *runs)
{
	const struct trial *t;

	trial_set_for_each(set, t)
		if (report_strlist_add(runs, t->run_id) < 0)
			return -ENOMEM;
	return 0;
}

static void strlist_release(struct strlist *l)
{
	size_t i;

	for (i = 0; i < l->nr; i++)
		free(l->v[i]);
	free(l->v);
}

/* One run_id (or none at all) on the side, as one run should have. */
static int check_one_run(const struct run_input *in, char *err,
			 size_t errlen)
{
	struct strlist runs = { NULL, 0 };
	char list[512];
	int ret = distinct_runs(&in->set, &runs);

	if (!ret && runs.nr > 1) {
		report_join(&runs, ", ", list, sizeof(list));
		ret = set_err(err, errlen, -EINVAL, "%s holds %zu runs (%s): "
			      "replicate sets one run beside another",
			      in->arg, runs.nr, list);
	}
	strlist_release(&runs);
	return ret;
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

/*
 * The distinct seeds of @set, sorted, into *@out (malloc'd; NULL when
 * there are none); their number, and in *@missing the records without.
 */
static size_t seeds_of(const struct trial_set *set, uint64_t **out,
		       size_t *missing)
{
	uint64_t *v = malloc((set->nr ? set->nr : 1) * sizeof(*v));
	const struct trial *t;
	size_t n = 0, k, d = 0;

	*out = v;
	*missing = 0;
	if (!v)
		return 0;
	trial_set_for_each(set, t) {
		if (t->has_seed)
			v[n++] = t->seed;
		else
			(*missing)++;
	}
	qsort(v, n, sizeof(*v), cmp_u64);
	for (k = 0; k < n; k++)
		if (!d || v[k] != v[d - 1])
			v[d++] = v[k];
	return d;
}

static void describe_seeds(struct run_input *in)
{
	size_t n, missing;
	uint64_t *v;

	n = seeds_of(&in->set, &v, &missing);
	if (missing)
		snprintf(in->seeds, sizeof(in->seeds), "not recorded in %zu "
			 "of %zu records: whether the runs differ in seed is "
			 "not checked", missing, in->set.nr);
	else if (n && v[n - 1] - v[0] + 1 == n)
		snprintf(in->seeds, sizeof(in->seeds), "%llu..%llu",
			 (unsigned long long)v[0],
			 (unsigned long long)v[n - 1]);
	else if (n)
		snprintf(in->seeds, sizeof(in->seeds), "%zu distinct in "
			 "%llu..%llu", n, (unsigned long long)v[0],
			 (unsigned long long)v[n - 1]);
	free(v);
}

int run_input_read(struct run_input *in, const char *arg, enum report_by by,
		   char *err, size_t errlen)
{
	struct inputs_rules rules = { .pool = false, .by = by };
	size_t i;
	int ret;

	memset(in, 0, sizeof(*in));
	in->arg = arg;
	trial_set_init(&in->set);
	ret = list_files(in, err, errlen);
	if (!ret)
		ret = inputs_check_distinct(in->files, in->nr_files, err,
					    errlen);
	for (i = 0; !ret && i < in->nr_files; i++)
		ret = results_read_file(&in->set, in->files[i], err, errlen);
	if (!ret)
		ret = inputs_check_records(&in->set, &rules, err, errlen);
	if (!ret)
		ret = check_one_run(in, err, errlen);
	if (!ret)
		describe_seeds(in);
	return ret;
}

/* The same files, copies, or records on both sides. */
static int check_not_copies(const struct run_input *a,
			    const struct run_input *b, char *err,
			    size_t errlen)
{
	struct inputs_rules rules = { .pool = true, .by = REPORT_BY_FILE };
	struct trial_set both = { .nr = a->set.nr + b->set.nr };
	char **files = calloc(a->nr_files + b->nr_files, sizeof(*files));
	int ret;

	both.trials = calloc(both.nr ? both.nr : 1, sizeof(*both.trials));
	if (!files || !both.trials) {
		free(files);
		free(both.trials);
		return set_err(err, errlen, -ENOMEM, "out of memory");
	}
	memcpy(files, a->files, a->nr_files * sizeof(*files));
	memcpy(files + a->nr_files, b->files, b->nr_files * sizeof(*files));
	ret = inputs_check_distinct(files, a->nr_files + b->nr_files, err,
				    errlen);
	/* a view of both sides' records, sharing their storage */
	memcpy(both.trials, a->set.trials, a->set.nr * sizeof(*both.trials));
	memcpy(both.trials + a->set.nr, b->set.trials,
	       b->set.nr * sizeof(*both.trials));
	rules.by = REPORT_BY_VARIANT_PATH;
	if (!ret)
		ret = inputs_check_records(&both, &rules, err, errlen);
	free(files);
	free(both.trials);
	return ret;
}

/* Both sides record every seed and share one: the same workloads. */
static int check_seeds(const struct run_input *a, const struct run_input *b,
		       char *err, size_t errlen)
{
	size_t na, nb, ma, mb, i = 0, j = 0, shared = 0;
	uint64_t *va, *vb;
	int ret = 0;

	na = seeds_of(&a->set, &va, &ma);
	nb = seeds_of(&b->set, &vb, &mb);
	while (!ma && !mb && i < na && j < nb) {
		if (va[i] == vb[j])
			shared++;
		if (va[i] <= vb[j])
			i++;
		else
			j++;
	}
	if (shared)
		ret = set_err(err, errlen, -EINVAL, "%s and %s share %zu "
			      "workload seed%s (seeds %s and %s): the same "
			      "offsets and bytes again, not a replication; "
			      "give make ab --seed past the other run's last "
			      "seed", a->arg, b->arg, shared,
			      shared == 1 ? "" : "s", a->seeds, b->seeds);
	free(va);
	free(vb);
	return ret;
}

int run_inputs_check_apart(const struct run_input *a,
			   const struct run_input *b, char *err,
			   size_t errlen)
{
	const char *ra = a->set.nr ? a->set.trials[0].run_id : "";
	const char *rb = b->set.nr ? b->set.trials[0].run_id : "";
	int ret;

	if (*ra && !strcmp(ra, rb))
		return set_err(err, errlen, -EINVAL, "%s and %s are the same "
			       "run (run_id %s): a run does not replicate "
			       "itself", a->arg, b->arg, ra);
	ret = check_not_copies(a, b, err, errlen);
	if (!ret)
		ret = check_seeds(a, b, err, errlen);
	return ret;
}

void run_input_release(struct run_input *in)
{
	size_t i;

	for (i = 0; i < in->nr_files; i++)
		free(in->files[i]);
	free(in->files);
	trial_set_release(&in->set);
	in->files = NULL;
	in->nr_files = 0;
}
