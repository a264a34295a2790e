// SPDX-License-Identifier: GPL-2.0
/* Pool trials into cells x configs and compare each config to the baseline. */
#include <errno.h>
#include <libgen.h>
#include <stddef.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "errmsg.h"
#include "report.h"

extern const struct report_format report_text, report_md, report_csv,
	report_json, report_summary;

const struct report_format *const report_formats[] = {
	&report_text,
	&report_md,
	&report_csv,
	&report_json,
	&report_summary,
	NULL,
};

static const char *const by_names[] = {
	[REPORT_BY_VARIANT_PATH] = "variant,path",
	[REPORT_BY_VARIANT] = "variant",
	[REPORT_BY_PATH] = "path",
	[REPORT_BY_FILE] = "file",
};

void report_opts_init(struct report_opts *opts)
{
	memset(opts, 0, sizeof(*opts));
	opts->by = REPORT_BY_VARIANT_PATH;
	opts->alpha = REPORT_ALPHA;
	opts->margin_pct = REPORT_MARGIN_PCT;
	opts->steady_pct = REPORT_STEADY_PCT;
}

int report_parse_by(const char *s, enum report_by *by)
{
	size_t i;

	for (i = 0; i < sizeof(by_names) / sizeof(by_names[0]); i++) {
		if (!strcmp(s, by_names[i])) {
			*by = (enum report_by)i;
			return 0;
		}
	}
	return -EINVAL;
}

const char *report_by_name(enum report_by by)
{
	return by_names[by];
}


/* ---- string sets ---- */

static ssize_t strlist_find(const struct strlist *l, const char *s)
{
	size_t i;

	for (i = 0; i < l->nr; i++)
		if (!strcmp(l->v[i], s))
			return (ssize_t)i;
	return -1;
}

/* Add @s unless present; returns its index or -ENOMEM. */
ssize_t report_strlist_add(struct strlist *l, const char *s)
{
	ssize_t i = strlist_find(l, s);
	char **v;

	if (i >= 0)
		return i;
	v = realloc(l->v, (l->nr + 1) * sizeof(*v));
	if (!v)
		return -ENOMEM;
	l->v = v;
	v[l->nr] = strdup(s);
	if (!v[l->nr])
		return -ENOMEM;
	return (ssize_t)l->nr++;
}

static ssize_t strlist_add(struct strlist *l, const char *s)
{
	return report_strlist_add(l, s);
}

static void strlist_free(struct strlist *l)
{
	size_t i;

	for (i = 0; i < l->nr; i++)
		free(l->v[i]);
	free(l->v);
	l->v = NULL;
	l->nr = 0;
}

bool report_column_pools(const struct report *r, bool commits)
{
	size_t c;

	for (c = 0; c < r->nr_columns; c++) {
		const struct report_env *e = &r->columns[c].env;

		if ((commits ? e->commits.nr : e->runs.nr) > 1)
			return true;
	}
	return false;
}

void report_join(const struct strlist *l, const char *sep,
		 char *buf, size_t len)
{
	size_t i, used = 0;

	if (len)
		buf[0] = '\0';
	for (i = 0; i < l->nr && used < len; i++)
		used += (size_t)snprintf(buf + used, len - used, "%s%s",
					 i ? sep : "", l->v[i]);
}

/* ---- environment of a group of trials ---- */

static const char *or_unknown(const char *s)
{
	return *s ? s : "unknown";
}

static int env_add(struct report_env *env, const struct trial *t)
{
	char kernel[2 * TRIAL_STR_MAX + 2];

	if (*t->variant || *t->kernel) {
		snprintf(kernel, sizeof(kernel), "%s%s%s", t->variant,
			 *t->variant ? " " : "", or_unknown(t->kernel));
		if (strlist_add(&env->kernels, kernel) < 0)
			return -ENOMEM;
	}
	if (strlist_add(&env->clocks, or_unknown(t->clock)) < 0 ||
	    strlist_add(&env->accels, or_unknown(t->accel)) < 0 ||
	    strlist_add(&env->flavors, or_unknown(t->flavor)) < 0 ||
	    strlist_add(&env->hosts, or_unknown(t->host)) < 0)
		return -ENOMEM;
	if (*t->driver && strlist_add(&env->drivers, t->driver) < 0)
		return -ENOMEM;
	if (*t->run_id && strlist_add(&env->runs, t->run_id) < 0)
		return -ENOMEM;
	if (*t->series_commit &&
	    strlist_add(&env->commits, t->series_commit) < 0)
		return -ENOMEM;
	if (t->cpus > 0) {
		char n[16];

		snprintf(n, sizeof(n), "%d", t->cpus);
		if (strlist_add(&env->cpus, n) < 0)
			return -ENOMEM;
	}
	if (*t->date) {
		if (!*env->date_first || strcmp(t->date, env->date_first) < 0)
			strcpy(env->date_first, t->date);
		if (strcmp(t->date, env->date_last) > 0)
			strcpy(env->date_last, t->date);
	}
	return 0;
}

static void env_free(struct report_env *env)
{
	strlist_free(&env->kernels);
	strlist_free(&env->clocks);
	strlist_free(&env->accels);
	strlist_free(&env->flavors);
	strlist_free(&env->hosts);
	strlist_free(&env->cpus);
	strlist_free(&env->drivers);
	strlist_free(&env->runs);
	strlist_free(&env->commits);
}

/* ---- labels ---- */

