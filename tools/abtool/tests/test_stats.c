// SPDX-License-Identifier: GPL-2.0
/*
 * stats.c against independently computed reference values: scipy 1.10.1
 * and numpy 1.24.2 from Debian 12 (apt-get install python3-scipy).  The
 * exact command behind each number is in the comment above it.
 */
#include <errno.h>
#include <math.h>

#include "kselftest_harness.h"

#include "bootstrap.h"
#include "hodges_lehmann.h"
#include "stats.h"

#define N(a)	(sizeof(a) / sizeof((a)[0]))

static bool close_to(double want, double got, double rel)
{
	if (isnan(want))
		return isnan(got);
	return fabs(want - got) <= rel * fmax(fabs(want), 1e-300);
}

#define EXPECT_NEAR(want, got) \
	EXPECT_TRUE(close_to((want), (got), 1e-9)) \
		TH_LOG("%s: want %.17g, got %.17g", #got, (double)(want), \
		       (double)(got))

/* ---- quantiles: numpy.percentile (linear) ---- */

static const double pcts[] = { 0, 10, 25, 50, 75, 90, 99, 100 };

static void check_quantiles(struct __test_metadata *_metadata,
			    const double *x, size_t n, const double *want)
{
	size_t i;

	for (i = 0; i < N(pcts); i++)
		EXPECT_NEAR(want[i], stats_quantile(x, n, pcts[i] / 100));
}

/*
 * /usr/bin/python3 -c 'import numpy as np; print([repr(np.percentile([3,1,2], q)) for q in (0, 10, 25, 50, 75, 90, 99, 100)])'
 * /usr/bin/python3 -c 'import numpy as np; print([repr(np.percentile([1,2,3,4], q)) for q in (0, 10, 25, 50, 75, 90, 99, 100)])'
 * /usr/bin/python3 -c 'import numpy as np; print([repr(np.percentile([10.1,11.3,9.8,10.6,10.0], q)) for q in (0, 10, 25, 50, 75, 90, 99, 100)])'
 * /usr/bin/python3 -c 'import numpy as np; print([repr(np.percentile([7.0], q)) for q in (0, 10, 25, 50, 75, 90, 99, 100)])'
 * /usr/bin/python3 -c 'import numpy as np; print([repr(np.percentile([4,1,3,2,8,6,5,7,9,10,12,11], q)) for q in (0, 10, 25, 50, 75, 90, 99, 100)])'
 */
TEST(quantiles_match_numpy)
{
	static const double a[] = { 3, 1, 2 };
	static const double a_q[] = { 1.0, 1.2, 1.5, 2.0, 2.5, 2.8, 2.98, 3.0 };
	static const double b[] = { 1, 2, 3, 4 };
	static const double b_q[] = { 1.0, 1.3, 1.75, 2.5, 3.25, 3.7,
				      3.9699999999999998, 4.0 };
	static const double c[] = { 10.1, 11.3, 9.8, 10.6, 10.0 };
	static const double c_q[] = { 9.8, 9.88, 10.0, 10.1, 10.6, 11.02,
				      11.272, 11.3 };
	static const double d[] = { 7.0 };
	static const double d_q[] = { 7, 7, 7, 7, 7, 7, 7, 7 };
	static const double e[] = { 4, 1, 3, 2, 8, 6, 5, 7, 9, 10, 12, 11 };
	static const double e_q[] = { 1.0, 2.1, 3.75, 6.5, 9.25, 10.9, 11.89,
				      12.0 };

	check_quantiles(_metadata, a, N(a), a_q);
	check_quantiles(_metadata, b, N(b), b_q);
	check_quantiles(_metadata, c, N(c), c_q);
	check_quantiles(_metadata, d, N(d), d_q);
	check_quantiles(_metadata, e, N(e), e_q);
}

TEST(median_odd_and_even)
{
	static const double odd[] = { 5, 1, 4, 2, 3 };
	static const double even[] = { 8, 1, 4, 2 };

	EXPECT_NEAR(3, stats_median(odd, N(odd)));
	EXPECT_NEAR(3, stats_median(even, N(even)));
	EXPECT_TRUE(isnan(stats_median(odd, 0)));
}

/* Quartiles as in quantiles_match_numpy (c): q1 10.0, q3 10.6. */
TEST(summary_iqr_and_spread)
{
	static const double c[] = { 10.1, 11.3, 9.8, 10.6, 10.0 };
	struct stats_summary s;

	stats_summarize(c, N(c), &s);
	EXPECT_EQ(5, s.n);
	EXPECT_NEAR(9.8, s.min);
	EXPECT_NEAR(10.0, s.q1);
	EXPECT_NEAR(10.1, s.median);
	EXPECT_NEAR(10.6, s.q3);
	EXPECT_NEAR(11.3, s.max);
	EXPECT_NEAR(10.36, s.mean);
	/* half the IQR as % of the median: 0.3 / 10.1 */
	EXPECT_NEAR(0.3 / 10.1 * 100, stats_spread_pct(&s));
}

