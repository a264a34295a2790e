// SPDX-License-Identifier: GPL-2.0
/*
 * The ratio axis of the forest plots: log2, its ends and its tics taken
 * from fixed lists, so that the same ratios sit at the same places in
 * every figure and a reader learns the scale once.
 *
 * Why log2: a ratio of 2 and one of 0.5 are the same size of change and
 * get the same distance from 1; on a linear axis in percent (the old
 * -100..+800% forest plot) the one +641% cell squeezed every 1-5%
 * difference and every interval into a few pixels (issue 34, item 8).
 *
 * Why fixed ends: the axis ends at the first stop beyond the data (0.95,
 * 0.9, 0.8, 0.67, 0.5, then powers of 2; 1.05, 1.1, 1.25, 1.5, 2, then
 * powers of 2), never at 0.9137; and the tics are round ratios (1, 1.1,
 * 1.25, 2, ...), labelled as many as fit the panel's width without
 * overlapping, the coarser ones first.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "plot.h"
#include "report.h"

#define AXIS_MAX_LOG2	20	/* beyond 2^+-20 the axis is clipped */
#define AXIS_PAD	1.01	/* room between the data and an end */
#define TIC_LABEL_PX	38	/* the least distance of two labels */

static const double lo_stops[] = { 0.95, 0.9, 0.8, 2.0 / 3, 0.5 };
static const double hi_stops[] = { 1.05, 1.1, 1.25, 1.5, 2 };

/* Ends beyond the lists: 1/4, 1/8, ... and 4, 8, ... */
static double stop(const double *stops, size_t n, size_t i, bool up)
{
	if (i < n)
		return stops[i];
	return ldexp(1, (int)(i - n + 2) * (up ? 1 : -1));
}

void plot_axis_fit(struct plot_axis *a, double min, double max)
{
	const size_t nlo = sizeof(lo_stops) / sizeof(lo_stops[0]);
	const size_t nhi = sizeof(hi_stops) / sizeof(hi_stops[0]);
	const double least = ldexp(1, -AXIS_MAX_LOG2);
	const double most = ldexp(1, AXIS_MAX_LOG2);
	size_t i;

	if (!(min > 0) || !isfinite(min))
		min = 1;
	if (!(max > 0) || !isfinite(max))
		max = 1;
	for (i = 0; (a->lo = stop(lo_stops, nlo, i, false)) > least; i++)
		if (a->lo <= min / AXIS_PAD)
			break;
	for (i = 0; (a->hi = stop(hi_stops, nhi, i, true)) < most; i++)
		if (a->hi >= max * AXIS_PAD)
			break;
}

/* The tic candidates, coarsest class first: 1 and powers of 2, ... */
struct tic {
	double v;
	int class;
	const char *label;
};

static const struct tic fine_tics[] = {
	{ 0.8, 1, "0.8" }, { 1.25, 1, "1.25" },
	{ 2.0 / 3, 2, "0.67" }, { 1.5, 2, "1.5" },
	{ 0.9, 2, "0.9" }, { 1.1, 2, "1.1" },
	{ 0.95, 3, "0.95" }, { 1.05, 3, "1.05" },
	{ 0.98, 4, "0.98" }, { 1.02, 4, "1.02" },
};

#define MAX_TICS	(2 * AXIS_MAX_LOG2 + 1 + \
			 sizeof(fine_tics) / sizeof(fine_tics[0]))

/* Whether @v is at least @gap (log2 units) from every tic of @t. */
static bool clear_of(const double *t, size_t n, double v, double gap)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (fabs(log2(v) - log2(t[i])) < gap - 1e-9)
			return false;
	return true;
}

static void tic_label(double v, char *buf, size_t len)
{
	size_t i;
	int e;

	for (i = 0; i < sizeof(fine_tics) / sizeof(fine_tics[0]); i++)
		if (fine_tics[i].v == v) {
			snprintf(buf, len, "%s", fine_tics[i].label);
			return;
		}
	if (frexp(v, &e) == 0.5 && e <= -2)
		snprintf(buf, len, "1/%g", ldexp(1, 1 - e));	/* 1/8 */
	else
		snprintf(buf, len, "%g", v);			/* 0.25, 4 */
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

static void put_tics(FILE *f, double *t, size_t n, bool minor, bool *first)
{
	char label[16], pos[40];
	size_t i;

	qsort(t, n, sizeof(*t), cmp_double);
	for (i = 0; i < n; i++) {
		tic_label(t[i], label, sizeof(label));
		snprintf(pos, sizeof(pos), "%.6g", t[i]);
		fprintf(f, "%s\"%s\" %s%s", *first ? "" : ", ",
			minor ? "" : label, pos, minor ? " 1" : "");
		*first = false;
	}
}

void plot_axis_put_tics(FILE *f, const struct plot_axis *a, int panel_px)
{
	const double span = log2(a->hi) - log2(a->lo);
	const double gap = span * TIC_LABEL_PX / panel_px;
	double major[MAX_TICS], minor[MAX_TICS], v;
	size_t nmaj = 0, nmin = 0, i;
	bool first = true;
	int class, e;

	/* class 0: 1 and the powers of 2 */
	for (e = -AXIS_MAX_LOG2; e <= AXIS_MAX_LOG2; e++) {
		v = ldexp(1, e);
		if (v >= a->lo && v <= a->hi && clear_of(major, nmaj, v, gap))
			major[nmaj++] = v;
	}
	for (class = 1; class <= 4; class++)
		for (i = 0; i < sizeof(fine_tics) / sizeof(fine_tics[0]); i++) {
			v = fine_tics[i].v;
			if (fine_tics[i].class != class || v < a->lo ||
			    v > a->hi)
				continue;
			if (clear_of(major, nmaj, v, gap))
				major[nmaj++] = v;
			/* unlabelled where labels would not fit */
			else if (class < 4 && clear_of(major, nmaj, v, gap / 4) &&
				 clear_of(minor, nmin, v, gap / 4))
				minor[nmin++] = v;
		}
	fputs("set xtics (", f);
	put_tics(f, major, nmaj, false, &first);
	put_tics(f, minor, nmin, true, &first);
	fputs(")\n", f);
}
