#!/usr/bin/env python3
"""Where a measured speedup came from: the estimation groups' windows.

    bench/eval/estwin.py [build/eval/1b3s ...]

Reads a `make eval` run made with `run.py --est-record` (est-GROUP-VARIANT.rec
in its boots: sbridge_window of every task while the estimation groups ran)
and, per program, sets what the windows say beside the truth (alone, the
rig's modelled time) and what sbridge reported (the median of the processes'
measured speedups at the last checkpoint):

- warm windows on each type and the share of cold and start-up ones;
- pooled: the ratio of the geometric mean time per instruction of every
  warm window on the little type over the big one, over all processes;
- per process: the same ratio for each process with at least MIN_WIN warm
  windows on both types (sbridge measures per process), median [min, max];
- the share of the program's warm little-core windows whose time per
  instruction is more than twice the median of its big-core ones
  times the truth: windows no core-type difference explains.

Then the measurement replayed on the same windows with other statistics
in place of the mean of logs (per process and phase, as sbridge
measures): an estimator change judged on one set of windows, without
the spread between runs (docs/estimate.md, "How much one run says").

A diagnosis for issue 27 (docs/estimate.md), not a benchmark: the recorder
runs on a little CPU beside the programs.
"""
from __future__ import annotations

import math
import statistics
import sys
from collections import defaultdict
from pathlib import Path

HERE = Path(__file__).resolve().parent
for _p in (HERE, HERE.parents[1] / "tools"):  # report.py; the reader, tools/sbridgeplot
    if str(_p) not in sys.path:
        sys.path.insert(0, str(_p))

import report  # noqa: E402
from report import gmean  # noqa: E402
from sbridgeplot import record  # noqa: E402

MIN_WIN = 2  # SBRIDGE_EST_MIN_WIN: windows per type before a phase compares


def prog_of_pids(groups):
    """{pid: prog} from the PIDs the checkpoints named (est.txt)."""
    byname = {}
    for g in groups:
        for plist in g["pids"].values():
            for _slot, prog, pid, kids in plist:
                for p in [pid, *kids]:
                    byname[p] = prog
    return byname


def windows(rec, pid_prog):
    """{prog: {"big"|"little": {pid: [(kind, tpi, phase, share)]}}} of one record; a PID
    the checkpoints did not name is placed by its comm, where one named
    PID of that comm says which program it is."""
    comm_prog: dict[str, str] = {}
    evs = rec.named("sbridge_window")
    for e in evs:
        if e.f["pid"] in pid_prog:
            comm_prog.setdefault(e.f["comm"], pid_prog[e.f["pid"]])
    out: dict = defaultdict(lambda: defaultdict(lambda: defaultdict(list)))
    for e in evs:
        prog = pid_prog.get(e.f["pid"]) or comm_prog.get(e.f["comm"])
        ty = rec.type_name(e.f["type"])
        if prog and ty in ("big", "little"):
            out[prog][ty][e.f["pid"]].append((e.f["kind"], e.f["tpi"], e.f["phase"],
                                              e.f["share"] / 1000))
    return out


def measured(groups):
    """{prog: median measured speedup at the last checkpoint} (default predictor)."""
    last = defaultdict(list)
    for g in groups:
        if g.get("variant", "eq3") != "eq3" or not g["pids"]:
            continue
        t = max(g["pids"])
        tasks = {x.get("pid"): x for x in g["tasks"].get(t, [])}
        for _slot, prog, pid, kids in g["pids"][t]:
            cand = [tasks[k] for k in kids if k in tasks] or ([tasks[pid]] if pid in tasks else [])
            if cand:
                x = max(cand, key=lambda y: y.get("runtime_ns", 0))
                if "speedup_meas" in x:
                    last[prog].append(float(x["speedup_meas"]))
    return {p: statistics.median(v) for p, v in last.items() if v}


