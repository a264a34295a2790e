// SPDX-License-Identifier: GPL-2.0
/* abtool load: one workload (or one fio run) on a device or file. */
#include <getopt.h>
#include <inttypes.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "counters.h"
#include "exit_codes.h"
#include "fio.h"
#include "load.h"
#include "prog.h"
#include "workload.h"

enum {
	OPT_JSON = 0x100,
	OPT_FIO,
	OPT_NO_COUNTERS,
	OPT_WL_FIRST = 0x200,	/* + index into wl_options[] */
};

struct load_opts {
	struct wl_spec spec;
	bool wl_given;
	bool json;
	bool counters;
	const char *fio_job;
	const char *path;
};

static void load_usage(FILE *f, bool full)
{
	fprintf(f, "usage: %s load [options] DEV_OR_FILE\n", prog_name());
	if (!full) {
		fprintf(f, "       %s load --help lists the options\n", prog_name());
		return;
	}
	fprintf(f,
		"\nRun a workload with io_uring on a block device or a regular file (which\n"
		"must exist and be large enough) and print IOPS, bandwidth, latency\n"
		"percentiles, CPU cost and io_uring_enter/SQE counts.\n"
		"\nWorkload options (abtool run takes the same):\n");
	wl_print_options(f);
	fprintf(f,
		"\nOther options:\n"
		"  --json                 print one JSON object instead of text\n"
		"  --fio=JOB              run fio instead: JOB is a job file, or fio options\n"
		"                         in one argument (\"--rw=randread --bs=4k\")\n"
		"  --no-counters          skip the perf_event_open counters of this process\n"
		"  -h, --help             this help\n"
		"\nA verify pass:  %s load --rw=write --verify DEV\n"
		"                %s load --verify-only DEV\n"
		"\nExit status: 0 ok, 1 failure, 2 bad arguments, 3 verify mismatches.\n",
		prog_name(), prog_name());
}

static int bad_arg(const char *msg, const char *what)
{
	fprintf(stderr, "%s load: %s%s%s\n", prog_name(), msg, what ? " " : "",
		what ? what : "");
	load_usage(stderr, false);
	return AB_EXIT_USAGE;
}

static int bad_arg_quoted(const char *msg, const char *arg)
{
	char quoted[256];

	snprintf(quoted, sizeof(quoted), "'%s'", arg);
	return bad_arg(msg, quoted);
}

static struct option wl_long_option(const char *name, size_t i)
{
	return (struct option){
		name, wl_options[i].arg ? required_argument : optional_argument,
		NULL, OPT_WL_FIRST + (int)i,
	};
}

/* The workload options, their fio aliases, then load's own. */
static struct option *build_long_options(void)
{
	static const struct option own[] = {
		{ "json", no_argument, NULL, OPT_JSON },
		{ "fio", required_argument, NULL, OPT_FIO },
		{ "no-counters", no_argument, NULL, OPT_NO_COUNTERS },
		{ "help", no_argument, NULL, 'h' },
	};
	size_t nown = sizeof(own) / sizeof(own[0]), n = 0, i, k;
	struct option *opts = calloc(wl_options_len + wl_option_aliases_len +
				     nown + 1, sizeof(*opts));

	if (!opts)
		return NULL;
	for (i = 0; i < wl_options_len; i++)
		opts[n++] = wl_long_option(wl_options[i].name, i);
	for (k = 0; k < wl_option_aliases_len; k++)
		for (i = 0; i < wl_options_len; i++)
			if (!strcmp(wl_option_aliases[k].name, wl_options[i].name))
				opts[n++] = wl_long_option(
					wl_option_aliases[k].alias, i);
	memcpy(opts + n, own, sizeof(own));
	return opts;
}

/* 0: parsed; -1: --help shown; else the exit status of a usage error. */
static int parse_args(int argc, char **argv, struct load_opts *o)
{
	struct option *opts = build_long_options();
	char err[256];
	int c, ret = 0;

	if (!opts)
		return AB_EXIT_FAIL;
	opterr = 0;
	optind = 1;
	while (!ret && (c = getopt_long(argc, argv, ":h", opts, NULL)) != -1) {
		if (c >= OPT_WL_FIRST) {
			o->wl_given = true;
			if (wl_parse_option(&o->spec,
					    wl_options[c - OPT_WL_FIRST].name,
					    optarg, err, sizeof(err)))
				ret = bad_arg(err, NULL);
			continue;
		}
		switch (c) {
		case OPT_JSON:
			o->json = true;
			break;
		case OPT_FIO:
			o->fio_job = optarg;
			break;
		case OPT_NO_COUNTERS:
			o->counters = false;
			break;
		case 'h':
			load_usage(stdout, true);
			ret = -1;
			break;
		case ':':
			ret = bad_arg_quoted("option needs a value:",
					     argv[optind - 1]);
			break;
		default:
			ret = bad_arg_quoted("unknown option", argv[optind - 1]);
			break;
		}
	}
	free(opts);
	if (ret)
		return ret;
	if (optind == argc)
		return bad_arg("missing DEV_OR_FILE", NULL);
	if (optind + 1 < argc)
		return bad_arg("unexpected argument", argv[optind + 1]);
	o->path = argv[optind];
	if (o->fio_job && o->wl_given)
		return bad_arg("--fio: the fio job defines the workload; drop the workload options",
			       NULL);
	if (!o->fio_job && wl_spec_check(&o->spec, err, sizeof(err)))
		return bad_arg(err, NULL);
	return 0;
}

