#!/usr/bin/env python3
"""Exact (mpmath, 40 digits) values of the two Gauss hypergeometric functions behind escalc's
UCOR (Olkin & Pratt 1958; vtype "UB", Hedges 1989): 2F1(1/2, 1/2; (n - 2)/2; 1 - r^2) and
2F1(1, 1; n/2; 1 - r^2), over n from 5 to 10^4 and |r| from 0 to 0.99, where the series
converges slowly (x = 1 - r^2 near 1, small c) as well as fast, for
crates/meta-analysis/src/special.rs's test `hypergeometric_meets_mpmath_over_ucor`.

Usage (from the repository root):
    python3 crates/meta-analysis/tests/oracle/hyp2f1_grid.py \
        > crates/meta-analysis/tests/fixtures/hyp2f1_grid.json

x is the double 1 - r*r as the engine computes it; values are written to 25 digits.
"""
import json
import sys

import mpmath
from mpmath import mp, mpf

mp.dps = 40

NS = [5, 5.5, 6, 6.5, 7, 8, 9, 10, 11, 12, 15, 20, 25, 30, 50, 100, 200, 1000, 10000]
RS = [0, 1e-6, 1e-4, 1e-3, 0.003, 0.01, 0.02, 0.03, 0.045, 0.05, 0.07, 0.1, 0.2, 0.3, 0.5,
      0.7, 0.9, 0.99]

cases = []
for n in NS:
    for r in RS:
        x = 1.0 - r * r
        for a, b, c in [(0.5, 0.5, (n - 2) / 2), (1.0, 1.0, n / 2)]:
            if c <= a + b:
                continue
            value = mpmath.hyp2f1(a, b, c, mpf(x))
            cases.append([a, b, c, x, float(mpmath.nstr(value, 25))])
json.dump({"provenance": {"generator": "crates/meta-analysis/tests/oracle/hyp2f1_grid.py",
                          "mpmath": mpmath.__version__},
           "cases": cases},
          sys.stdout, indent=None)
sys.stdout.write("\n")