def collect(d):
    """(truth, measured, windows) of run directory @d: windows as
    {prog: {type: {(file, pid): [(kind, tpi, phase, share)]}}}."""
    meta, boots = report.load_board(d)
    slow = meta.get("slowdown") or report.SLOWDOWN
    times = report.alone_times(boots, slow)
    truth = {p: t["little"]["model"] / t["big"]["model"] for p, t in times.items()
             if t["big"]["model"] > 0}
    acc: dict = defaultdict(lambda: defaultdict(lambda: defaultdict(list)))
    groups: list = []
    for b in boots:
        groups += b["est"]
        pid_prog = prog_of_pids(b["est"])
        for f in sorted(b["dir"].glob("est-*-eq3.rec")):
            for prog, by in windows(record.parse(f), pid_prog).items():
                for ty, pids in by.items():
                    for pid, ws in pids.items():
                        acc[prog][ty][(f.name, pid)] += ws
    return truth, measured(groups), acc


def rows(data):
    """Per program, what the windows say; @data is collect()'s."""
    truth, meas, acc = data
    out = []
    for prog in sorted(acc):
        by = acc[prog]
        warm = {ty: [t for ws in by[ty].values() for k, t, *_ in ws if k == "warm" and t > 0]
                for ty in ("big", "little")}
        nall = {ty: sum(len(ws) for ws in by[ty].values()) for ty in ("big", "little")}
        pooled = gmean(warm["little"]) / gmean(warm["big"]) if warm["big"] and warm["little"] \
            else float("nan")
        per = []
        for key in set(by["big"]) & set(by["little"]):
            wb = [t for k, t, *_ in by["big"][key] if k == "warm" and t > 0]
            wl = [t for k, t, *_ in by["little"][key] if k == "warm" and t > 0]
            if len(wb) >= MIN_WIN and len(wl) >= MIN_WIN:
                per.append(gmean(wl) / gmean(wb))
        tr = truth.get(prog)
        odd = float("nan")
        if tr and warm["big"] and warm["little"]:
            lim = 2 * statistics.median(warm["big"]) * tr
            odd = sum(t > lim for t in warm["little"]) / len(warm["little"])
        out.append(dict(prog=prog, truth=tr, meas=meas.get(prog), pooled=pooled,
                        per=per, nbig=len(warm["big"]), nlittle=len(warm["little"]),
                        unwarm={ty: 1 - len(warm[ty]) / nall[ty] if nall[ty] else float("nan")
                                for ty in ("big", "little")}, odd=odd))
    return out


def quantile(xs, q):
    xs = sorted(xs)
    return xs[min(len(xs) - 1, int(q * len(xs)))]


def shifted(c):
    """The mean of logs less @c of their mean absolute deviation
    (learn.tpi_shift = 1000 @c, with the phase's own spread)."""
    def agg(xs):
        ls = [math.log(x) for x in xs]
        m = sum(ls) / len(ls)
        return math.exp(m - c * sum(abs(v - m) for v in ls) / len(ls))
    return agg


def share_on_fast(s, gain=1.0):
    """sbridge_share_on_fast(): a little-type CPI_B share @s as the same
    code shows it on a type whose non-stalled cycles are 1 + @gain faster
    (the rig's boards: 2x)."""
    return s / (s + (1 + gain) * (1 - s)) if s < 1 else 1.0


# what a phase's windows on one type are summed up by: sbridge's (its
# accumulators keep the mean of log2 times per instruction), and robust
# ones; and a phase compared only where its two types' shares can be one
# code (the big windows' mean share at most SHARE_TOL above what the
# little windows' mean share becomes on the big type)
SHARE_TOL = 0.3
AGGS = {
    "mean of logs (sbridge's)": (gmean, None),
    "mean less 0.845 spread (learn.tpi_shift=845)": (shifted(0.845), None),
    "median": (statistics.median, None),
    "25th percentile": (lambda xs: quantile(xs, 0.25), None),
    f"mean of logs, phases whose shares disagree by > {SHARE_TOL} left out": (gmean, SHARE_TOL),
}


