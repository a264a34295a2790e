// SPDX-License-Identifier: GPL-2.0
/* Trial records as JSON lines, through json-c. */
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include <json-c/json.h>

#include "results.h"

void trial_init(struct trial *t)
{
	memset(t, 0, sizeof(*t));
	t->boot = -1;
	t->trial = -1;
	t->cell.legs = 1;
	t->cell.jobs = 1;
}

void trial_release(struct trial *t)
{
	free(t->metrics);
	t->metrics = NULL;
	t->nr_metrics = 0;
}

/* Add or replace; NaN stands for "not available" (written as null). */
static int put_metric(struct trial *t, const char *name, double value)
{
	struct trial_metric *m;
	size_t i;

	if (!*name || strlen(name) >= TRIAL_STR_MAX)
		return -EINVAL;
	for (i = 0; i < t->nr_metrics; i++) {
		if (!strcmp(t->metrics[i].name, name)) {
			t->metrics[i].value = value;
			return 0;
		}
	}
	m = realloc(t->metrics, (t->nr_metrics + 1) * sizeof(*m));
	if (!m)
		return -ENOMEM;
	t->metrics = m;
	m += t->nr_metrics++;
	strcpy(m->name, name);
	m->value = value;
	return 0;
}

int trial_set_metric(struct trial *t, const char *name, double value)
{
	return isfinite(value) ? put_metric(t, name, value) : -EINVAL;
}

int trial_set_metric_na(struct trial *t, const char *name)
{
	return put_metric(t, name, NAN);
}

bool trial_get_metric(const struct trial *t, const char *name, double *value)
{
	size_t i;

	for (i = 0; i < t->nr_metrics; i++) {
		if (!strcmp(t->metrics[i].name, name)) {
			*value = t->metrics[i].value;
			return !isnan(*value);
		}
	}
	return false;
}

void trial_set_init(struct trial_set *set)
{
	memset(set, 0, sizeof(*set));
}

void trial_set_release(struct trial_set *set)
{
	size_t i;

	for (i = 0; i < set->nr; i++)
		trial_release(&set->trials[i]);
	for (i = 0; i < set->nr_files; i++)
		free(set->files[i]);
	free(set->trials);
	free(set->files);
	trial_set_init(set);
}

int trial_set_add(struct trial_set *set, struct trial *t)
{
	if (set->nr == set->cap) {
		size_t cap = set->cap ? set->cap * 2 : 64;
		struct trial *v = realloc(set->trials, cap * sizeof(*v));

		if (!v)
			return -ENOMEM;
		set->trials = v;
		set->cap = cap;
	}
	set->trials[set->nr++] = *t;
	t->metrics = NULL;
	t->nr_metrics = 0;
	return 0;
}

/* ---- parsing ---- */

static int fail(char *err, size_t errlen, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(err, errlen, fmt, ap);
	va_end(ap);
	return -EINVAL;
}

/* @obj[key] if present and not null. */
static struct json_object *member(struct json_object *obj, const char *key)
{
	struct json_object *v;

	if (!json_object_object_get_ex(obj, key, &v))
		return NULL;
	return v;
}

static int get_string(struct json_object *obj, const char *where,
		      const char *key, char dst[TRIAL_STR_MAX],
		      char *err, size_t errlen)
{
	struct json_object *v = member(obj, key);
	const char *s;

	if (!v)
		return 0;
	if (!json_object_is_type(v, json_type_string))
		return fail(err, errlen, "%s%s: expected a string", where, key);
	s = json_object_get_string(v);
	if (strlen(s) >= TRIAL_STR_MAX)
		return fail(err, errlen, "%s%s: longer than %d characters",
			    where, key, TRIAL_STR_MAX - 1);
	strcpy(dst, s);
	return 0;
}

static bool is_number(struct json_object *v)
{
	return json_object_is_type(v, json_type_int) ||
	       json_object_is_type(v, json_type_double);
}

/* A non-negative integer no larger than @max, left alone when absent. */
static int get_uint(struct json_object *obj, const char *where,
		    const char *key, uint64_t max, uint64_t *dst,
		    char *err, size_t errlen)
{
	struct json_object *v = member(obj, key);
	double d;

	if (!v)
		return 0;
	if (!is_number(v))
		return fail(err, errlen, "%s%s: expected a number", where, key);
	d = json_object_get_double(v);
	if (d < 0 || d != floor(d) || d > (double)max)
		return fail(err, errlen,
			    "%s%s: expected an integer in 0..%llu", where, key,
			    (unsigned long long)max);
	*dst = (uint64_t)d;
	return 0;
}