/* ---- text output ---- */

static const char *human(double v, const char *const *units, double step,
			 char *buf, size_t len)
{
	int i = 0;

	while (v >= step && units[i + 1]) {
		v /= step;
		i++;
	}
	snprintf(buf, len, i ? "%.1f%s" : "%.0f%s", v, units[i]);
	return buf;
}

static const char *bytes_str(double v, char *buf, size_t len)
{
	static const char *const u[] = { "B", "KiB", "MiB", "GiB", "TiB", NULL };

	return human(v, u, 1024, buf, len);
}

static const char *count_str(double v, char *buf, size_t len)
{
	static const char *const u[] = { "", "k", "M", "G", NULL };

	return human(v, u, 1000, buf, len);
}

static void print_dir(const char *label, uint64_t ios, uint64_t bytes,
		      double secs, const struct wl_lat_summary *l)
{
	char b[32], c[32], d[32];

	if (!ios)
		return;
	printf("  %-6s ios=%" PRIu64 " bytes=%s iops=%s bw=%s/s\n", label, ios,
	       bytes_str(bytes, b, sizeof(b)),
	       count_str(secs > 0 ? ios / secs : 0, c, sizeof(c)),
	       bytes_str(secs > 0 ? bytes / secs : 0, d, sizeof(d)));
	printf("         lat(us) p50=%.1f p99=%.1f p99.9=%.1f min=%.1f mean=%.1f max=%.1f\n",
	       l->p50_ns / 1e3, l->p99_ns / 1e3, l->p999_ns / 1e3,
	       l->min_ns / 1e3, l->mean_ns / 1e3, l->max_ns / 1e3);
}

static void print_verify(const struct wl_result *r)
{
	char b[32], p[32];
	unsigned int i;

	if (!r->verified_bytes && !r->verify_errors && r->write_ios) {
		printf("  verify: patterns written; check them with --verify-only\n");
		return;
	}
	printf("  verify: %s checked, %" PRIu64 " mismatch%s%s%s%s\n",
	       bytes_str(r->verified_bytes, b, sizeof(b)), r->verify_errors,
	       r->verify_errors == 1 ? "" : "es",
	       r->prefill_bytes ? " (prefilled " : "",
	       r->prefill_bytes ? bytes_str(r->prefill_bytes, p, sizeof(p)) : "",
	       r->prefill_bytes ? " untimed)" : "");
	for (i = 0; i < r->nr_reported; i++)
		printf("  MISMATCH at offset %" PRIu64 " (%#" PRIx64 "): %s\n",
		       r->reported[i].offset, r->reported[i].offset,
		       r->reported[i].what);
	if (r->verify_errors > r->nr_reported)
		printf("  ... and %" PRIu64 " more\n",
		       r->verify_errors - r->nr_reported);
}

static void print_counters(const struct counters *cnt,
			   const struct counters_values *v)
{
	int i;

	printf("  perf (%s, this process):", counters_source(cnt));
	for (i = 0; i < CNT_NR; i++) {
		if (!v->present[i])
			printf(" %s=n/a", counters_name(i));
		else if (i == CNT_TASK_CLOCK)
			printf(" %s=%.1fms", counters_name(i), v->value[i] / 1e6);
		else
			printf(" %s=%" PRIu64 "%s", counters_name(i),
			       v->value[i], v->scaled[i] ? "(scaled)" : "");
	}
	printf("\n");
	if (*counters_note(cnt))
		printf("  note: %s\n", counters_note(cnt));
}

