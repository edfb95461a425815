#!/usr/bin/env python3
"""High-precision (mpmath, 50 digits) reference values for the engine's conversions of
reported summaries (crates/meta-analysis/src/convert_summaries.rs), computed from the
papers' equations, with metafor's conventions (conv.fivenum and conv.wald, read at metafor
5.1-12, commit 71ae8f5 of github.com/wviechtb/metafor; metafor 3.8-1 has neither):

Means and SDs from a median with the range and/or the quartiles, normal data:
* Wan X, Wang W, Liu J, Tong T (2014). Estimating the sample mean and standard deviation
  from the sample size, median, range and/or interquartile range. BMC Medical Research
  Methodology 14:135. xi(n) = 2 Phi^-1((n - 0.375)/(n + 0.25)) (eq. 9: SD = (b - a)/xi(n)),
  eta(n) = 2 Phi^-1((0.75 n - 0.125)/(n + 0.25)) (eq. 16: SD = (q3 - q1)/eta(n)),
  scenario 3 SD = ((b - a)/xi + (q3 - q1)/eta)/2 (eq. 13 as written with xi, eta); means
  (a + 2m + b)/4 (eq. 2), (q1 + m + q3)/3 (eq. 14), (a + 2q1 + 2m + 2q3 + b)/8 (eq. 10).
* Luo D, Wan X, Liu J, Tong T (2018). Optimally estimating the sample mean from the sample
  size, median, mid-range, and/or mid-quartile range. Statistical Methods in Medical
  Research 27:1785-1805. Eq. (7) w = 4/(4 + n^0.75); eq. (11) w = 0.7 + 0.39/n; eq. (15)
  w1 = 2.2/(2.2 + n^0.75), w2 = 0.7 - 0.72/n^0.55.
* Shi J, Luo D, Weng H, Zeng X-T, Lin L, Chu H, Tong T (2020). Optimally estimating the
  sample standard deviation from the five-number summary. Research Synthesis Methods
  11:641-654. Eq. (10) w = 1/(1 + 0.07 n^0.6), SD = w (b - a)/xi + (1 - w)(q3 - q1)/eta.
* Shi J, Luo D, Wan X, Liu Y, Liu J, Bian Z, Tong T (2023). Detecting the skewness of data
  from the five-number summary and its application in meta-analysis. Statistical Methods in
  Medical Research 32:1338-1360. Test statistics and 5% critical values: range
  |a + b - 2m|/(b - a) vs 1/ln(n + 9) + 2.5/(n + 1); quartiles |q1 + q3 - 2m|/(q3 - q1) vs
  2.65/sqrt(n) - 6/n^2; both max(2.65 ln(0.6 n)/sqrt(n) T1, T2) vs 3/sqrt(n) - 40/n^3
  (metafor >= 4.2; metafor 4.0 used the 2020 preprint's constants).
* Hozo SP, Djulbegovic B, Hozo I (2005). Estimating the mean and variance from the median,
  range, and the size of a sample. BMC Medical Research Methodology 5:13. Mean (a + 2m + b)/4
  for n <= 25, else m; SD sqrt(((a - 2m + b)^2/4 + (b - a)^2)/12) for n <= 15, (b - a)/4
  for n <= 70, else (b - a)/6 (metafor's rules).
* Bland M (2015). Estimating mean and standard deviation from the sample size, three
  quartiles, minimum, and maximum. International Journal of Statistics in Medical Research
  4:57-64. Mean (a + 2q1 + 2m + 2q3 + b)/8, SD^2 = (a^2 + 2q1^2 + 2m^2 + 2q3^2 + b^2)/16
  + (a q1 + q1 m + m q3 + q3 b)/8 - (a + 2q1 + 2m + 2q3 + b)^2/64.

yi and vi from a confidence interval or a p value (Wald-type, metafor's conv.wald; e.g.
Higgins JPT, Li T, Deeks JJ (eds), Cochrane Handbook, ch. 6.3 and 6.5.2.2/6.5.2.3):
z = Phi^-1(1 - alpha/2); vi = ((ub - lb)/(2z))^2, or ((ub - yi)/z)^2 from the upper bound,
or (yi/Phi^-1(1 - p/2))^2 from a two-sided p value; yi, lb, ub on the scale of transf.

Usage (from the repository root):
    python3 crates/meta-analysis/tests/oracle/convert_summaries.py \
        > crates/meta-analysis/tests/fixtures/convert_summaries.json

Each value is written as the correctly rounded double of the 50-digit value; inputs are
exact binary doubles.
"""
import json
import sys