static int get_uint32(struct json_object *obj, const char *where,
		      const char *key, unsigned int *dst,
		      char *err, size_t errlen)
{
	uint64_t v = *dst;
	int ret = get_uint(obj, where, key, UINT32_MAX, &v, err, errlen);

	*dst = (unsigned int)v;
	return ret;
}

static int get_index(struct json_object *obj, const char *key, int *dst,
		     char *err, size_t errlen)
{
	uint64_t v = 0;

	if (!member(obj, key))
		return 0;
	if (get_uint(obj, "", key, INT32_MAX, &v, err, errlen))
		return -EINVAL;
	*dst = (int)v;
	return 0;
}

static int parse_cell(struct json_object *obj, struct trial_cell *c,
		      char *err, size_t errlen)
{
	const char *w = "cell.";

	if (!json_object_is_type(obj, json_type_object))
		return fail(err, errlen, "cell: expected an object");
	if (get_string(obj, w, "target", c->target, err, errlen) ||
	    get_uint32(obj, w, "legs", &c->legs, err, errlen) ||
	    get_string(obj, w, "backing", c->backing, err, errlen) ||
	    get_string(obj, w, "rw", c->rw, err, errlen) ||
	    get_uint(obj, w, "bs", 1ULL << 53, &c->bs, err, errlen) ||
	    get_uint32(obj, w, "iodepth", &c->iodepth, err, errlen) ||
	    get_uint32(obj, w, "jobs", &c->jobs, err, errlen))
		return -EINVAL;
	return 0;
}

static int parse_metrics(struct json_object *obj, struct trial *t,
			 char *err, size_t errlen)
{
	if (!json_object_is_type(obj, json_type_object))
		return fail(err, errlen, "metrics: expected an object");

	json_object_object_foreach(obj, key, val) {
		double d;

		if (!val)	/* null: not measured in this trial */
			continue;
		if (!is_number(val))
			return fail(err, errlen,
				    "metrics.%s: expected a number", key);
		d = json_object_get_double(val);
		if (!isfinite(d))
			return fail(err, errlen,
				    "metrics.%s: not a finite number", key);
		/* rates, times, counts per I/O: a negative one is a bug */
		if (d < 0)
			return fail(err, errlen,
				    "metrics.%s: negative (%g)", key, d);
		if (strlen(key) >= TRIAL_STR_MAX || !*key)
			return fail(err, errlen,
				    "metrics: bad metric name '%.32s'", key);
		if (trial_set_metric(t, key, d))
			return fail(err, errlen, "out of memory");
	}
	return 0;
}

static int parse_record(struct json_object *obj, struct trial *t,
			char *err, size_t errlen)
{
	static const struct {
		const char *key;
		size_t off;
	} strings[] = {
		{ "variant", offsetof(struct trial, variant) },
		{ "kernel", offsetof(struct trial, kernel) },
		{ "flavor", offsetof(struct trial, flavor) },
		{ "path", offsetof(struct trial, path) },
		{ "driver", offsetof(struct trial, driver) },
		{ "skipped", offsetof(struct trial, skipped) },
		{ "clock", offsetof(struct trial, clock) },
		{ "accel", offsetof(struct trial, accel) },
		{ "host", offsetof(struct trial, host) },
		{ "date", offsetof(struct trial, date) },
		{ "run_id", offsetof(struct trial, run_id) },
		{ "series_commit", offsetof(struct trial, series_commit) },
	};
	struct json_object *v;
	size_t i;

	if (!json_object_is_type(obj, json_type_object))
		return fail(err, errlen, "expected a JSON object");
	v = member(obj, "schema");
	if (!v)
		return fail(err, errlen, "no \"schema\" (want \"%s\")",
			    TRIAL_SCHEMA);
	if (!json_object_is_type(v, json_type_string) ||
	    strcmp(json_object_get_string(v), TRIAL_SCHEMA))
		return fail(err, errlen, "schema is %s, want \"%s\"",
			    json_object_to_json_string(v), TRIAL_SCHEMA);
	for (i = 0; i < sizeof(strings) / sizeof(strings[0]); i++)
		if (get_string(obj, "", strings[i].key,
			       (char *)t + strings[i].off, err, errlen))
			return -EINVAL;
	if (get_index(obj, "boot", &t->boot, err, errlen) ||
	    get_index(obj, "trial", &t->trial, err, errlen) ||
	    get_index(obj, "cpus", &t->cpus, err, errlen))
		return -EINVAL;
	if (member(obj, "seed")) {
		/* exact in a double: every JSON reader gets the same seed */
		if (get_uint(obj, "", "seed", 1ULL << 53, &t->seed, err,
			     errlen))
			return -EINVAL;
		t->has_seed = true;
	}
	v = member(obj, "cell");
	if (v && parse_cell(v, &t->cell, err, errlen))
		return -EINVAL;
	v = member(obj, "metrics");
	if (!v)
		return fail(err, errlen, "no \"metrics\" object");
	return parse_metrics(v, t, err, errlen);
}