static void print_text(const struct load_opts *o, const struct wl_result *r,
		       const struct counters *cnt,
		       const struct counters_values *cv)
{
	double secs = r->elapsed_ns / 1e9, ios = r->ios ? r->ios : 1;
	char desc[256];

	if (o->fio_job)
		snprintf(desc, sizeof(desc), "fio %s", o->fio_job);
	else
		wl_spec_describe(&o->spec, desc, sizeof(desc));
	printf("%s load: %s: %s%s\n", prog_name(), o->path, desc,
	       r->direct ? ", O_DIRECT" : ", buffered");
	print_dir("read:", r->read_ios, r->read_bytes, secs, &r->lat_read);
	print_dir("write:", r->write_ios, r->write_bytes, secs, &r->lat_write);
	if (r->read_ios && r->write_ios)
		print_dir("all:", r->ios, r->bytes, secs, &r->lat_all);
	printf("  time:  %.3fs timed\n", secs);
	printf("  cpu:   user=%.1fms sys=%.1fms (%.2fus/IO) ctx=%" PRIu64 " faults=%" PRIu64 "\n",
	       r->cpu_user_ns / 1e6, r->cpu_sys_ns / 1e6,
	       r->cpu_ns / 1e3 / ios, r->ctx_switches,
	       r->page_faults);
	if (r->has_uring_counts)
		printf("  uring: enters=%" PRIu64 " sqes=%" PRIu64 " (%.2f SQEs/enter, %.2f enters/IO)\n",
		       r->uring_enters, r->sqes,
		       r->uring_enters ? (double)r->sqes / r->uring_enters : 0,
		       r->uring_enters / ios);
	if (o->spec.verify || o->spec.verify_only || r->verify_errors)
		print_verify(r);
	if (cnt)
		print_counters(cnt, cv);
}

/* ---- JSON output ---- */

static struct json_object *counters_json(const struct counters *cnt,
					 const struct counters_values *v)
{
	struct json_object *o = json_object_new_object();
	int i;

	json_object_object_add(o, "source",
			       json_object_new_string(counters_source(cnt)));
	json_object_object_add(o, "note",
			       json_object_new_string(counters_note(cnt)));
	for (i = 0; i < CNT_NR; i++)
		json_object_object_add(o, counters_name(i), v->present[i] ?
			json_object_new_uint64(v->value[i]) : NULL);
	return o;
}

static void print_json(const struct load_opts *o, const struct wl_result *r,
		       const struct counters *cnt,
		       const struct counters_values *cv)
{
	struct json_object *obj = wl_result_to_json(r,
					o->fio_job ? NULL : &o->spec);

	json_object_object_add(obj, "device", json_object_new_string(o->path));
	if (o->fio_job)
		json_object_object_add(obj, "fio_job",
				       json_object_new_string(o->fio_job));
	if (cnt)
		json_object_object_add(obj, "counters", counters_json(cnt, cv));
	printf("%s\n", json_object_to_json_string_ext(obj,
						      JSON_C_TO_STRING_PLAIN));
	json_object_put(obj);
}

/* ---- the command ---- */

static void on_sigint(int sig)
{
	(void)sig;
	wl_request_stop();
}

static int run_load(struct load_opts *o, struct wl_result *res, char *err,
		    size_t errlen)
{
	if (o->fio_job)
		return fio_run(o->fio_job, o->path, res, err, errlen);
	return wl_run(o->path, &o->spec, res, err, errlen);
}

int cmd_load(int argc, char **argv)
{
	struct load_opts o = { .counters = true };
	struct sigaction sa = { .sa_handler = on_sigint };
	struct counters_values cv = { 0 };
	struct counters *cnt = NULL;
	struct wl_result *res;
	char err[512] = "";
	int ret;

	wl_spec_init(&o.spec);
	ret = parse_args(argc, argv, &o);
	if (ret)
		return ret < 0 ? AB_EXIT_OK : ret;
	res = calloc(1, sizeof(*res));
	if (!res)
		return AB_EXIT_FAIL;
	sigaction(SIGINT, &sa, NULL);
	if (o.counters) {
		cnt = counters_open_self();
		if (!cnt)
			fprintf(stderr, "%s load: counters: %m; going on "
				"without\n", prog_name());
		else
			counters_start(cnt);
	}
	ret = run_load(&o, res, err, sizeof(err));
	if (cnt) {
		counters_stop(cnt);
		counters_read(cnt, &cv);
	}
	if (ret)
		fprintf(stderr, "%s load: %s\n", prog_name(), err);
	if (!ret || res->ios) {
		if (o.json)
			print_json(&o, res, cnt, &cv);
		else
			print_text(&o, res, cnt, &cv);
	}
	ret = ret ? AB_EXIT_FAIL :
	      res->verify_errors ? AB_EXIT_VERIFY : AB_EXIT_OK;
	counters_close(cnt);
	free(res);
	return ret;
}

const struct subcommand subcmd_load = {
	"load", cmd_load, "run a workload on a device or file"
};