TEST(summary_degenerate)
{
	static const double zeros[] = { 0, 0, 0 };
	static const double around_zero[] = { -1, 0, 0, 1 };
	struct stats_summary s;

	stats_summarize(zeros, 0, &s);
	EXPECT_EQ(0, s.n);
	EXPECT_TRUE(isnan(s.median));
	EXPECT_TRUE(isnan(stats_spread_pct(&s)));
	stats_summarize(zeros, N(zeros), &s);
	EXPECT_NEAR(0, stats_spread_pct(&s));	/* no spread at all */
	stats_summarize(around_zero, N(around_zero), &s);
	EXPECT_TRUE(isnan(stats_spread_pct(&s)));	/* % of 0 */
}

/*
 * /usr/bin/python3 -c 'import math; print(repr(math.exp((math.log(2) + math.log(0.5) + math.log(1.21)) / 3)))'
 * 1.0656022367666107
 */
TEST(geomean_of_ratios)
{
	static const double r[] = { 2, 0.5, 1.21, 0, NAN };
	size_t used;

	EXPECT_NEAR(1.0656022367666107, stats_geomean(r, N(r), &used));
	EXPECT_EQ(3, used);
	EXPECT_NEAR(1, stats_geomean(r, 2, NULL));	/* x2 and /2 cancel */
	EXPECT_TRUE(isnan(stats_geomean(r + 3, 2, &used)));
	EXPECT_EQ(0, used);
}

/* ---- Mann-Whitney U: scipy.stats.mannwhitneyu ---- */

struct mwu_ref {
	double u1;		/* scipy's statistic: U of x */
	double p_exact;		/* exact, ties counted (mid-ranks) */
	double p_asymptotic;	/* method="asymptotic", use_continuity=True */
	bool auto_exact;	/* what STATS_MWU_AUTO should pick */
};

static void check_mwu(struct __test_metadata *_metadata,
		      const double *x, size_t nx, const double *y, size_t ny,
		      const struct mwu_ref *ref)
{
	struct stats_mwu r, swapped;

	ASSERT_EQ(0, stats_mann_whitney(x, nx, y, ny, STATS_MWU_ASYMPTOTIC,
					&r));
	EXPECT_NEAR(ref->u1, r.u1);
	EXPECT_NEAR((double)(nx * ny) - ref->u1, r.u2);
	EXPECT_FALSE(r.exact);
	EXPECT_NEAR(ref->p_asymptotic, r.p);

	ASSERT_EQ(0, stats_mann_whitney(x, nx, y, ny, STATS_MWU_EXACT, &r));
	EXPECT_TRUE(r.exact);
	EXPECT_NEAR(ref->p_exact, r.p);

	ASSERT_EQ(0, stats_mann_whitney(x, nx, y, ny, STATS_MWU_AUTO, &r));
	EXPECT_EQ(ref->auto_exact, r.exact);
	EXPECT_NEAR(ref->auto_exact ? ref->p_exact : ref->p_asymptotic, r.p);

	/* two-sided: the order of the samples must not matter */
	ASSERT_EQ(0, stats_mann_whitney(y, ny, x, nx, STATS_MWU_AUTO,
					&swapped));
	EXPECT_NEAR(r.p, swapped.p);
	EXPECT_NEAR(r.u1, swapped.u2);
}

/*
 * /usr/bin/python3 -c 'from scipy.stats import mannwhitneyu as m; x = [1,2,2,3,4]; y = [2,3,3,5,6]; [print(k, *(repr(v) for v in m(x, y, alternative="two-sided", method=k, use_continuity=True))) for k in ("exact", "asymptotic")]'
 * exact 6.0 0.2222222222222222
 * asymptotic 6.0 0.19882894401644247
 *
 * scipy's "exact" ignores the ties (0.222 is the no-tie distribution's
 * p).  Ours counts them: tests/ref/mwu_ref.py (brute force over all 252
 * splits, mid-ranks) gives p = 3/14.
 */
TEST(mwu_ties)
{
	static const double x[] = { 1, 2, 2, 3, 4 }, y[] = { 2, 3, 3, 5, 6 };
	static const struct mwu_ref ref = { 6.0, 3.0 / 14, 0.19882894401644247,
					    true };
	struct stats_mwu r;

	check_mwu(_metadata, x, N(x), y, N(y), &ref);
	ASSERT_EQ(0, stats_mann_whitney(x, N(x), y, N(y), STATS_MWU_AUTO, &r));
	EXPECT_TRUE(r.ties);
}

