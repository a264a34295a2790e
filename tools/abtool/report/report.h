/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The comparison behind `abtool compare`: trials pooled into a grid of
 * cells (rows: target, legs, rw, bs, iodepth, jobs) by configs (columns:
 * variant/path by default), one table per metric, each entry the median
 * and spread of its trials and, against the baseline column, the change
 * and a verdict that stands on its own (issue 34).
 *
 * Spread is half the interquartile range as a percentage of the median:
 * robust to the one slow trial a VM produces, and meaningful from n = 2.
 *
 * The verdict of an entry (report_verdict.c) rests on the Hodges-Lehmann
 * interval of its shift against the baseline (hodges_lehmann.h says why
 * that interval), in percent of the baseline's median, and a practical
 * margin: better or worse when the whole interval lies beyond +-margin,
 * equivalent when it lies within, inconclusive otherwise.  The interval
 * is at level 1 - alpha/m, m the cells the pair of configs shares for
 * the metric: a family fixed by the matrix, not by the table, so a
 * cell's verdict does not change with the columns shown (Bonferroni,
 * so that with probability 1 - alpha every verdict of the family holds
 * at once).  Where that level is out of reach at these n, the entry is
 * "n too small".  An entry whose trials are all the same value on both
 * sides (a counter such as SQEs per I/O) is a value, not tested.  The
 * margin is --margin (default 1%) or the measured null (the largest
 * change between two configs of the same user-space code on two
 * kernels, --null), whichever is larger.
 *
 * Each table also has a geomean per config of the ratios of the medians
 * over the cells the pair shares, with its cell count and a bootstrap
 * interval (report_geomean.c).
 *
 * When a config is the in-kernel driver doing the cells' job (path
 * "kernel", or --reference names one), the report also carries the
 * same comparison made against it (report->ref): each config's median
 * as a fraction of the in-kernel driver's, with the same verdict rule,
 * so a ublk number reads as "0.41 of null_blk".
 *
 * Output formats live one per file (report_text.c, ...) behind
 * struct report_format; adding one is a file plus an entry in
 * report_formats[] (report.c).
 */
#ifndef ABTOOL_REPORT_H
#define ABTOOL_REPORT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <sys/types.h>

#include "hodges_lehmann.h"
#include "metrics.h"
#include "results.h"
#include "stats.h"

#define REPORT_ALPHA		0.05
#define REPORT_MARGIN_PCT	1.0	/* practical margin, % of A's median */
#define REPORT_MIN_N		3	/* per side, for any verdict */
#define REPORT_MAX_NULLS	8	/* --null pairs */
#define REPORT_TEXT_WIDTH	72	/* cover-letter width */
/*
 * The largest within-boot spread, (max - min) / median of one boot's
 * trials in %, of a baseline or reference cell whose median divides
 * other configs' without a mark (issue 34, item 7; report_steady.c).
 */
#define REPORT_STEADY_PCT	1.0
#define REPORT_UNSTEADY_MARK	"!"	/* a ratio over an unsteady cell */

enum report_by {
	REPORT_BY_VARIANT_PATH,	/* "base/copy" */
	REPORT_BY_VARIANT,
	REPORT_BY_PATH,
	REPORT_BY_FILE,		/* input file basename */
};

