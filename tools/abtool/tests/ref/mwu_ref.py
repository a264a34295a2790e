#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""
Reference values for tests/test_stats.c, computed a different way from
mwu.c / hodges_lehmann.c: brute force over every one of the C(m+n, m)
splits of the pooled sample (itertools.combinations), U counted pair by
pair (a tie counts 1/2), probabilities as exact Fractions.  Standard
library only (scipy is not installed here).

  python3 tests/ref/mwu_ref.py          # prints every reference

Above the sizes brute force can enumerate (26 against 3 is 3,654 splits,
30 against 30 is 1.2e17), mwu_exact_p_large() counts the same
permutation distribution as a polynomial in exact integers (a dict from
doubled rank sum to count per number of values drawn), which is the
definition of the distribution rather than mwu.c's table of doubles.
Where scipy 1.10.1 (Debian 12, /usr/bin/python3) can enumerate too, its
permutation_test gives the same p (the numbers in tests/test_stats.c).
"""
from fractions import Fraction
from itertools import combinations


def u_stat(x, y):
    return sum(Fraction(1) if a > b else Fraction(1, 2) if a == b else 0
               for a in x for b in y)


def splits(x, y):
    pooled = list(x) + list(y)
    idx = range(len(pooled))
    for pick in combinations(idx, len(x)):
        s = set(pick)
        yield ([pooled[i] for i in pick],
               [pooled[i] for i in idx if i not in s])


def mwu_exact_p(x, y):
    """Two-sided: twice the smaller tail, capped at 1."""
    u = u_stat(x, y)
    le = ge = total = 0
    for a, b in splits(x, y):
        v = u_stat(a, b)
        total += 1
        le += v <= u
        ge += v >= u
    return u, min(Fraction(1), 2 * Fraction(min(le, ge), total))


def hl_ci(x, y, alpha):
    """Hodges-Lehmann shift of y vs x, exact CI as in R's wilcox.test."""
    m, n = len(x), len(y)
    d = sorted(b - a for a in x for b in y)
    k = len(d)
    hl = (d[(k - 1) // 2] + d[k // 2]) / 2
    # null distribution of U without ties: ranks 1..m+n
    dist = {}
    for a, b in splits(list(range(m)), list(range(m, m + n))):
        v = u_stat(a, b)
        dist[v] = dist.get(v, 0) + 1
    total = sum(dist.values())

    def cdf(q):
        return Fraction(sum(c for v, c in dist.items() if v <= q), total)
    q = 0
    while cdf(q) < Fraction(alpha).limit_denominator(10**9) / 2:
        q += 1
    q = max(q, 1)
    level = 1 - 2 * cdf(q - 1)
    return hl, d[q - 1], d[k - q], level


def mwu_exact_p_large(x, y):
    """Exact two-sided p with ties by counting in exact integers."""
    pooled = sorted(list(x) + list(y))
    rank2 = {}
    i = 0
    while i < len(pooled):
        j = i
        while j < len(pooled) and pooled[j] == pooled[i]:
            j += 1
        rank2[pooled[i]] = i + 1 + j       # twice the mid-rank
        i = j
    k = len(x)
    dist = [dict() for _ in range(k + 1)]   # dist[j][s]: ways
    dist[0][0] = 1
    for v in pooled:
        r = rank2[v]
        for j in range(k, 0, -1):
            for s, c in dist[j - 1].items():
                dist[j][s + r] = dist[j].get(s + r, 0) + c
    obs = sum(rank2[v] for v in x)
    total = sum(dist[k].values())
    le = sum(c for s, c in dist[k].items() if s <= obs)
    ge = sum(c for s, c in dist[k].items() if s >= obs)
    return min(Fraction(1), 2 * Fraction(min(le, ge), total))


LARGE_CASES = [
    ([1] * 26, [2] * 3),
    ([i * 7 % 3 + 1 for i in range(30)], [3, 3, 2, 3]),
    ([i * 7 % 5 + 1 for i in range(30)], [i * 3 % 5 + 2 for i in range(30)]),
    ([2 * i for i in range(30)], [2 * i + 15 for i in range(30)]),
]

MWU_CASES = [
    ([1, 1, 1, 1], [2, 2, 2, 2]),
    ([1, 2, 3, 4], [4, 5, 6, 7]),
    ([1, 2, 2, 3, 4], [2, 3, 3, 5, 6]),
    ([10, 10, 11, 12, 12], [11, 12, 12, 13, 13, 13]),
    ([5, 6, 7, 8, 9], [5, 6, 7, 8, 9]),
    ([3, 3, 3], [3, 3, 3]),
    ([7, 7, 8], [7, 9, 9, 9]),
]

HL_CASES = [
    ([100, 102, 101, 103], [110, 112, 111, 115], 0.05),
    ([10.1, 11.3, 9.8, 10.6, 10.0], [10.9, 11.8, 12.1, 11.0, 11.5], 0.05),
    ([1, 2, 3, 4, 5, 6], [3, 5, 7, 8, 9, 10, 12], 0.05),
    ([1, 2, 3], [4, 5, 6], 0.05),
]

if __name__ == "__main__":
    for x, y in MWU_CASES:
        u, p = mwu_exact_p(x, y)
        print(f"mwu {x} {y}: U1={float(u)!r} p={p} = {float(p)!r}")
    for x, y in LARGE_CASES:
        p = mwu_exact_p_large(x, y)
        print(f"mwu-large {len(x)} vs {len(y)} {x[:6]}.. {y[:6]}..: "
              f"p={float(p)!r}")
    for x, y, a in HL_CASES:
        hl, lo, hi, level = hl_ci(x, y, a)
        print(f"hl {x} {y} alpha={a}: shift={float(hl)!r} "
              f"ci=[{float(lo)!r}, {float(hi)!r}] level={level} = "
              f"{float(level)!r}")