/*
 * /usr/bin/python3 -c 'from scipy.stats import mannwhitneyu as m; x = [1.0,2.0,3.0]; y = [4.0,5.0,6.0]; [print(k, *(repr(v) for v in m(x, y, alternative="two-sided", method=k, use_continuity=True))) for k in ("exact", "asymptotic")]'
 * exact 0.0 0.1
 * asymptotic 0.0 0.08085559837005224
 */
TEST(mwu_n3_vs_3_separated)
{
	static const double x[] = { 1, 2, 3 }, y[] = { 4, 5, 6 };
	static const struct mwu_ref ref = { 0.0, 0.1, 0.08085559837005224,
					    true };

	check_mwu(_metadata, x, N(x), y, N(y), &ref);
	/* complete separation is the best 3+3 can do: never below 0.05 */
	EXPECT_NEAR(0.1, stats_mwu_min_p(3, 3));
}

/*
 * /usr/bin/python3 -c 'from scipy.stats import mannwhitneyu as m; x = [1.0,5.0,3.0]; y = [4.0,2.0,6.0]; [print(k, *(repr(v) for v in m(x, y, alternative="two-sided", method=k, use_continuity=True))) for k in ("exact", "asymptotic")]'
 * exact 3.0 0.7
 * asymptotic 3.0 0.6625205835400574
 */
TEST(mwu_n3_vs_3_mixed)
{
	static const double x[] = { 1, 5, 3 }, y[] = { 4, 2, 6 };
	static const struct mwu_ref ref = { 3.0, 0.7, 0.6625205835400574,
					    true };

	check_mwu(_metadata, x, N(x), y, N(y), &ref);
}

/*
 * /usr/bin/python3 -c 'from scipy.stats import mannwhitneyu as m; x = [10.1,11.3,9.8,10.6,10.0]; y = [10.9,11.8,12.1,11.0,11.5]; [print(k, *(repr(v) for v in m(x, y, alternative="two-sided", method=k, use_continuity=True))) for k in ("exact", "asymptotic")]'
 * exact 2.0 0.031746031746031744
 * asymptotic 2.0 0.0367138563627041
 */
TEST(mwu_n5_vs_5)
{
	static const double x[] = { 10.1, 11.3, 9.8, 10.6, 10.0 };
	static const double y[] = { 10.9, 11.8, 12.1, 11.0, 11.5 };
	static const struct mwu_ref ref = { 2.0, 0.031746031746031744,
					    0.0367138563627041, true };

	check_mwu(_metadata, x, N(x), y, N(y), &ref);
}

/*
 * /usr/bin/python3 -c 'from scipy.stats import mannwhitneyu as m; x = [101.2,98.7,103.5,99.9,100.4,102.8,97.6,101.9,100.1,99.3]; y = [102.4,104.9,101.7,103.1,105.6,100.8,104.2,103.8,106.3,102.9,101.1,104.7]; [print(k, *(repr(v) for v in m(x, y, alternative="two-sided", method=k, use_continuity=True))) for k in ("exact", "asymptotic")]'
 * exact 15.0 0.0020134664097512397
 * asymptotic 15.0 0.0033436220846027958
 */
TEST(mwu_n10_vs_12)
{
	static const double x[] = { 101.2, 98.7, 103.5, 99.9, 100.4, 102.8,
				    97.6, 101.9, 100.1, 99.3 };
	static const double y[] = { 102.4, 104.9, 101.7, 103.1, 105.6, 100.8,
				    104.2, 103.8, 106.3, 102.9, 101.1, 104.7 };
	static const struct mwu_ref ref = { 15.0, 0.0020134664097512397,
					    0.0033436220846027958, true };

	check_mwu(_metadata, x, N(x), y, N(y), &ref);
}

/*
 * /usr/bin/python3 -c 'from scipy.stats import mannwhitneyu as m; x = [5,6,7,8,9]; y = [5,6,7,8,9]; [print(k, *(repr(v) for v in m(x, y, alternative="two-sided", method=k, use_continuity=True))) for k in ("exact", "asymptotic")]'
 * exact 12.5 1.0
 * asymptotic 12.5 1.0
 */
TEST(mwu_identical_samples)
{
	static const double x[] = { 5, 6, 7, 8, 9 };
	/* exact with ties: tests/ref/mwu_ref.py, p = 1 */
	static const struct mwu_ref ref = { 12.5, 1.0, 1.0, true };

	check_mwu(_metadata, x, N(x), x, N(x), &ref);
}