import mpmath
from mpmath import mp, mpf

mp.dps = 50


def qnorm(p):
    return mp.sqrt(2) * mp.erfinv(2 * p - 1)


def xi(n):
    return 2 * qnorm((n - mpf("0.375")) / (n + mpf("0.25")))


def eta(n):
    return 2 * qnorm((mpf("0.75") * n - mpf("0.125")) / (n + mpf("0.25")))


def skewness(a, q1, m, q3, b, n, case):
    if case == "range":
        t = abs((a + b - 2 * m) / (b - a))
        c = 1 / mp.log(n + 9) + mpf("2.5") / (n + 1)
    elif case == "iqr":
        t = abs((q1 + q3 - 2 * m) / (q3 - q1))
        c = mpf("2.65") / mp.sqrt(n) - 6 / n ** 2
    else:
        t1 = abs((a + b - 2 * m) / (b - a))
        t2 = abs((q1 + q3 - 2 * m) / (q3 - q1))
        t = max(mpf("2.65") * mp.log(mpf("0.6") * n) / mp.sqrt(n) * t1, t2)
        c = 3 / mp.sqrt(n) - 40 / n ** 3
    return t, c


def fivenum(row, method):
    g = {k: (None if v is None else mpf(v)) for k, v in row.items()}
    a, q1, m, q3, b, n = (g[k] for k in ("min", "q1", "median", "q3", "max", "n"))
    if a is not None and q1 is None:
        case = "range"
    elif a is None:
        case = "iqr"
    else:
        case = "range_and_iqr"
    t, c = skewness(a, q1, m, q3, b, n, case)
    mean = sd = None
    if case == "range":
        if method in ("luo/wan/shi", "wan2014"):
            if method == "wan2014":
                mean = (a + 2 * m + b) / 4
            else:
                w = 4 / (4 + n ** mpf("0.75"))
                mean = w * (a + b) / 2 + (1 - w) * m
            sd = (b - a) / xi(n)
        elif method == "hozo2005":
            mean = (a + 2 * m + b) / 4 if n <= 25 else m
            if n <= 15:
                sd = mp.sqrt(((a - 2 * m + b) ** 2 / 4 + (b - a) ** 2) / 12)
            elif n <= 70:
                sd = (b - a) / 4
            else:
                sd = (b - a) / 6
    elif case == "iqr":
        if method in ("luo/wan/shi", "wan2014"):
            if method == "wan2014":
                mean = (q1 + m + q3) / 3
            else:
                w = mpf("0.7") + mpf("0.39") / n
                mean = w * (q1 + q3) / 2 + (1 - w) * m
            sd = (q3 - q1) / eta(n)
    else:
        if method == "luo/wan/shi":
            w1 = mpf("2.2") / (mpf("2.2") + n ** mpf("0.75"))
            w2 = mpf("0.7") - mpf("0.72") / n ** mpf("0.55")
            mean = w1 * (a + b) / 2 + w2 * (q1 + q3) / 2 + (1 - w1 - w2) * m
            w = 1 / (1 + mpf("0.07") * n ** mpf("0.6"))
            sd = w * (b - a) / xi(n) + (1 - w) * (q3 - q1) / eta(n)
        elif method in ("wan2014", "bland2015"):
            mean = (a + 2 * q1 + 2 * m + 2 * q3 + b) / 8
            if method == "wan2014":
                sd = ((b - a) / xi(n) + (q3 - q1) / eta(n)) / 2
            else:
                sd = mp.sqrt((a ** 2 + 2 * q1 ** 2 + 2 * m ** 2 + 2 * q3 ** 2 + b ** 2) / 16
                             + (a * q1 + q1 * m + m * q3 + q3 * b) / 8
                             - (a + 2 * q1 + 2 * m + 2 * q3 + b) ** 2 / 64)
    return case, mean, sd, t, c


