"""The evaluation's numbers: oracle, ratios, sweeps, overhead, pictures.

Reads what bench/eval/guest.sh measured in one boot per board
(build/eval/<board>/*.csv) and writes build/eval/summary.md,
build/eval/<board>/speedups.csv and PNGs. Ratios only: every number
compares configurations measured in the same boot.
"""
import csv
import datetime
import itertools
import math
import statistics
import subprocess
import sys
from collections import defaultdict
from pathlib import Path

TOP = Path(__file__).resolve().parents[2]
BASELINES = ("sym", "cap", "eas", "hmp")
NAMES = {
    "sym": "stock, symmetric view (no capacities)",
    "cap": "stock, capacity-aware (misfit, asym packing)",
    "eas": "EAS (energy model + schedutil)",
    "hmp": "HMP-style (sbridge placement by load, model off)",
    "sbridge": "sbridge",
}
# (mean, worst) per-program speedup targets of the evaluation issue
TARGETS = {"sym": (1.15, 0.95), "cap": (1.05, 0.97), "eas": (1.05, 0.97)}


def rows(path):
    if not path.exists():
        return []
    with open(path, newline="") as f:
        return list(csv.DictReader(f))


def gmean(xs):
    return math.exp(sum(math.log(x) for x in xs) / len(xs)) if xs else float("nan")


def fmt(x, d=3):
    return "n/a" if x is None or (isinstance(x, float) and math.isnan(x)) else f"{x:.{d}f}"


def board_cpus(d):
    """(big CPU count, little CPU count) from the board's console header."""
    for line in (d / "console.txt").read_text(errors="replace").splitlines():
        if line.startswith("eval: board ") and " big [" in line:
            big = line.split(" big [")[1].split("]")[0].split()
            lit = line.split(" little [")[1].split("]")[0].split()
            return len(big), len(lit)
    raise ValueError(f"{d}: no board line in console.txt")


def alone(d):
    """{prog: {"big": s, "little": s}} for programs that ran cleanly."""
    t = defaultdict(dict)
    for r in rows(d / "alone.csv"):
        if r["rc"] == "0":
            t[r["prog"]][r["type"]] = float(r["secs"])
    return {p: v for p, v in t.items() if "big" in v and "little" in v}


def oracle(progs, times, nbig, nlit):
    """Best static assignment of @progs to CPUs, each program on one CPU.

    Programs sharing a CPU share it fairly (processor sharing), so a CPU's
    programs end in order of length. Exhaustive over CPU assignments
    (at most 4^8 for these boards). Returns (makespan, {slot: s}).
    """
    kinds = ["big"] * nbig + ["little"] * nlit
    best = None
    n = len(progs)
    for assign in itertools.product(range(len(kinds)), repeat=n):
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
        key = (mk, sum(ends.values()))
        if best is None or key < best[0]:
            best = (key, ends)
    return best[0][0], best[1]


def predictions(d, progs):
    """{prog: (predicted, sbridge's measured)} big/little speedup, from the
    matrix sbridge learned during calibration (by comm)."""
    cells = defaultdict(lambda: defaultdict(list))
    meas = {}
    for line in (d / "matrix.txt").read_text().splitlines() if (d / "matrix.txt").exists() else []:
        kv = dict(x.split("=", 1) for x in line.split() if "=" in x)
        if "key" not in kv:
            continue
        cells[kv["key"]][int(kv["type"])].append((float(kv["factor"]), int(kv["samples"])))
        if "speedup" in kv:
            meas[kv["key"]] = float(kv["speedup"])
    out = {}
    for p in progs:
        key = comm_of(p, cells)
        if key is None:
            continue
        f = {}
        for ty, v in cells[key].items():
            w = sum(s for _, s in v)
            f[ty] = sum(x * s for x, s in v) / w if w else v[0][0]
        if len(f) < 2:
            continue
        # as sbridge_task_speedup(): FP_ONE + LF(little) - LF(big), at least 1
        out[p] = (max(1.0, 1 + f[min(f)] - f[max(f)]), meas.get(key))
    return out


def comm_candidates(prog):
    """Comms a workload of bench/eval/workloads.sh may run under."""
    base = prog.split("-")[0]
    c = [prog, base, {"sqlite": "sqlite3", "stress": "stress-ng"}.get(base, base)]
    if base == "stress":  # the worker's comm, cut to TASK_COMM_LEN - 1
        c.insert(0, ("stress-ng-" + prog.split("-", 1)[1])[:15])
    return c