/*
 * /usr/bin/python3 -c 'from scipy.stats import mannwhitneyu as m; x = [3,3,3]; y = [3,3,3]; [print(k, *(repr(v) for v in m(x, y, alternative="two-sided", method=k, use_continuity=True))) for k in ("exact", "asymptotic")]'
 * exact 4.5 1.0
 * asymptotic 4.5 1.0
 */
TEST(mwu_all_values_equal)
{
	static const double x[] = { 3, 3, 3 };
	/* exact with ties: tests/ref/mwu_ref.py, p = 1 */
	static const struct mwu_ref ref = { 4.5, 1.0, 1.0, true };

	check_mwu(_metadata, x, N(x), x, N(x), &ref);
}

/*
 * /usr/bin/python3 -c 'from scipy.stats import mannwhitneyu as m; x = [100,100.5,101,101.5,102,102.5,103,103.5,104,104.5]; y = [200,200.5,201,201.5,202,202.5,203,203.5,204,204.5]; [print(k, *(repr(v) for v in m(x, y, alternative="two-sided", method=k, use_continuity=True))) for k in ("exact", "asymptotic")]'
 * exact 0.0 1.082508822446903e-05
 * asymptotic 0.0 0.00018267179110955002
 */
TEST(mwu_clearly_different)
{
	static const double x[] = { 100, 100.5, 101, 101.5, 102, 102.5, 103,
				    103.5, 104, 104.5 };
	static const double y[] = { 200, 200.5, 201, 201.5, 202, 202.5, 203,
				    203.5, 204, 204.5 };
	static const struct mwu_ref ref = { 0.0, 1.082508822446903e-05,
					    0.00018267179110955002, true };

	check_mwu(_metadata, x, N(x), y, N(y), &ref);
	/* 2 / C(20, 10): complete separation */
	EXPECT_NEAR(1.082508822446903e-05, stats_mwu_min_p(10, 10));
}

/*
 * Exact above 25 a side (issue 34, item 6): the audit's case, all
 * values tied within each sample.  The normal approximation (tie
 * corrected) said 1.75e-7; the permutation distribution has 2 of the
 * C(29, 3) = 3654 splits as extreme:
 *
 * /usr/bin/python3 -c 'import numpy as np; from scipy import stats; s = lambda a, b, axis: stats.mannwhitneyu(a, b, axis=axis, method="asymptotic").statistic; print(repr(stats.permutation_test(([1]*26, [2]*3), s, permutation_type="independent", n_resamples=np.inf, alternative="two-sided", vectorized=True).pvalue))'
 * 0.0005473453749315818
 * /usr/bin/python3 -c 'from scipy.stats import mannwhitneyu as m; print(repr(m([1]*26, [2]*3, method="asymptotic").pvalue))'
 * 1.7541805426981951e-07
 */
TEST(mwu_exact_above_25_with_ties)
{
	double x[26], y[3];
	struct stats_mwu r;
	size_t i;

	for (i = 0; i < N(x); i++)
		x[i] = 1;
	for (i = 0; i < N(y); i++)
		y[i] = 2;
	ASSERT_EQ(0, stats_mann_whitney(x, N(x), y, N(y), STATS_MWU_AUTO, &r));
	EXPECT_TRUE(r.exact);
	EXPECT_TRUE(r.ties);
	EXPECT_NEAR(0.0005473453749315818, r.p);
	EXPECT_NEAR(2.0 / 3654, r.p);
	ASSERT_EQ(0, stats_mann_whitney(y, N(y), x, N(x), STATS_MWU_AUTO, &r));
	EXPECT_NEAR(2.0 / 3654, r.p);
	ASSERT_EQ(0, stats_mann_whitney(x, N(x), y, N(y),
					STATS_MWU_ASYMPTOTIC, &r));
	EXPECT_NEAR(1.7541805426981951e-07, r.p);
}

/*
 * Larger samples with and without ties.  References:
 * - 30 vs 4, values in {1, 2, 3}: scipy's permutation_test as above
 *   (every one of the C(34, 4) = 46376 splits): 0.16650853889943074;
 * - 30 vs 30 without ties: /usr/bin/python3 -c 'from scipy.stats import
 *   mannwhitneyu as m; print(repr(m([2*i for i in range(30)],
 *   [2*i+15 for i in range(30)], method="exact").pvalue))'
 *   0.003193540818593945;
 * - 30 vs 30, values in 1..6, ties everywhere: too many splits for
 *   scipy; tests/ref/mwu_ref.py counts the distribution in exact
 *   integers: 0.014662332228951778 (the normal approximation, scipy
 *   "asymptotic": 0.015140398645618811).
 */