static void fmt_bytes(uint64_t b, char *buf, size_t len)
{
	static const char units[] = "KMGT";
	int i = -1;

	while (b && !(b % 1024) && i < 3) {
		b /= 1024;
		i++;
	}
	if (i < 0)
		snprintf(buf, len, "%lluB", (unsigned long long)b);
	else
		snprintf(buf, len, "%llu%c", (unsigned long long)b, units[i]);
}

void report_cell_label(const struct trial_cell *c, char *buf, size_t len)
{
	char bs[32] = "", legs[16 + TRIAL_STR_MAX] = "", qd[16] = "", jobs[16] = "";

	if (c->legs > 1)
		snprintf(legs, sizeof(legs), "-%u", c->legs);
	/* the media, as abtool run names its cells: "loop@brd" */
	if (*c->backing)
		snprintf(legs + strlen(legs), sizeof(legs) - strlen(legs),
			 "@%s", c->backing);
	if (c->bs) {
		bs[0] = ' ';
		fmt_bytes(c->bs, bs + 1, sizeof(bs) - 1);
	}
	if (c->iodepth)
		snprintf(qd, sizeof(qd), " qd%u", c->iodepth);
	if (c->jobs > 1)
		snprintf(jobs, sizeof(jobs), " j%u", c->jobs);
	snprintf(buf, len, "%s%s%s%s%s%s%s", *c->target ? c->target : "?",
		 legs, *c->rw ? " " : "", c->rw, bs, qd, jobs);
}

void report_config_label(const struct trial *t, enum report_by by,
			 char *buf, size_t len)
{
	const char *slash;

	switch (by) {
	case REPORT_BY_VARIANT:
		snprintf(buf, len, "%s", *t->variant ? t->variant : "?");
		break;
	case REPORT_BY_PATH:
		snprintf(buf, len, "%s", *t->path ? t->path : "?");
		break;
	case REPORT_BY_FILE:
		if (!t->source) {
			snprintf(buf, len, "?");
			break;
		}
		slash = strrchr(t->source, '/');
		snprintf(buf, len, "%s", slash ? slash + 1 : t->source);
		break;
	default:
		snprintf(buf, len, "%s/%s", *t->variant ? t->variant : "?",
			 *t->path ? t->path : "?");
	}
}

void report_column_letter(size_t i, char *buf, size_t len)
{
	if (i < 26)
		snprintf(buf, len, "%c", (char)('A' + i));
	else
		snprintf(buf, len, "%c%c", (char)('A' + i / 26 - 1),
			 (char)('A' + i % 26));
}

/* ---- number formatting ---- */

void report_fmt_value(double v, char *buf, size_t len)
{
	static const char suffix[] = "kMGTPE";
	double a = fabs(v);
	int i;

	if (isnan(v)) {
		snprintf(buf, len, "-");
		return;
	}
	if (a >= 1e4 && isfinite(v)) {
		/* 4 significant digits with an SI suffix */
		for (i = 0; a >= 1e3 * 1e3 && i < 5; i++)
			a /= 1e3;
		a /= 1e3;
		v = v < 0 ? -a : a;
		snprintf(buf, len, "%.*f%c", a < 10 ? 3 : a < 100 ? 2 : 1, v,
			 suffix[i]);
	} else if (a >= 1e3 || a == 0) {
		snprintf(buf, len, "%.0f", v);
	} else if (a >= 1e-3) {
		snprintf(buf, len, "%.*f",
			 a >= 100 ? 1 : a >= 10 ? 2 : a >= 1 ? 3 : 4, v);
	} else {
		snprintf(buf, len, "%.2e", v);
	}
}

void report_fmt_spread(double pct, char *buf, size_t len)
{
	/*
	 * Whole percents, except where that would print a spread that is
	 * there as "0%": under icount most cells spread by tenths.  "0%"
	 * stays for no spread at all; "0.0%" is a spread under 0.05%.
	 */
	if (isnan(pct))
		snprintf(buf, len, "?");
	else if (pct > 0 && pct < 0.5)
		snprintf(buf, len, "%.1f%%", pct);
	else
		snprintf(buf, len, "%.0f%%", pct);
}

/* One bound of a CI: tenths below 100%, whole percents above. */
static void fmt_bound(double pct, char *buf, size_t len)
{
	snprintf(buf, len, "%+.*f", fabs(pct) < 99.95 ? 1 : 0, pct);
}

void report_fmt_ci(const struct report_entry *e, char *buf, size_t len)
{
	char lo[24], hi[24];

	if (isnan(e->ci_lo_pct) || isnan(e->ci_hi_pct)) {
		snprintf(buf, len, "-");
		return;
	}
	fmt_bound(e->ci_lo_pct, lo, sizeof(lo));
	fmt_bound(e->ci_hi_pct, hi, sizeof(hi));
	snprintf(buf, len, "%s..%s", lo, hi);
}

void report_fmt_pct(double pct, char *buf, size_t len)
{
	if (isnan(pct))
		snprintf(buf, len, "-");
	else
		snprintf(buf, len, "%+.*f%%", fabs(pct) < 1000 ? 1 : 0, pct);
}

void report_fmt_levels(const struct report_metric *m, char *buf, size_t len)
{
	char lo[16], hi[16];

	report_fmt_level(m->ci_level_min, lo, sizeof(lo));
	report_fmt_level(m->ci_level_max, hi, sizeof(hi));
	if (isnan(m->ci_level_min))
		snprintf(buf, len, "-");
	else if (!strcmp(lo, hi))
		snprintf(buf, len, "%s", lo);
	else
		snprintf(buf, len, "%.*s..%s", (int)strlen(lo) - 1, lo, hi);
}