struct report_opts {
	enum report_by by;
	const char *baseline;		/* column label; NULL: the first */
	const char *const *metrics;	/* NULL: metric_defaults[] */
	size_t nr_metrics;
	bool all_metrics;		/* every metric present */
	double alpha;
	bool allow_mixed_clock;
	bool allow_mixed_env;		/* accel or flavor */
	const char *const *configs;	/* --configs: these, in this order */
	size_t nr_configs;
	bool show_ci;			/* text: a CI table under each table */
	const char *command;		/* printed in the header; NULL: none */
	/*
	 * The config every other is shown as a fraction of; NULL: the
	 * first config whose path is "kernel" (the in-kernel driver), if
	 * any; "none": no fractions.
	 */
	const char *reference;
	double margin_pct;		/* --margin: the least margin */
	/*
	 * --null A,B: pairs of configs running the same user-space code on
	 * two kernels; the largest change of their medians over the cells,
	 * per metric, is the margin when it exceeds margin_pct.  Measured
	 * over every input trial, whatever --configs shows.
	 */
	const char *null_a[REPORT_MAX_NULLS], *null_b[REPORT_MAX_NULLS];
	size_t nr_nulls;
	/* where --outdir and --plot wrote, for the summary to say; NULL */
	const char *outdir, *plotdir;
	double steady_pct;		/* --steady: REPORT_STEADY_PCT */
};

#define REPORT_REF_PATH		"kernel"	/* abtool run's in-kernel rows */

/* A set of distinct strings, in first-seen order. */
struct strlist {
	char **v;
	size_t nr;
};

/* What the trials of a column (or of the whole report) ran on. */
struct report_env {
	struct strlist kernels;		/* "variant release" */
	struct strlist clocks, accels, flavors, hosts;
	struct strlist cpus;		/* "1", "2": vCPUs; empty: unrecorded */
	struct strlist drivers;		/* in-kernel drivers of "kernel" rows */
	struct strlist runs, commits;	/* run_id, series_commit; "": none */
	char date_first[TRIAL_STR_MAX], date_last[TRIAL_STR_MAX];
};

struct report_column {
	char *label;
	size_t n_min, n_max;	/* trials per cell, over cells with any */
	/*
	 * How n splits: boots per cell (a boot is a (variant, boot id)
	 * pair) and trials per boot, over cells with any; boots_known is
	 * false when some trial has no boot id (files from before it).
	 */
	bool boots_known;
	size_t boots_min, boots_max, per_boot_min, per_boot_max;
	struct report_env env;
};

struct report_cell {
	struct trial_cell key;
	char *label;		/* "mirror-2 write 64K qd16" */
};

enum report_verdict {
	REPORT_NO_DATA,		/* this entry or the baseline's is empty */
	REPORT_BASELINE,
	REPORT_BETTER,		/* the whole interval beyond the margin */
	REPORT_WORSE,
	REPORT_EQUIVALENT,	/* the whole interval within +-margin */
	REPORT_INCONCLUSIVE,	/* neither */
	REPORT_N_TOO_SMALL,	/* the family's level is out of reach */
	REPORT_VALUE,		/* every trial the same, both sides: no test */
	REPORT_NR_VERDICTS
};

/* One metric of one cell in one column. */
struct report_entry {
	double *values;		/* the trials' values, in input order */
	struct stats_summary sum;
	double spread_pct;	/* NaN: no data, or median 0 with IQR > 0 */
	/*
	 * The largest over its boots of (max - min) / |median| of a boot's
	 * values, %; NaN when no boot has two (report_steady.c)
	 */
	double boot_spread_pct;
	enum report_verdict verdict;
	double delta_pct;	/* vs baseline median; NaN if not compared */
	struct stats_mwu mwu;	/* valid when tested */
	/* mwu.p times the family's size (Bonferroni), at most 1; NaN */
	double q;
	struct stats_hl hl;	/* shift vs the baseline at the family level */
	/* hl as % of |baseline median|; NaN when not tested or median 0 */
	double shift_pct, ci_lo_pct, ci_hi_pct;
};

/* A config's verdicts in one table: how many entries of each. */
struct report_counts {
	size_t n[REPORT_NR_VERDICTS];
};

/* Per column of a table: its comparison with the baseline as a whole. */
struct report_pair {
	size_t family;		/* tested cells: the m of alpha/m */
	double level;		/* 1 - alpha/m, the intervals' level */
	struct report_counts counts;
	/* geomean over the cells both have of the median ratios, % change */
	double geomean_pct, geomean_lo_pct, geomean_hi_pct;
	size_t geomean_cells;	/* cells in it */
	const char *geomean_why;	/* why NaN: static text, or NULL */
	/* of geomean_cells, those where the baseline is unsteady */
	size_t unsteady_cells;
};