TEST(mwu_exact_large_samples_match_references)
{
	double x[30], y[30];
	static const double y4[] = { 3, 3, 2, 3 };
	struct stats_mwu r;
	size_t i;

	for (i = 0; i < N(x); i++)
		x[i] = (double)(i * 7 % 3 + 1);
	ASSERT_EQ(0, stats_mann_whitney(x, N(x), y4, N(y4), STATS_MWU_AUTO,
					&r));
	EXPECT_TRUE(r.exact);
	EXPECT_NEAR(0.16650853889943074, r.p);

	for (i = 0; i < N(x); i++) {
		x[i] = (double)(2 * i);
		y[i] = (double)(2 * i + 15);
	}
	ASSERT_EQ(0, stats_mann_whitney(x, N(x), y, N(y), STATS_MWU_AUTO, &r));
	EXPECT_TRUE(r.exact);
	EXPECT_FALSE(r.ties);
	EXPECT_TRUE(close_to(0.003193540818593945, r.p, 1e-12))
		TH_LOG("got %.17g", r.p);

	for (i = 0; i < N(x); i++) {
		x[i] = (double)(i * 7 % 5 + 1);
		y[i] = (double)(i * 3 % 5 + 2);
	}
	ASSERT_EQ(0, stats_mann_whitney(x, N(x), y, N(y), STATS_MWU_AUTO, &r));
	EXPECT_TRUE(r.exact);
	EXPECT_TRUE(close_to(0.014662332228951778, r.p, 1e-12))
		TH_LOG("got %.17g", r.p);
	ASSERT_EQ(0, stats_mann_whitney(x, N(x), y, N(y),
					STATS_MWU_ASYMPTOTIC, &r));
	EXPECT_NEAR(0.015140398645618811, r.p);
}

/*
 * Brute force above 25 a side: every way to draw the small sample's
 * k = 1..3 values from 26 + k pooled ones (at most 3654), U counted pair
 * by pair, the smaller tail doubled.
 */
struct brute {
	const double *pooled;
	size_t n, k;
	size_t pick[3];
	double u_obs, le, ge, tot;
};

static double brute_u_of(const struct brute *b)
{
	double u = 0;
	size_t d, j, e;

	for (d = 0; d < b->k; d++) {
		for (j = 0; j < b->n; j++) {
			bool drawn = false;

			for (e = 0; e < b->k; e++)
				drawn |= b->pick[e] == j;
			if (drawn)
				continue;
			u += b->pooled[b->pick[d]] > b->pooled[j] ? 1 :
			     b->pooled[b->pick[d]] == b->pooled[j] ? 0.5 : 0;
		}
	}
	return u;
}

static void brute_draw(struct brute *b, size_t depth, size_t from)
{
	double u;
	size_t i;

	if (depth == b->k) {
		u = brute_u_of(b);
		b->tot++;
		b->le += u <= b->u_obs;
		b->ge += u >= b->u_obs;
		return;
	}
	for (i = from; i < b->n; i++) {
		b->pick[depth] = i;
		brute_draw(b, depth + 1, i + 1);
	}
}

static double brute_p_small_side(const double *x, size_t nx,
				 const double *y, size_t ny)
{
	double pooled[32];
	struct brute b = { pooled, nx + ny, ny, { 0 }, 0, 0, 0, 0 };
	size_t i;

	for (i = 0; i < b.n; i++)
		pooled[i] = i < nx ? x[i] : y[i - nx];
	/* the observed draw: y, the last ny values */
	for (i = 0; i < ny; i++)
		b.pick[i] = nx + i;
	b.u_obs = brute_u_of(&b);
	brute_draw(&b, 0, 0);
	return fmin(1, 2 * fmin(b.le, b.ge) / b.tot);
}

TEST(mwu_exact_above_25_matches_brute_force)
{
	unsigned int seed = 777;
	double x[26], y[3], want;
	struct stats_mwu r;
	size_t ny, i;

	for (ny = 1; ny <= 3; ny++) {
		for (i = 0; i < N(x); i++) {
			seed = seed * 1103515245 + 12345;
			x[i] = 1 + (seed >> 16) % 3;
		}
		for (i = 0; i < ny; i++) {
			seed = seed * 1103515245 + 12345;
			y[i] = 2 + (seed >> 16) % 2;
		}
		want = brute_p_small_side(x, N(x), y, ny);
		ASSERT_EQ(0, stats_mann_whitney(x, N(x), y, ny,
						STATS_MWU_AUTO, &r));
		EXPECT_TRUE(r.exact);
		EXPECT_TRUE(close_to(want, r.p, 1e-12))
			TH_LOG("26 vs %zu: want %.17g, got %.17g", ny, want,
			       r.p);
	}
}