void report_fmt_delta(const struct report_entry *e, char *buf, size_t len)
{
	char pct[32];

	snprintf(pct, sizeof(pct), "%+.*f%%",
		 fabs(e->delta_pct) < 1000 ? 1 : 0, e->delta_pct);
	switch (e->verdict) {
	case REPORT_BASELINE:
		snprintf(buf, len, "%s", "");
		break;
	case REPORT_NO_DATA:
		snprintf(buf, len, "-");
		break;
	case REPORT_EQUIVALENT:
		snprintf(buf, len, "=");
		break;
	case REPORT_INCONCLUSIVE:
		snprintf(buf, len, "~");
		break;
	case REPORT_N_TOO_SMALL:
		snprintf(buf, len, "~*");
		break;
	case REPORT_VALUE:
		snprintf(buf, len, isnan(e->delta_pct) ? "(n/a)" : "(%s)",
			 pct);
		break;
	case REPORT_BETTER:
	case REPORT_WORSE:
	default:
		snprintf(buf, len, "%s", isnan(e->delta_pct) ? "n/a" : pct);
		break;
	}
}

void report_fmt_number(double v, char *buf, size_t len)
{
	int prec;

	if (!isfinite(v)) {
		snprintf(buf, len, "%s", "");
		return;
	}
	for (prec = 6; prec < 17; prec++) {
		snprintf(buf, len, "%.*g", prec, v);
		if (strtod(buf, NULL) == v)
			return;
	}
	snprintf(buf, len, "%.17g", v);
}

const char *report_verdict_name(enum report_verdict v)
{
	static const char *const names[] = {
		[REPORT_NO_DATA] = "no data",
		[REPORT_BASELINE] = "baseline",
		[REPORT_BETTER] = "better",
		[REPORT_WORSE] = "worse",
		[REPORT_EQUIVALENT] = "equivalent",
		[REPORT_INCONCLUSIVE] = "inconclusive",
		[REPORT_N_TOO_SMALL] = "n too small",
		[REPORT_VALUE] = "value",
	};

	return names[v];
}

void report_fmt_n(size_t lo, size_t hi, char *buf, size_t len)
{
	if (lo == hi)
		snprintf(buf, len, "%zu", lo);
	else
		snprintf(buf, len, "%zu..%zu", lo, hi);
}

void report_fmt_n_boots(const struct report_column *col, char *buf,
			size_t len)
{
	char n[48], b[48], t[48];

	report_fmt_n(col->n_min, col->n_max, n, sizeof(n));
	if (!col->n_max) {
		snprintf(buf, len, "%s", n);
		return;
	}
	if (!col->boots_known) {
		snprintf(buf, len, "%s (boots not recorded)", n);
		return;
	}
	report_fmt_n(col->boots_min, col->boots_max, b, sizeof(b));
	report_fmt_n(col->per_boot_min, col->per_boot_max, t, sizeof(t));
	snprintf(buf, len, "%s (%s boot%s x %s trial%s)", n, b,
		 col->boots_max == 1 ? "" : "s", t,
		 col->per_boot_max == 1 ? "" : "s");
}

size_t report_min_trials(double alpha, size_t family)
{
	size_t n = REPORT_MIN_N;

	/* the widest exact interval has level 1 - min_p */
	while (stats_mwu_min_p(n, n) > alpha / (double)(family ? family : 1)
	       && n < 1000)
		n++;
	return n;
}

void report_fmt_level(double level, char *buf, size_t len)
{
	/* four digits: 98.75%, 99.79% (1 - 0.05/24), 99.98% */
	if (isnan(level))
		snprintf(buf, len, "-");
	else
		snprintf(buf, len, "%.4g%%", level * 100);
}

size_t report_max_family(const struct report *r,
			 const struct report_metric *m)
{
	size_t c, most = 0;

	for (c = 1; c < r->nr_columns; c++)
		if (m->pairs[c].family > most)
			most = m->pairs[c].family;
	return most;
}

void report_fmt_margin(const struct report *r, const struct report_metric *m,
		       char *buf, size_t len)
{
	if (isnan(m->null_pct))
		snprintf(buf, len, "+-%.1f%% (--margin)", m->margin_pct);
	else if (m->null_pct > r->margin_pct)
		snprintf(buf, len, "+-%.1f%%: the measured null, %s vs %s, "
			 "largest change over %zu cells (--margin %.1f%%)",
			 m->margin_pct, r->null_b[m->null_pair],
			 r->null_a[m->null_pair], m->null_cells,
			 r->margin_pct);
	else
		snprintf(buf, len, "+-%.1f%% (--margin; the measured null, "
			 "%s vs %s over %zu cells, is %.1f%%)", m->margin_pct,
			 r->null_b[m->null_pair], r->null_a[m->null_pair],
			 m->null_cells, m->null_pct);
}

void report_put_wrapped(FILE *out, const char *fmt, ...)
{
	char buf[2048], *p = buf;
	size_t width = REPORT_TEXT_WIDTH, brk;
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	while (strlen(p) > width) {
		for (brk = width; brk > 0 && p[brk] != ' '; brk--)
			;
		if (!brk)	/* one word longer than a line: not cut */
			brk = strcspn(p, " ");
		if (!p[brk])
			break;
		fprintf(out, "%.*s\n    ", (int)brk, p);
		p += brk;
		while (*p == ' ')
			p++;
		width = REPORT_TEXT_WIDTH - 4;
	}
	fprintf(out, "%s\n", p);
}

/*
 * The command, broken at spaces with shell continuations, so it can be
 * pasted back from a 72-column cover letter and still run.
 */
