"""
Fits the conversion budget's model (libs/converters/src/split/conversion-budget.ts, WHOLE_MODEL)
to bench/budget-calibration.json:

    ms = base + row_ms * (rows / 1000) ** row_exp + merged_ms * (merged_cells / 1000) ** merged_exp

First the documents without merged cells (base, row_ms, row_exp), then the merged cells' share of
the others. Each coefficient is the least error in log space (every size weighs alike) that keeps
every measurement's prediction under CAP times its time: the service refuses at REFUSE_MARGIN
(1.5) times the limit, so no calibration document that finished in T is refused for a limit of T,
with room for noise. A grid over the exponents; numpy only.

    python3 bench/budget_fit.py [bench/budget-calibration.json]
"""
import json
import math
import sys

import numpy as np

CAP = 1.25


def largest_coefficient(fixed, x, t, guess):
    """The largest c with max((fixed + c * x) / t) <= CAP, no larger than `guess` (bisection)."""
    lo, hi = 0.0, guess * 4
    for _ in range(60):
        mid = (lo + hi) / 2
        if ((fixed + mid * x) / t).max() <= CAP:
            lo = mid
        else:
            hi = mid
    return min(guess, lo)


def main():
    path = sys.argv[1] if len(sys.argv) > 1 else "bench/budget-calibration.json"
    points = json.load(open(path))["measurements"]
    rows = np.array([p["rows"] for p in points], float) / 1000
    merged = np.array([p["mergedCells"] for p in points], float) / 1000
    t = np.array([p["measured_ms"] for p in points], float)
    plain = merged == 0

    best = None
    for base in range(0, 301, 50):
        for row_exp in np.arange(1.0, 3.001, 0.02):
            x, y = rows[plain] ** row_exp, t[plain] - base
            if (y <= 0).any():
                continue
            guess = math.exp(np.mean(np.log(y) - np.log(x)))
            c = largest_coefficient(base, x, t[plain], guess)
            err = np.sqrt(np.mean(np.log((base + c * x) / t[plain]) ** 2))
            if best is None or err < best[0]:
                best = (err, base, row_exp, c)
    _, base, row_exp, row_ms = best

    m = ~plain
    fixed = base + row_ms * rows[m] ** row_exp
    best_m = None
    for merged_exp in np.arange(1.0, 4.001, 0.02):
        x, y = merged[m] ** merged_exp, t[m] - fixed
        ok = y > 0
        guess = math.exp(np.mean(np.log(y[ok]) - np.log(x[ok])))
        c = largest_coefficient(fixed, x, t[m], guess)
        err = np.sqrt(np.mean(np.log((fixed + c * x) / t[m]) ** 2))
        if best_m is None or err < best_m[0]:
            best_m = (err, merged_exp, c)
    _, merged_exp, merged_ms = best_m

    print(
        f"baseMs: {base}, rowMs: {row_ms:.0f}, rowExponent: {row_exp:.2f}, "
        f"mergedMs: {merged_ms:.0f}, mergedExponent: {merged_exp:.2f}"
    )
    ratios = {}
    for p, r, v, ms in zip(points, rows, merged, t):
        pred = base + row_ms * r**row_exp + merged_ms * v**merged_exp
        ratios.setdefault(p["shape"], []).append(pred / ms)
        print(f"{p['shape']:10} {p['rows']:6} measured {ms / 1000:7.2f} s  predicted {pred / 1000:7.2f} s  {pred / ms:.2f}")
    for shape, rs in ratios.items():
        rms = math.sqrt(sum(math.log(r) ** 2 for r in rs) / len(rs))
        print(f"{shape:10} predicted/measured {min(rs):.2f}-{max(rs):.2f}, rms log error {rms:.2f}")


if __name__ == "__main__":
    main()
