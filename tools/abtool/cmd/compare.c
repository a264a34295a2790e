// SPDX-License-Identifier: GPL-2.0
/* abtool compare: pool trial records, compare configs, print the report. */
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "compare.h"
#include "exit_codes.h"
#include "inputs.h"
#include "plot.h"
#include "replicate.h"
#include "report.h"
#include "results.h"

#define MAX_METRICS	64
#define MAX_CONFIGS	64

struct compare_args {
	struct report_opts opts;
	const char *format;
	const char *output;
	const char *outdir;
	const char *plotdir;
	char *metric_buf;
	const char *metrics[MAX_METRICS];
	char *config_buf;
	const char *configs[MAX_CONFIGS];
	char *command;
	bool pool;		/* --pool: several runs or commits */
	char *null_buf[REPORT_MAX_NULLS];	/* --null A,B, split at ',' */
};

/*
 * abtool replicate shares compare's options that decide a verdict
 * (cmd_replicate() below); the ones that shape compare's output are
 * compare's alone.
 */
static bool replicate_mode;

static void replicate_usage(FILE *f)
{
	fprintf(f,
"usage: abtool replicate [options] RUN_A RUN_B\n"
"Does each verdict of one run hold in another?  RUN is a result\n"
"directory of make ab (its trials-*.jsonl) or one JSON-lines file.  Each\n"
"run is judged on its own as abtool compare judges it; every verdict of\n"
"RUN_A is printed beside RUN_B's, per metric, pair of configs and cell,\n"
"with whether it replicates: the same claim (better, worse, equivalent)\n"
"in both runs; a claim against anything else does NOT; better against\n"
"worse is REVERSED.  Refused: two inputs of one run (the same run_id,\n"
"files or records) or of the same workload seeds.\n"
"\n"
"  -m, --metrics LIST       metrics (default: iops,lat_p99_us,\n"
"                           server_cpu_us_per_io), or \"all\"\n"
"      --by, --configs, --baseline, --reference, --alpha, --margin,\n"
"      --null, --steady, --allow-mixed-clock, --allow-mixed-env\n"
"                           as abtool compare (abtool compare --help)\n"
"  -h, --help               this text\n"
"\n"
"Exit status: 0 no verdict reversed (claims that do NOT replicate are\n"
"counted, not fatal); 5 a verdict reversed; 1 a refusal or an error;\n"
"2 usage.  See abtool(1) and docs/statistics.md, \"Replication\".\n");
}