def comm_of(prog, cells):
    """The matrix key (comm) a workload ran under."""
    for k in comm_candidates(prog):
        if k in cells:
            return k
    return None


def mean_by_slot(runs, kind, config):
    """{(mix, slot): (prog, mean secs over rounds)} for one configuration."""
    acc = defaultdict(list)
    prog = {}
    for r in runs:
        if r["kind"] == kind and r["config"] == config and r["rc"] == "0":
            acc[(r["mix"], int(r["slot"]))].append(float(r["secs"]))
            prog[(r["mix"], int(r["slot"]))] = r["prog"]
    return {k: (prog[k], statistics.mean(v)) for k, v in acc.items()}


def makespans(mixes, kind, config):
    acc = defaultdict(list)
    for r in mixes:
        if r["kind"] == kind and r["config"] == config:
            acc[r["mix"]].append((float(r["makespan"]), float(r["big_share"]), float(r["big_busy"])))
    return {m: tuple(statistics.mean(x[i] for x in v) for i in range(3)) for m, v in acc.items()}


def energies(mixes, kind, config):
    """{mix: mean modelled energy (J) over rounds}, {} for runs before the rig had it."""
    acc = defaultdict(list)
    for r in mixes:
        if r["kind"] == kind and r["config"] == config and r.get("energy_j"):
            acc[r["mix"]].append(float(r["energy_j"]))
    return {m: statistics.mean(v) for m, v in acc.items()}


def analyse(d):
    """Everything summary.md says about one board."""
    res = {"board": d.name, "files": d}
    res["info"] = (d / "board.txt").read_text().splitlines()[0] if (d / "board.txt").exists() else ""
    nbig, nlit = board_cpus(d)
    times = alone(d)
    res["alone"] = times
    runs = rows(d / "runs.csv") + rows(d / "runs-extra.csv")
    mixes = rows(d / "mixes.csv") + rows(d / "mixes-extra.csv")
    res["failed"] = sorted({r["prog"] for r in runs + rows(d / "alone.csv") if r["rc"] != "0"})
    configs = [c for c in ("sym", "cap", "eas", "hmp", "sbridge")
               if any(r["config"] == c and r["kind"] == "main" for r in mixes)]
    res["configs"] = configs
    per = {c: mean_by_slot(runs, "main", c) for c in configs}
    res["rounds"] = max((int(r["round"]) for r in mixes if r["kind"] == "main"), default=0)
    # per-program speedup of sbridge over each baseline
    sp = {}
    table = []
    sb = per.get("sbridge", {})
    for c in configs:
        if c == "sbridge":
            continue
        xs = []
        for k, (p, t) in sorted(per[c].items()):
            if k in sb:
                xs.append((k, p, t / sb[k][1]))
        if xs:
            v = [x[2] for x in xs]
            sp[c] = dict(mean=statistics.mean(v), gmean=gmean(v), worst=min(v), best=max(v),
                         worst_prog=min(xs, key=lambda x: x[2])[1], each=xs)
    res["speedup"] = sp
    for k, (p, t) in sorted(sb.items()):
        table.append([k[0], k[1], p] + [fmt(per[c][k][1] if k in per[c] else None, 2) for c in configs]
                     + [fmt(per[c][k][1] / t if k in per[c] else None) for c in configs if c != "sbridge"])
    res["slot_table"] = table
    # makespan, throughput, big share, oracle
    ms = {c: makespans(mixes, "main", c) for c in configs}
    res["makespan"] = ms
    res["energy"] = {c: energies(mixes, "main", c) for c in configs}
    orc, orc_ends = {}, {}
    mixprogs = defaultdict(dict)
    for r in runs:
        if r["kind"] == "main":
            mixprogs[r["mix"]][int(r["slot"])] = r["prog"]
    for m, slots in mixprogs.items():
        progs = [slots[i] for i in sorted(slots)]
        if all(p in times for p in progs):
            orc[m], ends = oracle(progs, times, nbig, nlit)
            orc_ends.update({(m, i): e for i, e in ends.items()})
    res["oracle"] = orc
    # headroom: the per-program speedup the oracle itself scores against
    # each baseline (its times are from the programs alone, so this is
    # what a perfect static placement would reach, not a measurement)
    res["headroom"] = {}
    for c in configs:
        v = [t / orc_ends[k] for k, (p, t) in per[c].items() if k in orc_ends and orc_ends[k]]
        if v:
            res["headroom"][c] = (statistics.mean(v), min(v))
    res["mixprogs"] = {m: [s[i] for i in sorted(s)] for m, s in mixprogs.items()}
    # prediction error
    pred = predictions(d, list(times))
    res["pred"] = {p: (pv, mv, times[p]["little"] / times[p]["big"]) for p, (pv, mv) in pred.items()}
    # sweeps: makespan stock/sbridge and geometric mean per-program speedup;
    # stock is capacity-aware where the board declares capacities (guest.sh)
    stock = "cap" if any(r["config"] == "cap" for r in mixes) else "sym"
    res["stock"] = stock
    for sweep in ("factor", "freq"):
        pts = []
        kinds = sorted({r["kind"] for r in mixes if r["kind"].startswith(sweep + "-")},
                       key=lambda k: float(k.split("-", 1)[1]))
        for k in kinds:
            a, b = makespans(mixes, k, stock), makespans(mixes, k, "sbridge")
            pa, pb = mean_by_slot(runs, k, stock), mean_by_slot(runs, k, "sbridge")
            v = [pa[s][1] / pb[s][1] for s in pa if s in pb]
            if a and b:
                m = next(iter(a))
                pts.append((float(k.split("-", 1)[1]), a[m][0] / b[m][0], gmean(v), b[m][2]))
        res[sweep] = pts
    # overhead
    ov = rows(d / "overhead.csv")
    if ov:
        med = {c: (statistics.median(float(r["short_secs"]) for r in ov if r["config"] == c),
                   statistics.median(float(r["pingpong_ns"]) for r in ov if r["config"] == c and r["pingpong_ns"]))
               for c in ("off", "core", "on") if any(r["config"] == c for r in ov)}
        res["overhead"] = dict(off=med["off"], on=med["on"], short=med["on"][0] / med["off"][0],
                               pp=med["on"][1] / med["off"][1], core=med.get("core"),
                               n=len([r for r in ov if r["config"] == "on"]))
    return res


