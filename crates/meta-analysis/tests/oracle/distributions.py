#!/usr/bin/env python3
"""High-precision (mpmath, 50 digits) reference values for the distribution
functions used by the meta-analysis engine.

Usage (from the repository root):
    python3 crates/meta-analysis/tests/oracle/distributions.py \
        > crates/meta-analysis/tests/fixtures/distributions.json

Every value is computed with mp.dps = 50 and then emitted twice:
  * as a JSON number: the correctly rounded IEEE-754 double (Python repr,
    i.e. shortest round-trip form, <= 17 significant digits), so it parses
    back to exactly that double (tails below the double range become 0.0);
  * as "<field>_dec": a decimal string with 17 significant digits of the
    exact (50-digit) value.
Input arguments (x, p, df) are exact binary doubles; mpf(float) is exact.
"""
import json
import sys

import mpmath
from mpmath import mp, mpf

mp.dps = 50


def num(v):
    """Correctly rounded double of an mpf, printed with 17 significant digits."""
    f = float(v)  # mpmath rounds to nearest double
    return float("%.17g" % f)


def dec(v):
    return mpmath.nstr(v, 17, min_fixed=-4, max_fixed=17, strip_zeros=False)


def pair(name, v):
    return {name: num(v), name + "_dec": dec(v)}


# ---------------------------------------------------------------- normal
def ncdf(x):
    x = mpf(x)
    return mpmath.erfc(-x / mpmath.sqrt(2)) / 2


def nsf(x):
    x = mpf(x)
    return mpmath.erfc(x / mpmath.sqrt(2)) / 2


def bisect(f, target, lo, hi, iters=400):
    """Increasing f; find x with f(x) = target by bisection (high precision)."""
    lo, hi = mpf(lo), mpf(hi)
    assert f(lo) <= target <= f(hi), (lo, hi, target)
    for _ in range(iters):
        mid = (lo + hi) / 2
        if mid == lo or mid == hi:
            break
        if f(mid) < target:
            lo = mid
        else:
            hi = mid
    return (lo + hi) / 2


def nquantile(p):
    p = mpf(p)
    if p == mpf("0.5"):
        return mpf(0)
    if p < mpf("0.5"):
        # work with log for tiny tails (monotone, well conditioned)
        lp = mpmath.log(p)
        return bisect(lambda x: mpmath.log(ncdf(x)), lp, -45, 0)
    else:
        # upper half: use the survival function q = 1-p exactly
        q = 1 - p  # exact in mp precision since p is a double
        lq = mpmath.log(q)
        return bisect(lambda x: -mpmath.log(nsf(x)), -lq, 0, 45)


# ---------------------------------------------------------------- Student t
def tcdf(x, df):
    x, df = mpf(x), mpf(df)
    if x == 0:
        return mpf("0.5")
    tail = mpmath.betainc(df / 2, mpf("0.5"), 0, df / (df + x * x), regularized=True) / 2
    return tail if x < 0 else 1 - tail


def tsf(x, df):
    return tcdf(-mpf(x), df)


def tquantile(p, df):
    p = mpf(p)
    if p == mpf("0.5"):
        return mpf(0)
    if p < mpf("0.5"):
        return bisect(lambda x: tcdf(x, df), p, -1e6, 0)
    q = 1 - p
    # upper tail: -sf is increasing in x
    return bisect(lambda x: -tsf(x, df), -q, 0, 1e6)


# ---------------------------------------------------------------- chi-square
def chi2cdf(x, df):
    return mpmath.gammainc(mpf(df) / 2, 0, mpf(x) / 2, regularized=True)


def chi2sf(x, df):
    return mpmath.gammainc(mpf(df) / 2, mpf(x) / 2, mpmath.inf, regularized=True)


def chi2quantile(p, df):
    p = mpf(p)
    if p <= mpf("0.5"):
        return bisect(lambda x: chi2cdf(x, df), p, 0, 1e4)
    q = 1 - p
    return bisect(lambda x: -chi2sf(x, df), -q, 0, 1e4)


