/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Known metrics of a trial record: unit, label and which direction is
 * better.  A metric not in the table is still reported, with no unit and
 * treated as lower-is-better (most per-I/O costs are).
 */
#ifndef ABTOOL_METRICS_H
#define ABTOOL_METRICS_H

#include <stdbool.h>
#include <stddef.h>

struct metric_info {
	const char *name;	/* key in the trial's "metrics" object */
	const char *unit;	/* "" when unknown */
	const char *label;	/* human-readable */
	bool higher_is_better;
	bool known;		/* false: synthesized for an unknown name */
};

/* The table, in the order reports list metrics. */
extern const struct metric_info metric_table[];
extern const size_t metric_table_len;

/* Metrics `abtool compare` shows when -m is not given. */
extern const char *const metric_defaults[];
extern const size_t metric_defaults_len;

/* The table entry for @name, or NULL. */
const struct metric_info *metric_lookup(const char *name);

/*
 * Describe @name: the table entry when known, else an entry naming the
 * metric itself, no unit, lower is better.  @out->name points to @name.
 */
void metric_describe(const char *name, struct metric_info *out);

/* Table position for sorting: known metrics first, in table order. */
size_t metric_rank(const char *name);

#endif
