#!/usr/bin/env python3
"""What holding the big CPU is worth when programs end: a fluid model.

    bench/eval/finite.py [build/eval/1b3s ...]

For every main-phase mix of a `make eval` run with no more programs than
CPUs (each program has a CPU of its own, so the only question is which
one runs on the fast type), replays the mix from the programs' alone
times under a few rules for who holds the fast CPUs, and sets the STP
each rule gives (sum of alone-on-big time over time in the mix) beside
the STP measured for each configuration in the same mix:

- share equally: every running program gets the same part of the fast
  CPUs' time (what sbridge's plan does for equal programs);
- highest speedup: the programs with the largest alone speedup hold them;
- least remaining: the programs with the least remaining work (in
  fast-CPU seconds) hold them, as shortest-remaining-time-first does.

The model is fluid and free: no migration or cache cost, no sharing of a
CPU, no estimation error; the programs' work is known. It says what the
rule is worth, not what sbridge can reach (docs/policy.md, "Where the rig
says sbridge loses to stock"). A diagnosis, not a benchmark.
"""
from __future__ import annotations

import csv
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
if str(HERE) not in sys.path:
    sys.path.insert(0, str(HERE))

import report  # noqa: E402
from boards import BOARDS  # noqa: E402

DT = 0.002  # model step, s


def hold_equal(run, nfast, _big, _little, _rem):
    """Each running program's part of the fast CPUs' time."""
    return {p: min(1.0, nfast / len(run)) for p in run}


def hold_speedup(run, nfast, big, little, _rem):
    return {p: 1.0 for p in sorted(run, key=lambda p: -little[p] / big[p])[:nfast]}


def hold_least_remaining(run, nfast, big, _little, rem):
    return {p: 1.0 for p in sorted(run, key=lambda p: rem[p] * big[p])[:nfast]}


RULES = {
    "share equally": hold_equal,
    "highest speedup": hold_speedup,
    "least remaining": hold_least_remaining,
}


def replay(big, little, nfast, rule):
    """(STP, makespan) of programs with alone times @big and @little (s,
    one CPU each) when @rule says who holds the @nfast fast CPUs."""
    rem = {p: 1.0 for p in big}
    done = {}
    now = 0.0
    while rem:
        run = sorted(rem)
        part = rule(run, nfast, big, little, rem)
        for p in run:
            f = part.get(p, 0.0)
            rem[p] -= (f / big[p] + (1.0 - f) / little[p]) * DT
        now += DT
        for p in [p for p in rem if rem[p] <= 0]:
            done[p] = now
            del rem[p]
    return sum(big[p] / done[p] for p in big), max(done.values())


def mixes(d, ncpu):
    """{(boot, round, mix): {"progs": [program], "stp": {config: STP}}}
    of run @d's main-phase mixes with at most @ncpu programs."""
    out: dict = {}
    for u in csv.DictReader((d / "units.csv").open()):
        progs = u["progs"].split()
        if u["phase"] != "main" or len(progs) > ncpu or u["ok"] != "True":
            continue
        m = out.setdefault((u["boot"], u["round"], u["mix"]), dict(progs=progs, stp={}))
        m["stp"][u["config"]] = float(u["stp"])
    return out


def table(d):
    meta, boots = report.load_board(d)
    times = report.alone_times(boots, meta.get("slowdown") or report.SLOWDOWN)
    b = BOARDS[meta["board"]]
    nfast = len(b["big"].split())
    ncpu = nfast + len(b["little"].split())
    rows = []
    for (boot, rnd, mix), m in sorted(mixes(d, ncpu).items()):
        progs = [p for p in m["progs"] if p in times]
        if len(progs) != len(m["progs"]):
            continue
        big = {p: times[p]["big"]["wall"] for p in progs}
        little = {p: times[p]["little"]["wall"] for p in progs}
        model = {name: replay(big, little, nfast, rule) for name, rule in RULES.items()}
        rows.append((f"{boot}/{rnd}/{mix}", progs, model, m["stp"]))
    return rows


def best_over(rows, config="cap"):
    """Per mix, the best rule's STP over the STP @config measured there, and
    their geometric mean (None without such a mix): what a placement that
    knew every program's work and paid nothing to move would add over
    @config in these mixes. A yardstick, not a bound: the model leaves out
    what company does to a program (shared caches, the kernel's own
    work), so a measured configuration can come out above it."""
    ratios = [max(m[0] for m in model.values()) / stp[config]
              for _, _, model, stp in rows if stp.get(config)]
    if not ratios:
        return [], None
    return ratios, report.gmean(ratios)


def main(argv):
    for arg in argv or ["build/eval/1b3s"]:
        d = Path(arg)
        rows = table(d)
        print(f"## {d}\n")
        if not rows:
            print("no main-phase mix with no more programs than CPUs\n")
            continue
        confs = sorted({c for r in rows for c in r[3]})
        print("| boot/round/mix | programs | " + " | ".join(f"model: {n}" for n in RULES) +
              " | " + " | ".join(f"measured: {c}" for c in confs) + " |")
        print("|---" * (2 + len(RULES) + len(confs)) + "|")
        for name, progs, model, stp in rows:
            print(f"| {name} | {' '.join(progs)} | " +
                  " | ".join(f"{model[n][0]:.3f}" for n in RULES) + " | " +
                  " | ".join(f"{stp[c]:.3f}" if c in stp else "-" for c in confs) + " |")
        print()
        ratios, gm = best_over(rows)
        if gm is not None:
            print("The best rule over stock (cap) as measured, per mix: " +
                  ", ".join(f"{r:.3f}" for r in ratios) + f"; geometric mean {gm:.3f}: "
                  "what placement knowing every program's work, moving for free, "
                  "would add over the stock scheduler in these mixes (a yardstick, "
                  "not a bound: the model has no company effects).\n")


if __name__ == "__main__":
    main(sys.argv[1:])