static void usage(FILE *f)
{
	if (replicate_mode) {
		replicate_usage(f);
		return;
	}
	fprintf(f,
"usage: abtool compare [options] FILE.json...\n"
"Compare trial records (JSON lines; - is stdin), benchstat style.\n"
"\n"
"  -m, --metrics LIST       metrics to show, comma-separated, or \"all\"\n"
"                           (default: iops,lat_p99_us,server_cpu_us_per_io)\n"
"  -f, --format FMT         text (default), markdown, csv, json, or\n"
"                           summary (one screen: fractions of the\n"
"                           in-kernel driver, verdict counts, geomeans)\n"
"  -o, --output FILE        write the report to FILE, not stdout\n"
"      --outdir DIR         also write DIR/report.{txt,md,csv,json}\n"
"      --plot DIR           gnuplot charts per metric: DIR/METRIC-change\n"
"                           (vs the baseline), METRIC-fraction (of the\n"
"                           in-kernel driver): forest panels of ratios,\n"
"                           intervals, margin and verdicts; METRIC: the\n"
"                           medians, a panel per cell (.svg .png .gp .dat)\n"
"      --by KEY             columns: variant,path (default), variant,\n"
"                           path, or file (input file basename)\n"
"      --configs A,B,...    only these configs, in this order (labels as\n"
"                           --by prints them); the first is the baseline\n"
"      --baseline LABEL     baseline column (default: the first seen)\n"
"      --reference LABEL    also show every config as a fraction of this one\n"
"                           (default: the first whose path is \"kernel\",\n"
"                           the in-kernel driver; \"none\": no fractions)\n"
"      --alpha A            error rate of a family (default 0.05): each\n"
"                           interval is at 1 - A/m, m the cells the pair\n"
"                           of configs is tested in\n"
"      --margin PCT         practical margin, %% of the baseline's median\n"
"                           (default 1): better or worse only when the\n"
"                           whole interval lies beyond it, equivalent\n"
"                           when within\n"
"      --null A,B           configs running the same user-space code on\n"
"                           two kernels (base/user_copy,splice-rsrc/\n"
"                           user_copy): their largest change over the\n"
"                           cells is the margin where it is larger;\n"
"                           may be given up to 8 times\n"
"      --steady PCT         the largest within-boot spread, (max - min) /\n"
"                           median of a boot's trials, of a baseline or\n"
"                           reference cell whose median divides others\n"
"                           unmarked (default 1); above it the ratios\n"
"                           of the cell are marked \"!\" and counted\n"
"      --ci                 text: a confidence-interval table under each\n"
"                           table (markdown, csv, json always have them)\n"
"      --allow-mixed-clock  compare wall and icount trials anyway\n"
"      --allow-mixed-env    compare trials of different accels (tcg, kvm,\n"
"                           native), flavors (perf, debug) or vCPU\n"
"                           counts anyway\n"
"      --pool               pool trials of several runs or series commits\n"
"                           into one config (refused by default: a run's\n"
"                           boots are the sample, another run is not more\n"
"                           of them)\n"
"  -h, --help               this text\n"
"\n"
"Rows are cells (target, legs, rw, bs, iodepth, jobs).  Entries show the\n"
"median +-half the IQR (as %% of the median); other columns the change\n"
"vs the baseline where the Hodges-Lehmann interval of the shift (at\n"
"1 - alpha/m) lies beyond +-margin (better or worse), \"=\" within it\n"
"(equivalent), \"~\" neither (inconclusive), \"~*\" too few trials for\n"
"that level, \"(+x%%)\" a value the same in every trial; a geomean row\n"
"with its cell count sums up.  \"!\" after a ratio: its denominator (the\n"
"baseline's or reference's median) varies by more than --steady within\n"
"a boot.  See abtool-compare(1).\n");
}

static int usage_error(const char *fmt, const char *arg)
{
	fprintf(stderr, "abtool %s: ", replicate_mode ? "replicate" :
		"compare");
	fprintf(stderr, fmt, arg);
	fputc('\n', stderr);
	usage(stderr);
	return AB_EXIT_USAGE;
}

static int parse_metrics(struct compare_args *a, const char *list)
{
	char *tok, *save;
	size_t n = 0;

	free(a->metric_buf);
	a->metric_buf = strdup(list);
	if (!a->metric_buf)
		return -ENOMEM;
	if (!strcmp(list, "all")) {
		a->opts.all_metrics = true;
		return 0;
	}
	for (tok = strtok_r(a->metric_buf, ",", &save); tok;
	     tok = strtok_r(NULL, ",", &save)) {
		if (n == MAX_METRICS)
			return -E2BIG;
		a->metrics[n++] = tok;
	}
	if (!n)
		return -EINVAL;
	a->opts.all_metrics = false;
	a->opts.metrics = a->metrics;
	a->opts.nr_metrics = n;
	return 0;
}

/* Split a comma list into @v (pointing into *@buf); -EINVAL if empty. */
static int split_list(const char *list, char **buf, const char **v,
		      size_t max, size_t *n)
{
	char *tok, *save;

	free(*buf);
	*buf = strdup(list);
	if (!*buf)
		return -ENOMEM;
	*n = 0;
	for (tok = strtok_r(*buf, ",", &save); tok;
	     tok = strtok_r(NULL, ",", &save)) {
		if (*n == max)
			return -E2BIG;
		v[(*n)++] = tok;
	}
	return *n ? 0 : -EINVAL;
}

static int parse_configs(struct compare_args *a, const char *list)
{
	size_t n;
	int ret = split_list(list, &a->config_buf, a->configs, MAX_CONFIGS,
			     &n);

	if (ret)
		return ret;
	a->opts.configs = a->configs;
	a->opts.nr_configs = n;
	return 0;
}

