#!/usr/bin/python3
"""make eval: boot each emulated board several times, run the evaluation, report.

Each boot runs bench/eval/guest.sh: every program alone on each core type,
a warm matrix learnt from calibration inputs, then rounds of fresh random
mixes under every configuration (alternated in an order rotated per round
and boot, paired within a round), the estimation benchmark, the period
sweep, multithreaded programs, wakeup latency and the overhead counters.
Full mode boots the board with its capacities (stock is capacity-aware)
and without them (`# capacities: no`: the true symmetric kernel, sbridge
given cpu_types=), interleaved. bench/eval/report.py turns the files into
build/eval/<board>/summary.md, CSV files and PNGs; a full run also copies
them to bench/results/<date>-<commit>-<board>/.

    bench/eval/run.py --smoke            # 1b3s, one boot: alone + one round of cap
                                         # and sbridge (two mixes), ~6 min
    bench/eval/run.py --quick            # one board (1b3s), one boot, ~15 min
    bench/eval/run.py --board 1b3s       # full mode, one board (~90 min)
    bench/eval/run.py                    # full mode, every board
    bench/eval/run.py --report-only      # redo the report from build/eval
    bench/eval/run.py --quick --suite backports   # on the 7.x kernel: scx runs
"""
import argparse
import datetime
import json
import os
import random
import re
import shutil
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
TOP = HERE.parents[1]
if "sbridge_testbed" not in sys.modules:  # python3 bench/eval/run.py
    sys.path.insert(0, str(TOP / "tools"))  # the testbed package's import root

import report  # noqa: E402
from boards import BOARDS  # noqa: E402
from sbridge_testbed import harness  # noqa: E402

OUT = TOP / "build" / "eval"
RESULTS = TOP / "bench" / "results"

CELL = {"arm64": "arm64-bookworm", "x86_64": "x86_64-bookworm"}
# --suite: the Debian suite whose kernel the boards boot (the cell)
SUITES = ["bookworm", "trixie", "backports"]

# The configurations of a boot with capacities (cap) and of the symmetric
# boot (sym): stock, EAS, the HMP daemon, sbridge without the model
# (ablation), sbridge choosing on any difference (act.margin 0: what leaving
# the estimates' ties to stock is worth, ablation), sbridge observing only
# (act.observe 1: the cost of watching, ablation), sbridge cold (the
# headline), sbridge warm, and scx_sbridge (sched_ext) over sbridge cold:
# it runs only where the kernel has sched_ext (the 7.x cells, --suite
# backports); elsewhere the guest drops it and the report says why it did
# not run.
CONFIGS_CAP = ["cap", "eas", "hmp", "nomargin", "nomodel", "observe", "sbridge", "warm", "scx"]
# Named with --configs only: sbridge, shipped defaults, over EAS (schedutil,
# the energy model): whether the tasks sbridge keeps on slow cores hold up
# the root domain's overutilized state, which turns EAS off for everyone.
# And sbridge without sampling swaps (act.sample_pct 0): what the visits
# that measure a task's other core type cost or give; without fairness
# floors (act.fair 0): what the turns they owe cost or give. truths: sbridge
# told the alone speedups (needs the alone phase): the decisions apart from
# the estimates.
CONFIGS_EXTRA = ["sbeas", "nosample", "nofair", "truths"]
# the overhead phase's real programs, two pinned on each CPU: working sets
# from a few hundred KiB to several MiB, none of them a spin
OVH_PROGS = "bzip2 sort sqlite zstd"
# configurations that need the kernel's EAS (arm64 boots with capacities)
CONFIGS_EAS = ("eas", "sbeas")
CONFIGS_SYM = ["sym", "sbridge", "scx"]
PERIODS = [50, 100, 200, 400]


def period_config(c):
    """True if @c names sbridge at another decision period (pN: N ms,
    act.period_ms's range), as the full mode's sweep does."""
    return bool(re.fullmatch(r"p[1-9][0-9]*", c)) and 10 <= int(c[1:]) <= 60000

