// SPDX-License-Identifier: GPL-2.0
#include <math.h>
#include <string.h>

#include "lathist.h"

void lathist_init(struct lathist *h)
{
	memset(h, 0, sizeof(*h));
	h->min = UINT64_MAX;
}

unsigned int lathist_bucket_of(uint64_t ns)
{
	unsigned int msb, shift, idx;

	if (ns < LATHIST_SUB)
		return ns;
	msb = 63 - __builtin_clzll(ns);
	shift = msb - LATHIST_SUB_BITS;
	/* group shift+1 holds [2^msb, 2^(msb+1)) in LATHIST_SUB steps */
	idx = (shift + 1) * LATHIST_SUB + (unsigned int)(ns >> shift) -
	      LATHIST_SUB;
	return idx < LATHIST_BUCKETS ? idx : LATHIST_BUCKETS - 1;
}

void lathist_bucket_range(unsigned int idx, uint64_t *lo, uint64_t *hi)
{
	unsigned int group = idx / LATHIST_SUB, shift;

	if (!group) {
		*lo = *hi = idx;
		return;
	}
	shift = group - 1;
	*lo = (uint64_t)(LATHIST_SUB + idx % LATHIST_SUB) << shift;
	*hi = *lo + (1ULL << shift) - 1;
}

void lathist_add(struct lathist *h, uint64_t ns)
{
	h->bucket[lathist_bucket_of(ns)]++;
	h->count++;
	h->sum += (double)ns;
	if (ns < h->min)
		h->min = ns;
	if (ns > h->max)
		h->max = ns;
}

void lathist_merge(struct lathist *dst, const struct lathist *src)
{
	unsigned int i;

	if (!src->count)
		return;
	for (i = 0; i < LATHIST_BUCKETS; i++)
		dst->bucket[i] += src->bucket[i];
	dst->count += src->count;
	dst->sum += src->sum;
	if (src->min < dst->min)
		dst->min = src->min;
	if (src->max > dst->max)
		dst->max = src->max;
}

uint64_t lathist_percentile(const struct lathist *h, double pct)
{
	uint64_t rank, seen = 0, lo, hi, v;
	unsigned int i;

	if (!h->count)
		return 0;
	if (pct <= 0)
		return h->min;
	/* the epsilon keeps 99.9% of 1000 at rank 999, not 1000 */
	rank = (uint64_t)ceil(pct * (double)h->count / 100.0 - 1e-7);
	if (rank < 1)
		rank = 1;
	if (rank > h->count)
		rank = h->count;
	for (i = 0; i < LATHIST_BUCKETS; i++) {
		seen += h->bucket[i];
		if (seen >= rank)
			break;
	}
	lathist_bucket_range(i, &lo, &hi);
	v = lo + (hi - lo) / 2;
	if (v < h->min)
		v = h->min;
	if (v > h->max)
		v = h->max;
	return v;
}

uint64_t lathist_mean(const struct lathist *h)
{
	return h->count ? (uint64_t)(h->sum / (double)h->count + 0.5) : 0;
}