void report_put_command(FILE *out, const char *cmd)
{
	size_t width = REPORT_TEXT_WIDTH - 2, len = strlen(cmd), brk;
	const char *lead = "";

	while (len > width) {
		for (brk = width; brk > 0 && cmd[brk] != ' '; brk--)
			;
		if (!brk)	/* one word longer than a line: let it be */
			brk = strcspn(cmd, " ");
		if (brk >= len)
			break;
		fprintf(out, "%s%.*s \\\n", lead, (int)brk, cmd);
		cmd += brk + 1;
		len -= brk + 1;
		lead = "    ";
		width = REPORT_TEXT_WIDTH - 2 - 4;
	}
	fprintf(out, "%s%s\n", lead, cmd);
}

/* ---- building ---- */

/* Where each trial lands in the grid. */
struct placement {
	size_t cell, column;
};

bool report_cell_equal(const struct trial_cell *a, const struct trial_cell *b)
{
	return !strcmp(a->target, b->target) && a->legs == b->legs &&
	       !strcmp(a->backing, b->backing) &&
	       !strcmp(a->rw, b->rw) && a->bs == b->bs &&
	       a->iodepth == b->iodepth && a->jobs == b->jobs;
}

static ssize_t add_cell(struct report *r, const struct trial_cell *key)
{
	struct report_cell *cells;
	char label[256];
	size_t i;

	for (i = 0; i < r->nr_cells; i++)
		if (report_cell_equal(&r->cells[i].key, key))
			return (ssize_t)i;
	cells = realloc(r->cells, (r->nr_cells + 1) * sizeof(*cells));
	if (!cells)
		return -ENOMEM;
	r->cells = cells;
	report_cell_label(key, label, sizeof(label));
	cells[r->nr_cells].key = *key;
	cells[r->nr_cells].label = strdup(label);
	if (!cells[r->nr_cells].label)
		return -ENOMEM;
	return (ssize_t)r->nr_cells++;
}

static ssize_t add_column(struct report *r, const char *label)
{
	struct report_column *cols;
	size_t i;

	for (i = 0; i < r->nr_columns; i++)
		if (!strcmp(r->columns[i].label, label))
			return (ssize_t)i;
	cols = realloc(r->columns, (r->nr_columns + 1) * sizeof(*cols));
	if (!cols)
		return -ENOMEM;
	r->columns = cols;
	memset(&cols[r->nr_columns], 0, sizeof(*cols));
	cols[r->nr_columns].label = strdup(label);
	if (!cols[r->nr_columns].label)
		return -ENOMEM;
	return (ssize_t)r->nr_columns++;
}

/* What must not differ between pooled trials, and the flag that allows it. */
struct pool_key {
	const char *name;
	size_t off;		/* of the string in struct trial */
	const char *option;
	bool clock;		/* else accel/flavor */
};

static const struct pool_key pool_keys[] = {
	{ "clocks", offsetof(struct trial, clock), "--allow-mixed-clock",
	  true },
	{ "accels", offsetof(struct trial, accel), "--allow-mixed-env", false },
	{ "flavors", offsetof(struct trial, flavor), "--allow-mixed-env",
	  false },
};

/*
 * Refuse to pool trials that measured different things: instructions
 * with seconds (clock), emulated with real CPUs (accel), debug kernels
 * with perf ones (flavor).  Pooling them into one report would put
 * numbers on different scales side by side.
 */
static int check_mixed(const struct trial_set *set,
		       const struct report_opts *opts, struct report *r,
		       char *err, size_t errlen)
{
	const struct trial *t, *first = set->trials;
	const char *a, *b;
	size_t k;

	for (k = 0; k < sizeof(pool_keys) / sizeof(pool_keys[0]); k++) {
		const struct pool_key *pk = &pool_keys[k];
		bool allow = pk->clock ? opts->allow_mixed_clock :
					 opts->allow_mixed_env;

		a = (const char *)first + pk->off;
		trial_set_for_each(set, t) {
			b = (const char *)t + pk->off;
			if (!strcmp(a, b))
				continue;
			if (pk->clock)
				r->mixed_clock = true;
			else
				r->mixed_env = true;
			if (allow)
				break;
			return set_err(err, errlen, -EINVAL,
				    "mixed %s: %s (%s:%u) and %s (%s:%u) are not "
				    "comparable; use %s to compare anyway",
				    pk->name, or_unknown(a),
				    first->source ? first->source : "?",
				    first->line, or_unknown(b),
				    t->source ? t->source : "?", t->line,
				    pk->option);
		}
	}
	/*
	 * vCPUs: under icount they decide whether a task's CPU time is its
	 * own (1) and how server and workload hand I/O over (IPI or switch)
	 */
	trial_set_for_each(set, t) {
		char ca[16], cb[16];

		if (t->cpus == first->cpus)
			continue;
		r->mixed_env = true;
		if (opts->allow_mixed_env)
			break;
		snprintf(ca, sizeof(ca), first->cpus ? "%d" : "unknown",
			 first->cpus);
		snprintf(cb, sizeof(cb), t->cpus ? "%d" : "unknown", t->cpus);
		return set_err(err, errlen, -EINVAL,
			    "mixed vCPU counts: %s (%s:%u) and %s (%s:%u) are "
			    "not comparable; use --allow-mixed-env to compare "
			    "anyway", ca, first->source ? first->source : "?",
			    first->line, cb, t->source ? t->source : "?",
			    t->line);
	}
	return 0;
}

