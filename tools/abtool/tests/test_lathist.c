// SPDX-License-Identifier: GPL-2.0
/* The latency histogram against exact percentiles of known samples. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "kselftest_harness.h"
#include "lathist.h"
#include "prng.h"

static const double pcts[] = { 1, 10, 50, 90, 99, 99.9, 99.99, 100 };

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

/* Nearest rank, in integer arithmetic: ceil(pct * n / 100), pct in 0.01%. */
static uint64_t exact_percentile(const uint64_t *sorted, size_t n, double pct)
{
	uint64_t hundredths = (uint64_t)llround(pct * 100);
	uint64_t rank = (hundredths * n + 9999) / 10000;

	return sorted[(rank ? rank : 1) - 1];
}

static double rel_err(uint64_t got, uint64_t want)
{
	return want ? fabs((double)got - (double)want) / (double)want :
		      (double)got;
}

/* Fill a histogram with @v, compare every percentile with the exact one. */
static double worst_error(uint64_t *v, size_t n)
{
	struct lathist *h = malloc(sizeof(*h));
	double worst = 0, e;
	size_t i;

	lathist_init(h);
	for (i = 0; i < n; i++)
		lathist_add(h, v[i]);
	qsort(v, n, sizeof(*v), cmp_u64);
	for (i = 0; i < sizeof(pcts) / sizeof(pcts[0]); i++) {
		e = rel_err(lathist_percentile(h, pcts[i]),
			    exact_percentile(v, n, pcts[i]));
		if (e > worst)
			worst = e;
	}
	free(h);
	return worst;
}

TEST(buckets_contain_their_values)
{
	uint64_t v, lo, hi;
	unsigned int idx, prev = 0;

	for (v = 0; v < (1ULL << 40); v = v * 9 / 8 + 1) {
		idx = lathist_bucket_of(v);
		lathist_bucket_range(idx, &lo, &hi);
		ASSERT_LE(lo, v);
		ASSERT_GE(hi, v);
		ASSERT_GE(idx, prev);	/* monotonic */
		prev = idx;
		/* width within 1/128 of the value: the 1% promise, twice over */
		ASSERT_LE((double)(hi - lo), v / 128.0);
	}
	for (v = 0; v < LATHIST_SUB; v++)	/* small values are exact */
		ASSERT_EQ(v, (uint64_t)lathist_bucket_of(v));
}

TEST(uniform_percentiles_within_one_percent)
{
	size_t n = 100000, i;
	uint64_t *v = malloc(n * sizeof(*v));

	for (i = 0; i < n; i++)
		v[i] = 1000 + i * 37;
	EXPECT_LT(worst_error(v, n), 0.01);
	free(v);
}

TEST(lognormal_percentiles_within_one_percent)
{
	size_t n = 200000, i;
	uint64_t *v = malloc(n * sizeof(*v));
	struct prng rng;
	double u1, u2, z;

	prng_seed(&rng, 12345);
	for (i = 0; i < n; i++) {	/* Box-Muller: median ~ 50 us */
		u1 = (prng_next(&rng) >> 11) * 0x1.0p-53 + 0x1.0p-54;
		u2 = (prng_next(&rng) >> 11) * 0x1.0p-53;
		z = sqrt(-2 * log(u1)) * cos(2 * M_PI * u2);
		v[i] = (uint64_t)exp(log(50000.0) + 1.2 * z);
	}
	EXPECT_LT(worst_error(v, n), 0.01);
	free(v);
}

TEST(bimodal_and_tail)
{
	size_t n = 10000, i;
	uint64_t *v = malloc(n * sizeof(*v));

	/* 99.5% fast, 0.5% a hundred times slower: p99.9 must see the tail */
	for (i = 0; i < n; i++)
		v[i] = i % 200 ? 20000 + i % 97 : 2000000 + i;
	EXPECT_LT(worst_error(v, n), 0.01);
	free(v);
}

TEST(small_exact_values_and_single_sample)
{
	struct lathist h;
	int i;

	lathist_init(&h);
	EXPECT_EQ(0u, lathist_percentile(&h, 50));
	EXPECT_EQ(0u, lathist_mean(&h));
	lathist_add(&h, 123456789);
	EXPECT_EQ(123456789u, lathist_percentile(&h, 50));	/* clamped */
	EXPECT_EQ(123456789u, lathist_percentile(&h, 99.9));

	lathist_init(&h);
	for (i = 1; i <= 100; i++)
		lathist_add(&h, i);
	EXPECT_EQ(50u, lathist_percentile(&h, 50));
	EXPECT_EQ(99u, lathist_percentile(&h, 99));
	EXPECT_EQ(100u, lathist_percentile(&h, 99.9));
	EXPECT_EQ(1u, h.min);
	EXPECT_EQ(100u, h.max);
	EXPECT_EQ(51u, lathist_mean(&h));	/* 50.5 rounds up */
}

TEST(rank_of_99_9_percent_of_1000)
{
	struct lathist h;
	int i;

	/* 999 samples of 10 and one of 100000: p99.9 is rank 999, i.e. 10 */
	lathist_init(&h);
	for (i = 0; i < 999; i++)
		lathist_add(&h, 10);
	lathist_add(&h, 100000);
	EXPECT_EQ(10u, lathist_percentile(&h, 99.9));
	EXPECT_EQ(100000u, lathist_percentile(&h, 100));
}

TEST(merge_equals_adding_everything)
{
	struct lathist *a = malloc(sizeof(*a)), *b = malloc(sizeof(*b));
	struct lathist *all = malloc(sizeof(*all));
	uint64_t v;
	int i;

	lathist_init(a);
	lathist_init(b);
	lathist_init(all);
	for (i = 0; i < 5000; i++) {
		v = 1000 + (uint64_t)i * i;
		lathist_add(i % 3 ? a : b, v);
		lathist_add(all, v);
	}
	lathist_merge(a, b);
	EXPECT_EQ(all->count, a->count);
	EXPECT_EQ(all->min, a->min);
	EXPECT_EQ(all->max, a->max);
	EXPECT_EQ(0, memcmp(all->bucket, a->bucket, sizeof(a->bucket)));
	EXPECT_EQ(lathist_percentile(all, 99), lathist_percentile(a, 99));
	free(a);
	free(b);
	free(all);
}

TEST(huge_values_land_in_the_last_bucket)
{
	struct lathist h;

	lathist_init(&h);
	lathist_add(&h, UINT64_MAX / 2);
	EXPECT_EQ((unsigned int)LATHIST_BUCKETS - 1,
		  lathist_bucket_of(UINT64_MAX / 2));
	EXPECT_EQ(UINT64_MAX / 2, h.max);
	EXPECT_EQ(UINT64_MAX / 2, lathist_percentile(&h, 50));
}

TEST_HARNESS_MAIN