int results_parse_line(const char *line, struct trial *t,
		       char *err, size_t errlen)
{
	struct json_tokener *tok = json_tokener_new();
	size_t len = strlen(line), end;
	enum json_tokener_error jerr;
	struct json_object *obj;
	int ret;

	trial_init(t);
	if (!tok)
		return fail(err, errlen, "out of memory");
	/*
	 * Strict: no trailing commas or single quotes, so a file we accept
	 * is one every JSON tool accepts.  Text after the record is caught
	 * below, with a clearer message than the tokener's.
	 */
	json_tokener_set_flags(tok, JSON_TOKENER_STRICT |
			       JSON_TOKENER_ALLOW_TRAILING_CHARS |
			       JSON_TOKENER_VALIDATE_UTF8);
	obj = json_tokener_parse_ex(tok, line, (int)len);
	jerr = json_tokener_get_error(tok);
	end = json_tokener_get_parse_end(tok);
	json_tokener_free(tok);
	if (jerr == json_tokener_continue)
		return fail(err, errlen, "invalid JSON: record ends early");
	if (jerr != json_tokener_success)
		return fail(err, errlen, "invalid JSON at column %zu: %s",
			    end + 1, json_tokener_error_desc(jerr));
	if (line[end + strspn(line + end, " \t\r\n")]) {
		json_object_put(obj);
		return fail(err, errlen,
			    "invalid JSON: text after the record (column %zu)",
			    end + 1);
	}
	ret = parse_record(obj, t, err, errlen);
	json_object_put(obj);
	if (ret)
		trial_release(t);
	return ret;
}

static bool blank(const char *s)
{
	return !s[strspn(s, " \t\r\n")];
}

static const char *remember_file(struct trial_set *set, const char *name)
{
	char **files = realloc(set->files,
			       (set->nr_files + 1) * sizeof(*files));

	if (!files)
		return NULL;
	set->files = files;
	files[set->nr_files] = strdup(name);
	if (!files[set->nr_files])
		return NULL;
	return files[set->nr_files++];
}

int results_read_stream(struct trial_set *set, FILE *f, const char *name,
			char *err, size_t errlen)
{
	size_t first = set->nr, cap = 0;
	const char *source;
	unsigned int lineno = 0;
	char *line = NULL, msg[256];
	struct trial t;
	int ret = 0;

	source = remember_file(set, name);
	if (!source) {
		snprintf(err, errlen, "%s: out of memory", name);
		return -ENOMEM;
	}
	while (getline(&line, &cap, f) >= 0) {
		lineno++;
		if (blank(line))
			continue;
		if (results_parse_line(line, &t, msg, sizeof(msg))) {
			ret = fail(err, errlen, "%s:%u: %s", name, lineno, msg);
			break;
		}
		t.source = source;
		t.line = lineno;
		if (trial_set_add(set, &t)) {
			trial_release(&t);
			snprintf(err, errlen, "%s:%u: out of memory", name,
				 lineno);
			ret = -ENOMEM;
			break;
		}
	}
	if (!ret && ferror(f)) {
		snprintf(err, errlen, "%s: read error", name);
		ret = -EIO;
	}
	free(line);
	if (ret) {
		/* all or nothing per file */
		while (set->nr > first)
			trial_release(&set->trials[--set->nr]);
		free(set->files[--set->nr_files]);
	}
	return ret;
}