struct report_metric {
	struct metric_info info;	/* info.name owned (strdup) */
	struct report_entry *entries;	/* [cell * nr_columns + column] */
	bool any_n_too_small;
	double ci_level_min, ci_level_max;	/* reached; NaN: no CI */
	/* the margin used, % of the baseline's median: --margin or null */
	double margin_pct;
	double null_pct;		/* the largest measured null; NaN */
	size_t null_pair;		/* which --null gave it */
	size_t null_cells;		/* over how many cells */
	struct report_pair *pairs;	/* per column; [0] unused */
	/*
	 * Cells where column 0's within-boot spread exceeds steady_pct
	 * (its ratios are marked), and where it is not known
	 */
	size_t unsteady_cells, unknown_spread_cells;
};

struct report {
	enum report_by by;
	double alpha;
	size_t nr_trials;
	struct strlist files;
	struct report_env env;		/* union over all trials */
	bool tcg;			/* some trial ran under QEMU TCG */
	bool mixed_clock;
	bool mixed_env;			/* accels, flavors or vCPUs differ */
	bool show_ci;
	char *command;			/* NULL: not known */
	/*
	 * The cells configs did not measure (abtool run's "skipped" records:
	 * an external server without the target), one line per config and
	 * reason: "upstream/kublk-z: 8 cells: kublk has no mirror target".
	 * Their entries are empty, as any missing trial's.
	 */
	struct strlist not_measured;
	struct report_column *columns;	/* [0] is the baseline */
	size_t nr_columns;
	struct report_cell *cells;
	size_t nr_cells;
	struct report_metric *metrics;
	size_t nr_metrics;
	/*
	 * The same trials with the reference config as baseline (its
	 * column 0), or NULL.  Its metrics are this report's, in the same
	 * order; ref_map[c] is the column in @ref of this report's column
	 * c, and ref_column the reference's column here.
	 */
	struct report *ref;
	size_t *ref_map;
	size_t ref_column;
	double margin_pct;		/* --margin */
	const char *null_a[REPORT_MAX_NULLS], *null_b[REPORT_MAX_NULLS];
	size_t nr_nulls;		/* --null: strings owned by the opts */
	const char *outdir, *plotdir;	/* owned by the opts; NULL */
	double steady_pct;		/* --steady */
};

/* Bootstrap of the geomean: replicates and the fixed seed (documented). */
#define REPORT_BOOT_REPS	2000
#define REPORT_BOOT_SEED	1

struct report_format {
	const char *name;	/* -f NAME */
	const char *file;	/* name under --outdir; NULL: not written */
	int (*emit)(FILE *out, const struct report *r);
};

/* NULL-terminated, in --outdir order. */
extern const struct report_format *const report_formats[];

void report_opts_init(struct report_opts *opts);
/* "variant", "path", "variant,path", "file"; -EINVAL otherwise. */
int report_parse_by(const char *s, enum report_by *by);
const char *report_by_name(enum report_by by);

/*
 * Build the comparison of @set.  Returns 0 and a report to free with
 * report_free(), or a negative errno and a one-line reason in @err (no
 * trials, mixed clocks, unknown baseline or metric).
 */
int report_build(const struct trial_set *set, const struct report_opts *opts,
		 struct report **out, char *err, size_t errlen);
void report_free(struct report *r);

/* The column label of @t: "variant/path", "variant", "path", file name. */
void report_config_label(const struct trial *t, enum report_by by,
			 char *buf, size_t len);

/*
 * The trials of @set whose config is in opts->configs (all of them when
 * there is no list) as @view, which shares their storage: release it
 * with report_release_view(), not trial_set_release().  -EINVAL and the
 * known configs in @err for a config no trial has, or one named twice.
 */