static int move_baseline_first(struct report *r, const char *baseline,
			       struct placement *where, size_t nr_trials,
			       char *err, size_t errlen)
{
	struct report_column tmp;
	char list[512];
	size_t i, b;

	for (b = 0; b < r->nr_columns; b++)
		if (!strcmp(r->columns[b].label, baseline))
			break;
	if (b == r->nr_columns) {
		struct strlist l = { NULL, 0 };

		for (i = 0; i < r->nr_columns; i++)
			if (strlist_add(&l, r->columns[i].label) < 0)
				break;
		report_join(&l, ", ", list, sizeof(list));
		strlist_free(&l);
		return set_err(err, errlen, -EINVAL,
			    "baseline '%s' is not a config (configs: %s)",
			    baseline, list);
	}
	/* rotate b to the front, keeping the others in order */
	tmp = r->columns[b];
	memmove(&r->columns[1], &r->columns[0], b * sizeof(tmp));
	r->columns[0] = tmp;
	for (i = 0; i < nr_trials; i++) {
		if (where[i].column == b)
			where[i].column = 0;
		else if (where[i].column < b)
			where[i].column++;
	}
	return 0;
}

static int place_trials(const struct trial_set *set,
			const struct report_opts *opts, struct report *r,
			struct placement *where, char *err, size_t errlen)
{
	char label[2 * TRIAL_STR_MAX + 2];
	const struct trial *t;
	ssize_t cell, col;
	size_t i = 0;

	/* --configs fixes the column order; report_select_configs() made
	 * sure each has trials */
	for (i = 0; i < opts->nr_configs; i++)
		if (add_column(r, opts->configs[i]) < 0)
			return set_err(err, errlen, -ENOMEM, "out of memory");
	i = 0;
	trial_set_for_each(set, t) {
		report_config_label(t, opts->by, label, sizeof(label));
		col = add_column(r, label);
		cell = add_cell(r, &t->cell);
		if (col < 0 || cell < 0 || env_add(&r->env, t) ||
		    env_add(&r->columns[col].env, t))
			return set_err(err, errlen, -ENOMEM, "out of memory");
		if (!strcmp(t->accel, "tcg"))
			r->tcg = true;
		where[i].cell = (size_t)cell;
		where[i++].column = (size_t)col;
	}
	if (opts->baseline)
		return move_baseline_first(r, opts->baseline, where, set->nr,
					   err, errlen);
	return 0;
}

/* Widen [*lo, *hi] to hold @v; *lo == SIZE_MAX means empty. */
static void widen(size_t v, size_t *lo, size_t *hi)
{
	if (*lo == SIZE_MAX || v < *lo)
		*lo = v;
	if (v > *hi)
		*hi = v;
}

static bool same_boot(const struct trial *a, const struct trial *b)
{
	return a->boot == b->boot && !strcmp(a->variant, b->variant);
}

/*
 * Boots of one cell of one column, and the fewest and most trials in
 * any of them.  A boot is a (variant, boot id) pair: with --by path a
 * column holds several kernels, whose boot 0s are different boots.
 */
static void count_boots(const struct trial_set *set,
			const struct placement *where, size_t cell,
			size_t column, struct report_column *col)
{
	size_t k, j, boots = 0, lo = SIZE_MAX, hi = 0, in_boot;

	for (k = 0; k < set->nr; k++) {
		const struct trial *t = &set->trials[k];

		if (where[k].cell != cell || where[k].column != column)
			continue;
		if (t->boot < 0)
			col->boots_known = false;
		/* count each boot at its first trial */
		for (j = 0; j < k; j++)
			if (where[j].cell == cell && where[j].column == column &&
			    same_boot(&set->trials[j], t))
				break;
		if (j < k)
			continue;
		boots++;
		for (in_boot = 0, j = k; j < set->nr; j++)
			in_boot += where[j].cell == cell &&
				   where[j].column == column &&
				   same_boot(&set->trials[j], t);
		widen(in_boot, &lo, &hi);
	}
	if (!boots)
		return;
	widen(boots, &col->boots_min, &col->boots_max);
	widen(lo, &col->per_boot_min, &col->per_boot_max);
	widen(hi, &col->per_boot_min, &col->per_boot_max);
}

static void count_trials(struct report *r, const struct trial_set *set,
			 const struct placement *where)
{
	size_t c, i, k, n;

	for (c = 0; c < r->nr_columns; c++) {
		struct report_column *col = &r->columns[c];

		col->n_min = col->boots_min = col->per_boot_min = SIZE_MAX;
		col->boots_known = true;
		for (i = 0; i < r->nr_cells; i++) {
			for (n = 0, k = 0; k < set->nr; k++)
				n += where[k].cell == i && where[k].column == c;
			if (!n)
				continue;
			widen(n, &col->n_min, &col->n_max);
			count_boots(set, where, i, c, col);
		}
		if (col->n_min == SIZE_MAX)
			col->n_min = 0;
		if (col->boots_min == SIZE_MAX)
			col->boots_min = col->per_boot_min = 0;
	}
}

static int cmp_metric_names(const void *a, const void *b)
{
	const char *x = *(const char *const *)a, *y = *(const char *const *)b;
	size_t rx = metric_rank(x), ry = metric_rank(y);

	if (rx != ry)
		return rx < ry ? -1 : 1;
	return strcmp(x, y);
}

static bool metric_present(const struct trial_set *set, const char *name)
{
	const struct trial *t;
	double v;

	trial_set_for_each(set, t)
		if (trial_get_metric(t, name, &v))
			return true;
	return false;
}

static int all_metrics(const struct trial_set *set, struct strlist *names)
{
	const struct trial *t;
	size_t i;

	trial_set_for_each(set, t)
		for (i = 0; i < t->nr_metrics; i++)
			if (strlist_add(names, t->metrics[i].name) < 0)
				return -ENOMEM;
	qsort(names->v, names->nr, sizeof(*names->v), cmp_metric_names);
	return 0;
}

