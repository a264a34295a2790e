// SPDX-License-Identifier: GPL-2.0
/* The table of metrics abtool knows how to label. */
#include <string.h>

#include "metrics.h"

#define HIGHER	true
#define LOWER	false

const struct metric_info metric_table[] = {
	{ "iops", "IOPS", "I/O operations per second", HIGHER, true },
	{ "bw_mbps", "MB/s", "bandwidth", HIGHER, true },
	{ "lat_p50_us", "us", "latency p50", LOWER, true },
	{ "lat_p99_us", "us", "latency p99", LOWER, true },
	{ "lat_p999_us", "us", "latency p99.9", LOWER, true },
	{ "server_cpu_us_per_io", "us/IO", "ublk server CPU time per I/O",
	  LOWER, true },
	{ "load_cpu_us_per_io", "us/IO", "workload CPU time per I/O",
	  LOWER, true },
	{ "ctx_per_io", "switches/IO", "context switches per I/O",
	  LOWER, true },
	{ "faults_per_io", "faults/IO", "page faults per I/O", LOWER, true },
	{ "sqes_per_io", "SQEs/IO", "io_uring SQEs per I/O", LOWER, true },
	{ "syscalls_per_io", "syscalls/IO", "system calls per I/O",
	  LOWER, true },
	{ "copied_bytes_per_io", "B/IO", "bytes copied per I/O", LOWER, true },
	{ "instr_per_io", "instr/IO", "instructions per I/O", LOWER, true },
	{ "server_instr_per_io", "instr/IO",
	  "ublk server instructions per I/O", LOWER, true },
	{ "verify_errors", "errors", "data verification errors", LOWER, true },
};
const size_t metric_table_len = sizeof(metric_table) / sizeof(metric_table[0]);

const char *const metric_defaults[] = {
	"iops", "lat_p99_us", "server_cpu_us_per_io",
};
const size_t metric_defaults_len =
	sizeof(metric_defaults) / sizeof(metric_defaults[0]);

const struct metric_info *metric_lookup(const char *name)
{
	size_t i;

	for (i = 0; i < metric_table_len; i++)
		if (!strcmp(metric_table[i].name, name))
			return &metric_table[i];
	return NULL;
}

void metric_describe(const char *name, struct metric_info *out)
{
	const struct metric_info *m = metric_lookup(name);

	if (m) {
		*out = *m;
		return;
	}
	out->name = name;
	out->unit = "";
	out->label = name;
	out->higher_is_better = false;
	out->known = false;
}

size_t metric_rank(const char *name)
{
	const struct metric_info *m = metric_lookup(name);

	return m ? (size_t)(m - metric_table) : metric_table_len;
}
