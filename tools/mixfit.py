#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""Fit the instruction-mix predictor's coefficients from calibration runs.

    mixfit.py MIXCAL.TXT [-o FILE] [--board NAME]

MIXCAL.TXT holds one calibration run a line, as tests/scenarios/
rig-mixcal.sh saves them (or any board's equivalent): "run NAME SIDE RATE
JSON", SIDE big or little, RATE the program's work per second alone on
that core type, JSON what `sbridgectl --json tasks --pid=PID` said of it
near the end of the run (its CPI stack and class shares).

Per core type, a non-negative least-squares fit of the compute CPI (CPI
minus stall CPI, as sbridge computes them) on the class shares gives each
term's CPI (other, ldst, int, fp, branch); a term no run exercises (the
rig counts every instruction in a class, so "other" is empty there) gets
the runs' mean compute CPI. The clock ratio is the median over the runs of
true speedup x CPI(big) / CPI(little). Both take the runs stalled less
than MAX_STALL of their cycles (all runs if none is): a memory-bound
run's compute part is a small difference of two large numbers. Every run
counts in the error. The error is the leave-one-out
relative error of the predicted speedup, at least 3 %. The output is the
file `sbridgectl set predictor` takes. Host code: floating point is fine.
"""
import argparse
import datetime
import json
import math
import statistics
import sys

import numpy as np
from scipy.optimize import nnls

TERMS = ("other", "ldst", "int", "fp", "branch")
CLASSES = TERMS[1:]
MIN_ERR = 0.03
# a term whose share never reaches this in any run is not identifiable
MIN_SHARE = 0.1
# a run stalled more than this share of its cycles on either side tells
# the compute CPIs and the clock little: its compute part is the
# difference of two large numbers, the stall the CPI stack's estimate
MAX_STALL = 0.3


def read_runs(path):
    """{name: {side: (rate, shares[5], cpi, stall)}} from a mixcal file."""
    runs: dict[str, dict] = {}
    with open(path) as f:
        for no, line in enumerate(f, 1):
            if not line.startswith("run "):
                continue
            parts = line.split(" ", 4)
            if len(parts) < 5:
                sys.exit(f"{path}:{no}: want 'run NAME SIDE RATE JSON'")
            _, name, side, rate_text, js = parts
            try:
                t = json.loads(js)["tasks"][0]
                rate = float(rate_text)
                cpi, stall = float(t["cpi"]), float(t["cpi_stall"])
                mix = [float(t["mix"][c]) for c in CLASSES]
            except (ValueError, KeyError, IndexError) as e:
                sys.exit(f"{path}:{no}: {name} {side}: no rate, CPI stack or class "
                         f"shares ({e!r}): does the source count instruction classes?")
            if side not in ("big", "little") or rate <= 0 or cpi <= 0:
                sys.exit(f"{path}:{no}: bad side or values")
            shares = [max(0.0, 1.0 - sum(mix))] + mix
            runs.setdefault(name, {})[side] = (rate, shares, cpi, stall)
    runs = {n: r for n, r in runs.items() if len(r) == 2}
    if len(runs) < 3:
        sys.exit(f"{path}: {len(runs)} programs ran on both sides; need 3 at least")
    return runs


def fit_type(rows):
    """Per-term CPI from [(shares, compute CPI)] by NNLS; see the module doc."""
    x = np.array([r[0] for r in rows])
    y = np.array([r[1] for r in rows])
    used = [k for k in range(len(TERMS)) if x[:, k].max() >= MIN_SHARE]
    coef = np.full(len(TERMS), float(y.mean()))
    sol, _ = nnls(x[:, used], y)
    for i, k in enumerate(used):
        coef[k] = sol[i]
    # a CPI of 0 is no CPI: the kernel wants every term positive
    return np.maximum(coef, 0.01)


def predict(cf, cs, clock, shares, stall_f):
    """The kernel's formula (sbridge-core/mixpred.c) in floating point."""
    c_f = float(np.dot(cf, shares))
    c_s = float(np.dot(cs, shares))
    return (c_s * clock + stall_f) / (c_f + stall_f)


def fit(runs):
    names = sorted(runs)

    def compute(n):
        return all(runs[n][side][3] <= MAX_STALL * runs[n][side][2]
                   for side in ("big", "little"))

    def one(subset):
        subset = [n for n in subset if compute(n)] or subset
        cf = fit_type([(runs[n]["big"][1], runs[n]["big"][2] - runs[n]["big"][3])
                       for n in subset])
        cs = fit_type([(runs[n]["little"][1], runs[n]["little"][2] - runs[n]["little"][3])
                       for n in subset])
        clock = statistics.median(
            runs[n]["big"][0] / runs[n]["little"][0] * runs[n]["big"][2] / runs[n]["little"][2]
            for n in subset)
        return cf, cs, clock

    cf, cs, clock = one(names)
    table, loo = [], []
    for n in names:
        true = runs[n]["big"][0] / runs[n]["little"][0]
        shares = runs[n]["little"][1]
        # predicted from the little side, as a task that starts there
        stall_f = runs[n]["little"][3] * clock
        p_in = predict(cf, cs, clock, shares, stall_f)
        rest = [m for m in names if m != n]
        lf, ls, lc = one(rest)
        p_out = predict(lf, ls, lc, shares, runs[n]["little"][3] * lc)
        loo.append((p_out - true) / true)
        table.append((n, true, p_in, p_out, shares))
    err = max(MIN_ERR, math.sqrt(sum(e * e for e in loo) / len(loo)))
    return cf, cs, clock, err, table


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("mixcal")
    ap.add_argument("-o", "--output", help="coefficient file (default: stdout)")
    ap.add_argument("--board", default="rig 1b1s", help="what the runs ran on")
    ap.add_argument("--pair", default="1/0", help="FAST/SLOW core types (sbridgectl get)")
    a = ap.parse_args()
    runs = read_runs(a.mixcal)
    cf, cs, clock, err, table = fit(runs)
    out = [f"# sbridge instruction-mix predictor coefficients: {a.board}",
           f"# fitted by tools/mixfit.py from {len(runs)} calibration programs, "
           f"{datetime.date.today().isoformat()}",
           "# apply: sbridgectl set predictor FILE; terms: other,ldst,int,fp,branch",
           "# program: true speedup, predicted (fitted with it, left out), shares "
           "ldst/int/fp/branch"]
    for n, true, p_in, p_out, sh in table:
        out.append(f"#   {n:12s} {true:5.2f} {p_in:5.2f} {p_out:5.2f}   "
                   + "/".join(f"{s:.2f}" for s in sh[1:]))
    fmt = lambda v: ",".join(f"{x:.4f}" for x in v)  # noqa: E731
    out.append(f"pair {a.pair} clock={clock:.4f} err={err:.3f} fast={fmt(cf)} slow={fmt(cs)}")
    text = "\n".join(out) + "\n"
    if a.output:
        with open(a.output, "w") as f:
            f.write(text)
    sys.stdout.write(text)


if __name__ == "__main__":
    main()
