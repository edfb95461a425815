"""PyMARE on the 19 frozen records: meta_regression(method="REML").

Usage: python3 pymare_bench.py (not pymare.py: it would shadow the package) K19_CSV. Prints "key value" lines; "absent <reason>"
when PyMARE cannot be imported (the bench never installs it).
"""

import csv
import statistics
import sys
import time

try:
    import numpy as np
    import pymare
    from pymare import meta_regression
except ImportError as err:
    print(f"absent PyMARE cannot be imported ({err})")
    sys.exit(0)

with open(sys.argv[1], newline="") as f:
    rows = list(csv.DictReader(f))
y = np.array([float(r["yi"]) for r in rows])
v = np.array([float(r["vi"]) for r in rows])


def fit():
    return meta_regression(y, v, method="REML")


result = fit()
batches = []
for _ in range(5):
    t = time.perf_counter()
    for _ in range(40):
        fit()
    batches.append((time.perf_counter() - t) * 1000 / 40)
print("version", pymare.__version__)
print("tau2_k19", float(np.ravel(result.tau2)[0]))
print("fit_k19_ms", statistics.median(batches))