# Per mode: boots (kind, phases[, configurations]), rounds per boot, sizes. Quick mode is for
# development (one boot of 1b3s, about 15 minutes); full mode is the
# evidence (3 boots with capacities and 3 symmetric ones per board,
# interleaved; aimed at <= 90 minutes per board on a 2-core host).
MODES: dict[str, dict[str, Any]] = {
    # the cheapest run with every main-phase number (alone times, one round
    # of stock and sbridge, the records): for checking the pipeline
    "smoke": dict(
        boards=["1b3s"], rounds=1, sym_rounds=0,
        boots=[("cap", "alone", ["cap", "sbridge"])], alone_mixed=True,
        alone_reps=1, cal_secs=8, est_secs=12, est_at="2,10", sweep_rounds=0,
        mt_rounds=1, lat_rounds=1, lat_loops=400, ovh_rounds=1, ovh_n=200,
        ovh_spin=40, pp_trips=2000, timeout=1800),
    "quick": dict(
        boards=["1b3s"], rounds=2, sym_rounds=0,
        boots=[("cap", "alone warm est sweep freq mt lat ovh")],
        alone_reps=1, cal_secs=8, est_secs=12, est_at="2,10", sweep_rounds=1,
        mt_rounds=1, lat_rounds=1, lat_loops=400, ovh_rounds=1, ovh_n=200,
        ovh_spin=40, pp_trips=2000, timeout=3600),
    "full": dict(
        boards=list(BOARDS), rounds=5, sym_rounds=5,
        boots=[("cap", "alone warm est sweep mt lat ovh"), ("sym", ""),
               ("cap", "alone warm est lat"), ("sym", ""),
               ("cap", "sweep freq mt", ["cap", "eas", "hmp", "sbridge"]), ("sym", "")],
        alone_reps=1, cal_secs=15, est_secs=60, est_at="2,10,60", sweep_rounds=1,
        mt_rounds=1, lat_rounds=1, lat_loops=1000, ovh_rounds=2, ovh_n=1000,
        ovh_spin=120, pp_trips=5000, timeout=3600),
}
# rounds of the main phase above this share of host lag are rejected
# (report.py; the rig's lag_ns: wall time the host could not keep the pace)
LAG_MAX = report.LAG_MAX


def workloads():
    """{var: [names]} of workloads.sh's lists."""
    text = (HERE / "workloads.sh").read_text()

    def var(name):
        m = re.search(rf'^{name}="([^"]*)"', text, re.M)
        if not m:
            raise SystemExit(f"bench/eval/workloads.sh: no {name}=")
        return re.sub(r"\$(\w+)", lambda v: " ".join(var(v.group(1))), m.group(1)).split()
    return {v: var(v) for v in ("WL_NAMES", "WL_TUNED", "WL_HELDOUT", "WL_CALIB", "WL_DEBS",
                                 "WL_MT")}


def draw(names, sizes, count, rnd):
    """@count mixes of each size in @sizes, every program used as evenly as
    possible: programs are dealt from shuffled decks, no repeat within a mix
    unless the mix is larger than the set. Returns [(size, [progs])]."""
    deck: list[str] = []
    out = []
    for _ in range(count):
        for n in sizes:
            pick: list[str] = []
            while len(pick) < n:
                if not deck:
                    deck = names[:]
                    rnd.shuffle(deck)
                # the first card not in the mix yet, if any
                j = next((i for i, p in enumerate(deck) if p not in pick or n > len(names)), 0)
                pick.append(deck.pop(j))
            out.append((n, pick))
    return out