int report_select_configs(const struct trial_set *set,
			  const struct report_opts *opts,
			  struct trial_set *view, char *err, size_t errlen);
void report_release_view(struct trial_set *view);
/* Whether --configs shows config @label (every config without a list). */
bool report_config_selected(const struct report_opts *opts, const char *label);

/*
 * Into @notes, one line per (config, reason) of the "skipped" records of
 * @set that opts->configs selects: "CONFIG: N cells: REASON".  0 or
 * -ENOMEM.
 */
int report_note_skipped(const struct trial_set *set,
			const struct report_opts *opts, struct strlist *notes);

const struct report_format *report_format_find(const char *name);
/* Write @r in format @name; -EINVAL for an unknown format, -EIO. */
int report_emit(const struct report *r, const char *name, FILE *out);
/* Every format into @dir (created if needed), named by ->file. */
int report_write_outdir(const struct report *r, const char *dir,
			char *err, size_t errlen);

static inline const struct report_entry *
report_entry(const struct report *r, const struct report_metric *m,
	     size_t cell, size_t column)
{
	return &m->entries[cell * r->nr_columns + column];
}

/* ---- helpers shared by the formats ---- */

/* "null randread 4K qd16", "mirror-2 write 64K qd16 j4" */
void report_cell_label(const struct trial_cell *c, char *buf, size_t len);
/* 4 significant digits, k/M/G above 10^4: "60.12k", "250.1", "0.5000" */
void report_fmt_value(double v, char *buf, size_t len);
/* "2%"; "?" for NaN */
void report_fmt_spread(double pct, char *buf, size_t len);
/*
 * "+33.4%" better or worse, "=" equivalent, "~" inconclusive, "~*" n
 * too small, "(+33.3%)" a value, "" baseline, "-" no data
 */
void report_fmt_delta(const struct report_entry *e, char *buf, size_t len);
/* Whether the entry was tested (a verdict from an interval). */
bool report_tested(const struct report_entry *e);
/* Shortest text that reads back as @v; "" for NaN. */
void report_fmt_number(double v, char *buf, size_t len);
const char *report_verdict_name(enum report_verdict v);
/* "A".."Z", then "AA".. : the short name of column @i */
void report_column_letter(size_t i, char *buf, size_t len);
/* Add @s to @l unless present; its index, or -ENOMEM. */
ssize_t report_strlist_add(struct strlist *l, const char *s);
bool report_cell_equal(const struct trial_cell *a, const struct trial_cell *b);
/* "a, b, c" into @buf */
/*
 * Whether some column pools the trials of several runs (@commits: of
 * several series commits), which only --pool lets through; columns of
 * different runs or commits side by side pool nothing.
 */
bool report_column_pools(const struct report *r, bool commits);
void report_join(const struct strlist *l, const char *sep,
		 char *buf, size_t len);
/* "8" or "8..10" */
void report_fmt_n(size_t lo, size_t hi, char *buf, size_t len);
/* "4 (2 boots x 2 trials)", "4 (boots not recorded)" */
void report_fmt_n_boots(const struct report_column *col, char *buf,
			size_t len);
/* "+1.2..+3.4" (percent, no sign of %); "-" when not compared */
void report_fmt_ci(const struct report_entry *e, char *buf, size_t len);
/* "+12.3%" for a percentage change; "-" for NaN */
void report_fmt_pct(double pct, char *buf, size_t len);
/* "97.1%" or "90.0..97.1%": the CI levels of a table */
void report_fmt_levels(const struct report_metric *m, char *buf,
		       size_t len);
/*
 * The entry of @column for cell @cell of metric @metric in the
 * comparison against the reference (its verdict, p, q and CI are
 * against the reference), or NULL when the report has none.
 */
const struct report_entry *report_ref_entry(const struct report *r,
					    size_t metric, size_t cell,
					    size_t column);
