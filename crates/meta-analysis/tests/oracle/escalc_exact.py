#!/usr/bin/env python3
"""Exact (mpmath, 40 digits) values of two escalc measures whose reference in metafor 3.8-1 is
itself approximate, for crates/meta-analysis/tests/escalc_rtet.rs:

* RTET, the tetrachoric correlation: the maximum-likelihood estimate of rho when a 2x2 table
  dichotomizes a standard bivariate normal at cuts c (columns) and r (rows), as metafor's
  .rtet() defines it (Kirk 1973, "On the numerical approximation of the bivariate normal
  (tetrachoric) correlation coefficient", Psychometrika 38: 259-268). The likelihood is
  saturated, so at its maximum c = Phi^-1((ai + ci)/n), r = Phi^-1((ai + bi)/n) and rho solves
  Phi2(c, r; rho) = ai/n, with Phi2(c, r; rho) = Phi(c) Phi(r) + int_0^rho phi2(c, r; t) dt
  (Plackett 1954). vi is the (rho, rho) element of the inverse of the observed information
  n sum_j grad p_j grad p_j^T / p_j over the four cells (metafor: optim's Hessian of the
  negative log-likelihood, inverted).
* UCOR, Olkin & Pratt's (1958, Ann. Math. Statist. 29: 201-211) unbiased correlation
  yi = r 2F1(1/2, 1/2; (n - 2)/2; 1 - r^2) with vi = (1 - yi^2)^2/(n - 1) ("LS") and
  vi = yi^2 - (1 - (n - 3)/(n - 2) (1 - r^2) 2F1(1, 1; n/2; 1 - r^2)) ("UB"; Hedges 1989,
  Journal of Applied Psychology 74: 469-477), at small |r| with even n, where GSL's hyperg_2F1
  (behind metafor's .Fcalc) loses up to three digits.

Usage (from the repository root):
    python3 crates/meta-analysis/tests/oracle/escalc_exact.py \
        > crates/meta-analysis/tests/fixtures/escalc_exact.json

Values are written as the correctly rounded double of the 40-digit value.
"""
import json
import sys

import mpmath
from mpmath import mp, mpf

mp.dps = 40


def qnorm(p):
    return mp.sqrt(2) * mp.erfinv(2 * p - 1)


def phi2(h, k, rho):
    s = 1 - rho * rho
    return mp.exp(-(h * h - 2 * rho * h * k + k * k) / (2 * s)) / (2 * mp.pi * mp.sqrt(s))


def Phi2(h, k, rho):
    return mp.ncdf(h) * mp.ncdf(k) + mp.quad(lambda t: phi2(h, k, t), [0, rho])


def rtet(a, b, c, d):
    a, b, c, d = (mpf(x) for x in (a, b, c, d))
    n = a + b + c + d
    cc, rr = qnorm((a + c) / n), qnorm((a + b) / n)
    # Bisection to a bracket, then the secant method to 40 digits.
    lo, hi = mpf(-1) + mpf("1e-30"), mpf(1) - mpf("1e-30")
    for _ in range(60):
        mid = (lo + hi) / 2
        if Phi2(cc, rr, mid) < a / n:
            lo = mid
        else:
            hi = mid
    rho = mp.findroot(lambda t: Phi2(cc, rr, t) - a / n, (lo, hi), solver="anderson")
    s = mp.sqrt(1 - rho * rho)
    f_rho = phi2(cc, rr, rho)
    f_c = mp.npdf(cc) * mp.ncdf((rr - rho * cc) / s)
    f_r = mp.npdf(rr) * mp.ncdf((cc - rho * rr) / s)
    grads = [
        (a, [f_rho, f_c, f_r]),
        (b, [-f_rho, -f_c, mp.npdf(rr) - f_r]),
        (c, [-f_rho, mp.npdf(cc) - f_c, -f_r]),
        (d, [f_rho, f_c - mp.npdf(cc), f_r - mp.npdf(rr)]),
    ]
    info = mp.matrix(3, 3)
    for count, g in grads:
        p = count / n
        for i in range(3):
            for j in range(3):
                info[i, j] += n * g[i] * g[j] / p
    return rho, (info ** -1)[0, 0]


def ucor(r, n, vtype):
    r, n = mpf(r), mpf(n)
    yi = r * mp.hyp2f1(mpf(1) / 2, mpf(1) / 2, (n - 2) / 2, 1 - r * r)
    if vtype == "UB":
        vi = yi * yi - (1 - (n - 3) / (n - 2) * (1 - r * r) * mp.hyp2f1(1, 1, n / 2, 1 - r * r))
    else:
        vi = (1 - yi * yi) ** 2 / (n - 1)
    return yi, vi


cases = []

tables = [
    (12, 88, 20, 80), (1, 1, 1, 1), (250, 750, 300, 700), (2, 30, 9, 21), (40, 3, 35, 8),
    (30, 10, 10, 30), (20, 5, 5, 20), (5, 95, 3, 97), (45, 5, 5, 45), (100, 1, 1, 100),
    (1, 2, 2, 1), (3, 1, 2, 4), (0.5, 20.5, 4.5, 16.5), (7.5, 0.5, 0.5, 5.5),
    (1, 500, 2, 900), (1000, 1, 1, 1), (2.5, 3.5, 1.5, 9),
]
out = [rtet(*t) for t in tables]
cases.append({
    "name": "rtet", "measure": "RTET", "vtype": None,
    "columns": ["ai", "bi", "ci", "di"], "rows": [list(map(float, t)) for t in tables],
    "yi": [float(y) for y, _ in out], "vi": [float(v) for _, v in out],
})

points = [(0.001, 8), (0.01, 8), (-0.02, 8), (0.05, 10), (0.02, 12), (0.05, 20), (0.3, 9), (0, 10)]
for vtype in ("LS", "UB"):
    out = [ucor(r, n, vtype) for r, n in points]
    cases.append({
        "name": "ucor_" + vtype.lower(), "measure": "UCOR", "vtype": vtype,
        "columns": ["ri", "ni"], "rows": [[float(r), float(n)] for r, n in points],
        "yi": [float(y) for y, _ in out], "vi": [float(v) for _, v in out],
    })

json.dump({
    "provenance": {
        "generator": "crates/meta-analysis/tests/oracle/escalc_exact.py",
        "packages": {"mpmath": mpmath.__version__},
        "control": {"mp.dps": 40},
    },
    "cases": cases,
}, sys.stdout, indent=1)
sys.stdout.write("\n")