/* "A,B": two config labels; -EINVAL otherwise. */
static int parse_null(struct compare_args *a, const char *pair)
{
	size_t k = a->opts.nr_nulls;
	char *comma;

	if (k == REPORT_MAX_NULLS)
		return -E2BIG;
	a->null_buf[k] = strdup(pair);
	if (!a->null_buf[k])
		return -ENOMEM;
	comma = strchr(a->null_buf[k], ',');
	if (!comma || comma == a->null_buf[k] || !comma[1] ||
	    strchr(comma + 1, ','))
		return -EINVAL;
	*comma = '\0';
	a->opts.null_a[k] = a->null_buf[k];
	a->opts.null_b[k] = comma + 1;
	a->opts.nr_nulls++;
	return 0;
}

static int parse_pct(const char *s, double *pct)
{
	char *end;
	double v;

	errno = 0;
	v = strtod(s, &end);
	if (errno || end == s || *end || !(v >= 0 && v < 100))
		return -EINVAL;
	*pct = v;
	return 0;
}

static int parse_alpha(const char *s, double *alpha)
{
	char *end;
	double v;

	errno = 0;
	v = strtod(s, &end);
	if (errno || end == s || *end || !(v > 0 && v < 1))
		return -EINVAL;
	*alpha = v;
	return 0;
}

enum {
	OPT_OUTDIR = 256,
	OPT_PLOT,
	OPT_BY,
	OPT_BASELINE,
	OPT_ALPHA,
	OPT_MIXED_CLOCK,
	OPT_MIXED_ENV,
	OPT_CI,
	OPT_CONFIGS,
	OPT_REFERENCE,
	OPT_POOL,
	OPT_MARGIN,
	OPT_NULL,
	OPT_STEADY,
};

static const struct option long_options[] = {
	{ "metrics", required_argument, NULL, 'm' },
	{ "format", required_argument, NULL, 'f' },
	{ "output", required_argument, NULL, 'o' },
	{ "outdir", required_argument, NULL, OPT_OUTDIR },
	{ "plot", required_argument, NULL, OPT_PLOT },
	{ "by", required_argument, NULL, OPT_BY },
	{ "baseline", required_argument, NULL, OPT_BASELINE },
	{ "alpha", required_argument, NULL, OPT_ALPHA },
	{ "allow-mixed-clock", no_argument, NULL, OPT_MIXED_CLOCK },
	{ "allow-mixed-env", no_argument, NULL, OPT_MIXED_ENV },
	{ "ci", no_argument, NULL, OPT_CI },
	{ "configs", required_argument, NULL, OPT_CONFIGS },
	{ "reference", required_argument, NULL, OPT_REFERENCE },
	{ "pool", no_argument, NULL, OPT_POOL },
	{ "margin", required_argument, NULL, OPT_MARGIN },
	{ "null", required_argument, NULL, OPT_NULL },
	{ "steady", required_argument, NULL, OPT_STEADY },
	{ "help", no_argument, NULL, 'h' },
	{ NULL, 0, NULL, 0 },
};

/*
 * getopt_long() left an unknown option.  A short one may sit inside a
 * cluster ("-xq"): getopt has not moved past that word yet, so
 * argv[optind - 1] is the word before it; optopt names the letter.
 * For an unknown long option optopt is 0 and the word is the option.
 */
static int unknown_option(char **argv)
{
	char opt[3] = { '-', (char)optopt, '\0' };

	if (optopt > 0 && optopt < 256)
		return usage_error("unknown option '%s'", opt);
	return usage_error("unknown option '%s'", argv[optind - 1]);
}

/* replicate: two runs, and none of compare's output options */
static int check_replicate_args(int argc, const struct compare_args *a)
{
	if (strcmp(a->format, "text") || a->output || a->outdir ||
	    a->plotdir || a->pool || a->opts.show_ci)
		return usage_error("%s", "-f, -o, --outdir, --plot, --ci and "
				   "--pool are abtool compare's");
	if (argc - optind != 2)
		return usage_error("%s", "wants two runs: RUN_A RUN_B");
	return -1;
}

