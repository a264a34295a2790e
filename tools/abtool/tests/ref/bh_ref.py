#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""
Benjamini-Hochberg references for tests/test_stats.c, straight from the
definition q_i = min over all j with p_j >= p_i of min(1, m p_j / r_j),
r_j the rank of p_j (ties: the highest rank of the tied group, which
gives the same minimum), in O(m^2) with exact Fractions -- a different
computation from multcomp.c's sort and running minimum.

  python3 tests/ref/bh_ref.py
"""
from fractions import Fraction

CASES = [
    ["0.01", "0.04", "0.03", "0.005", "0.2"],
    ["0.02857142857142857", "0.02857142857142857", "0.5", "1",
     "0.02857142857142857", "0.7"],
    ["0.9"],
]


def bh(p):
    m = len(p)
    rank = [sum(1 for b in p if b <= a) for a in p]
    return [min(min(Fraction(1), m * p[j] / rank[j])
                for j in range(m) if p[j] >= p[i]) for i in range(m)]


if __name__ == "__main__":
    for case in CASES:
        p = [Fraction(s) for s in case]
        print(case, "->", [repr(float(q)) for q in bh(p)])