def plan(board, mode, seed):
    """Everything random of a run, from @seed: mixes per boot and round,
    the sweep's mixes, the estimation groups. JSON-able."""
    b = BOARDS[board]
    ncpu = len((b["big"] + " " + b["little"]).split())
    names = workloads()["WL_NAMES"]
    rnd = random.Random(seed)
    caps = [i for i, b in enumerate(mode["boots"]) if b[0] == "cap"]
    mixes = {}
    # the i-th symmetric boot reuses the mixes of the i-th boot with
    # capacities: the same programs under both kernels
    for j, i in enumerate(caps):
        rounds = {}
        for r in range(1, mode["rounds"] + 1):
            rounds[r] = [(f"n{n}", p) for n, p in draw(names, (ncpu, 2 * ncpu), 1, rnd)]
        mixes[i] = rounds
        syms = [x for x, b in enumerate(mode["boots"]) if b[0] == "sym"]
        if j < len(syms):
            mixes[syms[j]] = {r: v for r, v in rounds.items() if r <= mode["sym_rounds"]}
    sweep = {i: {r: [(f"n{n}", p) for n, p in draw(names, (ncpu,), 1, rnd)]
                 for r in range(1, mode["sweep_rounds"] + 1)} for i in caps}
    est = {}
    for i in caps:
        order = names[:]
        rnd.shuffle(order)
        g = 2 * ncpu
        ngroups = -(-len(order) // g)
        est[i] = [order[k::ngroups] for k in range(ngroups)]
    return dict(board=board, seed=seed, ncpu=ncpu, mixes=mixes, sweep=sweep, est=est)


def _mixes_var(rounds):
    return " ".join(f"{r}:{m}:{','.join(p)}" for r, ms in rounds.items() for m, p in ms)


def scenario(board, b, mode, p, boot):
    """The generated scenario of boot @boot: header, settings, guest.sh."""
    w = workloads()
    kind, phases = mode["boots"][boot][:2]
    ncpu = p["ncpu"]
    arm = b["arch"] == "arm64"
    if not arm:
        kind = "sym"  # one capacity: the kernel's view is symmetric
    configs = CONFIGS_CAP if kind == "cap" else CONFIGS_SYM
    if len(mode["boots"][boot]) > 2:   # a boot that runs fewer (time)
        configs = mode["boots"][boot][2]
    if mode.get("configs"):            # --configs: a diagnosis of a few
        configs = [c for c in mode["configs"] if c in (CONFIGS_CAP + CONFIGS_EXTRA
                                                         if kind == "cap" else CONFIGS_SYM)
                   or (kind == "cap" and period_config(c))]
    if not arm or kind == "sym":
        configs = [c for c in configs if c not in CONFIGS_EAS]
    rounds = mode["rounds"] if kind == "cap" else mode["sym_rounds"]
    settings = {
        "BOARD": board, "BIG": b["big"], "LITTLE": b["little"], "BOOTKIND": kind,
        "BOOT": boot, "CONFIGS": " ".join(configs), "ROUNDS": rounds,
        "MIXES": _mixes_var(p["mixes"].get(boot, {})), "PHASES": phases,
        "ALONE_REPS": mode["alone_reps"], "CAL_SECS": mode["cal_secs"],
        "EST_GROUPS": " ".join(f"g{i + 1}:{','.join(g)}" for i, g in
                               enumerate(p["est"].get(boot, []))),
        "EST_SECS": mode["est_secs"], "EST_AT": mode["est_at"],
        "SWEEP": _mixes_var(p["sweep"].get(boot, {})),
        "PERIODS": " ".join(str(x) for x in PERIODS),
        "MT_ROUNDS": mode["mt_rounds"], "LAT_ROUNDS": mode["lat_rounds"],
        "LAT_LOOPS": mode["lat_loops"], "OVH_ROUNDS": mode["ovh_rounds"],
        "OVH_N": mode["ovh_n"], "OVH_SPIN": mode["ovh_spin"], "PP_TRIPS": mode["pp_trips"],
        "OVH_PROGS": OVH_PROGS,
        "CPU_TYPES": b.get("cpu_types", ""),
        "EXTRA_CORE_ARGS": mode.get("core_args", ""),
        "PMU_ARGS": mode.get("pmu_args", ""),
        "RECORD": int(mode.get("record", True)),
        "EST_RECORD": int(mode.get("est_record", False)),
        # only the programs of this boot's mixes alone (smoke mode)
        "ALONE_PROGS": " ".join(sorted({x for ms in p["mixes"].get(boot, {}).values()
                                        for _, progs in ms for x in progs}))
        if mode.get("alone_mixed") else "",
    }
    head = [
        "#!/bin/sh",
        f"# scenario: make eval, board {board}, boot {boot} ({kind}) (generated by bench/eval/run.py)",
        f"# arch: {b['arch']}",
        f"# topology: {b['topology']}",
        f"# smp: {ncpu}",
        "# rig: yes",
        f"# timeout: {mode['timeout']}",
        f"# debs: {' '.join(w['WL_DEBS'])}",
        "# runner: own",
    ]
    if kind == "cap" and arm and set(configs) & set(CONFIGS_EAS):
        head.append("# eas: yes")
    if kind == "sym" and arm:
        head.append("# capacities: no")
    body = "\n".join(head) + "\n"
    body += "".join(f"{k}='{v}'\n" for k, v in settings.items())
    body += (HERE / "guest.sh").read_text()
    return body


class _EvalLines:
    """Console echo that prints only whole `eval:` lines (chunks split lines)."""
    def __init__(self):
        self.buf = ""

    def __call__(self, text):
        self.buf += text
        *lines, self.buf = self.buf.split("\n")
        for x in lines:
            x = x.rstrip("\r")
            if x.startswith(("eval: ", "not ok", "ok ")):
                print(x, flush=True)


def commit():
    q = subprocess.run(["git", "-C", str(TOP), "describe", "--always", "--dirty", "--abbrev=7"],
                       capture_output=True, text=True)
    return q.stdout.strip() or "unknown"


def cell(arch, suite):
    """The cell boards of @arch boot with --suite @suite."""
    return CELL[arch] if suite == "bookworm" else f"{arch}-{suite}"


def run_board(board, mode, mode_name, seed, verbose):
    b = BOARDS[board]
    p = plan(board, mode, seed)
    dest = OUT / board
    shutil.rmtree(dest, ignore_errors=True)
    dest.mkdir(parents=True)
    meta = dict(board=board, mode=mode_name, seed=seed, commit=commit(),
                planned_boots=[b[0] for b in mode["boots"]],
                date=datetime.date.today().isoformat(), lag_max=LAG_MAX,
                plan=p, boots=[], configs=mode.get("configs"),
                rounds=mode["rounds"] if mode.get("configs") else None,
                phases=mode.get("phases"), core_args=mode.get("core_args"),
                pmu_args=mode.get("pmu_args"), est_record=mode.get("est_record"),
                slowdown=mode.get("slowdown"))
    print(f"eval: board {board}: mode {mode_name}, seed {seed} (--seed {seed} draws "
          f"the same mixes), {len(mode['boots'])} boots", flush=True)
    ok = True
    t_all = time.time()
    for boot in range(len(mode["boots"])):
        gen = OUT / "scenarios" / f"eval-{board}-{boot}.sh"
        gen.parent.mkdir(parents=True, exist_ok=True)
        gen.write_text(scenario(board, b, mode, p, boot))
        s = harness.load_scenario(gen)
        k, base, _ = harness.prepared(cell(b["arch"], mode.get("suite", "bookworm")))
        kind = "cap" if b["arch"] == "arm64" and mode["boots"][boot][0] == "cap" else "sym"
        print(f"eval: board {board} boot {boot} ({kind}) on {k.cell} ({k.release})", flush=True)
        t0 = time.time()
        r = harness.run(k, s, base, echo=(lambda t: sys.stdout.write(t)) if verbose else
                        _EvalLines())
        bd = dest / f"boot{boot}-{kind}"
        bd.mkdir(parents=True)
        for name, data in r.files.items():
            (bd / name).write_bytes(data)
        shutil.copy(harness.console_log(k, s), bd / "console.txt")
        wall = time.time() - t0
        meta["boots"].append(dict(boot=boot, kind=kind, cell=k.cell, release=k.release,
                                  wall_s=round(wall), problems=r.problems,
                                  passed=len(r.passed), failed=len(r.failed)))
        print(f"eval: board {board} boot {boot}: {wall / 60:.1f} min, "
              f"{len(r.passed)} ok, {len(r.failed)} not ok", flush=True)
        for prob in r.problems:
            print(f"eval: {board} boot {boot}: {prob}")
        ok &= not r.problems
        (dest / "meta.json").write_text(json.dumps(meta, indent=1))
    meta["wall_s"] = round(time.time() - t_all)
    (dest / "meta.json").write_text(json.dumps(meta, indent=1))
    return ok


def publish(board):
    """Copy a full run's report to bench/results/<date>-<commit>-<board>/."""
    src = OUT / board
    meta = json.loads((src / "meta.json").read_text())
    d = RESULTS / f"{meta['date']}-{meta['commit']}-{board}"
    shutil.rmtree(d, ignore_errors=True)
    d.mkdir(parents=True)
    for f in src.iterdir():
        if f.suffix in (".csv", ".md", ".png", ".json"):
            shutil.copy(f, d / f.name)
    return d


def main():
    ap = argparse.ArgumentParser(description="run the evaluation on emulated boards")
    ap.add_argument("--quick", action="store_true", help="one board, one boot (~15 min)")
    ap.add_argument("--smoke", action="store_true",
                    help="1b3s, one boot: the mixes' programs alone and one round of "
                         "cap and sbridge (~6 min; checks the pipeline)")
    ap.add_argument("--board", action="append", choices=list(BOARDS))
    ap.add_argument("--seed", type=int, help="seed of the random mixes (default: fresh)")
    ap.add_argument("--est-record", action="store_true",
                    help="sbridgectl record of sbridge_window around every estimation "
                         "group, for bench/eval/estwin.py: a diagnosis (the recorder "
                         "takes a little CPU's time)")
    ap.add_argument("--no-record", action="store_true",
                    help="no sbridgectl record around the main mixes (no work-conservation "
                         "numbers; the recorder's CPU time out of the ratios)")
    ap.add_argument("--configs", type=lambda v: v.split(","),
                    help="only these main configurations (comma-separated, e.g. "
                         "cap,observe,sbridge): a diagnosis, not the evidence")
    ap.add_argument("--rounds", type=int, help="main-phase rounds per boot (the mode's otherwise)")
    ap.add_argument("--phases", help="phases of every boot besides the main one, of: alone warm "
                                     "est sweep freq mt lat ovh (the mode's otherwise)")
    ap.add_argument("--suite", choices=SUITES, default="bookworm",
                    help="the Debian suite whose kernel the boards boot (default bookworm, "
                         "6.1; backports: 7.x, the only one where the scx configuration runs)")
    ap.add_argument("--core-args", help="sbridge_core module parameters for every load "
                    "(e.g. 'window_instr=125000'): a diagnosis, not the shipped defaults")
    ap.add_argument("--pmu-args", help="sbridge_pmu module parameters for every load "
                    "(e.g. 'kernel=1'): a diagnosis, not the shipped defaults")
    ap.add_argument("--slowdown", type=int,
                    help="the rig's wall ns per modelled ns (tools/rig/rig.conf's slowdown, "
                         "50): a host with fewer cores than the board has vCPUs lags at 50 "
                         "and the lag gate rejects its runs; e.g. 100 keeps a 2-core host "
                         "with the 4-vCPU boards, in twice the time")
    ap.add_argument("--report-only", action="store_true")
    ap.add_argument("--no-publish", action="store_true",
                    help="full mode: do not copy the report to bench/results")
    ap.add_argument("--publish", action="store_true",
                    help="with --report-only: copy full-mode reports to bench/results "
                         "(a run stopped early says how many of its boots ran)")
    ap.add_argument("-v", "--verbose", action="store_true", help="echo the guest console")
    a = ap.parse_args()
    name = "smoke" if a.smoke else "quick" if a.quick else "full"
    mode = dict(MODES[name], record=not a.no_record, est_record=a.est_record,
                suite=a.suite)
    if a.configs:
        known = CONFIGS_CAP + CONFIGS_EXTRA + CONFIGS_SYM
        bad = [c for c in a.configs if c not in known and not period_config(c)]
        if bad or not a.configs:
            ap.error(f"--configs: unknown {', '.join(bad)} "
                     f"(of {', '.join(dict.fromkeys(known))}, "
                     f"or pN: sbridge at act.period_ms N, 10-60000)")
        mode["configs"] = a.configs
    if a.rounds is not None:
        if not 1 <= a.rounds <= 20:
            ap.error("--rounds: 1 to 20")
        mode["rounds"] = a.rounds
    if a.phases is not None:
        known = "alone warm est sweep freq mt lat ovh".split()
        if any(x not in known for x in a.phases.split()):
            ap.error(f"--phases: of {' '.join(known)}")
        mode["boots"] = [(b[0], a.phases) + tuple(b[2:]) for b in mode["boots"]]
        mode["phases"] = a.phases
    if "truths" in mode.get("configs", ()) and \
            any("alone" not in b[1].split() for b in mode["boots"] if b[0] == "cap"):
        ap.error("--configs truths: its rules come from the alone phase (--phases alone ...)")
    for opt, key in (("--core-args", "core_args"), ("--pmu-args", "pmu_args")):
        val = getattr(a, key)
        if val is None:
            continue
        toks = val.split()
        bad = [t for t in toks if not re.fullmatch(r"[a-z_][a-z0-9_]*=[A-Za-z0-9_.,:-]+", t)]
        if bad or not toks:
            ap.error(f"{opt}: NAME=VALUE module parameters, not {' '.join(bad) or 'nothing'}")
        mode[key] = " ".join(toks)
    if a.slowdown is not None:
        if not 10 <= a.slowdown <= 1000:
            ap.error("--slowdown: 10 to 1000")
        os.environ["SBRIDGE_RIG_SLOWDOWN"] = str(a.slowdown)
        mode["slowdown"] = a.slowdown
    boards = a.board or mode["boards"]
    seed = a.seed if a.seed is not None else random.SystemRandom().randrange(1, 10 ** 6)
    ok = True
    if not a.report_only:
        for board in boards:
            ok &= run_board(board, mode, name, seed, a.verbose)
    done = [b for b in BOARDS if (OUT / b / "meta.json").exists()]
    report.main(OUT, done)
    for b in done:
        print(f"eval: summary {OUT / b / 'summary.md'}")
        meta = json.loads((OUT / b / "meta.json").read_text())
        if meta["mode"] == "full" and not a.no_publish and (a.publish or not a.report_only):
            print(f"eval: results {publish(b)}")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
