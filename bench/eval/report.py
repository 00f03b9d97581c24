"""The evaluation's numbers: paired ratios with bootstrap intervals, STP and
ANTT, the static oracle and the preemptive bound, the estimation benchmark,
overhead from the rig's counters, latency, and pictures.

Reads what bench/eval/guest.sh measured (build/eval/<board>/boot*/), as
bench/eval/run.py laid it out, and writes build/eval/<board>/summary.md,
summary.json, CSV files and PNGs. Every ratio compares runs of one round
of one boot (paired); intervals come from a hierarchical bootstrap (boots,
then rounds within a boot).
"""
import csv
import itertools
import json
import math
import re
import statistics
import subprocess
import sys
from collections import defaultdict
from pathlib import Path

TOP = Path(__file__).resolve().parents[2]
if str(TOP / "bench" / "eval") not in sys.path:  # python3 bench/eval/report.py
    sys.path.insert(0, str(TOP / "bench" / "eval"))

import conserve  # noqa: E402
import promise  # noqa: E402
from boards import BOARDS  # noqa: E402

# A run is rejected when, on its worst CPU, the host could not keep the
# rig's pace for more than this share of the run (the rig's lag_ns).
LAG_MAX = 0.02
SLOWDOWN = 50          # tools/rig/rig.conf: wall ns per modelled ns (run.py --slowdown: meta)
BOOTSTRAP = 4000
# The estimation benchmark's second order: of the pairs whose truths differ
# by at least this much (closer ones the decision layer takes as ties:
# act.margin, docs/policy.md)
ORDER_GAP = 0.10
ORDER_ERRS = (0.05, 0.10, 0.20)
STOCK = {"cap": "cap", "sym": "sym"}   # the stock configuration per boot kind
# the configurations where sbridge's decision layer places tasks
SB_DECIDES = ("sbridge", "sbeas", "nomargin", "nomodel", "nosample", "nofair", "truths", "warm")
NAMES = {
    "cap": "stock, capacity-aware (asymmetric capacities: misfit, capacity-aware wakeup)",
    "sym": "stock, symmetric kernel (no capacities: the paper's CFS)",
    "eas": "EAS (energy model + schedutil; see its overutilized share)",
    "sbeas": "sbridge, cold, shipped defaults, over EAS (see its overutilized share)",
    "hmp": "ARM HMP (user-space daemon: up 700 / down 512 load thresholds)",
    "nomargin": "sbridge choosing on any difference (act.margin 0: no ties left to stock, ablation)",
    "nomodel": "sbridge without the model (act.model 0, ablation)",
    "nosample": "sbridge without sampling swaps (act.sample_pct 0, ablation)",
    "nofair": "sbridge without fairness floors (act.fair 0: no turns owed, ablation)",
    "truths": "sbridge told each program's alone speedup as a rule (no estimates; a limit)",
    "observe": "sbridge observing only (act.observe 1: hooks, counters, matrix; no lever; ablation)",
    "sbridge": "sbridge, cold, shipped defaults",
    "warm": "sbridge, warm (matrix from calibration inputs)",
    "scx": "scx_sbridge (sched_ext) over sbridge cold, shipped defaults",
}
# {slow}: the rig's slowdown (rig.conf's 50 unless run.py --slowdown)
RIG_LIMITS = ("rig: emulated cores (tools/rig), times in rig wall seconds ({slow} x modelled); "
              "clocks from the rig's cpufreq driver (rig_cpufreq), sbridge measures them with "
              "the rig's counters; energy is the rig's model, not a board's")
# results from before the rig had clocks (bench/results of older commits)
RIG_LIMITS_OLD = ("rig: emulated cores (tools/rig), times in rig wall seconds ({slow} x modelled); "
                  "no energy is measured; EAS's OPPs do not change the emulated clock")
X86_LIMIT = ("x86: the rig gives the guest no clocks (no cpufreq, no APERF/MPERF under TCG): "
             "sbridge's measured speedup cannot see the 2:1 clock ratio")


# ---------------------------------------------------------------- parsing

def parse_runs(text):
    """Blocks of guest.sh's run(): [{kind, config, round, mix, procs, ...}]."""
    out, cur = [], None
    for line in text.splitlines():
        f = line.split()
        if not f:
            continue
        if f[0] in ("run", "alone"):
            cur = dict(head=f[0], kind=f[1], config=f[2], round=f[3], mix=f[4] if len(f) > 4 else "",
                       procs=[], ctr={0: {}, 1: {}}, stat={0: {}, 1: {}}, sys={0: {}, 1: {}},
                       sw={}, en={}, pids=[])
            if f[0] == "alone":   # alone PROG TYPE CPU
                cur.update(prog=f[1], type=f[2], cpu=int(f[3]))
            continue
        if cur is None:
            continue
        if f[0] == "end":
            out.append(_finish(cur))
            cur = None
        elif f[0] in ("ctr0", "ctr1"):
            cur["ctr"][int(f[0][3])][int(f[1])] = [int(x) for x in f[2:6]]
        elif f[0] in ("stat0", "stat1"):
            cur["stat"][int(f[0][4])][int(f[1])] = (int(f[2]), int(f[3]))
        elif f[0] in ("sys0", "sys1"):
            cur["sys"][int(f[0][3])][f[1]] = int(f[2])
        elif f[0] in ("en0", "en1") and len(f) > 1:
            cur["en"][int(f[0][2])] = int(f[1])
        elif f[0] in ("sw0", "sw1"):
            kv = dict(zip(f[1::2], f[2::2]))
            cur["sw"][int(f[0][2])] = {k: int(v) for k, v in kv.items()}
        elif f[0] == "proc":
            cur["procs"].append(dict(slot=int(f[1]), prog=f[2], pid=int(f[3]),
                                     start=int(f[4]) / 1e9, end=int(f[5]) / 1e9,
                                     ok=f[6] == "1", status=int(f[7]),
                                     secs=(int(f[5]) - int(f[4])) / 1e9))
        elif f[0] == "mix":
            cur["wall"] = int(f[2]) / 1e9
            cur["nfail"] = int(f[4])
    return out


def _finish(r):
    c0, c1 = r["ctr"][0], r["ctr"][1]
    r["d_instr"] = {c: c1[c][0] - c0[c][0] for c in c1 if c in c0}
    r["d_cycles"] = {c: c1[c][1] - c0[c][1] for c in c1 if c in c0}
    r["d_lag"] = {c: c1[c][2] - c0[c][2] for c in c1 if c in c0}
    r["freq"] = {c: c1[c][3] for c in c1}
    s0, s1 = r["stat"][0], r["stat"][1]
    r["busy"] = {c: (s1[c][0] - s0[c][0], s1[c][1] - s0[c][1]) for c in s1 if c in s0}
    r["ctxt"] = r["sys"][1].get("ctxt", 0) - r["sys"][0].get("ctxt", 0)
    r["forks"] = r["sys"][1].get("processes", 0) - r["sys"][0].get("processes", 0)
    if 0 in r["sw"] and 1 in r["sw"]:
        r["swd"] = {k: r["sw"][1][k] - r["sw"][0].get(k, 0) for k in r["sw"][1]}
    # the rig's modelled energy of the run (J), where the rig has it
    r["energy"] = (r["en"][1] - r["en"][0]) / 1e6 if 0 in r["en"] and 1 in r["en"] else float("nan")
    ends = [p["end"] for p in r["procs"]]
    r["makespan"] = max(ends) if ends else r.get("wall", 0.0)
    span = r.get("wall") or r["makespan"] or 1e-9
    r["lag"] = max(r["d_lag"].values(), default=0) / 1e9 / span
    return r


def parse_est(text):
    """est.txt: [{group, progs, variant, procs, pids: {t: [(slot, prog, pid, kids)]},
    tasks: {t: [task dicts]}}]; variant: eq3 (the default predictor) or mix
    (the rig's fitted mix predictor applied)."""
    groups, cur, js, t = [], None, None, None
    for line in text.splitlines():
        if js is not None:
            if line == "endtasks":
                try:
                    cur["tasks"][t] = json.loads("\n".join(js)).get("tasks", [])
                except ValueError:
                    cur["tasks"][t] = []
                js = None
            else:
                js.append(line)
            continue
        f = line.split()
        if not f:
            continue
        if f[0] == "group":
            cur = dict(group=f[1], progs=f[2].split(","), procs=[], pids=defaultdict(list),
                       tasks={}, variant=f[3] if len(f) > 3 else "eq3")
        elif cur is None:
            continue
        elif f[0] == "endgroup":
            groups.append(cur)
            cur = None
        elif f[0] == "pids":
            cur["pids"][float(f[1])].append((int(f[2]), f[3], int(f[4]), [int(x) for x in f[5:]]))
        elif f[0] == "tasks":
            t, js = float(f[1]), []
        elif f[0] == "proc":
            cur["procs"].append(dict(prog=f[2], secs=(int(f[5]) - int(f[4])) / 1e9, ok=f[6] == "1"))
    return groups


def parse_lat(text):
    """lat.txt: {(config, round): {hist: {latency us: count}, over: 0}} from
    cyclictest -v's samples ("THREAD: LOOP: LATENCY" lines); a histogram
    (-h) is read too."""
    res, cur = {}, None
    for line in text.splitlines():
        f = line.split()
        if not f:
            continue
        if f[0] == "lat":
            cur = (f[1], int(f[2]))
            res[cur] = dict(hist=defaultdict(int), over=0)
        elif f[0] == "endlat":
            cur = None
        elif cur and len(f) == 3 and f[0].endswith(":") and f[1].endswith(":") \
                and f[0][:-1].isdigit() and f[2].isdigit():
            if int(f[1][:-1]) > 0:   # loop 0 is the thread's first wakeup
                res[cur]["hist"][int(f[2])] += 1
        elif cur and re.fullmatch(r"\d+", f[0]) and len(f) > 1:
            res[cur]["hist"][int(f[0])] += sum(int(x) for x in f[1:])
        elif cur and line.startswith("# Histogram Overflows:"):
            res[cur]["over"] = sum(int(x) for x in f[3:] if x.isdigit())
    return res


def quantile_hist(hist, over, q):
    n = sum(hist.values()) + over
    if not n:
        return float("nan")
    k, acc = q * n, 0
    for v in sorted(hist):
        acc += hist[v]
        if acc >= k:
            return float(v)
    return float("inf")


# ------------------------------------------------------------ statistics

def gmean(xs):
    xs = [x for x in xs if x and x > 0 and math.isfinite(x)]
    return math.exp(sum(math.log(x) for x in xs) / len(xs)) if xs else float("nan")


def boot_ci(units, stat, n=BOOTSTRAP, seed=1):
    """Hierarchical bootstrap: @units is {boot: [unit, ...]}; boots are drawn
    with replacement, then units within each drawn boot. Returns
    (stat of all, low, high) of the 95 % percentile interval."""
    import numpy as np
    rng = np.random.default_rng(seed)
    boots = [b for b in units if units[b]]
    flat = [u for b in boots for u in units[b]]
    if not flat:
        return float("nan"), float("nan"), float("nan")
    est = stat(flat)
    vals = []
    for _ in range(n):
        pick = []
        for b in rng.choice(len(boots), len(boots)):
            us = units[boots[b]]
            pick += [us[i] for i in rng.choice(len(us), len(us))]
        v = stat(pick)
        if math.isfinite(v):
            vals.append(v)
    if not vals:
        return est, float("nan"), float("nan")
    lo, hi = np.percentile(vals, [2.5, 97.5])
    return est, float(lo), float(hi)


