// SPDX-License-Identifier: GPL-2.0
/* Bootstrap interval of a geomean of median ratios; see bootstrap.h. */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "bootstrap.h"
#include "stats.h"

uint64_t stats_splitmix64(uint64_t *state)
{
	uint64_t z = (*state += 0x9e3779b97f4a7c15ULL);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

/* Uniform in 0..n-1; the modulo bias at n <= 2^10 is below 2^-54. */
static size_t draw(uint64_t *state, size_t n)
{
	return (size_t)(stats_splitmix64(state) % n);
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

/* The median of @n values drawn with replacement from @v, via @buf. */
static double resampled_median(const double *v, size_t n, double *buf,
			       uint64_t *state)
{
	size_t i;

	for (i = 0; i < n; i++)
		buf[i] = v[draw(state, n)];
	qsort(buf, n, sizeof(*buf), cmp_double);
	return stats_quantile_sorted(buf, n, 0.5);
}

int stats_boot_geomean_ratio(const struct stats_boot_cell *cells,
			     size_t nr_cells, size_t reps, uint64_t seed,
			     double level, double *lo, double *hi)
{
	double *rep = NULL, *buf = NULL, logs, ratio;
	size_t i, k, most = 1;
	uint64_t state = seed;
	int ret = 0;

	*lo = *hi = NAN;
	if (!nr_cells || !reps || !(level > 0 && level < 1))
		return -EINVAL;
	for (i = 0; i < nr_cells; i++) {
		if (!cells[i].nx || !cells[i].ny)
			return -EINVAL;
		most = cells[i].nx > most ? cells[i].nx : most;
		most = cells[i].ny > most ? cells[i].ny : most;
	}
	rep = malloc(reps * sizeof(*rep));
	buf = malloc(most * sizeof(*buf));
	if (!rep || !buf) {
		ret = -ENOMEM;
		goto out;
	}
	for (k = 0; k < reps && !ret; k++) {
		logs = 0;
		for (i = 0; i < nr_cells; i++) {
			const struct stats_boot_cell *c = &cells[i];
			double mx = resampled_median(c->x, c->nx, buf, &state);
			double my = resampled_median(c->y, c->ny, buf, &state);

			ratio = my / mx;
			if (!(ratio > 0) || !isfinite(ratio)) {
				ret = -EDOM;
				break;
			}
			logs += log(ratio);
		}
		rep[k] = exp(logs / (double)nr_cells);
	}
	if (!ret) {
		qsort(rep, reps, sizeof(*rep), cmp_double);
		*lo = stats_quantile_sorted(rep, reps, (1 - level) / 2);
		*hi = stats_quantile_sorted(rep, reps, (1 + level) / 2);
	}
out:
	free(rep);
	free(buf);
	return ret;
}