static int select_metrics(const struct trial_set *set,
			  const struct report_opts *opts, struct strlist *names,
			  char *err, size_t errlen)
{
	struct strlist have = { NULL, 0 };
	char list[512];
	size_t i;

	if (opts->all_metrics)
		goto all;
	if (!opts->metrics) {
		for (i = 0; i < metric_defaults_len; i++)
			if (metric_present(set, metric_defaults[i]) &&
			    strlist_add(names, metric_defaults[i]) < 0)
				return -ENOMEM;
		if (names->nr)
			return 0;
		goto all;	/* none of the defaults: show what there is */
	}
	for (i = 0; i < opts->nr_metrics; i++) {
		if (metric_present(set, opts->metrics[i])) {
			if (strlist_add(names, opts->metrics[i]) < 0)
				return -ENOMEM;
			continue;
		}
		all_metrics(set, &have);
		report_join(&have, ", ", list, sizeof(list));
		strlist_free(&have);
		return set_err(err, errlen, -EINVAL,
			    "metric '%s' is in no trial (present: %s)",
			    opts->metrics[i], *list ? list : "none");
	}
	return 0;
all:
	if (all_metrics(set, names))
		return -ENOMEM;
	if (!names->nr)
		return set_err(err, errlen, -EINVAL, "the trials have no metrics");
	return 0;
}

static bool entry_has(const struct trial_set *set,
		      const struct placement *where, size_t k,
		      const char *metric, size_t cell, size_t column,
		      double *v)
{
	return where[k].cell == cell && where[k].column == column &&
	       trial_get_metric(&set->trials[k], metric, v);
}

static int fill_entry(const struct trial_set *set,
		      const struct placement *where, const char *metric,
		      size_t cell, size_t column, struct report_entry *e)
{
	const struct trial **trials;
	size_t k, n = 0;
	double v;

	for (k = 0; k < set->nr; k++)
		n += entry_has(set, where, k, metric, cell, column, &v);
	e->values = malloc((n ? n : 1) * sizeof(*e->values));
	trials = malloc((n ? n : 1) * sizeof(*trials));
	if (!e->values || !trials) {
		free(trials);
		return -ENOMEM;
	}
	for (n = 0, k = 0; k < set->nr; k++) {
		if (!entry_has(set, where, k, metric, cell, column, &v))
			continue;
		trials[n] = &set->trials[k];
		e->values[n++] = v;
	}
	stats_summarize(e->values, n, &e->sum);
	e->spread_pct = stats_spread_pct(&e->sum);
	e->boot_spread_pct = report_boot_spread(trials, e->values, n);
	free(trials);
	e->delta_pct = e->q = e->hl.level = NAN;
	e->shift_pct = e->ci_lo_pct = e->ci_hi_pct = NAN;
	e->verdict = n ? REPORT_BASELINE : REPORT_NO_DATA;
	return 0;
}

/*
 * The margin of metric @m: --margin, or the largest change between the
 * configs of a --null pair over every input trial (@all), if larger.
 */
static void set_margin(const struct report *r, const struct trial_set *all,
		       struct report_metric *m)
{
	size_t k, cells;
	double d;

	m->margin_pct = r->margin_pct;
	m->null_pct = NAN;
	for (k = 0; k < r->nr_nulls; k++) {
		d = report_null_pct(all, r->by, r->null_a[k], r->null_b[k],
				    m->info.name, &cells);
		if (isnan(d) || (!isnan(m->null_pct) && d <= m->null_pct))
			continue;
		m->null_pct = d;
		m->null_pair = k;
		m->null_cells = cells;
	}
	if (m->null_pct > m->margin_pct)
		m->margin_pct = m->null_pct;
}

static int build_metric(struct report *r, const struct trial_set *set,
			const struct trial_set *all,
			const struct placement *where, const char *name,
			struct report_metric *m)
{
	size_t i, c, nc = r->nr_columns;
	int ret;

	metric_describe(name, &m->info);
	m->info.name = strdup(name);
	if (!m->info.known)	/* it pointed at @name, freed after the build */
		m->info.label = m->info.name;
	m->entries = calloc(r->nr_cells * nc, sizeof(*m->entries));
	m->pairs = calloc(nc, sizeof(*m->pairs));
	if (!m->info.name || !m->entries || !m->pairs)
		return -ENOMEM;
	for (i = 0; i < r->nr_cells; i++)
		for (c = 0; c < nc; c++)
			if (fill_entry(set, where, name, i, c,
				       &m->entries[i * nc + c]))
				return -ENOMEM;
	set_margin(r, all, m);
	report_steady_metric(r, m);
	ret = report_judge_metric(r, m);
	if (!ret)
		ret = report_geomeans(r, m);
	return ret;
}

static int build(const struct trial_set *set, const struct trial_set *all,
		 const struct report_opts *opts, struct report **out,
		 char *err, size_t errlen);

/* Is column label @label the in-kernel driver's, for grouping @by? */
static bool is_kernel_label(const char *label, enum report_by by)
{
	const char *slash = strrchr(label, '/');

	if (by == REPORT_BY_PATH)
		return !strcmp(label, REPORT_REF_PATH);
	return by == REPORT_BY_VARIANT_PATH && slash &&
	       !strcmp(slash + 1, REPORT_REF_PATH);
}