/*
 * Where counting would cost more than STATS_MWU_EXACT_MAX_OPS (38 a
 * side and up), the exact test is refused and auto is the normal
 * approximation with the tie correction:
 * /usr/bin/python3 -c 'from scipy.stats import mannwhitneyu as m; print(repr(m([i*7%5+1 for i in range(40)], [i*3%5+2 for i in range(40)], method="asymptotic").pvalue))'
 * 0.004885098783066598
 */
TEST(mwu_beyond_exact_is_asymptotic)
{
	double x[40], y[40];
	struct stats_mwu r;
	size_t i;

	EXPECT_TRUE(stats_mwu_exact_feasible(37, 37));
	EXPECT_FALSE(stats_mwu_exact_feasible(38, 38));
	EXPECT_TRUE(stats_mwu_exact_feasible(174, 3));
	EXPECT_TRUE(stats_mwu_exact_feasible(3, 174));
	EXPECT_FALSE(stats_mwu_exact_feasible(175, 3));
	for (i = 0; i < N(x); i++) {
		x[i] = (double)(i * 7 % 5 + 1);
		y[i] = (double)(i * 3 % 5 + 2);
	}
	EXPECT_EQ(-EINVAL, stats_mann_whitney(x, N(x), y, N(y),
					      STATS_MWU_EXACT, &r));
	ASSERT_EQ(0, stats_mann_whitney(x, N(x), y, N(y), STATS_MWU_AUTO, &r));
	EXPECT_FALSE(r.exact);
	EXPECT_TRUE(r.ties);
	EXPECT_NEAR(0.004885098783066598, r.p);
}

/*
 * Ties at small n, the cases of issue 15.  References from
 * tests/ref/mwu_ref.py (brute force over all C(8, 4) = 70 splits):
 *   mwu [1, 1, 1, 1] [2, 2, 2, 2]: U1=0.0 p=1/35
 *   mwu [1, 2, 3, 4] [4, 5, 6, 7]: U1=0.5 p=2/35
 *   mwu [10, 10, 11, 12, 12] [11, 12, 12, 13, 13, 13]: U1=4.5 p=16/231
 *   mwu [7, 7, 8] [7, 9, 9, 9]: U1=2.0 p=8/35
 * The normal approximation gave 0.013 and 0.042 for the first two: below
 * what any 4 vs 4 permutation test can give (2/70).
 */
static void check_exact(struct __test_metadata *_metadata,
			const double *x, size_t nx, const double *y, size_t ny,
			double u1, double p)
{
	struct stats_mwu r;

	ASSERT_EQ(0, stats_mann_whitney(x, nx, y, ny, STATS_MWU_AUTO, &r));
	EXPECT_TRUE(r.exact);
	EXPECT_TRUE(r.ties);
	EXPECT_NEAR(u1, r.u1);
	EXPECT_NEAR(p, r.p);
}

TEST(mwu_exact_with_ties_small_n)
{
	static const double a[] = { 1, 1, 1, 1 }, b[] = { 2, 2, 2, 2 };
	static const double c[] = { 1, 2, 3, 4 }, d[] = { 4, 5, 6, 7 };
	static const double e[] = { 10, 10, 11, 12, 12 };
	static const double f[] = { 11, 12, 12, 13, 13, 13 };
	static const double g[] = { 7, 7, 8 }, h[] = { 7, 9, 9, 9 };

	check_exact(_metadata, a, N(a), b, N(b), 0, 1.0 / 35);
	check_exact(_metadata, c, N(c), d, N(d), 0.5, 2.0 / 35);
	check_exact(_metadata, e, N(e), f, N(f), 4.5, 16.0 / 231);
	check_exact(_metadata, g, N(g), h, N(h), 2, 8.0 / 35);
	/* complete separation with ties: exactly the 4 vs 4 minimum */
	EXPECT_NEAR(stats_mwu_min_p(4, 4), 1.0 / 35);
}

/*
 * A second, independent check: enumerate every split of the pooled
 * sample (bitmasks), count U pair by pair, double the smaller tail.
 * Values from {1, 2, 3} so nearly every case has ties.
 */
static double brute_u(const double *v, size_t n, unsigned int mask)
{
	double u = 0;
	size_t i, j;

	for (i = 0; i < n; i++)
		for (j = 0; j < n; j++)
			if ((mask >> i & 1) && !(mask >> j & 1))
				u += v[i] > v[j] ? 1 : v[i] == v[j] ? 0.5 : 0;
	return u;
}