def spearman(a, b):
    from scipy.stats import spearmanr
    if len(a) < 3:
        return float("nan")
    return float(spearmanr(a, b).statistic) if hasattr(spearmanr(a, b), "statistic") \
        else float(spearmanr(a, b)[0])


def order_accuracy(truth, est, gap=0.0):
    """Share of pairs ordered as the truth orders them (ties in the
    estimate count half; pairs the truth ties are left out, and with @gap
    those whose truths differ by less than that relative gap)."""
    good = tot = 0.0
    for i, j in itertools.combinations(range(len(truth)), 2):
        if truth[i] == truth[j] or max(truth[i], truth[j]) < min(truth[i], truth[j]) * (1 + gap):
            continue
        tot += 1
        d = (est[i] - est[j]) * (truth[i] - truth[j])
        good += 1 if d > 0 else 0.5 if d == 0 else 0
    return good / tot if tot else float("nan")


def order_ceiling(truth, err, gap=0.0):
    """The pairwise order (order_accuracy()) an unbiased estimate with
    relative error @err (lognormal, independent per program) reaches in
    expectation on @truth: a pair whose truths differ by the factor r is
    ordered right with probability Phi(ln r / (err x sqrt 2))."""
    good = tot = 0.0
    for a, b in itertools.combinations(truth, 2):
        r = max(a, b) / min(a, b)
        if a == b or r < 1 + gap:
            continue
        tot += 1
        good += 0.5 * (1 + math.erf(math.log(r) / (err * 2)))
    return good / tot if tot else float("nan")


# ------------------------------------------------------- bounds, oracle

def oracle(progs, times, nbig, nlit):
    """Best static assignment of @progs to CPUs, each program on one CPU.

    Programs sharing a CPU share it fairly (processor sharing), so a CPU's
    programs end in order of length. Exhaustive over CPU assignments, with
    CPUs of a type interchangeable. Returns (makespan, {slot: s}).
    """
    kinds = ["big"] * nbig + ["little"] * nlit
    best = None
    n = len(progs)
    seen = set()
    for assign in itertools.product(range(len(kinds)), repeat=n):
        # CPUs of one type are interchangeable: canonical relabelling
        key = []
        for ty in ("big", "little"):
            groups = defaultdict(list)
            for slot, c in enumerate(assign):
                if kinds[c] == ty:
                    groups[c].append(slot)
            key.append(tuple(sorted(tuple(g) for g in groups.values())))
        key = tuple(key)
        if key in seen:
            continue
        seen.add(key)
        loads = defaultdict(list)
        for slot, c in enumerate(assign):
            loads[c].append((times[progs[slot]][kinds[c]], slot))
        ends = {}
        mk = 0.0
        for jobs in loads.values():
            jobs.sort()
            t, done, left = 0.0, 0.0, len(jobs)
            for length, slot in jobs:
                t += (length - done) * left
                done = length
                left -= 1
                ends[slot] = t
            mk = max(mk, t)
        k2 = (mk, sum(ends.values()))
        if best is None or k2 < best[0]:
            best = (k2, ends)
    return best[0][0], best[1]


def lp_bound(progs, times, nbig, nlit):
    """Lower bound on the makespan with preemption and migration
    (R|pmtn|Cmax, Lawler and Labetoulle): x[j][i] time of job j on CPU
    type i; each job completes (sum x/p = 1), no job runs longer than C,
    no type's CPUs are busier than C each. scipy's HiGHS solves it."""
    from scipy.optimize import linprog
    n = len(progs)
    types = [("big", nbig), ("little", nlit)]
    types = [t for t in types if t[1] > 0]
    m = len(types)
    nv = n * m + 1          # x[j*m+i], C last
    c = [0.0] * (n * m) + [1.0]
    a_eq, b_eq, a_ub, b_ub = [], [], [], []
    for j, p in enumerate(progs):
        row = [0.0] * nv
        for i, (ty, _) in enumerate(types):
            row[j * m + i] = 1.0 / times[p][ty]
        a_eq.append(row)
        b_eq.append(1.0)
        row = [0.0] * nv
        for i in range(m):
            row[j * m + i] = 1.0
        row[-1] = -1.0
        a_ub.append(row)
        b_ub.append(0.0)
    for i, (_, cnt) in enumerate(types):
        row = [0.0] * nv
        for j in range(n):
            row[j * m + i] = 1.0
        row[-1] = -float(cnt)
        a_ub.append(row)
        b_ub.append(0.0)
    res = linprog(c, A_ub=a_ub, b_ub=b_ub, A_eq=a_eq, b_eq=b_eq,
                  bounds=[(0, None)] * nv, method="highs")
    return float(res.x[-1]) if res.success else float("nan")


# --------------------------------------------------------------- analysis

def rows(path):
    if not path.exists():
        return []
    with open(path, newline="") as f:
        return list(csv.DictReader(f))


def heldout_set():
    text = (TOP / "bench" / "eval" / "workloads.sh").read_text()
    m = re.search(r'^WL_HELDOUT="([^"]*)"', text, re.M)
    return set(m.group(1).split()) if m else set()


def alone_times(boots, slowdown=SLOWDOWN):
    """{prog: {type: {"wall": median s, "model": median modelled s x @slowdown
    (rig wall seconds had the host kept the pace), "n": k}}}."""
    acc = defaultdict(lambda: defaultdict(lambda: dict(wall=[], model=[], lag=[])))
    for b in boots:
        for r in b["alone"]:
            if not r["procs"] or not r["procs"][0]["ok"]:
                continue
            p = r["procs"][0]
            cpu = r["cpu"]
            f = r["freq"].get(cpu) or 1
            cyc = r["d_cycles"].get(cpu, 0)
            a = acc[r["prog"]][r["type"]]
            a["wall"].append(p["secs"])
            a["model"].append(cyc / (f * 1e6) * slowdown)
            a["lag"].append(r["lag"])
    out = {}
    for prog, t in acc.items():
        if "big" in t and "little" in t:
            out[prog] = {ty: dict(wall=statistics.median(v["wall"]), model=statistics.median(v["model"]),
                                  n=len(v["wall"]), lag=max(v["lag"]))
                         for ty, v in t.items()}
    return out


def load_board(d):
    meta = json.loads((d / "meta.json").read_text())
    boots = []
    for bd in sorted(d.glob("boot*-*")):
        m = re.fullmatch(r"boot(\d+)-(\w+)", bd.name)
        if not m:
            continue
        rd = lambda n: (bd / n).read_text(errors="replace") if (bd / n).exists() else ""  # noqa: E731, B023
        runs = parse_runs(rd("runs.txt"))
        # sbridgectl record of each main-phase mix (RECORD=1): rec-CONFIG-ROUND-MIX.rec
        recs = {f.stem[4:]: f for f in bd.glob("rec-*.rec")}
        boots.append(dict(boot=int(m.group(1)), kind=m.group(2), dir=bd, runs=runs, recs=recs,
                          alone=parse_runs(rd("alone.txt")), est=parse_est(rd("est.txt")),
                          lat=parse_lat(rd("lat.txt")), evidence=rd("evidence.txt"),
                          console=rd("console.txt")))
    return meta, boots


def board_cpus(meta):
    p = meta["plan"]
    return p["ncpu"]


