/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The standard normal distribution's upper tail and its inverse, for the
 * large-sample forms of the rank statistics (mwu.c, hodges_lehmann.c).
 */
#ifndef ABTOOL_NORMAL_H
#define ABTOOL_NORMAL_H

/* P(Z > z) */
double stats_normal_sf(double z);
/* The z with P(Z > z) = p, for p in (0, 1); NaN outside. */
double stats_normal_isf(double p);

#endif
