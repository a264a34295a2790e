/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Latency histogram with log-linear buckets (HdrHistogram-like): values
 * below 2^LATHIST_SUB_BITS ns are exact; above, each power of two is split
 * into 2^LATHIST_SUB_BITS equal buckets, so a bucket's midpoint is within
 * 1/2^(LATHIST_SUB_BITS+1) (0.4%) of any value in it.  Values up to
 * 2^LATHIST_MAX_SHIFT ns (~37 min) are resolved; larger ones land in the
 * last bucket (max is still exact).  Adding is O(1), no allocation.
 */
#ifndef UZC_SRV_LATHIST_H
#define UZC_SRV_LATHIST_H

#include <stdint.h>

#define LATHIST_SUB_BITS	7
#define LATHIST_SUB		(1u << LATHIST_SUB_BITS)
#define LATHIST_MAX_SHIFT	41
#define LATHIST_BUCKETS \
	((LATHIST_MAX_SHIFT - LATHIST_SUB_BITS + 1) * LATHIST_SUB)

struct lathist {
	uint64_t count;
	uint64_t min;		/* UINT64_MAX while empty */
	uint64_t max;
	double sum;		/* for the mean */
	uint64_t bucket[LATHIST_BUCKETS];
};

void lathist_init(struct lathist *h);
void lathist_add(struct lathist *h, uint64_t ns);
void lathist_merge(struct lathist *dst, const struct lathist *src);

/*
 * Nearest-rank percentile (@pct in (0, 100]): the smallest recorded value
 * v with at least pct% of samples <= v, up to bucket resolution; clamped
 * to [min, max].  0 when empty.
 */
uint64_t lathist_percentile(const struct lathist *h, double pct);
uint64_t lathist_mean(const struct lathist *h);

/* Bucket index of @ns, and the range [lo, hi] of a bucket: for tests. */
unsigned int lathist_bucket_of(uint64_t ns);
void lathist_bucket_range(unsigned int idx, uint64_t *lo, uint64_t *hi);

#endif