def plots(res, out):
    """Speedup bars per board, the two sweeps, the timelines."""
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    pics = []
    for r in res:
        sp = r["speedup"]
        if not sp:
            continue
        base = [c for c in BASELINES if c in sp]
        labels = [f"{p}\n{k[0]}/{k[1]}" for k, p, _ in sp[base[0]]["each"]]
        n = len(labels)
        fig, ax = plt.subplots(figsize=(max(8, n * 0.55), 4.2))
        w = 0.8 / len(base)
        for i, c in enumerate(base):
            v = {(k, p): x for k, p, x in sp[c]["each"]}
            ys = [v.get((k, p), float("nan")) for k, p, _ in sp[base[0]]["each"]]
            ax.bar([j + i * w - 0.4 + w / 2 for j in range(n)], ys, w, label=f"over {c}")
        ax.axhline(1.0, color="black", lw=0.8)
        ax.set_xticks(range(n))
        ax.set_xticklabels(labels, fontsize=7, rotation=90)
        ax.set_ylabel("sbridge speedup (baseline time / sbridge time)")
        ax.set_title(f"board {r['board']}: per-program speedup of sbridge, one boot")
        ax.legend(fontsize=8, ncol=len(base))
        fig.tight_layout()
        p = out / r["board"] / "speedup.png"
        fig.savefig(p, dpi=110)
        plt.close(fig)
        pics.append(p)
    for sweep, xlabel in (("factor", "CPU factor of the little cores"),
                          ("freq", "little-core clock (MHz), big at its own")):
        have = [r for r in res if r.get(sweep)]
        if not have:
            continue
        fig, ax = plt.subplots(figsize=(6, 4))
        for r in have:
            xs = [p[0] for p in r[sweep]]
            ax.plot(xs, [p[1] for p in r[sweep]], "o-", label=f"{r['board']} makespan")
            ax.plot(xs, [p[2] for p in r[sweep]], "s--", label=f"{r['board']} geo. mean per program")
        ax.axhline(1.0, color="black", lw=0.8)
        ax.set_xlabel(xlabel)
        ax.set_ylabel("stock / sbridge (stock: capacity-aware where\nthe board declares capacities)")
        ax.set_title(f"{sweep} sweep, one boot per board")
        ax.legend(fontsize=8)
        fig.tight_layout()
        p = out / f"{sweep}-sweep.png"
        fig.savefig(p, dpi=110)
        plt.close(fig)
        pics.append(p)
    for r in res:
        d = r["files"]
        a, b = d / f"record-{r['stock']}.txt", d / "record-sbridge.txt"
        if a.exists() and b.exists():
            p = d / "timeline.png"
            q = subprocess.run([sys.executable, str(TOP / "tools" / "sbridge-plot"), "compare",
                                "--allow-truncated", str(a), str(b), "-o", str(p)],
                               capture_output=True, text=True)
            if q.returncode == 0:
                pics.append(p)
            else:
                print(f"eval: timeline for {r['board']}: {q.stderr.strip()}")
    return pics