def fsf(x, df1, df2):
    x, df1, df2 = mpf(x), mpf(df1), mpf(df2)
    return mpmath.betainc(df2 / 2, df1 / 2, 0, df2 / (df2 + df1 * x), regularized=True)


def main():
    out = {
        "generator": "crates/meta-analysis/tests/oracle/distributions.py",
        "mpmath_version": mpmath.__version__,
        "dps": mp.dps,
        "format": "numbers are correctly rounded doubles printed with %.17g; *_dec are 17-significant-digit decimal strings of the 50-digit value",
    }

    # normal cdf / sf
    xs = set(float(i) for i in range(-38, 39))
    for a in [1e-10, 0.5, 1.6208, 1.96, 5.0, 8.3, 10.0, 20.0, 37.0, 0.1, 2.5, 3.0, 6.0]:
        xs.add(a)
        xs.add(-a)
    rows = []
    for x in sorted(xs):
        r = {"x": x}
        r.update(pair("cdf", ncdf(x)))
        r.update(pair("sf", nsf(x)))
        rows.append(r)
    out["normal_cdf"] = rows

    # normal quantile
    ps = [1e-300, 1e-100, 1e-20, 1e-10, 1e-5, 0.001, 0.025, 0.05, 0.1, 0.3, 0.5,
          0.7, 0.9, 0.95, 0.975, 0.995, 0.999, 1 - 1e-10]
    rows = []
    for p in ps:
        q = nquantile(p)
        r = {"p": p, "p_dec": dec(mpf(p))}
        r.update(pair("q", q))
        rows.append(r)
    out["normal_quantile"] = rows

    # t cdf
    dfs = [1, 2, 2.5, 3, 4, 10, 17, 18, 30, 100, 1000]
    txs = [-50, -10, -3, -2.1, -1, -0.1, 0, 0.5, 1.5, 2.0, 2.0930, 4, 12, 100]
    rows = []
    for df in dfs:
        for x in txs:
            r = {"x": float(x), "df": float(df)}
            r.update(pair("cdf", tcdf(x, df)))
            r.update(pair("sf", tsf(x, df)))
            rows.append(r)
    out["t_cdf"] = rows

    # t quantile
    rows = []
    for df in [1, 2, 3, 5, 10, 17, 18, 100, 1000]:
        for p in [0.005, 0.025, 0.05, 0.95, 0.975, 0.995]:
            r = {"p": p, "df": float(df)}
            r.update(pair("q", tquantile(p, df)))
            rows.append(r)
    out["t_quantile"] = rows

    # chi-square
    rows = []
    for df in [1, 2, 5, 17, 18, 99, 299, 1000]:
        for x in [0.001, 0.5, 1, 5, 17, 18, 35.8295, 100, 300, 1100, 2000]:
            sf = chi2sf(x, df)
            if sf < mpf("1e-300"):
                continue
            r = {"x": float(x), "df": float(df)}
            r.update(pair("sf", sf))
            r.update(pair("cdf", chi2cdf(x, df)))
            rows.append(r)
    out["chi2_sf"] = rows

    # chi-square quantile (the Q-profile's critical values)
    rows = []
    for df in [1, 2, 4, 7, 17, 18, 28, 100]:
        for p in [1e-8, 0.005, 0.025, 0.05, 0.5, 0.95, 0.975, 0.995]:
            r = {"p": p, "df": float(df)}
            r.update(pair("q", chi2quantile(p, df)))
            rows.append(r)
    out["chi2_quantile"] = rows

    # F upper tail (QM under Knapp-Hartung)
    rows = []
    for df1 in [1, 2, 3, 5]:
        for df2 in [2, 5, 17, 25, 200]:
            for x in [0.01, 0.5, 1.0, 2.5, 6.2, 19.7, 60.0]:
                r = {"x": float(x), "df1": float(df1), "df2": float(df2)}
                r.update(pair("sf", fsf(x, df1, df2)))
                rows.append(r)
    out["f_sf"] = rows

    json.dump(out, sys.stdout, indent=1)
    sys.stdout.write("\n")


if __name__ == "__main__":
    main()
