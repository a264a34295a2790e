// SPDX-License-Identifier: GPL-2.0
/*
 * The geomean row: per config, the geometric mean over cells of its
 * median / the baseline's median, a +100% cell and a -50% cell
 * averaging to no change.
 *
 * Over which cells (issue 34, item 9): those the config shares with the
 * baseline, never more, and their number goes with the number in every
 * format, so "+118.5%" over 6 cells is not read beside "+60.9%" over 24
 * as the same kind of figure.  A ratio that is not positive (a median
 * of 0: copied bytes of a zero-copy path) has no logarithm; the geomean
 * is then not given at all, with the reason, rather than over the cells
 * that happen to work.  Its interval is a bootstrap (bootstrap.h) at
 * 1 - alpha with a fixed seed, so a report regenerates byte for byte.
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>

#include "bootstrap.h"
#include "report.h"

static int geomean_pair(const struct report *r, const struct report_metric *m,
			size_t c, struct stats_boot_cell *cells,
			struct report_pair *p)
{
	size_t i, n = 0, nc = r->nr_columns;
	double logs = 0, ratio, lo, hi;
	int ret;

	p->geomean_pct = p->geomean_lo_pct = p->geomean_hi_pct = NAN;
	p->geomean_why = NULL;
	p->unsteady_cells = 0;
	for (i = 0; i < r->nr_cells; i++) {
		const struct report_entry *b = &m->entries[i * nc];
		const struct report_entry *e = &m->entries[i * nc + c];

		if (!b->sum.n || !e->sum.n)
			continue;
		ratio = e->sum.median / b->sum.median;
		if (!(ratio > 0) || !isfinite(ratio))
			p->geomean_why = "a median is 0";
		else
			logs += log(ratio);
		p->unsteady_cells += report_unsteady(r, m, i);
		cells[n].x = b->values;
		cells[n].nx = b->sum.n;
		cells[n].y = e->values;
		cells[n++].ny = e->sum.n;
	}
	p->geomean_cells = n;
	if (!n) {
		p->geomean_why = "no cell in common";
		return 0;
	}
	if (p->geomean_why)
		return 0;
	p->geomean_pct = (exp(logs / (double)n) - 1) * 100;
	ret = stats_boot_geomean_ratio(cells, n, REPORT_BOOT_REPS,
				       REPORT_BOOT_SEED, 1 - r->alpha, &lo, &hi);
	if (ret == -ENOMEM)
		return ret;
	/* else a resample with a median of 0: no interval, said as "-" */
	if (!ret) {
		p->geomean_lo_pct = (lo - 1) * 100;
		p->geomean_hi_pct = (hi - 1) * 100;
	}
	return 0;
}

int report_geomeans(const struct report *r, struct report_metric *m)
{
	struct stats_boot_cell *cells = calloc(r->nr_cells + 1,
					       sizeof(*cells));
	size_t c;
	int ret = 0;

	if (!cells)
		return -ENOMEM;
	for (c = 1; c < r->nr_columns && !ret; c++)
		ret = geomean_pair(r, m, c, cells, &m->pairs[c]);
	free(cells);
	return ret;
}