/*
 * The entry's median as a fraction of the reference's @ref_median, and
 * its CI as fractions (1 + the Hodges-Lehmann CI in % / 100); NaN where
 * not compared or the reference's median is not positive.
 */
void report_fraction(const struct report_entry *e, double ref_median,
		     double *frac, double *lo, double *hi);
/*
 * "0.41" better or worse, "0.99=" equivalent, "0.98~" inconclusive,
 * "0.41~*" n too small, "(0.50)" a value, "-" no data
 */
void report_fmt_fraction(const struct report_entry *e, double ref_median,
			 char *buf, size_t len);

/*
 * Fewest trials per config (same on both sides) whose exact interval
 * can reach level 1 - @alpha / @family.
 */
size_t report_min_trials(double alpha, size_t family);
/* "+-1.0%" and where it comes from, for a table's footnote */
void report_fmt_margin(const struct report *r, const struct report_metric *m,
		       char *buf, size_t len);
/* "99.8%": a pair's interval level */
void report_fmt_level(double level, char *buf, size_t len);
/* The largest family of a table (its widest intervals), 0: none */
size_t report_max_family(const struct report *r,
			 const struct report_metric *m);
/*
 * report_steady.c: is a denominator steady (issue 34, item 7)?  The
 * within-boot spread of the values of @trials (parallel to @values):
 * the largest over the boots (variant, boot id) with two or more values
 * of (max - min) / |median| in %; INFINITY for a median of 0; NaN when
 * no boot has two values.
 */
double report_boot_spread(const struct trial *const *trials,
			  const double *values, size_t n);
/* Column 0's within-boot spread in @cell exceeds r->steady_pct. */
bool report_unsteady(const struct report *r, const struct report_metric *m,
		     size_t cell);
/* m->unsteady_cells and unknown_spread_cells, from column 0 */
void report_steady_metric(const struct report *r, struct report_metric *m);
/*
 * Append REPORT_UNSTEADY_MARK to the ratio in @buf when @unsteady (not
 * to "" or "-": no ratio, nothing to mark)
 */
void report_mark_unsteady(char *buf, size_t len, bool unsteady);
/* "12.7%", "1.04%", "-" for NaN */
void report_fmt_boot_spread(double pct, char *buf, size_t len);
/*
 * The footnote under a table of metric @m of @r, whose denominator
 * (column 0 of @r) is column @c of @main (@r itself, or @main->ref): in
 * how many cells it is unsteady, which, by how much, and where that is
 * not known; malloc'd, NULL when there is nothing to say (or no memory).
 */
char *report_unsteady_note(const struct report *main, size_t c,
			   const struct report *r,
			   const struct report_metric *m);
/*
 * printf to @out, broken at spaces so that no line is wider than
 * REPORT_TEXT_WIDTH (continuation lines indented by 4)
 */
void report_put_wrapped(FILE *out, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
/*
 * @cmd, broken at spaces with shell continuations (" \\"), so that it
 * can be pasted back from a 72-column cover letter and still run
 */
void report_put_command(FILE *out, const char *cmd);
/* mkdir -p */
int report_mkdir_p(const char *dir);

/* ---- the building blocks behind report_build() ---- */

/*
 * report_verdict.c: every entry of @m against column 0 (the entries
 * filled, their values and summaries in place): the families, the
 * intervals, the verdicts and their counts in m->pairs.
 */
int report_judge_metric(const struct report *r, struct report_metric *m);
/* report_geomean.c: m->pairs' geomeans, their cells and intervals. */
int report_geomeans(const struct report *r, struct report_metric *m);
/*
 * report_null.c: the largest change, in % of @a's median, of config @b's
 * median against @a's over the cells of @set where both have @metric
 * (labels as @by makes them); NaN when none; *@cells: how many.
 */
double report_null_pct(const struct trial_set *set, enum report_by by,
		       const char *a, const char *b, const char *metric,
		       size_t *cells);

#endif