/* The reference's column in @r: 0 or more, -1 for none, or an error. */
static ssize_t find_reference(const struct report *r,
			      const struct report_opts *opts,
			      char *err, size_t errlen)
{
	struct strlist l = { NULL, 0 };
	char list[512];
	size_t c;

	if (opts->reference && !strcmp(opts->reference, "none"))
		return -1;
	for (c = 0; c < r->nr_columns; c++) {
		const char *label = r->columns[c].label;

		if (opts->reference ? !strcmp(label, opts->reference) :
		    is_kernel_label(label, r->by))
			return (ssize_t)c;
	}
	if (!opts->reference)
		return -1;
	for (c = 0; c < r->nr_columns; c++)
		if (strlist_add(&l, r->columns[c].label) < 0)
			break;
	report_join(&l, ", ", list, sizeof(list));
	strlist_free(&l);
	return set_err(err, errlen, -EINVAL,
		    "reference '%s' is not a config (configs: %s)",
		    opts->reference, list);
}

/*
 * The comparison against the reference: the same trials and metrics
 * with the reference as baseline.  A separate report, so that every
 * number in it (test, BH family, CI) comes from the code that makes the
 * main table.
 */
static int build_reference(const struct trial_set *set,
			   const struct trial_set *all,
			   const struct report_opts *opts, struct report *r,
			   char *err, size_t errlen)
{
	struct report_opts o = *opts;
	ssize_t ref = find_reference(r, opts, err, errlen);
	size_t c, k;
	int ret;

	if (ref < -1)
		return (int)ref;
	if (ref < 0 || r->nr_columns < 2)
		return 0;
	o.baseline = r->columns[ref].label;
	o.reference = "none";
	o.command = NULL;
	ret = build(set, all, &o, &r->ref, err, errlen);
	if (ret)
		return ret;
	r->ref_column = (size_t)ref;
	r->ref_map = calloc(r->nr_columns, sizeof(*r->ref_map));
	if (!r->ref_map)
		return set_err(err, errlen, -ENOMEM, "out of memory");
	for (c = 0; c < r->nr_columns; c++)
		for (k = 0; k < r->ref->nr_columns; k++)
			if (!strcmp(r->columns[c].label,
				    r->ref->columns[k].label))
				r->ref_map[c] = k;
	return 0;
}

const struct report_entry *report_ref_entry(const struct report *r,
					    size_t metric, size_t cell,
					    size_t column)
{
	if (!r->ref)
		return NULL;
	return report_entry(r->ref, &r->ref->metrics[metric], cell,
			    r->ref_map[column]);
}

void report_fraction(const struct report_entry *e, double ref_median,
		     double *frac, double *lo, double *hi)
{
	*frac = *lo = *hi = NAN;
	if (!e->sum.n || !(ref_median > 0))
		return;
	*frac = e->sum.median / ref_median;
	if (!isnan(e->ci_lo_pct) && !isnan(e->ci_hi_pct)) {
		*lo = 1 + e->ci_lo_pct / 100;
		*hi = 1 + e->ci_hi_pct / 100;
	}
}

void report_fmt_fraction(const struct report_entry *e, double ref_median,
			 char *buf, size_t len)
{
	double f, lo, hi;
	const char *mark = "";

	report_fraction(e, ref_median, &f, &lo, &hi);
	if (e->verdict == REPORT_NO_DATA || isnan(f)) {
		snprintf(buf, len, "-");
		return;
	}
	if (e->verdict == REPORT_EQUIVALENT)
		mark = "=";
	else if (e->verdict == REPORT_INCONCLUSIVE)
		mark = "~";
	else if (e->verdict == REPORT_N_TOO_SMALL)
		mark = "~*";
	/* two decimals, three below 0.1: a fraction, not a change */
	snprintf(buf, len, e->verdict == REPORT_VALUE ? "(%.*f%s)" :
		 "%.*f%s", f < 0.0995 ? 3 : 2, f, mark);
}

/* Each --null pair names two configs the inputs have. */
static int check_nulls(const struct trial_set *all,
		       const struct report_opts *opts, char *err,
		       size_t errlen)
{
	char label[2 * TRIAL_STR_MAX + 2];
	const struct trial *t;
	size_t k, side;

	if (!(opts->margin_pct >= 0 && opts->margin_pct < 100))
		return set_err(err, errlen, -EINVAL,
			       "the margin must be in [0, 100)%%");
	for (k = 0; k < opts->nr_nulls; k++) {
		for (side = 0; side < 2; side++) {
			const char *want = side ? opts->null_b[k] :
					   opts->null_a[k];

			trial_set_for_each(all, t) {
				report_config_label(t, opts->by, label,
						    sizeof(label));
				if (!*t->skipped && !strcmp(label, want))
					break;
			}
			if (t == all->trials + all->nr)
				return set_err(err, errlen, -EINVAL,
					       "--null: config '%s' has no "
					       "trials", want);
		}
	}
	return 0;
}

int report_build(const struct trial_set *all, const struct report_opts *opts,
		 struct report **out, char *err, size_t errlen)
{
	struct trial_set view;
	int ret;

	*out = NULL;
	if (errlen)
		err[0] = '\0';
	ret = report_select_configs(all, opts, &view, err, errlen);
	if (ret)
		return ret;
	ret = check_nulls(all, opts, err, errlen);
	if (!ret)
		ret = build(&view, all, opts, out, err, errlen);
	report_release_view(&view);
	if (!ret && report_note_skipped(all, opts, &(*out)->not_measured)) {
		report_free(*out);
		*out = NULL;
		ret = set_err(err, errlen, -ENOMEM, "out of memory");
	}
	return ret;
}