/* Returns -1 to go on, else the exit status. */
static int parse_args(int argc, char **argv, struct compare_args *a)
{
	int opt;

	optind = 0;	/* full getopt reset: cmd_compare may run twice */
	opterr = 0;
	while ((opt = getopt_long(argc, argv, ":m:f:o:h", long_options,
				  NULL)) != -1) {
		switch (opt) {
		case 'm':
			if (parse_metrics(a, optarg))
				return usage_error("bad metric list '%s'",
						   optarg);
			break;
		case 'f':
			if (!report_format_find(optarg))
				return usage_error("unknown format '%s'",
						   optarg);
			a->format = optarg;
			break;
		case 'o':
			a->output = optarg;
			break;
		case OPT_OUTDIR:
			a->outdir = a->opts.outdir = optarg;
			break;
		case OPT_PLOT:
			a->plotdir = a->opts.plotdir = optarg;
			break;
		case OPT_BY:
			if (report_parse_by(optarg, &a->opts.by))
				return usage_error("--by wants variant, path, "
						   "variant,path or file, not "
						   "'%s'", optarg);
			break;
		case OPT_REFERENCE:
			a->opts.reference = optarg;
			break;
		case OPT_BASELINE:
			a->opts.baseline = optarg;
			break;
		case OPT_ALPHA:
			if (parse_alpha(optarg, &a->opts.alpha))
				return usage_error("--alpha wants a number "
						   "between 0 and 1, not '%s'",
						   optarg);
			break;
		case OPT_MIXED_CLOCK:
			a->opts.allow_mixed_clock = true;
			break;
		case OPT_MIXED_ENV:
			a->opts.allow_mixed_env = true;
			break;
		case OPT_CI:
			a->opts.show_ci = true;
			break;
		case OPT_POOL:
			a->pool = true;
			break;
		case OPT_MARGIN:
			if (parse_pct(optarg, &a->opts.margin_pct))
				return usage_error("--margin wants a percentage "
						   "in [0, 100), not '%s'",
						   optarg);
			break;
		case OPT_STEADY:
			if (parse_pct(optarg, &a->opts.steady_pct))
				return usage_error("--steady wants a percentage "
						   "in [0, 100), not '%s'",
						   optarg);
			break;
		case OPT_NULL:
			if (parse_null(a, optarg))
				return usage_error("--null wants two configs "
						   "A,B (at most 8 times), not "
						   "'%s'", optarg);
			break;
		case OPT_CONFIGS:
			if (parse_configs(a, optarg))
				return usage_error("bad config list '%s'",
						   optarg);
			break;
		case 'h':
			usage(stdout);
			return AB_EXIT_OK;
		case ':':
			return usage_error("%s needs an argument",
					   argv[optind - 1]);
		default:
			return unknown_option(argv);
		}
	}
	if (replicate_mode)
		return check_replicate_args(argc, a);
	if (optind >= argc)
		return usage_error("%s", "no input files");
	return -1;
}

static int read_inputs(int argc, char **argv, const struct compare_args *a,
		       struct trial_set *set)
{
	struct inputs_rules rules = {
		.pool = a->pool,
		.by = a->opts.by,
	};
	char err[2 * PATH_MAX + 1024];
	int i;

	if (inputs_check_distinct(argv + optind, (size_t)(argc - optind), err,
				  sizeof(err))) {
		fprintf(stderr, "abtool compare: %s\n", err);
		return AB_EXIT_FAIL;
	}
	for (i = optind; i < argc; i++) {
		if (results_read_file(set, argv[i], err, sizeof(err))) {
			fprintf(stderr, "abtool compare: %s\n", err);
			return AB_EXIT_FAIL;
		}
	}
	if (inputs_check_records(set, &rules, err, sizeof(err))) {
		fprintf(stderr, "abtool compare: %s\n", err);
		return AB_EXIT_FAIL;
	}
	return AB_EXIT_OK;
}