static double brute_p(const double *v, size_t nx, size_t n)
{
	double u = brute_u(v, n, (1u << nx) - 1), le = 0, ge = 0, tot = 0, w;
	unsigned int mask;

	for (mask = 0; mask < 1u << n; mask++) {
		if ((size_t)__builtin_popcount(mask) != nx)
			continue;
		w = brute_u(v, n, mask);
		tot++;
		le += w <= u;
		ge += w >= u;
	}
	return fmin(1, 2 * fmin(le, ge) / tot);
}

TEST(mwu_exact_matches_brute_force)
{
	unsigned int seed = 12345;
	double v[14];
	struct stats_mwu r;
	size_t nx, ny, i;

	for (nx = 1; nx <= 7; nx++) {
		for (ny = 1; ny <= 7; ny++) {
			for (i = 0; i < nx + ny; i++) {
				seed = seed * 1103515245 + 12345;
				v[i] = 1 + (seed >> 16) % 3;
			}
			ASSERT_EQ(0, stats_mann_whitney(v, nx, v + nx, ny,
							STATS_MWU_AUTO, &r));
			EXPECT_TRUE(r.exact);
			EXPECT_TRUE(close_to(brute_p(v, nx, nx + ny), r.p,
					     1e-12))
				TH_LOG("nx=%zu ny=%zu: want %.17g, got %.17g",
				       nx, ny, brute_p(v, nx, nx + ny), r.p);
		}
	}
}

TEST(mwu_min_p)
{
	/* 2 / C(n + m, n) */
	EXPECT_NEAR(1.0, stats_mwu_min_p(1, 1));
	EXPECT_NEAR(2.0 / 6, stats_mwu_min_p(2, 2));
	EXPECT_NEAR(2.0 / 35, stats_mwu_min_p(3, 4));
	EXPECT_NEAR(2.0 / 70, stats_mwu_min_p(4, 4));
	EXPECT_NEAR(2.0 / 56, stats_mwu_min_p(5, 3));
	EXPECT_NEAR(2.0 / 252, stats_mwu_min_p(5, 5));
}

TEST(mwu_rejects_bad_input)
{
	static const double x[] = { 1, 2, 3 }, bad[] = { 1, NAN, 3 };
	struct stats_mwu r;

	EXPECT_EQ(-EINVAL, stats_mann_whitney(x, 0, x, 3, STATS_MWU_AUTO, &r));
	EXPECT_EQ(-EINVAL, stats_mann_whitney(x, 3, x, 0, STATS_MWU_AUTO, &r));
	EXPECT_EQ(-EINVAL, stats_mann_whitney(x, 3, bad, 3, STATS_MWU_AUTO,
					      &r));
}

/*
 * ---- Hodges-Lehmann shift and exact CI ----
 * tests/ref/mwu_ref.py (brute-force null distribution of U, R's rule for
 * k: the smallest q with P(U <= q) >= alpha/2, at least 1):
 *   hl [100, 102, 101, 103] [110, 112, 111, 115] alpha=0.05:
 *      shift=10.0 ci=[7.0, 15.0] level=34/35
 *   hl [10.1, 11.3, 9.8, 10.6, 10.0] [10.9, 11.8, 12.1, 11.0, 11.5]
 *      alpha=0.05: shift=1.0999999999999996 ci=[0.1999999999999993, 2.0]
 *      level=61/63
 *   hl [1, 2, 3, 4, 5, 6] [3, 5, 7, 8, 9, 10, 12] alpha=0.05:
 *      shift=4.0 ci=[1.0, 8.0] level=138/143
 *   hl [1, 2, 3] [4, 5, 6] alpha=0.05: shift=3.0 ci=[1.0, 5.0] level=9/10
 */
static void check_hl(struct __test_metadata *_metadata,
		     const double *x, size_t nx, const double *y, size_t ny,
		     const double want[4])
{
	struct stats_hl r;

	ASSERT_EQ(0, stats_hodges_lehmann(x, nx, y, ny, 0.05, &r));
	EXPECT_TRUE(r.exact);
	EXPECT_NEAR(want[0], r.shift);
	EXPECT_NEAR(want[1], r.lo);
	EXPECT_NEAR(want[2], r.hi);
	EXPECT_NEAR(want[3], r.level);
}

