"""Starvation and the plan's promise, per evaluation mix (issue 29).

- **Starvation**: every program's progress rate against its equal-share
  rate (docs/policy.md): a program with speedup s = little / big time
  alone does its work, W = its time alone on a little core, in T seconds
  in the mix: rate W / T. Its equal-share rate is c (F s + S) / (F + S) on
  F fast and S slow CPUs, c its CPU share: here the mean over its time in
  the mix of min(1, CPUs / programs still running) (what an equal share
  of the board would give it while the others of the mix ran). Issue 29
  asks every ratio >= 0.8 (act.fair) in every mix.
- **The plan's promise**: tests/unit/plansim (sbridge-core/plan.c built for
  the host) given the mix's programs with their measured alone speedups
  and work: its predicted STP, finish times and fast shares, to print
  beside what the rig measured.
"""
from __future__ import annotations

import subprocess
from dataclasses import dataclass
from pathlib import Path

TOP = Path(__file__).resolve().parents[2]
UNIT = TOP / "tests" / "unit"
FAIR = 0.8  # act.fair's default: the bound issue 29 states


@dataclass
class Proc:
    """One program of a mix run: its name and its start and end (s)."""

    prog: str
    start: float
    end: float


def cpu_share(procs: list[Proc], i: int, ncpu: int) -> float:
    """Mean over procs[i]'s run of min(1, ncpu / programs running)."""
    me = procs[i]
    if me.end <= me.start:
        return float("nan")
    cuts = sorted({me.start, me.end} | {t for p in procs for t in (p.start, p.end)
                                        if me.start < t < me.end})
    acc = 0.0
    for a, b in zip(cuts, cuts[1:]):
        mid = (a + b) / 2
        n = sum(1 for p in procs if p.start <= mid < p.end)
        acc += min(1.0, ncpu / max(n, 1)) * (b - a)
    return acc / (me.end - me.start)


def fairness(procs: list[Proc], alone: dict[str, dict[str, float]], nfast: int,
             nslow: int) -> list[float]:
    """Each program's progress rate / its equal-share rate (nan: no alone time)."""
    out = []
    for i, p in enumerate(procs):
        t = alone.get(p.prog)
        if not t or p.end <= p.start:
            out.append(float("nan"))
            continue
        s = t["little"] / t["big"]
        c = cpu_share(procs, i, nfast + nslow)
        eq = c * (nfast * s + nslow) / (nfast + nslow)
        out.append(t["little"] / (p.end - p.start) / eq)
    return out


@dataclass
class Promise:
    """plansim's output for one mix."""

    stp: float
    makespan: float
    fast_busy: float  # the fast cores' planned busy share over the makespan
    finish: list[float]  # per program, in input order (s)
    fast: list[float]  # per program: share of its time planned on the fast type
    x0: list[float]  # per program: its first plan's fast share (of one CPU)


_BUILT: dict[str, str] = {}


def plansim_path() -> Path:
    """tests/unit/plansim, built once per process (make; CalledProcessError if not)."""
    if "ok" not in _BUILT:
        subprocess.run(["make", "-s", "-C", str(UNIT), "plansim"], check=True,
                       capture_output=True, text=True)
        _BUILT["ok"] = "1"
    return UNIT / "plansim"


def promise(progs: list[str], alone: dict[str, dict[str, float]], nfast: int,
            nslow: int) -> Promise | None:
    """The plan's promise for @progs (every one needs alone times), or None."""
    if not progs or not all(p in alone for p in progs):
        return None
    lines = "".join(f"{p} {alone[p]['little'] / alone[p]['big']:.6f} {alone[p]['little']:.6f}\n"
                    for p in progs)
    q = subprocess.run([str(plansim_path()), str(nfast), str(nslow)], input=lines,
                       capture_output=True, text=True, check=True)
    finish, fast, x0 = [], [], []
    stp = makespan = busy = float("nan")
    for ln in q.stdout.splitlines():
        f = ln.split()
        if f[0] == "task":
            x0.append(float(f[3]))
            finish.append(float(f[5]))
            fast.append(float(f[6]))
        elif f[0] == "mix":
            stp, makespan, busy = float(f[1]), float(f[2]), float(f[3])
    return Promise(stp, makespan, busy, finish, fast, x0)