def row(min=None, q1=None, median=None, q3=None, max=None, n=None):
    return {"min": min, "q1": q1, "median": median, "q3": q3, "max": max, "n": n}


FIVENUM_ROWS = [
    row(min=10, median=25, max=40, n=50),
    row(min=1.5, median=7.25, max=19, n=12),
    row(min=3, median=4, max=9.5, n=5),
    row(min=0.2, median=3.1, max=8.8, n=400),
    row(min=10, median=22, max=80, n=30),  # skewed: the test rejects
    row(q1=20, median=25, q3=30, n=50),
    row(q1=1.25, median=2.5, q3=4.5, n=9),
    row(q1=-3.5, median=-1, q3=0.25, n=1000),
    row(q1=20, median=21, q3=30, n=60),  # skewed
    row(min=10, q1=20, median=25, q3=30, max=40, n=50),
    row(min=0.5, q1=2.25, median=3.0, q3=4.125, max=7.0, n=23),
    row(min=-12, q1=-4, median=-1, q3=3, max=11, n=7),
    row(min=100, q1=120, median=128, q3=140, max=175, n=2500),
    row(min=0, q1=1, median=2, q3=10, max=100, n=200),  # skewed
]
METHODS = ["luo/wan/shi", "wan2014", "hozo2005", "bland2015"]


def num(v):
    return None if v is None else float(v)


fivenum_cases = []
for method in METHODS:
    for r in FIVENUM_ROWS:
        case, mean, sd, t, c = fivenum(r, method)
        fivenum_cases.append({
            "method": method, "row": r, "case": case,
            "mean": num(mean), "sd": num(sd),
            "statistic": num(t), "critical": num(c), "skewed": bool(t >= c),
        })


def wald(out, lb, ub, pval, level, transf):
    f = {"none": lambda x: x, "log": mp.log, "atanh": mp.atanh}[transf]
    level = mpf(level)
    alpha = (100 - level) / 100 if level > 1 else 1 - level
    z = qnorm(1 - alpha / 2)
    yi = f(mpf(out))
    if lb is not None and ub is not None:
        return yi, ((f(mpf(ub)) - f(mpf(lb))) / (2 * z)) ** 2, "interval"
    if ub is not None:
        return yi, ((f(mpf(ub)) - yi) / z) ** 2, "upper_bound"
    return yi, (yi / qnorm(1 - mpf(pval) / 2)) ** 2, "p_value"


WALD_ROWS = [
    # out, ci_lb, ci_ub, pval, level, transf
    (0.42, 0.11, 0.73, None, 95, "none"),
    (1.85, 1.12, 3.06, None, 95, "log"),
    (0.67, 0.45, 0.99, 0.04, 95, "log"),
    (-2.3, -4.1, -0.5, None, 90, "none"),
    (2.5, 1.2, 5.2, None, 99, "log"),
    (0.35, 0.12, 0.55, None, 0.95, "atanh"),
    (1.3, None, 2.1, None, 95, "log"),
    (0.8, None, None, 0.003, 95, "none"),
    (1.6, None, None, 0.21, 95, "log"),
    (-0.25, 0.05, None, 0.5, 95, "none"),
    (0.1, None, None, 1e-12, 95, "none"),
]
wald_cases = []
for out, lb, ub, p, level, transf in WALD_ROWS:
    yi, vi, source = wald(out, lb, ub, p, level, transf)
    wald_cases.append({
        "row": {"out": out, "ci_lb": lb, "ci_ub": ub, "pval": p},
        "level": level, "transf": transf,
        "yi": num(yi), "vi": num(vi), "source": source,
    })

json.dump({
    "provenance": {
        "generator": "crates/meta-analysis/tests/oracle/convert_summaries.py",
        "packages": {"mpmath": mpmath.__version__},
        "control": {"mp.dps": 50},
        "conventions": "metafor 5.1-12's conv.fivenum (dist = 'norm', one method for mean and SD) and conv.wald; mean/sd null where the method has no formula for the case",
    },
    "fivenum": fivenum_cases,
    "wald": wald_cases,
}, sys.stdout, indent=1)
sys.stdout.write("\n")