TEST(hodges_lehmann_exact_ci)
{
	static const double a[] = { 100, 102, 101, 103 };
	static const double b[] = { 110, 112, 111, 115 };
	static const double a_want[] = { 10, 7, 15, 34.0 / 35 };
	static const double c[] = { 10.1, 11.3, 9.8, 10.6, 10.0 };
	static const double d[] = { 10.9, 11.8, 12.1, 11.0, 11.5 };
	static const double c_want[] = { 1.0999999999999996,
					 0.1999999999999993, 2.0, 61.0 / 63 };
	static const double e[] = { 1, 2, 3, 4, 5, 6 };
	static const double f[] = { 3, 5, 7, 8, 9, 10, 12 };
	static const double e_want[] = { 4, 1, 8, 138.0 / 143 };
	static const double g[] = { 1, 2, 3 }, h[] = { 4, 5, 6 };
	static const double g_want[] = { 3, 1, 5, 0.9 };

	check_hl(_metadata, a, N(a), b, N(b), a_want);
	check_hl(_metadata, c, N(c), d, N(d), c_want);
	check_hl(_metadata, e, N(e), f, N(f), e_want);
	check_hl(_metadata, g, N(g), h, N(h), g_want);
}

/* Large samples: normal k, nominal level; the CI holds the shift. */
TEST(hodges_lehmann_large_and_bad_input)
{
	double x[40], y[40], bad[] = { 1, NAN };
	struct stats_hl r;
	size_t i;

	for (i = 0; i < N(x); i++) {
		x[i] = (double)(i * 7 % 40);
		y[i] = x[i] + 5;
	}
	ASSERT_EQ(0, stats_hodges_lehmann(x, N(x), y, N(y), 0.05, &r));
	EXPECT_FALSE(r.exact);
	EXPECT_NEAR(5, r.shift);
	EXPECT_NEAR(0.95, r.level);
	EXPECT_TRUE(r.lo < 5 && r.hi > 5);
	EXPECT_EQ(-EINVAL, stats_hodges_lehmann(x, 0, y, 1, 0.05, &r));
	EXPECT_EQ(-EINVAL, stats_hodges_lehmann(x, 1, y, 1, 1.5, &r));
	EXPECT_EQ(-EINVAL, stats_hodges_lehmann(bad, 2, y, 1, 0.05, &r));
}

/*
 * ---- bootstrap interval of a geomean of median ratios ----
 * Deterministic for a seed; around the point geomean; a cell whose
 * values are all equal has no spread to resample; a median of 0 in a
 * resample has no logarithm.
 */
TEST(bootstrap_geomean_ratio)
{
	static const double x1[] = { 100, 101, 99, 100.5, 99.5, 100, 101, 99 };
	static const double y1[] = { 120, 121, 119, 120.5, 119.5, 120, 122,
				     118 };
	static const double x2[] = { 10, 10, 10 }, y2[] = { 5, 5, 5 };
	static const double z[] = { 0, 0, 1 };
	struct stats_boot_cell cells[] = {
		{ x1, y1, N(x1), N(y1) },
		{ x2, y2, N(x2), N(y2) },
	};
	struct stats_boot_cell zero[] = { { x2, z, N(x2), N(z) } };
	double lo, hi, lo2, hi2, point = sqrt(1.2 * 0.5);
	uint64_t st = 1;

	ASSERT_EQ(0, stats_boot_geomean_ratio(cells, 2, 2000, 1, 0.95, &lo,
					      &hi));
	EXPECT_TRUE(lo <= point && point <= hi) TH_LOG("%g..%g", lo, hi);
	EXPECT_TRUE(hi - lo < 0.02) TH_LOG("%g..%g", lo, hi);
	ASSERT_EQ(0, stats_boot_geomean_ratio(cells, 2, 2000, 1, 0.95, &lo2,
					      &hi2));
	EXPECT_TRUE(lo == lo2 && hi == hi2);	/* the same seed, bit for bit */
	ASSERT_EQ(0, stats_boot_geomean_ratio(cells + 1, 1, 100, 7, 0.95,
					      &lo, &hi));
	EXPECT_NEAR(0.5, lo);
	EXPECT_NEAR(0.5, hi);
	EXPECT_EQ(-EDOM, stats_boot_geomean_ratio(zero, 1, 2000, 1, 0.95,
						  &lo, &hi));
	EXPECT_TRUE(isnan(lo) && isnan(hi));
	EXPECT_EQ(-EINVAL, stats_boot_geomean_ratio(cells, 0, 10, 1, 0.95,
						    &lo, &hi));
	EXPECT_EQ(-EINVAL, stats_boot_geomean_ratio(cells, 2, 10, 1, 1.5,
						    &lo, &hi));
	/* splitmix64's first output for seed 1 (Vigna's reference code) */
	EXPECT_EQ(0x910a2dec89025cc1ULL, stats_splitmix64(&st));
}

TEST_HARNESS_MAIN