static int write_report(const struct report *r, const struct compare_args *a)
{
	FILE *out = stdout;
	int ret;

	if (a->output) {
		out = fopen(a->output, "w");
		if (!out) {
			fprintf(stderr, "abtool compare: %s: %s\n", a->output,
				strerror(errno));
			return AB_EXIT_FAIL;
		}
	}
	ret = report_emit(r, a->format, out);
	if (out != stdout && fclose(out) && !ret)
		ret = -EIO;
	if (ret) {
		fprintf(stderr, "abtool compare: writing %s: %s\n",
			a->output ? a->output : "stdout", strerror(-ret));
		return AB_EXIT_FAIL;
	}
	return AB_EXIT_OK;
}

static int write_extras(const struct report *r, const struct compare_args *a)
{
	char err[512];
	int ret;

	if (a->outdir && report_write_outdir(r, a->outdir, err, sizeof(err))) {
		fprintf(stderr, "abtool compare: %s\n", err);
		return AB_EXIT_FAIL;
	}
	if (!a->plotdir)
		return AB_EXIT_OK;
	ret = plot_write(r, a->plotdir, err, sizeof(err));
	if (ret == PLOT_NO_GNUPLOT) {
		/* the tables are what matters; say so and go on */
		fprintf(stderr, "abtool compare: %s\n", err);
		return AB_EXIT_OK;
	}
	if (ret) {
		fprintf(stderr, "abtool compare: plot: %s\n", err);
		return AB_EXIT_FAIL;
	}
	return AB_EXIT_OK;
}

/* Does @s need quoting to survive a POSIX shell unchanged? */
static bool needs_quotes(const char *s)
{
	return !*s || s[strspn(s, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnop"
			       "qrstuvwxyz0123456789_./,=:+@%-")];
}

/*
 * "abtool compare ARGS", each argument quoted as a shell needs it: the
 * header of every report prints it, so a table in a README says how to
 * regenerate itself (docs/statistics.md, "Published tables and how they
 * are regenerated").
 */
static char *command_line(int argc, char **argv)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	const char *p;
	int i;

	if (!f)
		return NULL;
	fputs("abtool", f);
	for (i = 0; i < argc; i++) {
		if (!needs_quotes(argv[i])) {
			fprintf(f, " %s", argv[i]);
			continue;
		}
		fputs(" '", f);
		for (p = argv[i]; *p; p++)
			fputs(*p == '\'' ? "'\\''" : (char[]){ *p, 0 }, f);
		fputc('\'', f);
	}
	if (fclose(f)) {
		free(buf);
		return NULL;
	}
	return buf;
}

static int compare_main(int argc, char **argv)
{
	struct compare_args a = { .format = "text" };
	struct report *r = NULL;
	struct trial_set set;
	char err[512];
	int ret;

	report_opts_init(&a.opts);
	trial_set_init(&set);
	ret = parse_args(argc, argv, &a);
	if (ret >= 0)
		goto out;
	a.command = command_line(argc, argv);
	a.opts.command = a.command;
	if (replicate_mode) {
		ret = replicate_main(argv[optind], argv[optind + 1], &a.opts,
				     a.command);
		goto out;
	}
	ret = read_inputs(argc, argv, &a, &set);
	if (ret)
		goto out;
	if (report_build(&set, &a.opts, &r, err, sizeof(err))) {
		fprintf(stderr, "abtool compare: %s\n", err);
		ret = AB_EXIT_FAIL;
		goto out;
	}
	ret = write_report(r, &a);
	if (!ret)
		ret = write_extras(r, &a);
out:
	report_free(r);
	trial_set_release(&set);
	free(a.metric_buf);
	free(a.config_buf);
	free(a.command);
	for (size_t k = 0; k < REPORT_MAX_NULLS; k++)
		free(a.null_buf[k]);
	return ret;
}

int cmd_compare(int argc, char **argv)
{
	replicate_mode = false;
	return compare_main(argc, argv);
}

int cmd_replicate(int argc, char **argv)
{
	replicate_mode = true;
	return compare_main(argc, argv);
}
