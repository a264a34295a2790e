/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Do the verdicts of one run hold in another?  Issue 34, item 4: every
 * claim of a cover letter or the README's summary must hold in two runs
 * with different seeds.  Each run is judged on its own (report_build():
 * its families, its margin, its intervals), and each verdict of run A
 * is set beside run B's for the same pair of configs, cell and metric:
 * against the baseline A and, where there is one, as a fraction of the
 * reference (the in-kernel driver).
 *
 * A claim is better, worse or equivalent.  It replicates when the other
 * run makes the same claim; a claim against inconclusive, n too small,
 * no data or another claim that is not its opposite does not; better
 * against worse is a reversal.  Cells where neither run makes a claim,
 * and values (counters not tested), are counted apart.
 */
#ifndef ABTOOL_REPORT_REPLICATE_H
#define ABTOOL_REPORT_REPLICATE_H

#include <stdio.h>

#include "report.h"

enum replication {
	REPL_SAME,		/* the same claim in both runs */
	REPL_NOT,		/* a claim in one run, not the same in the other */
	REPL_REVERSED,		/* better in one run, worse in the other */
	REPL_NO_CLAIM,		/* neither run makes a claim */
	REPL_UNTESTED,		/* values, or no data in either run */
	REPL_NR
};

/* How the verdicts @a (run A) and @b (run B) of one cell compare. */
enum replication replication_of(enum report_verdict a,
				enum report_verdict b);
/* "replicates", "NOT", "REVERSED", "no claim", "untested" */
const char *replication_name(enum replication k);

/* One run, as the replication report names it. */
struct replicate_run {
	const char *name;	/* what was given: a directory or a file */
	const struct report *r;
	char seeds[160];	/* "1..8", "not recorded ..." */
};

struct replicate_counts {
	size_t n[REPL_NR];
	/* rows where a run's denominator is unsteady (marked, counted) */
	size_t unsteady;
};

/*
 * Every verdict of @a->r beside @b->r's, per metric, pair and cell, with
 * counts per pair and in all into @total; -ENOMEM or -EIO.  @command is
 * printed as the line that regenerates it (NULL: none).  @b->r was
 * built with @a->r's baseline and reference.
 */
int replicate_emit(FILE *out, const struct replicate_run *a,
		   const struct replicate_run *b, const char *command,
		   struct replicate_counts *total);

#endif
