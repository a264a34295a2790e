// SPDX-License-Identifier: GPL-2.0
/* Standard normal upper tail and its inverse; see normal.h. */
#include <math.h>

#include "normal.h"

double stats_normal_sf(double z)
{
	/* erfc keeps full relative precision far out in the tail */
	return 0.5 * erfc(z / M_SQRT2);
}

double stats_normal_isf(double p)
{
	double lo = -40, hi = 40, mid;
	int i;

	if (!(p > 0 && p < 1))
		return NAN;
	/*
	 * Bisection: sf is monotone, 200 halvings of [-40, 40] reach the
	 * last bit, and this runs a few times per report, so a rational
	 * approximation's speed would buy nothing.
	 */
	for (i = 0; i < 200; i++) {
		mid = (lo + hi) / 2;
		if (stats_normal_sf(mid) > p)
			lo = mid;
		else
			hi = mid;
	}
	return (lo + hi) / 2;
}