def replay(acc, agg, share_tol=None):
    """{prog: estimate}: the measurement replayed on recorded windows with
    @agg for each side: per process and phase, @agg of the warm little
    windows' times per instruction over the big ones' where each side has
    MIN_WIN, the phases weighted by the smaller count (sbridge's extra
    weight of the current phase left out), the median over processes.
    With @share_tol a phase whose big windows' mean share exceeds
    share_on_fast() of its little ones' by more is left out (different
    code the phase tracker put together)."""
    est = defaultdict(list)
    for prog, by in acc.items():
        for key in set(by["big"]) & set(by["little"]):
            side: dict = {}
            shares: dict = {}
            for ty in ("big", "little"):
                side[ty] = defaultdict(list)
                shares[ty] = defaultdict(list)
                for k, t, ph, sh in by[ty][key]:
                    if k == "warm" and t > 0:
                        side[ty][ph].append(t)
                        shares[ty][ph].append(sh)
            num = den = 0.0
            for ph in set(side["big"]) & set(side["little"]):
                b, lt = side["big"][ph], side["little"][ph]
                if share_tol is not None and (statistics.mean(shares["big"][ph]) - share_on_fast(
                        statistics.mean(shares["little"][ph])) > share_tol):
                    continue
                if len(b) >= MIN_WIN and len(lt) >= MIN_WIN:
                    w = min(len(b), len(lt))
                    num += w * math.log(agg(lt) / agg(b))
                    den += w
            if den:
                est[prog].append(math.exp(num / den))
    return {p: statistics.median(v) for p, v in est.items()}


def variants(data):
    """Each statistic of AGGS replayed on the windows of @data
    (collect()'s), scored as the report scores sbridge's estimates
    (report.estimation())."""
    truth, _meas, acc = data
    out = []
    for name, (agg, tol) in AGGS.items():
        est = replay(acc, agg, tol)
        ps = sorted(p for p in est if p in truth)
        if len(ps) < 2:
            continue
        tr, es = [truth[p] for p in ps], [est[p] for p in ps]
        err = [abs(e / t - 1) for e, t in zip(es, tr)]
        out.append(dict(name=name, n=len(ps), mae=statistics.mean(err), worst=max(err),
                        worst_prog=ps[err.index(max(err))],
                        order=report.order_accuracy(tr, es),
                        order10=report.order_accuracy(tr, es, report.ORDER_GAP)))
    return out


def fmt(x, d=2):
    return "n/a" if x is None or (isinstance(x, float) and not math.isfinite(x)) else f"{x:.{d}f}"


def main(dirs):
    for d in dirs:
        print(f"## {d}\n")
        print("| program | truth | sbridge measured | pooled windows | per process: median "
              "[min, max] (n) | warm windows big / little | not warm big / little "
              "| little windows > 2x |")
        print("|---|---|---|---|---|---|---|---|")
        data = collect(Path(d))
        for r in rows(data):
            per = r["per"]
            ps = (f"{fmt(statistics.median(per))} [{fmt(min(per))}, {fmt(max(per))}] "
                  f"({len(per)})" if per else "n/a (0)")
            print(f"| {r['prog']} | {fmt(r['truth'])} | {fmt(r['meas'])} | {fmt(r['pooled'])} "
                  f"| {ps} | {r['nbig']} / {r['nlittle']} | {fmt(r['unwarm']['big'])} / "
                  f"{fmt(r['unwarm']['little'])} | {fmt(r['odd'])} |")
        print(f"\nReplayed on these windows (per process and phase, >= {MIN_WIN} warm "
              "windows a side):\n")
        print(f"| statistic | programs | MAE | worst (program) | pairwise order | order, pairs "
              f"{int(report.ORDER_GAP * 100)} % apart |")
        print("|---|---|---|---|---|---|")
        for v in variants(data):
            print(f"| {v['name']} | {v['n']} | {fmt(v['mae'] * 100, 1)} % | "
                  f"{fmt(v['worst'] * 100, 0)} % ({v['worst_prog']}) | {fmt(v['order'])} | "
                  f"{fmt(v['order10'])} |")
        print()
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:] or [str(report.TOP / "build" / "eval" / "1b3s")]))
