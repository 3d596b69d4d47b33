#!/usr/bin/env python3
"""Reference values of the logistic-model generalised SPRT LLR on
pentanomial counts, as fishtest's LLRcalc defines it (LLR_logistic:
MLE_expected on the pair scores 0, 1/4, ..., 1, counts of 0 regularised to
1e-3), computed independently of the C code with exact bisection, for
tests/test_stats.c.  usage: python3 tests/data/sprt_logistic_reference.py"""
import math

def regularize(c):
    return [x if x > 0 else 1e-3 for x in c]

def secular(p, b):
    # sum p_i b_i / (1 + x b_i) = 0, strictly decreasing between the poles
    lo = -1 / max(b) + 1e-12
    hi = -1 / min(b) - 1e-12
    for _ in range(400):
        mid = (lo + hi) / 2
        f = sum(pi * bi / (1 + mid * bi) for pi, bi in zip(p, b))
        if f > 0:
            lo = mid
        else:
            hi = mid
    return (lo + hi) / 2

def mle_expected(a, phat, s):
    b = [ai - s for ai in a]
    x = secular(phat, b)
    return [pi / (1 + x * bi) for pi, bi in zip(phat, b)]

def llr_logistic(counts, elo0, elo1):
    c = regularize(counts)
    n = sum(c)
    phat = [x / n for x in c]
    a = [i / 4 for i in range(5)]
    L = lambda e: 1 / (1 + 10 ** (-e / 400))
    p0 = mle_expected(a, phat, L(elo0))
    p1 = mle_expected(a, phat, L(elo1))
    return n * sum(ph * (math.log(q1) - math.log(q0)) for ph, q0, q1 in zip(phat, p0, p1))

TABLE = [
    ([39, 2226, 31451, 2412, 40], 0, 2),
    ([39, 2226, 31451, 2412, 40], -1, 3),
    ([10, 50, 100, 60, 12], 0, 5),
    ([0, 3, 20, 5, 1], 0, 10),
    ([100, 200, 300, 200, 100], -5, 5),
    ([5, 40, 60, 80, 30], 0, 20),
    ([30, 80, 60, 40, 5], 0, 20),
]
for counts, e0, e1 in TABLE:
    print("%s [%g, %g] %.10f" % (counts, e0, e1, llr_logistic(counts, e0, e1)))