def analyse(d):
    meta, boots = load_board(d)
    board = meta["board"]
    b = BOARDS[board]
    nbig, nlit = len(b["big"].split()), len(b["little"].split())
    held = heldout_set()
    res = dict(board=board, meta=meta, dir=d, nbig=nbig, nlit=nlit, held=sorted(held),
               x86=b["arch"] == "x86_64", slowdown=meta.get("slowdown") or SLOWDOWN)
    times = alone_times(boots, res["slowdown"])
    res["alone"] = times
    wall = {p: {ty: v["wall"] for ty, v in t.items()} for p, t in times.items()}

    # every main-phase run, keyed by boot, round, mix, config
    main = defaultdict(dict)
    rejected = defaultdict(int)
    failed = []
    nruns = 0
    for bt in boots:
        for r in bt["runs"]:
            if r["kind"] not in ("main", "sweep", "freq", "mt"):
                continue
            nruns += r["kind"] == "main"
            key = (bt["boot"], bt["kind"], r["kind"], r["round"], r["mix"])
            r["ok"] = r["clean"] = bool(all(p["ok"] for p in r["procs"]) and r["procs"])
            if not r["ok"]:
                failed.append((bt["boot"], r["kind"], r["config"], r["round"], r["mix"],
                               [p["prog"] for p in r["procs"] if not p["ok"]]))
            if r["lag"] > LAG_MAX:
                rejected[r["kind"]] += 1
                r["ok"] = False
                r["rejected"] = True
            main[key][r["config"]] = r
    res["failed"] = failed
    res["rejected"] = dict(rejected)
    lags = sorted(r["lag"] for bt in boots for r in bt["runs"] if r["kind"] == "main")
    res["lag_dist"] = (statistics.median(lags), _pct(lags, 90), lags[-1]) if lags else None
    res["nruns"] = nruns

    def stp_antt(r):
        ts = [(p["prog"], p["secs"]) for p in sorted(r["procs"], key=lambda p: p["slot"])]
        if not all(p in wall for p, _ in ts):
            return float("nan"), float("nan")
        stp = sum(wall[p]["big"] / t for p, t in ts)
        antt = statistics.mean(t / wall[p]["big"] for p, t in ts)
        return stp, antt

    recs = {bt["boot"]: bt["recs"] for bt in boots}
    rec_errors = []

    def record_of(bootno, r):
        """conserve.Conservation of the run's record, or None (none, or unreadable)."""
        f = recs.get(bootno, {}).get(f"{r['config']}-{r['round']}-{r['mix']}")
        if f is None or r["kind"] != "main":
            return None
        try:
            rec = conserve.record.parse(f)
            return conserve.analyse(rec, roots=[p["pid"] for p in r["procs"]])
        except (conserve.record.RecordError, ValueError, OSError) as e:
            rec_errors.append(str(e))
            return None

    def fair_of(r):
        procs = [promise.Proc(p["prog"], p["start"], p["end"])
                 for p in sorted(r["procs"], key=lambda p: p["slot"])]
        return procs, promise.fairness(procs, wall, nbig, nlit)

    # units: one per (boot, round, mix) and pair of configurations
    unit_rows = []
    bounds = {}
    res["promise"] = []
    res["estcal"] = []
    for key, cfgs in sorted(main.items()):
        bootno, kind, phase, rnd, mix = key
        progs = None
        for _c, r in cfgs.items():
            progs = [p["prog"] for p in sorted(r["procs"], key=lambda p: p["slot"])]
            break
        lb = orc = float("nan")
        if phase == "main" and progs and all(p in wall for p in progs):
            k2 = (tuple(progs),)
            if k2 not in bounds:
                lbv = lp_bound(progs, wall, nbig, nlit)
                ov = oracle(progs, wall, nbig, nlit)[0] if len(progs) <= 8 else float("nan")
                bounds[k2] = (lbv, ov)
            lb, orc = bounds[k2]
        pm = None
        if phase == "main" and progs:
            try:
                pm = promise.promise(progs, wall, nbig, nlit)
            except (OSError, subprocess.CalledProcessError) as e:
                rec_errors.append(f"plansim: {e}")
        prom = dict(boot=bootno, kind=kind, round=rnd, mix=mix, progs=progs, promise=pm,
                    stp={}, makespan={}, fast={}, fast_busy={})
        for c, r in cfgs.items():
            stp, antt = stp_antt(r)
            sw = r.get("swd", {})
            cons = record_of(bootno, r)
            procs, fair = fair_of(r)
            fin = [(x, i) for i, x in enumerate(fair) if math.isfinite(x)]
            if phase == "main" and r["clean"]:
                prom["stp"][c], prom["makespan"][c] = stp, r["makespan"]
                if cons is not None:
                    prom["fast_busy"][c] = cons.share(sum(cons.fast_run.values()))
                    prom["fast"][c] = [cons.root_fast(p["pid"]) / (p["secs"] * 1e9)
                                       if p["secs"] > 0 else float("nan")
                                       for p in sorted(r["procs"], key=lambda p: p["slot"])]
            # issue 27: what sbridge decided on, each program's estimate
            # over the second half of its decisions, beside its truth
            for p in (r["procs"] if cons is not None and phase == "main" else ()):
                a, es = wall.get(p["prog"], {}), cons.estimates.get(p["pid"], [])
                es = es[len(es) // 2:]
                if a.get("big") and a.get("little") and es:
                    res["estcal"].append(dict(
                        boot=bootno, kind=kind, config=c, round=rnd, mix=mix, prog=p["prog"],
                        truth=a["little"] / a["big"],
                        est=statistics.median(x[0] for x in es) / 1000,
                        err=statistics.median(x[1] for x in es) / 1000))
            # CPU time per unit of work: each program's fast and slow CPU
            # time over its alone times on those types (1: what it took
            # alone; above: the same work cost more CPU time, whatever the
            # placement; the recorder's and sbridge's work in its context
            # count, waiting does not)
            cw = []
            for p in (r["procs"] if cons is not None else ()):
                a = wall.get(p["prog"], {})
                ff, aa = cons.root_fast(p["pid"]), cons.root_run(p["pid"])
                if a.get("big") and a.get("little") and aa > 0:
                    cw.append((ff / a["big"] + (aa - ff) / a["little"]) / 1e9)
            busy = r["busy"]
            bigc = [int(x) for x in b["big"].split()]
            bb = sum(busy[c2][0] for c2 in bigc if c2 in busy)
            ball = sum(v[0] for v in busy.values()) or 1
            unit_rows.append(dict(
                boot=bootno, kind=kind, phase=phase, round=rnd, mix=mix, config=c,
                progs=" ".join(progs or []), ok=bool(r["ok"]), lag=round(r["lag"], 4),
                rejected=bool(r.get("rejected")), makespan=r["makespan"], stp=stp, antt=antt,
                bound=lb, oracle=orc, big_share=bb / ball,
                # the kernel keeps the flag only while EAS is on: no
                # tracepoint hit during the run means no reading
                overutilized=(sw.get("overutilized_ns", 0) / sw["observed_ns"])
                if sw.get("observed_ns") and sw.get("ou_events") else float("nan"),
                migrations=sw.get("migrations", float("nan")), up=sw.get("up", float("nan")),
                active_up=sw.get("active_up", float("nan")),
                instr=sum(r["d_instr"].values()), cycles=sum(r["d_cycles"].values()),
                ctxt=r["ctxt"], forks=r["forks"], energy=r["energy"],
                # issue 29: the worst progress against the equal-share rate;
                # from the record, the fast CPUs' idle share, and of it
                # while a mix task / a wanter waited on a slower CPU
                fair_min=min(fin)[0] if fin else float("nan"),
                fair_worst=procs[min(fin)[1]].prog if fin else "",
                recorded=cons is not None,
                fast_idle=cons.share_idle if cons else float("nan"),
                idle_any=cons.share_any if cons else float("nan"),
                idle_runnable=cons.share_runnable if cons else float("nan"),
                idle_wanter=cons.share_wanter if cons else float("nan"),
                recorder=cons.recorder_share if cons else float("nan"),
                recorder_fast=cons.share(cons.recorder_fast) if cons else float("nan"),
                kworker=cons.share_all(cons.kworker) if cons else float("nan"),
                kworker_fast=cons.share(cons.kworker_fast) if cons else float("nan"),
                cpu_work=statistics.median(cw) if cw else float("nan"),
                rec_events=cons.sbridge_events if cons else "",
                decisions=cons.decisions if cons else 0))
        if pm is not None or prom["stp"]:
            res["promise"].append(prom)
    res["units"] = unit_rows
    res["rec_errors"] = rec_errors

    # paired comparisons: sbridge (and warm, nomodel) against every other
    def pairs(phase, a, bcfg, kinds=("cap", "sym"), gate="ok"):
        """{boot: [(unit key, run a, run b)]} where both ran cleanly (and,
        with gate "ok", within the lag threshold; "clean": whatever the lag)."""
        out = defaultdict(list)
        for key, cfgs in main.items():
            if key[2] != phase or key[1] not in kinds:
                continue
            if a in cfgs and bcfg in cfgs and cfgs[a][gate] and cfgs[bcfg][gate]:
                out[key[0]].append((key, cfgs[a], cfgs[bcfg]))
        return out

    def metric_set(pp):
        """ratios of @pp: stp (b/a), antt (a/b), makespan (a/b), slots."""
        def st(units, f):
            return gmean([f(u) for u in units])
        m = {}
        m["stp"] = boot_ci(pp, lambda us: st(us, lambda u: stp_antt(u[2])[0] / stp_antt(u[1])[0]))
        m["antt"] = boot_ci(pp, lambda us: st(us, lambda u: stp_antt(u[1])[1] / stp_antt(u[2])[1]))
        m["makespan"] = boot_ci(pp, lambda us: st(us, lambda u: u[1]["makespan"] / u[2]["makespan"]))

        def slots(us):
            v = []
            for u in us:
                ta = {p["slot"]: p["secs"] for p in u[1]["procs"]}
                v += [ta[p["slot"]] / p["secs"] for p in u[2]["procs"] if p["slot"] in ta]
            return v
        m["per_program"] = boot_ci(pp, lambda us: gmean(slots(us)))
        allv = slots([u for us in pp.values() for u in us])
        m["worst"] = min(allv) if allv else float("nan")
        m["p05"] = _pct(allv, 5)
        m["n_units"] = sum(len(v) for v in pp.values())
        m["n_boots"] = len([b for b in pp if pp[b]])
        # per program: gmean of its slot ratios
        per = defaultdict(list)
        for us in pp.values():
            for u in us:
                ta = {p["slot"]: p["secs"] for p in u[1]["procs"]}
                for p in u[2]["procs"]:
                    if p["slot"] in ta:
                        per[p["prog"]].append(ta[p["slot"]] / p["secs"])
        m["by_prog"] = {p: (gmean(v), min(v), len(v)) for p, v in per.items()}
        m["unit_stp"] = [stp_antt(u[2])[0] / stp_antt(u[1])[0] for us in pp.values() for u in us]
        m["slot_ratios"] = allv
        # headroom captured: (stock - sbridge) / (stock - bound), makespan
        hr = []
        for us in pp.values():
            for u in us:
                progs = [p["prog"] for p in sorted(u[1]["procs"], key=lambda p: p["slot"])]
                lb = bounds.get((tuple(progs),), (float("nan"),))[0]
                if math.isfinite(lb) and u[1]["makespan"] > lb:
                    hr.append((u, (u[1]["makespan"] - u[2]["makespan"]) / (u[1]["makespan"] - lb)))
        hu = defaultdict(list)
        for u, h in hr:
            hu[u[0][0]].append(h)
        m["headroom"] = boot_ci(hu, lambda hs: statistics.mean(hs) if hs else float("nan"))
        return m

    comps = {}
    for kind in ("cap", "sym"):
        stock = STOCK[kind]
        for base in ("cap", "sym", "eas", "hmp", "nomargin", "nomodel", "observe", "warm"):
            for top in ("sbridge",) + (("warm", "observe", "nosample", "nofair", "truths") if base == "cap" else ()) + \
                    (("sbeas",) if base in ("cap", "eas") else ()):
                if base == top:
                    continue
                pp = pairs("main", base, top, (kind,))
                if any(pp.values()):
                    comps[(kind, base, top)] = metric_set(pp)
        del stock
    res["comps"] = comps
    # scx_sbridge (sched_ext) against stock and sbridge where it ran; where
    # it did not, the guest's reason (never a number)
    scx, scx_nolag = {}, {}
    for kind in ("cap", "sym"):
        for base in (STOCK[kind], "sbridge"):
            pp = pairs("main", base, "scx", (kind,))
            if any(pp.values()):
                scx[(kind, base, "scx")] = metric_set(pp)
            pp = pairs("main", base, "scx", (kind,), gate="clean")
            if any(pp.values()):
                scx_nolag[(kind, base, "scx")] = metric_set(pp)
    res["scx"] = scx
    res["scx_nolag"] = scx_nolag
    res["scx_not_run"] = sorted({line.split(None, 2)[2] for bt in boots
                                 for line in bt["evidence"].splitlines()
                                 if line.startswith("not_run scx ") and len(line.split()) > 2})
    # sensitivity: the headline pairs with every run, whatever its lag
    res["comps_nolag"] = {}
    for kind in ("cap", "sym"):
        pp = pairs("main", STOCK[kind], "sbridge", (kind,), gate="clean")
        if any(pp.values()):
            res["comps_nolag"][(kind, STOCK[kind], "sbridge")] = metric_set(pp)
    # diagnosis: every configuration against the same stock runs, lag not
    # gated (where the gate leaves no pair, what watching, the model and
    # the margin each cost or give can still be read side by side)
    res["all_nolag"] = {}
    for kind in ("cap", "sym"):
        tops = sorted({c for key, cfgs in main.items() if key[1] == kind and key[2] == "main"
                       for c in cfgs} - {STOCK[kind]})
        for top in tops:
            pp = pairs("main", STOCK[kind], top, (kind,), gate="clean")
            if any(pp.values()):
                res["all_nolag"][(kind, top)] = metric_set(pp)

    # leave one program out: the headline STP ratio without the mixes
    # that hold each program
    loo = {}
    for kind in ("cap", "sym"):
        pp = pairs("main", STOCK[kind], "sbridge", (kind,))
        if not any(pp.values()):
            continue
        vals = {}
        progs = {p["prog"] for us in pp.values() for u in us for p in u[1]["procs"]}
        for prog in sorted(progs):
            sub = [stp_antt(u[2])[0] / stp_antt(u[1])[0] for us in pp.values() for u in us
                   if prog not in {p["prog"] for p in u[1]["procs"]}]
            vals[prog] = (gmean(sub), len(sub))
        loo[kind] = vals
    res["loo"] = loo

    def sweep_point(phase, a, b, kind):
        """STP and makespan ratios of @b over @a in @phase, or None."""
        pp = pairs(phase, a, b, (kind,))
        if not any(pp.values()):
            return None
        return dict(
            stp=boot_ci(pp, lambda us: gmean([stp_antt(u[2])[0] / stp_antt(u[1])[0] for u in us])),
            makespan=boot_ci(pp, lambda us: gmean([u[1]["makespan"] / u[2]["makespan"] for u in us])),
            n=sum(len(v) for v in pp.values()))

    # period sweep: stock vs sbridge at each period; frequency sweep: the
    # same with the little cluster capped at a lower clock (NAME@MHz);
    # both paired per sweep round
    sweep, fsw = {}, {}
    for kind in ("cap", "sym"):
        for per in (50, 100, 200, 400):
            v = sweep_point("sweep", STOCK[kind], f"p{per}", kind)
            if v:
                sweep[(kind, per)] = v
        mhzs = sorted({int(c.split("@")[1]) for k, cfgs in main.items() if k[2] == "freq" and k[1] == kind
                       for c in cfgs if "@" in c})
        for mhz in mhzs:
            v = sweep_point("freq", f"{STOCK[kind]}@{mhz}", f"sbridge@{mhz}", kind)
            if v:
                fsw[(kind, mhz)] = v
    res["sweep"] = sweep
    res["freq_sweep"] = fsw

    # multithreaded: completion time of each program, config / sbridge
    mt = defaultdict(dict)
    for key, cfgs in main.items():
        if key[2] != "mt" or "sbridge" not in cfgs or not cfgs["sbridge"]["ok"]:
            continue
        for c, r in cfgs.items():
            if r["ok"]:
                mt[key[4]].setdefault(c, []).append(r["makespan"] / cfgs["sbridge"]["makespan"])
        mt[key[4]].setdefault("_secs", []).append(cfgs["sbridge"]["makespan"])
    res["mt"] = {p: {c: gmean(v) if c != "_secs" else statistics.median(v) for c, v in cs.items()}
                 for p, cs in mt.items()}

    # latency: p50 / p99 per configuration, pooled over rounds and boots
    lat = defaultdict(lambda: dict(hist=defaultdict(int), over=0))
    for bt in boots:
        for (c, _), h in bt["lat"].items():
            for v, n in h["hist"].items():
                lat[c]["hist"][v] += n
            lat[c]["over"] += h["over"]
    res["lat"] = {c: dict(p50=quantile_hist(h["hist"], h["over"], 0.5),
                          p99=quantile_hist(h["hist"], h["over"], 0.99),
                          n=sum(h["hist"].values()) + h["over"], over=h["over"])
                  for c, h in lat.items()}

    # overhead from the rig's counters
    ov = defaultdict(lambda: defaultdict(list))
    for bt in boots:
        for r in bt["runs"]:
            if r["kind"].startswith("ovh-"):
                ov[r["kind"]][r["config"]].append(r)
    res["overhead"] = overhead(ov, units=[u for u in unit_rows if u["phase"] == "main"
                                          and u["config"] == "sbridge" and u["ok"]],
                               slowdown=res["slowdown"])

    # evidence per configuration
    res["evidence"] = evidence(boots, unit_rows)
    # estimation benchmark
    res["est"] = estimation(boots, times, held)
    res["boots"] = [(bt["boot"], bt["kind"]) for bt in boots]
    return res


def _pct(v, q):
    if not v:
        return float("nan")
    s = sorted(v)
    return s[min(len(s) - 1, max(0, int(round(q / 100 * (len(s) - 1)))))]


def overhead(ov, units, slowdown=SLOWDOWN):
    """Per test: instructions and cycles on (and core) over off, per round;
    per-event costs; the estimated share of the mixes' cycles, per kind of
    event, and the periods' share again at a board's clock (@slowdown:
    the rig's wall ns per modelled ns)."""
    out = {}
    for test, by in ov.items():
        t = {}
        for c in ("off", "core", "on"):
            rs = by.get(c, [])
            t[c] = [dict(instr=sum(r["d_instr"].values()), cycles=sum(r["d_cycles"].values()),
                         ctxt=r["ctxt"], forks=r["forks"], secs=r["makespan"],
                         procs=len(r["procs"]), lag=r["lag"]) for r in rs]
        out[test] = t
    res = {"tests": out,
           "prog_names": sorted({x["prog"] for r in ov.get("ovh-prog", {}).get("off", [])
                                 for x in r["procs"]})}

    def delta(test, c, what):
        off, on = out.get(test, {}).get("off", []), out.get(test, {}).get(c, [])
        v = [(b[what] - a[what]) / a[what] for a, b in zip(off, on) if a[what]]
        return v

    def per_event(test, c, what, count):
        off, on = out.get(test, {}).get("off", []), out.get(test, {}).get(c, [])
        return [(b[what] - a[what]) / a[count] for a, b in zip(off, on) if a[count]]
    for c in ("core", "on"):
        res[c] = dict(
            short_instr=delta("ovh-short", c, "instr"), short_cycles=delta("ovh-short", c, "cycles"),
            pp_instr=delta("ovh-pp", c, "instr"), pp_cycles=delta("ovh-pp", c, "cycles"),
            spin_instr=delta("ovh-spin", c, "instr"), spin_cycles=delta("ovh-spin", c, "cycles"),
            prog_instr=delta("ovh-prog", c, "instr"), prog_cycles=delta("ovh-prog", c, "cycles"),
            per_proc_cycles=per_event("ovh-short", c, "cycles", "procs"),
            per_switch_cycles=per_event("ovh-pp", c, "cycles", "ctxt"))
    # per period: extra cycles of the spin test (few switches, no forks)
    # over its 200 ms periods: what runs by the clock, the decision and
    # the counter reads at ticks (tick_ms) alike
    sp = out.get("ovh-spin", {})
    res["on"]["per_period_cycles"] = [(b["cycles"] - a["cycles"]) / max(1.0, a["secs"] / 0.2)
                                      for a, b in zip(sp.get("off", []), sp.get("on", []))]
    on = res["on"]
    if not (on["per_switch_cycles"] and on["per_proc_cycles"]):
        return res
    # the per-event costs (medians over rounds), for the tests and the mixes
    cs = statistics.median(on["per_switch_cycles"])
    cp = statistics.median(on["per_proc_cycles"])
    cper = statistics.median(on["per_period_cycles"]) if on["per_period_cycles"] else 0
    # the pinned programs: what those costs predict for their switches,
    # processes and periods, beside what they measured
    pg = out.get("ovh-prog", {}).get("off", [])
    if pg and on["per_period_cycles"]:
        on["prog_predicted"] = [(cs * a["ctxt"] + cp * a["forks"] + cper * a["secs"] / 0.2)
                                / a["cycles"] for a in pg if a["cycles"]]
    # the mixes: per-event costs x events / all cycles
    if units:
        us = [u for u in units if u["cycles"]]
        # a period is 200 ms of the guest's clock, which on the rig runs at
        # wall speed: @slowdown times as many per modelled cycle as on a board
        parts = {k: [f(u) / u["cycles"] for u in us] for k, f in (
            ("switch", lambda u: cs * u["ctxt"]), ("process", lambda u: cp * u["forks"]),
            ("period", lambda u: cper * u["makespan"] / 0.2),
            ("period_board", lambda u: cper * u["makespan"] / slowdown / 0.2))}
        shares = [a + b + c for a, b, c in zip(parts["switch"], parts["process"], parts["period"])]
        res["mix_share"] = (statistics.median(shares), max(shares)) if shares else None
        res["mix_parts"] = {k: statistics.median(v) for k, v in parts.items() if v}
    return res


def evidence(boots, units):
    """Per configuration: what the kernel showed when it was in force."""
    ev = defaultdict(lambda: dict(caps=set(), asym=set(), eas=set(), sbridge=set(), failed=0,
                                  daemon=[]))
    for bt in boots:
        for line in bt["evidence"].splitlines():
            f = line.split()
            if f and f[0] == "switch_failed" and len(f) > 1:
                ev[f[1]]["failed"] += 1
                continue
            if f and f[0] == "hmpd" and "hmpd" in f[1:]:
                kv = dict(x.split("=", 1) for x in f if "=" in x)
                ev["hmp"]["daemon"].append((int(kv.get("cpu_us", 0)), int(kv.get("polls", 0)),
                                            int(kv.get("up", 0)), int(kv.get("down", 0))))
                continue
            if len(f) < 4:
                continue
            if f[0] != "evidence":
                continue
            c, what = f[1], f[3]
            if what == "caps":
                ev[c]["caps"].add(f[4] if len(f) > 4 else "")
            elif what == "domain":
                ev[c]["asym"].add("SD_ASYM_CPUCAPACITY" in line)
            elif what == "eas_active":
                ev[c]["eas"].add(f[4])
            elif what == "sbridge":
                ev[c]["sbridge"].add(" ".join(f[4:6]))
    out = {}
    for c, e in ev.items():
        us = [u for u in units if u["config"] == c and u["phase"] == "main"]
        ou = [u["overutilized"] for u in us if math.isfinite(u["overutilized"])]
        au = [u["active_up"] for u in us if isinstance(u["active_up"], int)]
        out[c] = dict(caps=sorted(e["caps"]), asym=sorted(e["asym"]), eas=sorted(e["eas"]),
                      sbridge=sorted(e["sbridge"]), failed=e["failed"],
                      daemon=(sum(x[0] for x in e["daemon"]) / 1e6, sum(x[1] for x in e["daemon"]),
                              sum(x[2] for x in e["daemon"]), sum(x[3] for x in e["daemon"]))
                      if e["daemon"] else None,
                      overutilized=statistics.mean(ou) if ou else float("nan"),
                      active_up=statistics.mean(au) if au else float("nan"),
                      big_share=statistics.mean(u["big_share"] for u in us) if us else float("nan"))
    return out


def estimation(boots, times, held):
    """Cold estimates after each checkpoint beside the truth (alone, from
    the rig's modelled time): per program, then MAE, Spearman and pairwise
    order accuracy, for predicted, measured and blended; a group run with the
    mix predictor applied gives kinds "pred+mix", "meas+mix", "blend+mix"."""
    truth = {p: t["little"]["model"] / t["big"]["model"] for p, t in times.items()
             if t["big"]["model"] > 0}
    vals = defaultdict(lambda: defaultdict(list))   # (T, kind) -> prog -> [v]
    extra = defaultdict(list)
    for bt in boots:
        for g in bt["est"]:
            sfx = "" if g.get("variant", "eq3") == "eq3" else "+" + g["variant"]
            for t, plist in g["pids"].items():
                tasks = {x.get("pid"): x for x in g["tasks"].get(t, [])}
                for _slot, prog, pid, kids in plist:
                    cand = [tasks[k] for k in kids if k in tasks] or \
                        ([tasks[pid]] if pid in tasks else [])
                    if not cand:
                        continue
                    x = max(cand, key=lambda y: y.get("runtime_ns", 0))
                    for k, f in (("pred", "speedup_pred"), ("meas", "speedup_meas"),
                                 ("blend", "speedup")):
                        if f in x:
                            vals[(t, k + sfx)][prog].append(float(x[f]))
                    if not sfx:
                        extra[(t, prog)].append({k: x.get(k) for k in ("speedup_err", "speedup_src")
                                                 if k in x})
    out = dict(truth=truth, rows=[], metrics={}, held=sorted(held))
    for (t, k), by in sorted(vals.items()):
        progs = sorted(p for p in by if p in truth)
        for p in progs:
            out["rows"].append(dict(t=t, kind=k, prog=p, truth=truth[p],
                                    est=statistics.median(by[p]), n=len(by[p]),
                                    heldout=p in held, extra=extra.get((t, p), [])[:1]))
        for subset, sel in (("all", progs), ("held-out", [p for p in progs if p in held]),
                            ("tuned", [p for p in progs if p not in held])):
            if len(sel) < 2:
                continue
            tr = [truth[p] for p in sel]
            es = [statistics.median(by[p]) for p in sel]
            err = [abs(e / x - 1) for e, x in zip(es, tr)]
            m = dict(n=len(sel), mae=statistics.mean(err), worst=max(err),
                     worst_prog=sel[err.index(max(err))], spearman=spearman(tr, es),
                     order=order_accuracy(tr, es), order10=order_accuracy(tr, es, ORDER_GAP),
                     missing=len(truth) - len(sel)
                     if subset == "all" else None)
            if subset == "all":
                loo = []
                for i in range(len(sel)):
                    tr2, es2 = tr[:i] + tr[i + 1:], es[:i] + es[i + 1:]
                    e2 = [abs(e / x - 1) for e, x in zip(es2, tr2)]
                    loo.append((statistics.mean(e2), spearman(tr2, es2), order_accuracy(tr2, es2)))
                m["loo"] = [(min(x[j] for x in loo), max(x[j] for x in loo)) for j in range(3)]
            out["metrics"][(t, k, subset)] = m
    return out


# ---------------------------------------------------------------- output

def fmt(x, d=3):
    if x is None or (isinstance(x, float) and not math.isfinite(x)):
        return "n/a"
    return f"{x:.{d}f}"


def ci(t, d=3):
    return f"{fmt(t[0], d)} [{fmt(t[1], d)}, {fmt(t[2], d)}]"


def resolution(t, n_units, target=0.02):
    """What a ratio's interval @t = (est, lo, hi) over @n_units paired units
    can tell: its half-width as a fraction (a ratio closer to 1 than that
    is not told from noise), and about how many units an interval of
    +-@target would take at the same spread (the width falls as one over
    the square root of the units). None for an interval it cannot read.
    """
    if not n_units or any(x is None or not math.isfinite(x) or x <= 0 for x in t[1:]):
        return None
    half = (math.log(t[2]) - math.log(t[1])) / 2
    return math.expm1(half), math.ceil(n_units * (half / math.log1p(target)) ** 2)


def commit():
    q = subprocess.run(["git", "-C", str(TOP), "describe", "--always", "--dirty", "--abbrev=7"],
                       capture_output=True, text=True)
    return q.stdout.strip() or "unknown"


def verdict(ok):
    return "met" if ok else "**missed**"


def plots(r, out):
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    pics = []
    comps = [(k, v) for k, v in r["comps"].items() if k[2] == "sbridge"]
    if comps:
        fig, axes = plt.subplots(1, 2, figsize=(11, 4))
        labels = [f"vs {k[1]}\n({k[0]} boot)" for k, _ in comps]
        axes[0].boxplot([v["unit_stp"] or [float("nan")] for _, v in comps], labels=labels, showmeans=True)
        axes[0].axhline(1.0, color="black", lw=0.8)
        axes[0].set_ylabel("STP sbridge / STP baseline, per mix and round")
        axes[0].tick_params(axis="x", labelsize=7)
        axes[1].violinplot([v["slot_ratios"] or [1.0] for _, v in comps], showmedians=True)
        axes[1].set_xticks(range(1, len(labels) + 1))
        axes[1].set_xticklabels(labels, fontsize=7)
        axes[1].axhline(1.0, color="black", lw=0.8)
        axes[1].set_ylabel("per-program speedup (baseline / sbridge time)")
        fig.suptitle(f"board {r['board']}: distributions over every paired round (cold, defaults)")
        fig.tight_layout()
        p = out / "ratios.png"
        fig.savefig(p, dpi=90)
        plt.close(fig)
        pics.append(p)
    rows_ = [x for x in r["est"]["rows"] if x["kind"] == "blend"]
    if rows_:
        ts = sorted({x["t"] for x in rows_})
        fig, axes = plt.subplots(1, len(ts), figsize=(4 * len(ts), 4), squeeze=False)
        for ax, t in zip(axes[0], ts):
            for k, mk in (("pred", "^"), ("meas", "s"), ("blend", "o")):
                xs = [x for x in r["est"]["rows"] if x["kind"] == k and x["t"] == t]
                ax.scatter([x["truth"] for x in xs], [x["est"] for x in xs], marker=mk, label=k,
                           s=[40 if x["heldout"] else 15 for x in xs])
            lim = [1.0, 2.6]
            ax.plot(lim, lim, color="black", lw=0.8)
            ax.set_xlabel("alone speedup (truth)")
            ax.set_ylabel(f"sbridge's estimate after {t:g} s (cold)")
            ax.set_title(f"t = {t:g} s (large marks: held out)", fontsize=9)
            ax.legend(fontsize=7)
        fig.tight_layout()
        p = out / "estimation.png"
        fig.savefig(p, dpi=90)
        plt.close(fig)
        pics.append(p)
    if r["sweep"]:
        fig, ax = plt.subplots(figsize=(5.5, 3.8))
        for kind in ("cap", "sym"):
            pts = sorted((per, v["stp"]) for (k, per), v in r["sweep"].items() if k == kind)
            if pts:
                ax.errorbar([p for p, _ in pts], [v[0] for _, v in pts],
                            yerr=[[v[0] - v[1] for _, v in pts], [v[2] - v[0] for _, v in pts]],
                            marker="o", capsize=3, label=f"STP vs {STOCK[kind]}")
        ax.axhline(1.0, color="black", lw=0.8)
        ax.set_xscale("log", base=2)
        ax.set_xlabel("act.period_ms (200 = shipped default)")
        ax.set_ylabel("STP sbridge / stock")
        ax.legend(fontsize=8)
        fig.tight_layout()
        p = out / "period-sweep.png"
        fig.savefig(p, dpi=90)
        plt.close(fig)
        pics.append(p)
    return pics


def summary(r, pics, out):
    meta = r["meta"]
    # runs on the rig's clocks record its modelled energy
    clocks = any(math.isfinite(u.get("energy", float("nan"))) for u in r["units"])
    L = [f"# sbridge evaluation, board {r['board']} ({meta['date']}, commit {meta['commit']}, "
         f"{meta['mode']} mode)", "",
         f"Seed {meta['seed']} (`bench/eval/run.py --seed {meta['seed']}` draws the same mixes); "
         f"boots: {', '.join(f'{b} ({k})' for b, k in r['boots'])}"
         + (f" (**{len(r['boots'])} of the {len(meta['planned_boots'])} boots planned ran**)"
            if len(r["boots"]) < len(meta.get("planned_boots", [])) else "") + "; cell "
         f"{meta['boots'][0]['cell'] if meta['boots'] else '?'} "
         f"({meta['boots'][0]['release'] if meta['boots'] else '?'}); "
         f"wall {(meta.get('wall_s') or sum(b.get('wall_s', 0) for b in meta['boots'])) / 60:.0f} min."
         + (f" **A diagnosis: only {', '.join(meta['configs'])}"
            + (f", {meta['rounds']} rounds" if meta.get("rounds") else "")
            + (f", phases: {meta['phases'] or 'main only'}" if meta.get("phases") is not None
               else "") + "** (--configs)."
            if meta.get("configs") else "")
         + (f" **sbridge_core loaded with `{meta['core_args']}`, not the shipped defaults** "
            "(--core-args: a diagnosis)." if meta.get("core_args") else "")
         + (f" **sbridge_pmu loaded with `{meta['pmu_args']}`, not the shipped defaults** "
            "(--pmu-args: a diagnosis)." if meta.get("pmu_args") else "")
         + (" **The estimation groups ran under `sbridgectl record`** (--est-record: "
            "a diagnosis; the recorder took a little CPU's time)."
            if meta.get("est_record") else ""), "",
         "Limits: " + (RIG_LIMITS if clocks else RIG_LIMITS_OLD).format(
             slow=r["slowdown"]) + "." +
         (f" **{X86_LIMIT}.**" if r["x86"] and not clocks else ""), "",
         "Every ratio pairs runs of one round of one boot (configurations alternated in an "
         "order rotated per round and boot); the interval is a 95 % hierarchical bootstrap "
         "(boots, then rounds). sbridge runs COLD (its matrix emptied before every block: a "
         "fresh module instance, checked with an empty `matrix load`) with the shipped "
         "defaults. Runs where the host could not keep the rig's pace for more than "
         f"{LAG_MAX * 100:.0f} % of the run (lag_ns, worst CPU) are rejected: "
         f"{r['rejected'].get('main', 0)} of the {r['nruns']} runs of the main rounds rejected" +
         "".join(f", {v} {k} runs" for k, v in r["rejected"].items() if k != "main") + (
             f" (host lag per run, worst CPU: median {r['lag_dist'][0] * 100:.1f} %, 90th percentile "
             f"{r['lag_dist'][1] * 100:.1f} %, worst {r['lag_dist'][2] * 100:.1f} %)" if r.get("lag_dist") else "") +
         ". STP = sum of (alone on big / in the mix), ANTT = mean of "
         "(in the mix / alone on big) (Eyerman and Eeckhout); the per-program speedup is "
         "baseline time / sbridge time of the same program in the same mix and round.", ""]
    if r["failed"]:
        L += [f"**Runs with a failed program: {len(r['failed'])}** (left out of every ratio): " +
              "; ".join(f"boot {b} {k} {c} r{rn} {m}: {' '.join(p)}" for b, k, c, rn, m, p in r["failed"][:8]), ""]
    L += ["## Throughput (cold, defaults)", "",
          "| boot | sbridge (cold, defaults) against | STP ratio [95 % CI] | ANTT ratio (higher better) | "
          "makespan ratio | per-program (geo. mean) | worst program (p05) | headroom captured | units (boots) |",
          "| --- | --- | --- | --- | --- | --- | --- | --- | --- |"]
    for (kind, base, top), m in sorted(r["comps"].items()):
        if top not in ("sbridge", "sbeas"):
            continue
        who = NAMES.get(base, base) + (" (**sbeas**: sbridge over EAS against it)"
                                       if top == "sbeas" else "")
        L.append(f"| {kind} | {who} | {ci(m['stp'])} | {ci(m['antt'])} | "
                 f"{ci(m['makespan'])} | {ci(m['per_program'])} | {fmt(m['worst'])} ({fmt(m['p05'])}) | "
                 f"{ci(m['headroom'], 2)} | {m['n_units']} ({m['n_boots']}) |")
    for (kind, base, _top), m in sorted(r.get("comps_nolag", {}).items()):
        L.append(f"| {kind} | {NAMES.get(base, base)}: **every run, lag not gated** (sensitivity) | "
                 f"{ci(m['stp'])} | {ci(m['antt'])} | {ci(m['makespan'])} | {ci(m['per_program'])} | "
                 f"{fmt(m['worst'])} ({fmt(m['p05'])}) | {ci(m['headroom'], 2)} | {m['n_units']} ({m['n_boots']}) |")
    for (kind, base, top), m in sorted(r["comps"].items()):
        res = resolution(m["stp"], m["n_units"]) \
            if top == "sbridge" and base == STOCK.get(kind) else None
        if res:
            L += ["", f"What the {kind} row against {NAMES.get(base, base)} can tell: its STP "
                  f"interval is +-{res[0] * 100:.1f} % wide, so a gain or loss smaller than "
                  f"that is not told from noise by {m['n_units']} units; +-2 % at the same "
                  f"spread would take about {res[1]} units ({res[1] / m['n_units']:.0f} x "
                  f"these, over more boots as well as more rounds: the interval resamples both)."]
    if len({top for _k, top in r.get("all_nolag", {})}) > 1:
        L += ["", "Every configuration against the same stock runs, **lag not gated** (a "
              "diagnosis: what watching, the model and the margin each cost or give, read "
              "side by side; per unit, the STP ratios in round order):", "",
              "| boot | configuration | STP ratio [95 % CI] | per-program (geo. mean) | "
              "per unit | units (boots) |", "| --- | --- | --- | --- | --- | --- |"]
        for (kind, top), m in sorted(r["all_nolag"].items()):
            L.append(f"| {kind} | {NAMES.get(top, top)} | {ci(m['stp'])} | {ci(m['per_program'])} | "
                     + ", ".join(fmt(v) for v in m["unit_stp"])
                     + f" | {m['n_units']} ({m['n_boots']}) |")
    warm = r["comps"].get(("cap", "cap", "warm"))
    if warm:
        L += ["", f"Warm (reported apart: matrix learnt from calibration inputs, loaded before "
              f"each block) vs capacity-aware stock: STP {ci(warm['stp'])}, per program "
              f"{ci(warm['per_program'])}, headroom {ci(warm['headroom'], 2)}."]
    obs = r["comps"].get(("cap", "cap", "observe"))
    if obs:
        L += ["", f"Observing only (sbridge loaded, act.observe 1: what watching costs, no "
              f"lever) vs capacity-aware stock: STP {ci(obs['stp'])}, per program "
              f"{ci(obs['per_program'])}, worst {fmt(obs['worst'])}; the decisions' own worth "
              f"is the row against it above (sbridge against `observe`, not `observe` against "
              f"stock)."]
    # targets
    hc = r["comps"].get(("cap", "cap", "sbridge"))
    hs = r["comps"].get(("sym", "sym", "sbridge"))
    L += ["", "Targets of issue 28 (cold, defaults; a missed target is a finding):", ""]
    if hc:
        L.append(f"- STP vs capacity-aware stock >= 1.10 with the interval's low end > 1.0: "
                 f"{ci(hc['stp'])}: {verdict(hc['stp'][0] >= 1.10 and hc['stp'][1] > 1.0)}; "
                 f"worst program >= 0.95: {fmt(hc['worst'])}: {verdict(hc['worst'] >= 0.95)}")
        L.append(f"- headroom captured >= 0.8 vs capacity-aware: {ci(hc['headroom'], 2)}: "
                 f"{verdict(hc['headroom'][0] >= 0.8)}")
    if hs:
        L.append(f"- headroom captured >= 0.8 vs the symmetric kernel: {ci(hs['headroom'], 2)}: "
                 f"{verdict(hs['headroom'][0] >= 0.8)}")
    ov = r["overhead"]
    if ov.get("on", {}).get("short_cycles"):
        oc = ov["on"]["short_cycles"]
        L.append(f"- overhead <= 1 % of cycles (1000-process test, rig counters): "
                 f"{', '.join(f'{x * 100:+.2f} %' for x in oc)} per round: {verdict(max(oc) <= 0.01)}")
    if r["lat"].get("sbridge") and r["lat"].get(STOCK['cap'] if not r['x86'] else 'sym'):
        st = r["lat"].get("cap") or r["lat"].get("sym")
        q = r["lat"]["sbridge"]["p99"] / st["p99"] if st["p99"] else float("nan")
        L.append(f"- p99 wakeup latency <= 1.1 x stock: {fmt(q)} x: {verdict(q <= 1.1)}")
    # leave one program out
    for kind, vals in r["loo"].items():
        if vals:
            lo = min(vals.items(), key=lambda kv: kv[1][0])
            hi = max(vals.items(), key=lambda kv: kv[1][0])
            L += ["", f"Leave one program out ({kind} boots, STP ratio vs {STOCK[kind]} without the "
                  f"mixes that hold the program): {fmt(lo[1][0])} (without {lo[0]}) to "
                  f"{fmt(hi[1][0])} (without {hi[0]}), over {len(vals)} programs."]
    # makespans and bounds
    us = [u for u in r["units"] if u["phase"] == "main" and u["ok"]]
    if us:
        L += ["", "## Makespan against the static oracle and the preemptive bound", "",
              "Per mix: the best static assignment (no migration, CPUs shared fairly) and the "
              "lower bound with preemption and migration (R|pmtn|Cmax as a linear program, "
              "scipy/HiGHS), both from the programs' alone times (wall, median over boots).", "",
              "| config | mean makespan / bound | mean makespan / oracle | mixes |",
              "| --- | --- | --- | --- |"]
        by = defaultdict(list)
        for u in us:
            if math.isfinite(u["bound"]):
                by[u["config"]].append(u)
        for c, v in sorted(by.items()):
            L.append(f"| {c} | {fmt(statistics.mean(u['makespan'] / u['bound'] for u in v))} | "
                     f"{fmt(statistics.mean(u['makespan'] / u['oracle'] for u in v if math.isfinite(u['oracle'])))} | {len(v)} |")  # noqa: E501
    L += issue29(r)
    L += estcal_section(r)
    # modelled energy (the rig's: the energy model's power at the OPP in
    # force x busy time, plus idle power)
    en = defaultdict(list)
    for u in us:
        if math.isfinite(u.get("energy", float("nan"))):
            en[(u["kind"], u["config"])].append(u["energy"])
    if en:
        L += ["", "## Modelled energy per mix", "",
              "The rig's energy model (tools/rig/README.md, \"Clocks\"): each CPU's dynamic power "
              "at the OPP in force x busy time, plus idle power; an input of the model, not a "
              "measurement of any board.", "",
              "| boot | config | mean J per mix | mixes |", "| --- | --- | --- | --- |"]
        for (kind, c), v in sorted(en.items()):
            L.append(f"| {kind} | {c} | {fmt(statistics.mean(v), 2)} | {len(v)} |")
    # baselines' evidence
    if r["evidence"]:
        L += ["", "## What each configuration was (recorded in every run)", "",
              "| config | capacities | SD_ASYM_CPUCAPACITY | EAS active | root domain overutilized "
              "(share of time; the kernel keeps the flag only under EAS) | active up-migrations per run | big CPUs' share of busy time | failed switches |",  # noqa: E501
              "| --- | --- | --- | --- | --- | --- | --- | --- |"]
        for c, e in sorted(r["evidence"].items()):
            L.append(f"| {c} | {' / '.join(e['caps'])} | {' / '.join(str(x) for x in e['asym'])} | "
                     f"{' / '.join(e['eas'])} | {fmt(e['overutilized'], 2)} | {fmt(e['active_up'], 1)} | "
                     f"{fmt(e['big_share'], 2)} | {e['failed']} |")
        d = r["evidence"].get("hmp", {}).get("daemon")
        if d:
            L += ["", f"hmpd (the HMP daemon) used {d[0]:.1f} s of CPU over {d[1]} polls in its "
                  f"blocks (charged to the HMP configuration) and made {d[2]} up- and {d[3]} "
                  "down-migrations."]
    # ablations and other baselines (all comparisons)
    base = r["comps"].get(("cap", "cap", "sbridge")) or r["comps"].get(("sym", "sym", "sbridge"))
    if base:   # none when every unit of the headline pair was lag-rejected
        L += ["", "## Per program (sbridge vs capacity-aware stock, cold)", "",
              "| program | held out | geo. mean speedup | worst | samples |", "| --- | --- | --- | --- | --- |"]
        for p, (g, w, n) in sorted(base["by_prog"].items()):
            L.append(f"| {p} | {'yes' if p in r['held'] else ''} | {fmt(g)} | {fmt(w)} | {n} |")
    if r["sweep"]:
        L += ["", "## Period sweep (act.period_ms; 200 is the default)", "",
              "| boot | period | STP sbridge / stock | makespan ratio | units |", "| --- | --- | --- | --- | --- |"]
        for (kind, per), v in sorted(r["sweep"].items()):
            L.append(f"| {kind} | {per} | {ci(v['stp'])} | {ci(v['makespan'])} | {v['n']} |")
    if r.get("freq_sweep"):
        L += ["", "## Frequency sweep (the little cluster's policy capped at a lower OPP)", "",
              "The rig runs the little CPUs at the clock cpufreq sets (rig_cpufreq); the kernel "
              "and sbridge see it. The main phase is the top clock.", "",
              "| boot | little MHz | STP sbridge / stock | makespan ratio | units |", "| --- | --- | --- | --- | --- |"]
        for (kind, mhz), v in sorted(r["freq_sweep"].items()):
            L.append(f"| {kind} | {mhz} | {ci(v['stp'])} | {ci(v['makespan'])} | {v['n']} |")
    # estimation
    em = r["est"]["metrics"]
    tv = list(r["est"]["truth"].values())
    if em:
        L += ["", "## Estimation benchmark (cold; issue 27 item 4)", "",
              "Truth: each program's speedup alone (little / big time from the rig's modelled "
              "cycles, median over boots). Estimate: sbridge's, for the program's current process, "
              "while its group runs as loops of fresh processes, t seconds after sbridge was loaded "
              "cold. Held-out programs (never tuned on): " + ", ".join(r["held"]) + ".", "",
              "How much order these truths allow: an unbiased estimate with a relative error of "
              + ", ".join(f"{int(e * 100)} %" for e in ORDER_ERRS) + " per program would order "
              + ", ".join(fmt(order_ceiling(tv, e), 2) for e in ORDER_ERRS) + " of the pairs ("
              + ", ".join(fmt(order_ceiling(tv, e, ORDER_GAP), 2) for e in ORDER_ERRS)
              + f" of those at least {int(ORDER_GAP * 100)} % apart), in expectation.", "",
              "| t (s) | estimate | programs | MAE | worst (program) | Spearman | pairwise order | "
              f"order, pairs {int(ORDER_GAP * 100)} % apart | "
              "held-out MAE / order | leave-one-out MAE / Spearman / order (min-max) |",
              "| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |"]
        for (t, k, sub), m in sorted(em.items()):
            if sub != "all":
                continue
            h = em.get((t, k, "held-out"))
            lo = m.get("loo", [(float("nan"),) * 2] * 3)
            L.append(f"| {t:g} | {k} | {m['n']} | {fmt(m['mae'] * 100, 1)} % | "
                     f"{fmt(m['worst'] * 100, 1)} % ({m['worst_prog']}) | {fmt(m['spearman'], 2)} | "
                     f"{fmt(m['order'], 2)} | {fmt(m.get('order10'), 2)} | {fmt(h['mae'] * 100, 1) + ' % / ' + fmt(h['order'], 2) if h else 'n/a'} | "  # noqa: E501
                     f"{fmt(lo[0][0] * 100, 1)}-{fmt(lo[0][1] * 100, 1)} % / {fmt(lo[1][0], 2)}-{fmt(lo[1][1], 2)} / "
                     f"{fmt(lo[2][0], 2)}-{fmt(lo[2][1], 2)} |")
        ts = sorted({x["t"] for x in r["est"]["rows"]})
        kinds = [k for k in ("pred", "meas", "blend", "pred+mix", "blend+mix")
                 if any(x["kind"] == k for x in r["est"]["rows"])]
        L += ["", "| program | held out | truth | " + " | ".join(
            f"{k} {t:g} s" for t in ts for k in kinds) + " | err / src (last) |",
            "| --- | --- | --- |" + " --- |" * (len(kinds) * len(ts) + 1)]
        idx = {(x["t"], x["kind"], x["prog"]): x for x in r["est"]["rows"]}
        for p in sorted(r["est"]["truth"]):
            cells = [fmt(idx[(t, k, p)]["est"], 2) if (t, k, p) in idx else "-"
                     for t in ts for k in kinds]
            last = idx.get((ts[-1], "blend", p)) if ts else None
            ex = last["extra"][0] if last and last["extra"] else {}
            L.append(f"| {p} | {'yes' if p in r['held'] else ''} | {fmt(r['est']['truth'][p], 2)} | "
                     + " | ".join(cells) + f" | {ex.get('speedup_err', '-')} / {ex.get('speedup_src', '-')} |")
    # overhead
    if ov.get("tests"):
        L += ["", "## Overhead from the rig's counters (independent of host load)", ""]
        for c in ("core", "on"):
            o = ov.get(c)
            if not o:
                continue
            L.append(f"- {c} ({'sbridge_core alone' if c == 'core' else 'with its counter source'}) vs "
                     f"modules out, per round: 1000-process test instructions "
                     f"{', '.join(f'{x * 100:+.2f} %' for x in o['short_instr'])}, cycles "
                     f"{', '.join(f'{x * 100:+.2f} %' for x in o['short_cycles'])}; ping-pong cycles "
                     f"{', '.join(f'{x * 100:+.2f} %' for x in o['pp_cycles'])}; pinned spins cycles "
                     f"{', '.join(f'{x * 100:+.2f} %' for x in o['spin_cycles'])}; per process "
                     f"{', '.join(f'{x:.0f}' for x in o['per_proc_cycles'])} cycles, per context switch "
                     f"{', '.join(f'{x:.0f}' for x in o['per_switch_cycles'])} cycles" +
                     (f", per period {', '.join(f'{x:.0f}' for x in o.get('per_period_cycles', []))} cycles"
                      if o.get("per_period_cycles") else "") + ".")
            if o.get("prog_cycles"):
                L.append(f"  Two real programs pinned on each CPU ({', '.join(ov.get('prog_names', []))}), "
                         f"cycles {', '.join(f'{x * 100:+.2f} %' for x in o['prog_cycles'])}, "
                         f"instructions {', '.join(f'{x * 100:+.2f} %' for x in o['prog_instr'])}" +
                         (f"; the per-event costs above predict "
                          f"{', '.join(f'{x * 100:+.2f} %' for x in o['prog_predicted'])}"
                          if o.get("prog_predicted") else "") + ".")
        if ov.get("mix_share"):
            L.append(f"- In the mixes (sbridge runs): per-event costs x their counts / all cycles: "
                     f"median {ov['mix_share'][0] * 100:.2f} %, worst {ov['mix_share'][1] * 100:.2f} %.")
            mp = ov.get("mix_parts")
            if mp:
                L.append(f"- Of it (medians): context switches {mp['switch'] * 100:.2f} %, processes "
                         f"{mp['process'] * 100:.2f} %, work by the clock {mp['period'] * 100:.2f} % "
                         "(the spin test's extra cycles per 200 ms: the decision, the counter reads "
                         "at ticks). That work follows the guest's clock, which on the rig runs at "
                         f"wall speed, {r['slowdown']}x its modelled cycles: at a board's clock it "
                         f"would cost {mp['period_board'] * 100:.3f} % (the switches' count, set "
                         "by the tick and the programs, is not scaled: the rig's tick is in wall "
                         "time too, so it reads them high by an amount not measured here).")
    if r["mt"]:
        cfgs = sorted({c for v in r["mt"].values() for c in v if c != "_secs"})
        L += ["", "## Multithreaded and multi-process programs (time / sbridge's time)", "",
              "| program | sbridge s | " + " | ".join(cfgs) + " |", "| --- | --- |" + " --- |" * len(cfgs)]
        for p, v in sorted(r["mt"].items()):
            L.append(f"| {p} | {fmt(v.get('_secs'), 2)} | " + " | ".join(fmt(v.get(c)) for c in cfgs) + " |")
    if r["lat"]:
        L += ["", "## Wakeup latency (cyclictest -v, SCHED_OTHER, one thread per CPU, beside a CPU-bound mix)", "",
              f"Latencies in rig wall microseconds (the guest runs {r['slowdown']}x slower than "
              "its clock).", "",
              "| config | p50 us | p99 us | samples | over 100 ms |", "| --- | --- | --- | --- | --- |"]
        for c, v in sorted(r["lat"].items()):
            L.append(f"| {c} | {fmt(v['p50'], 0)} | {fmt(v['p99'], 0)} | {v['n']} | {v['over']} |")
    L += scx_summary(r)
    if pics:
        L += ["", "## Pictures", ""] + [f"- `{p.name}`" for p in pics]
    L.append("")
    (out / "summary.md").write_text("\n".join(L))


def scx_summary(r):
    """summary.md's scx_sbridge section: its ratios where it ran, why not
    where it did not, nothing where the run did not ask for it."""
    meta = r["meta"]
    asked = "scx" in (meta.get("configs") or ["scx"])
    if not asked or not (r["scx"] or r["scx_not_run"] or "scx" in r["evidence"]):
        return []
    L = ["", "## scx_sbridge (sched_ext; issue 33)", "",
         "scx_sbridge places every wakeup by sbridge's hints (sbridge loaded cold with its "
         "defaults, its affinity and uclamp steering off while the BPF scheduler runs); it runs "
         "only where the kernel has sched_ext (the 7.x cells)."]
    for why in r["scx_not_run"]:
        L += ["", f"**scx: not run**: {why}."]
    if r["scx"] or r["scx_nolag"]:
        L += ["", "| boot | scx_sbridge vs | STP ratio [95 % CI] | ANTT ratio (higher better) | "
              "makespan ratio | per-program (geo. mean) | worst program (p05) | units (boots) |",
              "| --- | --- | --- | --- | --- | --- | --- | --- |"]
        rows = [(k, m, "") for k, m in sorted(r["scx"].items())] + \
            [(k, m, ": **every run, lag not gated** (sensitivity)")
             for k, m in sorted(r["scx_nolag"].items())]
        for (kind, base, _top), m, note in rows:
            L.append(f"| {kind} | {NAMES.get(base, base)}{note} | {ci(m['stp'])} | {ci(m['antt'])} | "
                     f"{ci(m['makespan'])} | {ci(m['per_program'])} | {fmt(m['worst'])} "
                     f"({fmt(m['p05'])}) | {m['n_units']} ({m['n_boots']}) |")
        L += ["", "Targets of issue 33 (lag-gated runs; a missed target is a finding):", ""]
        for kind in ("cap", "sym"):
            m = r["scx"].get((kind, "sbridge", "scx"))
            if m:
                L.append(f"- STP >= sbridge's ({kind} boot): {ci(m['stp'])}: "
                         f"{verdict(m['stp'][0] >= 1.0)}")
    if not (r["scx"] or r["scx_nolag"] or r["scx_not_run"]):
        e = r["evidence"].get("scx", {})
        L += ["", f"**scx: no paired run** ({e.get('failed', 0)} failed switches to it)."]
    lat, st = r["lat"].get("scx"), r["lat"].get("cap") or r["lat"].get("sym")
    if lat and st:
        q = lat["p99"] / st["p99"] if st["p99"] else float("nan")
        L.append(f"- p99 wakeup latency <= stock's: {fmt(lat['p99'], 0)} us vs "
                 f"{fmt(st['p99'], 0)} us ({fmt(q)} x): {verdict(q <= 1.0)}")
    return L


def _pctf(x, d=2):
    return f"{x * 100:.{d}f} %" if isinstance(x, int | float) and math.isfinite(x) else "n/a"


def issue29(r):
    """summary.md's sections for issue 29: work conservation from the
    records, starvation against the equal-share rate, the plan's promise."""
    us = [u for u in r["units"] if u["phase"] == "main"]
    L = ["", "## Work conservation (issue 29: `sbridgectl record` in every main mix)", "",
         "Replayed from each mix's record (bench/eval/conserve.py): a task waits on a CPU from "
         "its wakeup there, or from being preempted there (switch out in state R), until it "
         "runs; only the mix's processes and what they forked count. Lost fast capacity at "
         "an instant is min(idle fast CPUs, mix tasks waiting on slower CPUs); shares are of "
         "the fast CPUs' time from the mix's first to its last record. A *wanter*'s latest "
         "`sbridge_decide` gives it fast time (hint fast or a target above 0): sbridge only. "
         "Target: fast idle while a wanter waited <= 1 % of the run. Runs of every lag "
         "(the lag gate is about timing; this is about placement). The recorder is a task "
         "on the board in every configuration, pinned to the last slow CPU (since 2026-11-29; "
         "before, it took 10-20 % of the fast CPU): its CPU time, read from its own switches, "
         "is in the last column (under TCG most of it is the kernel formatting trace_pipe "
         "text); every ratio above includes it. Kernel workers (`kworker/*`) run in every "
         "configuration; sbridge's periodic works run in them, placed on a CPU of the slowest "
         "type: their share against stock's is what those works cost, and where. *CPU time per "
         "work*: each program's CPU time on fast and slow CPUs over its alone times there (1: "
         "its work took what it took alone; above 1, more CPU time for the same work, whatever "
         "the placement: what runs in its context, watching among it), the median program of "
         "a mix, mean over mixes.", "",
         "| boot | config | mixes recorded | fast CPUs idle | idle while a mix task waited on a slower "
         "CPU: mean (worst) | ... ran or waited there | idle while a wanter waited: mean (worst) | "
         "mixes over 1 % (wanter) | "
         "the recorder's CPU: of the board, of the fast CPUs (mean) | kworkers' CPU: of the "
         "board, of the fast CPUs (mean) | CPU time per work |",
         "| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |"]
    by = defaultdict(list)
    for u in us:
        if u["recorded"]:
            by[(u["kind"], u["config"])].append(u)
    for (kind, c), v in sorted(by.items()):
        def mw(k, v=v):
            xs = [u[k] for u in v if math.isfinite(u[k])]
            return f"{_pctf(statistics.mean(xs))} ({_pctf(max(xs))})" if xs else "n/a"

        def mean_of(k, v=v):
            xs = [u[k] for u in v if math.isfinite(u[k])]
            return fmt(statistics.mean(xs)) if xs else "n/a"
        sb = c in SB_DECIDES or c.startswith("p")
        over = sum(1 for u in v if math.isfinite(u["idle_wanter"]) and u["idle_wanter"] > 0.01)
        L.append(f"| {kind} | {c} | {len(v)} | {mw('fast_idle')} | {mw('idle_any')} | "
                 f"{mw('idle_runnable')} | "
                 f"{mw('idle_wanter') if sb else 'n/a (no decisions)'} | "
                 f"{over if sb else '-'} | {mw('recorder').split(' (')[0]}, "
                 f"{mw('recorder_fast').split(' (')[0]} | {mw('kworker').split(' (')[0]}, "
                 f"{mw('kworker_fast').split(' (')[0]} | {mean_of('cpu_work')} |")
    if not by:
        L.append("| - | - | 0 | no records (RECORD=0, or a run before records) | | | | | | | |")
    else:
        # issue 28: records before --sbridge-events held every sbridge event
        # where it was loaded (sbridge_window: a recorder cost stock never had)
        held = {c: sorted({u.get("rec_events") or "?" for u in v}) for (_k, c), v in by.items()}
        L += ["", "sbridge events in the records (issue 28: `decide` alone keeps the "
              "recorder's cost close to equal; `all` is a record from before it, whose "
              "recorder also wrote every `sbridge_window`): "
              + "; ".join(f"{c} {'/'.join(e)}" for c, e in sorted(held.items())) + "."]
    if r.get("rec_errors"):
        L += ["", f"Records not read: {len(r['rec_errors'])}: " + "; ".join(r["rec_errors"][:3])]
    L += ["", "## Starvation: progress against the equal-share rate (issue 29)", "",
          "Each program's rate (its alone time on a little core / its time in the mix) over "
          "its equal-share rate c (F s + S) / (F + S) (docs/policy.md; s its alone speedup, c "
          "the mean of min(1, CPUs / programs running) over its time in the mix; "
          "bench/eval/promise.py). Target: every program >= 0.8 in every mix. Every run that "
          "completed (lag-rejected ones too, counted). The alone times ran without the "
          "recorder, the mixes with it (its share above): the ratios read that much low.", "",
          "| boot | config | mixes | worst program (ratio) | median of the mixes' worst | "
          "mixes with a program below 0.8 | of them lag-rejected |",
          "| --- | --- | --- | --- | --- | --- | --- |"]
    by = defaultdict(list)
    for u in us:
        if math.isfinite(u["fair_min"]):
            by[(u["kind"], u["config"])].append(u)
    for (kind, c), v in sorted(by.items()):
        w = min(v, key=lambda u: u["fair_min"])
        low = [u for u in v if u["fair_min"] < promise.FAIR]
        L.append(f"| {kind} | {c} | {len(v)} | {w['fair_worst']} ({fmt(w['fair_min'])}, "
                 f"r{w['round']} {w['mix']}) | {fmt(statistics.median(u['fair_min'] for u in v))} | "
                 f"{len(low)} | {sum(1 for u in low if u['rejected'])} |")
    pr = r.get("promise", [])
    if pr:
        cfgs = sorted({c for x in pr for c in x["stp"]})
        # sbridge first, then the others that place, as their records show
        placing = ["sbridge"] + sorted({c for x in pr for c in x["fast"]} & set(SB_DECIDES) -
                                       {"sbridge"})
        L += ["", "## The plan's promise beside the rig (issue 29)", "",
              "tests/unit/plansim: sbridge-core/plan.c built for the host, given each mix's "
              "programs with their alone speedups and work (CPU-bound, nice 0), re-planned as "
              "each finishes (a fluid model: no sampling swaps, no estimation error, no "
              "turns' granularity; nor the recorder's CPU time, the kernel's, or what programs "
              "sharing a CPU cost each other in its caches, so every configuration measures "
              "below it where programs outnumber CPUs). STP = sum of (alone on big / in the "
              "mix); fast busy = the "
              "fast CPUs' busy share with the mix's tasks from its start to its end (planned; "
              "measured from sbridge's record); per program the share of its time on the fast "
              "type, planned / measured under each configuration sbridge places in.", "",
              "| boot | round | mix | STP planned | " + " | ".join(f"STP {c}" for c in cfgs) +
              " | fast busy planned / measured | per program: fast share planned / " +
              " / ".join(placing) + " |",
              "| --- | --- | --- | --- | " + " --- |" * len(cfgs) + " --- | --- |"]
        for x in pr:
            pm = x["promise"]

            def shares(i, x=x):
                return "/".join(fmt(m[i], 2) if m and i < len(m) else "-"
                                for m in (x["fast"].get(c) for c in placing))
            per = "; ".join(f"{p} {fmt(pm.fast[i], 2) if pm else '-'}/{shares(i)}"
                            for i, p in enumerate(x["progs"] or []))
            L.append(f"| {x['boot']} | {x['round']} | {x['mix']} | "
                     f"{fmt(pm.stp) if pm else 'n/a'} | " +
                     " | ".join(fmt(x["stp"].get(c)) for c in cfgs) +
                     f" | {_pctf(pm.fast_busy, 0) if pm else 'n/a'} / "
                     f"{_pctf(x['fast_busy'].get('sbridge', float('nan')), 0)} | {per} |")
    return L


def estcal(rows):
    """{config: stats} of how the estimates sbridge decided on stood to the
    truth: only estimates with an error (rules and set factors have none)."""
    out = {}
    # truths decides on rules (the plan takes their factors as exact); its
    # decide events show the rule's speedup beside the estimate's error
    for c in sorted({x["config"] for x in rows} - {"truths"}):
        v = [x for x in rows if x["config"] == c and x["err"] > 0 and x["est"] > 0]
        if not v:
            continue
        dev = [abs(x["est"] - x["truth"]) / x["err"] for x in v]
        out[c] = dict(n=len(v),
                      mae=statistics.median(abs(math.log(x["est"] / x["truth"])) for x in v),
                      rel=statistics.median(x["err"] / x["est"] for x in v),
                      in1=sum(d <= 1 for d in dev) / len(v), in2=sum(d <= 2 for d in dev) / len(v),
                      below=sum(x["est"] < x["truth"] for x in v) / len(v),
                      worst=max(v, key=lambda x: abs(math.log(x["est"] / x["truth"]))))
    return out


def estcal_section(r):
    """summary.md: the estimates' stated errors against the truth (issue 27)."""
    st = estcal(r.get("estcal", []))
    if not st:
        return []
    L = ["", "## The estimates sbridge decided on, and their stated errors (issue 27)", "",
         "Per program and mix, the median speedup and error in the second half of its "
         "tasks' `sbridge_decide` events (the record), beside its alone speedup (the truth). "
         "Were the errors standard errors of unbiased estimates, about 68 % of the truths "
         "would lie within one error and 95 % within two; the decision layer's ties "
         "(`act.margin`) assume so.", "",
         "| config | programs x mixes | median abs. log error | median stated error | "
         "truth within 1 error | within 2 | estimate below truth | worst |",
         "| --- | --- | --- | --- | --- | --- | --- | --- |"]
    for c, x in st.items():
        w = x["worst"]
        L.append(f"| {c} | {x['n']} | {fmt(x['mae'], 2)} | {_pctf(x['rel'], 0)} | "
                 f"{_pctf(x['in1'], 0)} | {_pctf(x['in2'], 0)} | {_pctf(x['below'], 0)} | "
                 f"{w['prog']} {fmt(w['est'], 2)} +- {fmt(w['err'], 2)} (truth "
                 f"{fmt(w['truth'], 2)}, r{w['round']} {w['mix']}) |")
    return L


def write_csv(r, out):
    keys = list(r["units"][0]) if r["units"] else []
    with open(out / "units.csv", "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=keys)
        w.writeheader()
        w.writerows(r["units"])
    with open(out / "alone.csv", "w", newline="") as f:
        w = csv.writer(f)
        w.writerow(["prog", "heldout", "type", "wall_s", "model_s", "n", "max_lag"])
        for p, t in sorted(r["alone"].items()):
            for ty, v in t.items():
                w.writerow([p, int(p in r["held"]), ty, f"{v['wall']:.3f}", f"{v['model']:.3f}",
                            v["n"], f"{v['lag']:.4f}"])
    with open(out / "estimation.csv", "w", newline="") as f:
        w = csv.writer(f)
        w.writerow(["t", "kind", "prog", "heldout", "truth", "estimate", "n", "err", "src"])
        for x in r["est"]["rows"]:
            ex = x["extra"][0] if x["extra"] else {}
            w.writerow([x["t"], x["kind"], x["prog"], int(x["heldout"]), f"{x['truth']:.3f}",
                        f"{x['est']:.3f}", x["n"], ex.get("speedup_err", ""), ex.get("speedup_src", "")])
    with open(out / "comparisons.csv", "w", newline="") as f:
        w = csv.writer(f)
        w.writerow(["boot_kind", "baseline", "config", "metric", "value", "ci_low", "ci_high", "units"])
        for (kind, base, top), m in sorted(r["comps"].items()) + sorted(r["scx"].items()):
            for met in ("stp", "antt", "makespan", "per_program", "headroom"):
                w.writerow([kind, base, top, met] + [f"{x:.4f}" for x in m[met]] + [m["n_units"]])


def headline(r):
    """summary.json: what bench/eval/tables.py puts in bench/README.md."""
    def c3(t):
        return [round(x, 4) if math.isfinite(x) else None for x in t]
    h = dict(board=r["board"], commit=r["meta"]["commit"], date=r["meta"]["date"],
             boots=len(r["boots"]), planned_boots=len(r["meta"].get("planned_boots", [])),
             mode=r["meta"]["mode"], seed=r["meta"]["seed"], x86=r["x86"],
             rejected=r["rejected"], nruns=r["nruns"], lag_dist=r.get("lag_dist"), comps={}, est={},
             overhead=None, lat={}, slowdown=r["slowdown"])
    for (kind, base, top), m in r["comps"].items():
        h["comps"][f"{kind}/{base}/{top}"] = dict(
            stp=c3(m["stp"]), antt=c3(m["antt"]), makespan=c3(m["makespan"]),
            per_program=c3(m["per_program"]), worst=m["worst"], headroom=c3(m["headroom"]),
            units=m["n_units"], boots=m["n_boots"])
    for (t, k, sub), m in r["est"]["metrics"].items():
        h["est"][f"{t:g}/{k}/{sub}"] = dict(mae=m["mae"], worst=m["worst"], spearman=m["spearman"],
                                            order=m["order"], order10=m.get("order10"),
                                            n=m["n"])
    on = r["overhead"].get("on")
    if on and on.get("short_cycles"):
        h["overhead"] = dict(short_cycles=on["short_cycles"], short_instr=on["short_instr"],
                             mix_share=r["overhead"].get("mix_share"))
    for (kind, base, top), m in r.get("comps_nolag", {}).items():
        h["comps"][f"{kind}/{base}/{top}-nolaggate"] = dict(
            stp=c3(m["stp"]), antt=c3(m["antt"]), makespan=c3(m["makespan"]),
            per_program=c3(m["per_program"]), worst=m["worst"], headroom=c3(m["headroom"]),
            units=m["n_units"], boots=m["n_boots"])
    h["lat"] = r["lat"]
    # apart from comps (bench/README.md's table is sbridge's)
    h["scx"] = {f"{kind}/{base}/{top}": dict(
        stp=c3(m["stp"]), antt=c3(m["antt"]), makespan=c3(m["makespan"]),
        per_program=c3(m["per_program"]), worst=m["worst"], units=m["n_units"],
        boots=m["n_boots"]) for (kind, base, top), m in r["scx"].items()}
    h["scx_not_run"] = r["scx_not_run"]
    # issue 29: worst progress / equal share, fast idle while a wanter waited
    i29 = defaultdict(dict)
    for u in r["units"]:
        if u["phase"] != "main":
            continue
        k = f"{u['kind']}/{u['config']}"
        for f, agg in (("fair_min", min), ("idle_any", max), ("idle_runnable", max), ("idle_wanter", max)):
            if math.isfinite(u[f]):
                i29[k][f] = agg(i29[k].get(f, u[f]), u[f])
    h["issue29"] = dict(i29)
    # runs on the rig's clocks (rig_cpufreq) record its modelled energy
    h["clocks"] = any(math.isfinite(u.get("energy", float("nan"))) for u in r["units"])
    return h


def main(out, boards):
    res = []
    for b in boards:
        d = out / b
        r = analyse(d)
        write_csv(r, d)
        pics = plots(r, d)
        summary(r, pics, d)
        (d / "summary.json").write_text(json.dumps(headline(r), indent=1, default=str))
        res.append(r)
    return res


if __name__ == "__main__":
    o = Path(sys.argv[1]) if len(sys.argv) > 1 else TOP / "build" / "eval"
    main(o, sorted(p.parent.name for p in o.glob("*/meta.json")))