/* The report of the trials @set, all of them selected from @all. */
static int build(const struct trial_set *set, const struct trial_set *all,
		 const struct report_opts *opts, struct report **out,
		 char *err, size_t errlen)
{
	struct strlist names = { NULL, 0 };
	struct placement *where = NULL;
	struct report *r;
	size_t i;
	int ret;

	*out = NULL;
	if (errlen)
		err[0] = '\0';
	if (!set->nr)
		return set_err(err, errlen, -ENODATA, "no trials in the input");
	if (!(opts->alpha > 0 && opts->alpha < 1))
		return set_err(err, errlen, -EINVAL, "alpha must be in (0, 1)");
	r = calloc(1, sizeof(*r));
	where = calloc(set->nr, sizeof(*where));
	if (!r || !where) {
		ret = set_err(err, errlen, -ENOMEM, "out of memory");
		goto out;
	}
	r->by = opts->by;
	r->alpha = opts->alpha;
	r->show_ci = opts->show_ci;
	r->margin_pct = opts->margin_pct;
	r->steady_pct = opts->steady_pct;
	r->nr_nulls = opts->nr_nulls;
	for (i = 0; i < opts->nr_nulls; i++) {
		r->null_a[i] = opts->null_a[i];
		r->null_b[i] = opts->null_b[i];
	}
	r->outdir = opts->outdir;
	r->plotdir = opts->plotdir;
	if (opts->command) {
		r->command = strdup(opts->command);
		if (!r->command) {
			ret = set_err(err, errlen, -ENOMEM, "out of memory");
			goto out;
		}
	}
	r->nr_trials = set->nr;
	for (i = 0; i < set->nr_files; i++)
		if (strlist_add(&r->files, set->files[i]) < 0) {
			ret = set_err(err, errlen, -ENOMEM, "out of memory");
			goto out;
		}
	ret = check_mixed(set, opts, r, err, errlen);
	if (!ret)
		ret = place_trials(set, opts, r, where, err, errlen);
	if (!ret)
		ret = select_metrics(set, opts, &names, err, errlen);
	if (ret)
		goto out;
	count_trials(r, set, where);
	r->metrics = calloc(names.nr, sizeof(*r->metrics));
	if (!r->metrics) {
		ret = set_err(err, errlen, -ENOMEM, "out of memory");
		goto out;
	}
	r->nr_metrics = names.nr;	/* zeroed: report_free() copes */
	for (i = 0; i < names.nr && !ret; i++)
		ret = build_metric(r, set, all, where, names.v[i],
				   &r->metrics[i]);
	if (!ret)
		ret = build_reference(set, all, opts, r, err, errlen);
out:
	strlist_free(&names);
	free(where);
	if (ret) {
		if (ret == -ENOMEM && !*err)
			set_err(err, errlen, ret, "out of memory");
		report_free(r);
		return ret;
	}
	*out = r;
	return 0;
}

void report_free(struct report *r)
{
	size_t i, k;

	if (!r)
		return;
	report_free(r->ref);
	free(r->ref_map);
	for (i = 0; i < r->nr_metrics; i++) {
		struct report_metric *m = &r->metrics[i];

		if (m->entries)
			for (k = 0; k < r->nr_cells * r->nr_columns; k++)
				free(m->entries[k].values);
		free(m->entries);
		free(m->pairs);
		free((char *)m->info.name);
	}
	free(r->metrics);
	for (i = 0; i < r->nr_columns; i++) {
		free(r->columns[i].label);
		env_free(&r->columns[i].env);
	}
	free(r->columns);
	for (i = 0; i < r->nr_cells; i++)
		free(r->cells[i].label);
	free(r->cells);
	strlist_free(&r->files);
	strlist_free(&r->not_measured);
	env_free(&r->env);
	free(r->command);
	free(r);
}

/* ---- output ---- */

const struct report_format *report_format_find(const char *name)
{
	size_t i;

	for (i = 0; report_formats[i]; i++)
		if (!strcmp(report_formats[i]->name, name))
			return report_formats[i];
	return NULL;
}

int report_emit(const struct report *r, const char *name, FILE *out)
{
	const struct report_format *fmt = report_format_find(name);
	int ret;

	if (!fmt)
		return -EINVAL;
	ret = fmt->emit(out, r);
	if (!ret && (fflush(out) || ferror(out)))
		ret = -EIO;
	return ret;
}

int report_mkdir_p(const char *dir)
{
	char *p, *path;
	int ret = 0;
	char c;

	if (!*dir)
		return -ENOENT;
	path = strdup(dir);
	if (!path)
		return -ENOMEM;
	/* create each prefix that ends before a '/' or the end */
	for (p = path + 1; !ret; p++) {
		if (*p && *p != '/')
			continue;
		c = *p;
		*p = '\0';
		if (mkdir(path, 0777) && errno != EEXIST)
			ret = -errno;
		*p = c;
		if (!c)
			break;
	}
	free(path);
	return ret;
}

int report_write_outdir(const struct report *r, const char *dir,
			char *err, size_t errlen)
{
	char path[4096];
	size_t i;
	FILE *f;
	int ret;

	ret = report_mkdir_p(dir);
	if (ret)
		return set_err(err, errlen, ret, "%s: %s", dir, strerror(-ret));
	for (i = 0; report_formats[i]; i++) {
		if (!report_formats[i]->file)
			continue;
		snprintf(path, sizeof(path), "%s/%s", dir,
			 report_formats[i]->file);
		f = fopen(path, "w");
		if (!f)
			return set_err(err, errlen, -errno, "%s: %s", path,
				    strerror(errno));
		ret = report_emit(r, report_formats[i]->name, f);
		if (fclose(f) && !ret)
			ret = -EIO;
		if (ret)
			return set_err(err, errlen, ret, "%s: %s", path,
				    strerror(-ret));
	}
	return 0;
}