def commit():
    q = subprocess.run(["git", "-C", str(TOP), "describe", "--always", "--dirty"],
                       capture_output=True, text=True)
    return q.stdout.strip() or "unknown"


def verdict(ok):
    return "met" if ok else "**missed**"


def summary(res, pics, out):
    L = [f"# sbridge evaluation ({datetime.date.today()}, commit {commit()})", "",
         "Ratios inside one boot per board on the emulation rig (tools/rig), configurations "
         "alternated round by round; absolute seconds are rig time, not a board's. "
         "Per-program speedup = the program's completion time under the baseline / under "
         "sbridge (mean over rounds), for every program of every mix.", ""]
    for r in res:
        L += [f"## Board {r['board']}", "", f"`{r['info']}`; rounds: {r['rounds']}; "
              f"configurations: {', '.join(r['configs'])}", ""]
        for m, progs in sorted(r["mixprogs"].items()):
            L.append(f"- mix {m}: {' '.join(progs)}")
        L.append("")
        if r["failed"]:
            L += [f"**Programs that failed (left out of the ratios): {', '.join(r['failed'])}**", ""]
        L += ["| sbridge vs | mean | geo. mean | worst (program) | best | target (mean / worst) |",
              "| --- | --- | --- | --- | --- | --- |"]
        for c in BASELINES:
            s = r["speedup"].get(c)
            if not s:
                if c == "eas":
                    L.append("| eas | not run: no energy model on this board/kernel | | | | |")
                continue
            t = TARGETS.get(c)
            tv = f"{t[0]} / {t[1]}: {verdict(s['mean'] >= t[0] and s['worst'] >= t[1])}" if t else "none"
            L.append(f"| {NAMES[c]} | {fmt(s['mean'])} | {fmt(s['gmean'])} | "
                     f"{fmt(s['worst'])} ({s['worst_prog']}) | {fmt(s['best'])} | {tv} |")
        if r.get("headroom"):
            L += ["", "Headroom: the per-program speedup the oracle's assignment would score "
                  "(its times from the programs alone) against each configuration's measured "
                  "times, mean / worst: " +
                  ", ".join(f"{c} {fmt(m)} / {fmt(w)}" for c, (m, w) in r["headroom"].items()) + "."]
        L += ["", "| mix | " + " | ".join(f"makespan {c}" for c in r["configs"]) +
              " | oracle | sbridge / oracle | big share (" + ", ".join(r["configs"]) + ") |",
              "| --- |" + " --- |" * (len(r["configs"]) + 3)]
        for m in sorted(r["makespan"].get("sbridge", {})):
            mk = [r["makespan"][c].get(m) for c in r["configs"]]
            o = r["oracle"].get(m)
            sbm = r["makespan"]["sbridge"][m][0]
            L.append(f"| {m} | " + " | ".join(fmt(x[0] if x else None, 2) for x in mk) +
                     f" | {fmt(o, 2)} | {fmt(sbm / o if o else None)} "
                     f"({verdict(o and sbm / o <= 1.05) if o else ''}) | " +
                     ", ".join(fmt(x[1] if x else None, 2) for x in mk) + " |")
        n = len(r["mixprogs"].get(next(iter(r["mixprogs"]), ""), []))
        if r["makespan"].get("sbridge"):
            L += ["", "Throughput (programs per second of makespan, mean over mixes): " +
                  ", ".join(f"{c} {fmt(statistics.mean(len(r['mixprogs'][m]) / v[0] for m, v in r['makespan'][c].items()), 3)}"
                            for c in r["configs"] if r["makespan"][c])]
        del n
        en = r.get("energy", {})
        if any(en.values()):
            L += ["", "Energy per mix (J, the rig's model: the energy model's power at the OPP in "
                  "force x busy time, plus idle power; mean over rounds): " +
                  "; ".join(f"{m}: " + ", ".join(f"{c} {fmt(en[c].get(m), 2)}" for c in r["configs"]
                                                  if en.get(c))
                            for m in sorted(en.get("sbridge", {})))]
        if r["pred"]:
            L += ["", "| program | alone big s | alone little s | measured speedup | sbridge predicted | error | sbridge measured |",
                  "| --- | --- | --- | --- | --- | --- | --- |"]
            errs = []
            for p, (pv, mv, real) in sorted(r["pred"].items()):
                e = pv / real - 1
                errs.append(abs(e))
                L.append(f"| {p} | {fmt(r['alone'][p]['big'], 2)} | {fmt(r['alone'][p]['little'], 2)} | "
                         f"{fmt(real, 2)} | {fmt(pv, 2)} | {e * 100:+.1f} % | {fmt(mv, 2)} |")
            L += ["", f"Mean absolute prediction error: {statistics.mean(errs) * 100:.1f} %."]
        for sweep, what in (("factor", "little CPU factor"), ("freq", "little clock MHz")):
            if r.get(sweep):
                L += ["", f"{sweep.capitalize()} sweep ({what}; mix {next(iter(sorted(r['mixprogs'])))}, "
                      f"one stock ({r['stock']}) and one sbridge run per point):", "",
                      "| " + what + " | " + " | ".join(fmt(p[0], 1) for p in r[sweep]) + " |",
                      "| --- |" + " --- |" * len(r[sweep]),
                      "| makespan stock/sbridge | " + " | ".join(fmt(p[1]) for p in r[sweep]) + " |",
                      "| geo. mean per program | " + " | ".join(fmt(p[2]) for p in r[sweep]) + " |",
                      "| big busy (sbridge) | " + " | ".join(fmt(p[3], 2) for p in r[sweep]) + " |"]
        o = r.get("overhead")
        if o:
            L += ["", f"Overhead (medians of {o['n']} alternated rounds, modules out vs loaded): "
                  f"short processes {fmt(o['off'][0], 2)} s vs {fmt(o['on'][0], 2)} s, ratio "
                  f"{fmt(o['short'], 4)} (target <= 1.01: {verdict(o['short'] <= 1.01)}); "
                  f"pinned ping-pong {o['off'][1]:.0f} vs {o['on'][1]:.0f} ns per round trip, "
                  f"ratio {fmt(o['pp'], 4)}."]
            if o["core"]:
                L[-1] += (f" sbridge_core alone (hooks, no counter source): short processes "
                          f"{fmt(o['core'][0], 2)} s (ratio {fmt(o['core'][0] / o['off'][0], 4)}), "
                          f"ping-pong {o['core'][1]:.0f} ns (ratio {fmt(o['core'][1] / o['off'][1], 4)}).")
        L.append("")
    if pics:
        L += ["## Pictures", ""] + [f"- `{p.relative_to(out)}`" for p in pics] + [""]
    (out / "summary.md").write_text("\n".join(L))
    for r in res:
        with open(r["files"] / "speedups.csv", "w", newline="") as f:
            w = csv.writer(f)
            w.writerow(["mix", "slot", "prog"] + [f"secs_{c}" for c in r["configs"]] +
                       [f"speedup_over_{c}" for c in r["configs"] if c != "sbridge"])
            w.writerows(r["slot_table"])


def main(out, boards):
    res = [analyse(out / b) for b in boards]
    pics = plots(res, out)
    summary(res, pics, out)
    return res


if __name__ == "__main__":
    o = Path(sys.argv[1]) if len(sys.argv) > 1 else TOP / "build" / "eval"
    main(o, sorted(p.parent.name for p in o.glob("*/runs.csv")))