int results_read_file(struct trial_set *set, const char *path,
		      char *err, size_t errlen)
{
	FILE *f;
	int ret;

	if (!strcmp(path, "-"))
		return results_read_stream(set, stdin, "<stdin>", err, errlen);
	f = fopen(path, "r");
	if (!f) {
		ret = -errno;
		snprintf(err, errlen, "%s: %s", path, strerror(errno));
		return ret;
	}
	ret = results_read_stream(set, f, path, err, errlen);
	fclose(f);
	return ret;
}

/* ---- writing ---- */

struct json_object *results_json_number(double v)
{
	char buf[32];
	int prec;

	if (!isfinite(v))
		return NULL;	/* json-c's NULL object serializes as null */
	if (v == floor(v) && fabs(v) < 9007199254740992.0)	/* 2^53 */
		return json_object_new_int64((int64_t)v);
	for (prec = 15; prec < 17; prec++) {
		snprintf(buf, sizeof(buf), "%.*g", prec, v);
		if (strtod(buf, NULL) == v)
			break;
	}
	snprintf(buf, sizeof(buf), "%.*g", prec, v);
	return json_object_new_double_s(v, buf);
}

static void add_string(struct json_object *obj, const char *key,
		       const char *s)
{
	if (*s)
		json_object_object_add(obj, key, json_object_new_string(s));
}

static struct json_object *cell_to_json(const struct trial_cell *c)
{
	struct json_object *obj = json_object_new_object();

	add_string(obj, "target", c->target);
	json_object_object_add(obj, "legs", json_object_new_int64(c->legs));
	add_string(obj, "backing", c->backing);
	add_string(obj, "rw", c->rw);
	json_object_object_add(obj, "bs",
			       json_object_new_int64((int64_t)c->bs));
	json_object_object_add(obj, "iodepth",
			       json_object_new_int64(c->iodepth));
	json_object_object_add(obj, "jobs", json_object_new_int64(c->jobs));
	return obj;
}

struct json_object *results_trial_to_json(const struct trial *t)
{
	struct json_object *obj = json_object_new_object();
	struct json_object *metrics = json_object_new_object();
	size_t i;

	json_object_object_add(obj, "schema",
			       json_object_new_string(TRIAL_SCHEMA));
	add_string(obj, "variant", t->variant);
	add_string(obj, "kernel", t->kernel);
	add_string(obj, "flavor", t->flavor);
	add_string(obj, "path", t->path);
	add_string(obj, "driver", t->driver);
	add_string(obj, "skipped", t->skipped);
	add_string(obj, "clock", t->clock);
	add_string(obj, "accel", t->accel);
	add_string(obj, "host", t->host);
	add_string(obj, "date", t->date);
	add_string(obj, "run_id", t->run_id);
	add_string(obj, "series_commit", t->series_commit);
	if (t->boot >= 0)
		json_object_object_add(obj, "boot",
				       json_object_new_int(t->boot));
	if (t->trial >= 0)
		json_object_object_add(obj, "trial",
				       json_object_new_int(t->trial));
	if (t->cpus > 0)
		json_object_object_add(obj, "cpus",
				       json_object_new_int(t->cpus));
	if (t->has_seed)
		json_object_object_add(obj, "seed",
				       json_object_new_int64((int64_t)t->seed));
	json_object_object_add(obj, "cell", cell_to_json(&t->cell));
	for (i = 0; i < t->nr_metrics; i++)
		json_object_object_add(metrics, t->metrics[i].name,
				results_json_number(t->metrics[i].value));
	json_object_object_add(obj, "metrics", metrics);
	return obj;
}

int results_write_trial(FILE *f, const struct trial *t)
{
	struct json_object *obj = results_trial_to_json(t);
	const char *s;
	int ret = 0;

	if (!obj)
		return -ENOMEM;
	s = json_object_to_json_string_ext(obj, JSON_C_TO_STRING_PLAIN |
					   JSON_C_TO_STRING_NOSLASHESCAPE);
	if (!s || fprintf(f, "%s\n", s) < 0)
		ret = s ? -EIO : -ENOMEM;
	json_object_put(obj);
	return ret;
}
