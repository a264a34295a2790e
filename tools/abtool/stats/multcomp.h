/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Multiple-comparison control across the cells of a report table:
 * Benjamini-Hochberg adjusted p-values ("q-values").
 *
 * Why BH and not Holm: a table holds tens of comparisons (15 cells x 3
 * configs), and with 4 trials a side the smallest exact p is 2/70 =
 * 0.029; Holm would need 0.05/45 and could never reject anything, so
 * every table would read "~" whatever the data.  BH controls the false
 * discovery rate (the expected share of the deltas shown that are not
 * real) at alpha, which is the promise a reader of such a table needs,
 * and it still reacts to many small p-values together.
 */
#ifndef ABTOOL_MULTCOMP_H
#define ABTOOL_MULTCOMP_H

#include <stddef.h>

/*
 * q[i] = min over j with p_(j) >= p[i] of min(1, m p_(j) / rank(j)),
 * for the @m p-values in @p (any order).  Returns 0 or -ENOMEM.
 */
int stats_bh_adjust(const double *p, size_t m, double *q);

#endif
