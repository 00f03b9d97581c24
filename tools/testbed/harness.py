"""Scenarios x kernel cells: what tests/ and the demo drive.

A scenario is one file, tests/scenarios/<name>.sh, whose header comments
say where and how it runs:

    # scenario: what it checks, one line
    # arch: any | x86_64 | arm64
    # suite: any | bookworm | trixie | backports   (several, space-separated)
    # topology: smp | sym | 1b1s | 1b3s | 3b1s   (x86_64 always boots smp;
    #                     rig: yes also takes any [topology] of
    #                     tools/rig/rig.conf, e.g. x86_64's 2f2s)
    # smp: 2
    # timeout: 120
    # throttle: 0.45      (share of a host CPU per little vCPU; arm64 only)
    # icount: yes|no      (arm64: count instructions, single-threaded TCG)
    # rig: yes|no         (boot under the emulation rig, tools/rig)
    # cpufreq: yes|no|boot-low  (arm64: OPP tables per cluster;
    #                     /sbridge/kmod/cpufreq-dt.ko; boot-low: the clocks
    #                     boot at each cluster's lowest OPP, as a bootloader
    #                     can leave them, so the kernel's capacities change
    #                     when cpufreq-dt registers)
    # capacities: yes|no  (rig only: no boots QEMU's own device tree, so the
    #                      kernel sees one capacity and one cluster while the
    #                      rig still runs each vCPU as its core type)
    # eas: yes|no         (arm64 rig boards with two core types: the rig's tree
    #                      gets OPPs with voltages and power coefficients, an
    #                      energy model for EAS (run-rig.sh --energy), and
    #                      sched_verbose; lib.sh eas_setup/eas_set/eas_active)
    # expect: pass|fail   (harness self-tests: the run must be judged failed)
    # reason: REGEX       (with expect: fail, a problem must match it)
    # debs: perf trace-cmd  (Debian programs for the guest, on PATH:
    #                        debpkgs.PROGRAMS names them; default none)
    # runner: kernels|rig|own|stress  (own: a test of its own boots it,
    #                        e.g. tests/test_record.py; rig: a check of the
    #                        rig itself, not of sbridge, run by make
    #                        test-rig; stress: minutes of load, run by make
    #                        test-stress; test_kernels skips all three by
    #                        default)
    # injects: yes|no       (the scenario injects allocation failures: the
    #                        kernel's own warnings of vm.FAULT_WARNINGS are
    #                        counted apart instead of failing the run)
    # rt: no|only           (only: runs on the PREEMPT_RT cells, nowhere else;
    #                        no other scenario runs there)
    # debug: sample|all|only|no  (debug-kernel cells: sample and only run
    #                        there in the default suite, all (the default)
    #                        only in make test-debug, no never (e.g. timing-
    #                        bound); only: on no other cell)
    # stock: any | x86_64 | arm64 | bookworm | trixie | backports  (the
    #                        default suite's stock cells of another arch or
    #                        suite skip it, to keep that suite in its hour;
    #                        SBRIDGE_STOCK=all, make test-debug, make
    #                        test-fuzz and harness.py run it wherever arch:
    #                        and suite: allow)

Files a scenario hands back with lib.sh's save_file land in
build/cells/<cell>/<scenario>.files/.
"""
import configparser
import dataclasses
import functools
import importlib.util
import os
import re
import shutil
import sys
from dataclasses import dataclass
from pathlib import Path

if not __package__:  # a script, or imported flat: see standalone.py
    import standalone  # type: ignore[import-not-found]  # noqa: F401
from sbridge_testbed import build, debpkgs, debugkernel, guest, kernels, vm

TOP = kernels.TOP
SCENARIOS = TOP / "tests" / "scenarios"


@dataclass(frozen=True)
class Scenario:
    """A scenario's header (the module's docstring), as load_scenario reads it."""
    path: Path
    name: str
    title: str
    arch: str = "any"
    suites: tuple[str, ...] = ("any",)
    topology: str = "smp"
    smp: int = 2
    timeout: int = 120
    throttle: float | None = None
    icount: bool = False
    rig: bool = False
    cpufreq: bool | str = False  # or "boot-low" (guest.dtb)
    capacities: bool = True
    eas: bool = False
    expect: str = "pass"
    reason: str = ""
    debs: tuple[str, ...] = ()
    runner: str = "kernels"
    debug: str = "all"   # sample | all (make test-debug only) | only | no
    rt: bool = False     # runs on the PREEMPT_RT cells only
    injects: bool = False  # injects faults: vm.FAULT_WARNINGS are tolerated
    trixie: bool = True  # in the default suite's 6.12 cells (docs/testing.md)
    mem: int | None = None  # guest MiB, instead of vm.qemu_cmd's default
    stock: tuple[str, ...] = ("any",)  # the default suite's stock cells: these arches/suites

    def runs_on(self, k):
        if self.rt != (k.flavour == "rt"):
            return False
        dbg = k.flavour == "debug"
        if (dbg and self.debug == "no") or (not dbg and self.debug == "only"):
            return False
        if self.arch not in ("any", k.arch):
            return False
        if "any" not in self.suites and k.suite not in self.suites:
            return False
        if (self.icount or self.cpufreq) and k.arch != "arm64":
            return False
        return True

    def topology_for(self, k):
        # a rig-only topology is the rig's business (run-rig.sh); QEMU's
        # own command and the throttle know only guest.TOPOLOGIES
        if k.arch == "arm64" and self.topology in guest.TOPOLOGIES:
            return self.topology
        return "smp"


@functools.cache
def rig_launch():
    """tools/rig/rig_launch.py, the rig's QEMU command, loaded by its path:
    it is the rig's script (run-rig.sh runs it), not part of this package."""
    spec = importlib.util.spec_from_file_location("rig_launch",
                                                  TOP / "tools" / "rig" / "rig_launch.py")
    assert spec is not None and spec.loader is not None
    mod = importlib.util.module_from_spec(spec)
    sys.modules["rig_launch"] = mod
    spec.loader.exec_module(mod)
    return mod


def rig_topology(name):
    """Core types of topology @name in tools/rig/rig.conf, or None.

    x86 has no device tree: a rig board there is only what the rig runs
    each vCPU as, so its topologies need not be guest.TOPOLOGIES ones.
    """
    ini = configparser.ConfigParser(comment_prefixes=("#", ";"))
    ini.read(TOP / "tools" / "rig" / "rig.conf")
    if name == "default" or not ini.has_option("topology", name):
        return None
    return ini["topology"][name].replace(",", " ").split()


def _bool(v):
    if v.lower() in ("yes", "true", "1"):
        return True
    if v.lower() in ("no", "false", "0"):
        return False
    raise ValueError(f"not yes/no: {v}")


def _one_of(key, *allowed):
    """A parser for header @key that takes only the values @allowed."""
    def parse(v):
        if v not in allowed:
            raise ValueError(f"{key}: {v} is not {', '.join(allowed[:-1])} or {allowed[-1]}")
        return v
    return parse


def _words(v):
    return tuple(v.split())


def _cpufreq(v):
    return "boot-low" if v == "boot-low" else _bool(v)


def _rt(v):
    if v not in ("no", "only"):
        raise ValueError(f"rt: {v} is not no or only")
    return v == "only"


# header key -> (Scenario field, parser): a key left out keeps the field's
# default. The checks across keys follow in load_scenario.
HEADER = {
    "arch": ("arch", str),
    "suite": ("suites", _words),
    "topology": ("topology", str),
    "smp": ("smp", int),
    "timeout": ("timeout", int),
    "mem": ("mem", int),
    "throttle": ("throttle", float),
    "icount": ("icount", _bool),
    "rig": ("rig", _bool),
    "cpufreq": ("cpufreq", _cpufreq),
    "capacities": ("capacities", _bool),
    "eas": ("eas", _bool),
    "expect": ("expect", str),
    "reason": ("reason", str),
    "debs": ("debs", _words),
    "rt": ("rt", _rt),
    "injects": ("injects", _bool),
    "trixie": ("trixie", _bool),
    "debug": ("debug", _one_of("debug", "sample", "all", "only", "no")),
    "stock": ("stock", _words),
    "runner": ("runner", _one_of("runner", "kernels", "rig", "own", "stress")),
}


def load_scenario(path):
    path = Path(path)
    meta = {}
    for line in path.read_text().splitlines()[:30]:
        m = re.match(r"#\s*([a-z]+):\s*(.*?)\s*$", line)
        if m:
            meta[m.group(1)] = m.group(2)
    if "scenario" not in meta:
        raise ValueError(f"{path}: no '# scenario:' header line")
    try:
        s = Scenario(path=path, name=path.stem, title=meta["scenario"],
                     **{field: parse(meta[key]) for key, (field, parse) in HEADER.items()
                        if key in meta})
        if not set(s.suites) <= {"any", *kernels.SUITES}:
            raise ValueError(f"unknown suite in {s.suites}")
        if s.mem is not None and not 256 <= s.mem <= 8192:
            raise ValueError(f"mem: {s.mem} MiB is outside 256..8192")
        if s.mem is not None and s.rig:
            raise ValueError("mem: the rig sizes its own guest")
        if s.cpufreq and s.rig:
            raise ValueError("cpufreq: the rig writes its own device tree (eas: yes has OPPs)")
        if not s.capacities and not s.rig:
            raise ValueError("capacities: no is a rig board (rig: yes)")
        if s.eas and (not s.rig or s.arch != "arm64" or not s.capacities
                      or len(set(rig_topology(meta.get("topology", "")) or ())) < 2):
            raise ValueError("eas: yes is an arm64 rig board with two core types "
                             "(rig: yes, arch: arm64, a rig.conf topology mixing types)")
        re.compile(s.reason)
        unknown = set(s.debs) - set(debpkgs.PROGRAMS)
        if unknown:
            raise ValueError(f"debs: no entry in debpkgs.PROGRAMS for {sorted(unknown)}")
        if not s.trixie and "trixie" in s.suites:
            raise ValueError("trixie: no contradicts suite: trixie")
        stock_words = {"any", *kernels.ARCHES, *kernels.SUITES}
        if not s.stock or not set(s.stock) <= stock_words:
            raise ValueError(f"stock: {' '.join(s.stock)}: words are any, an arch, "
                             "or a suite")
        if set(s.stock) & set(kernels.ARCHES) and s.arch != "any":
            raise ValueError("stock: narrows arch: any; arch: already does")
        if "any" not in s.suites and set(s.stock) & set(kernels.SUITES) - set(s.suites):
            raise ValueError("stock: names a suite that suite: leaves out")
    except (ValueError, re.error) as e:
        raise ValueError(f"{path}: bad header: {e}") from e
    if s.topology in guest.TOPOLOGIES:
        caps = guest.TOPOLOGIES[s.topology]
    else:
        caps = rig_topology(s.topology) if s.rig else None
        if not caps:
            raise ValueError(f"{path}: topology {s.topology} is neither the testbed's "
                             "nor (rig: yes) a [topology] of tools/rig/rig.conf")
    if s.arch not in ("any", "x86_64", "arm64") or s.expect not in ("pass", "fail"):
        raise ValueError(f"{path}: bad arch/expect header")
    if caps and len(caps) != s.smp:
        raise ValueError(f"{path}: topology {s.topology} needs smp {len(caps)}")
    return s


def scenarios(pattern="*"):
    return [load_scenario(p) for p in sorted(SCENARIOS.glob(f"{pattern}.sh"))]


# Debug-kernel cells (debugkernel.py) in the matrix: none by default (the
# build alone takes 5 min on two cores for x86_64, 8 for arm64: more than
# make test's hour can spare), both under make test-debug. Which scenarios
# run there is test_kernels' business (SBRIDGE_DEBUG_CELLS=x86_64 adds the
# cell with its sample, make test-debug runs all).
DEBUG_CELLS = os.environ.get("SBRIDGE_DEBUG_CELLS", "")
# Debian's PREEMPT_RT image of the bookworm kernel, where sbridge must refuse
# to load (docs/reliability.md L9): x86_64's by default
RT_CELLS = os.environ.get("SBRIDGE_RT_CELLS", "x86_64")
# TCG runs a KASAN + lockdep kernel this many times slower: scenario
# timeouts stretch by it there
DEBUG_SLOWDOWN = 4


def timeout_scale():
    """SBRIDGE_TIMEOUT_SCALE=N stretches every timeout N times (default 1).

    make test-debug sets it: with every allocation point failed in turn
    core-fault-inject loads sbridge_core some 1 400 times, which on the
    x86_64 debug kernel took 25 of its 30 minutes on 2026-11-29.
    """
    v = os.environ.get("SBRIDGE_TIMEOUT_SCALE", "1")
    if not v.isdigit() or not 1 <= int(v) <= 100:
        raise SystemExit(f"SBRIDGE_TIMEOUT_SCALE={v!r}: expected a whole number from 1 to 100")
    return int(v)


def rig_config():
    """(config, stretch) for rig boots: SBRIDGE_RIG_SLOWDOWN=N runs the rig
    N wall ns per modelled ns instead of rig.conf's `slowdown` (a copy of
    rig.conf in build/rig/ with that one key changed), and stretches the
    timeout by N over rig.conf's value. A host with fewer cores than the
    board has vCPUs cannot keep rig.conf's pace (the eval's lag gate
    rejects the run); a larger slowdown trades run time for it.
    (None, 1) when unset: rig.conf as it is.
    """
    v = os.environ.get("SBRIDGE_RIG_SLOWDOWN", "")
    if not v:
        return None, 1
    if not v.isdigit() or not 1 <= int(v) <= 1000:
        raise SystemExit(f"SBRIDGE_RIG_SLOWDOWN={v!r}: expected a whole number from 1 to 1000")
    conf = TOP / "tools" / "rig" / "rig.conf"
    text = conf.read_text()
    m = re.search(r"^slowdown\s*=\s*(\d+)\s*$", text, re.M)
    if not m:
        raise SystemExit(f"{conf}: no 'slowdown =' line to override")
    out = kernels.BUILD / "rig" / f"rig-slowdown-{int(v)}.conf"
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(text[:m.start(1)] + str(int(v)) + text[m.end(1):])
    return out, -(-int(v) // int(m.group(1)))


def cells():
    """The kernel matrix; SBRIDGE_CELLS=x86_64-bookworm,arm64-trixie narrows it."""
    ks = kernels.kernels()
    arches = [a for a in DEBUG_CELLS.split(",") if a in kernels.ARCHES]
    ks += debugkernel.kernels_all(arches)
    ks += [kernels.resolve(a, "bookworm", "rt") for a in RT_CELLS.split(",")
           if a in kernels.ARCHES]
    only = os.environ.get("SBRIDGE_CELLS")
    if only:
        want = set(only.split(","))
        ks = [k for k in ks if k.cell in want]
    return ks


@functools.cache
def programs(arch):
    return build.programs(arch)


@functools.cache
def prepared(cell):
    """Fetch, build and pack cell @cell once per process.

    Returns (Kernel, base initramfs, W=1 warnings). Raises build.BuildError.
    """
    k = next(k for k in cells() if k.cell == cell)
    kernels.buildroot(kernels.SUITES[k.suite][1])
    if k.flavour == "debug":
        debugkernel.fetch(k)
    else:
        kernels.fetch(k)
    kos, warnings = build.modules(k)
    # sched_ext kernels: the scx_sbridge loader beside the static programs
    progs = list(programs(k.arch)) + build.scx_sbridge(k)
    base = guest.base_initramfs(k, kos, progs)
    return k, base, tuple(warnings)


def run(k, s, base, echo=None):
    """Boot cell @k with scenario @s; returns a vm.Result.

    SBRIDGE_SET="NAME=VALUE ..." in the environment sets those shell
    variables in every scenario (as --set does for one), e.g. make
    test-debug's NTH_STEP=1.
    """
    initrd = kernels.BUILD / "cells" / k.cell / f"{s.name}.cpio.gz"
    settings = os.environ.get("SBRIDGE_SET", "").split()
    path = with_settings(s.path, settings) if settings else s.path
    initrd.parent.mkdir(parents=True, exist_ok=True)  # DKMS test runs before any build
    # only scenarios that ask carry Debian programs: the others boot lean
    extra = [debpkgs.archive(k.arch, s.debs)] if s.debs else []
    guest.scenario_initramfs(base, path, initrd, extra)
    cmd, stretch = None, 1
    if s.rig:
        config, stretch = rig_config()
        cmd = rig_launch().command(k, initrd, s.smp, s.topology, config=config,
                                   capacities=s.capacities, eas=s.eas)
    slow = (DEBUG_SLOWDOWN if k.flavour == "debug" else 1) * timeout_scale() * stretch
    r = vm.boot(k, s, initrd, cmd=cmd, echo=echo, slowdown=slow)
    why = ""
    if r.timed_out and "@@SB-BEGIN" not in r.console:
        # The kernel never ran init, which says so before anything of
        # sbridge's loads: an emulator hang (seen with x86 multi-threaded
        # TCG on a 2-core host), not the scenario's.
        why = (f"the first boot never reached init in {r.wall:.0f} s "
               f"({r.stuck}); booted again")
    elif stale := vm.stale_int3(r):
        # x86 multi-threaded TCG's stale int3 after a finished text
        # patch (vm.stale_int3): the emulator's, wherever it strikes
        why = f"the first boot ended on {stale}; booted again"
    if why:
        # Boot once more; the reason stays in the result and on top of
        # the console, and the second boot is judged as any other.
        r = vm.boot(k, s, initrd, cmd=cmd, echo=echo, slowdown=slow)
        r.boot_retry = why
        r.console = f"@@SB-RETRY {why}\n{r.console}"
    if k.flavour == "debug" and r.rc is not None and r.leaks is None and not r.kmemleak_off:
        # the leak check must not pass for want of a report
        r.kmemleak_off = "the debug kernel made no kmemleak report"
    console_log(k, s).write_text(r.console)
    fdir = files_dir(k, s)
    shutil.rmtree(fdir, ignore_errors=True)
    for name, data in r.files.items():
        fdir.mkdir(parents=True, exist_ok=True)
        (fdir / name).write_bytes(data)
    return r


def console_log(k, s):
    """Where the console of the last run of @s in cell @k is kept."""
    return kernels.BUILD / "cells" / k.cell / f"{s.name}.console"


def files_dir(k, s):
    """Where the files @s saved (lib.sh save_file) in cell @k are kept."""
    return kernels.BUILD / "cells" / k.cell / f"{s.name}.files"


def with_settings(path, settings):
    """A copy of scenario @path with NAME=VALUE lines after its header.

    The copy keeps the name (results and consoles land where the
    scenario's do) and lives under build/scenarios-set/.
    """
    lines = Path(path).read_text().splitlines(keepends=True)
    n = 0
    while n < len(lines) and lines[n].startswith("#"):
        n += 1
    for kv in settings:
        name, eq, value = kv.partition("=")
        if not eq or not re.fullmatch(r"[A-Z_][A-Z0-9_]*", name) or "'" in value:
            raise SystemExit(f"--set {kv!r}: expected NAME=VALUE (NAME in capitals, "
                             "no single quote in VALUE)")
        lines.insert(n, f"{name}='{value}'\n")
        n += 1
    dest = kernels.BUILD / "scenarios-set" / Path(path).name
    dest.parent.mkdir(parents=True, exist_ok=True)
    dest.write_text("".join(lines))
    return dest


def main():
    import argparse
    ap = argparse.ArgumentParser(description="boot one scenario in one or more cells")
    ap.add_argument("scenario", help="name or path of a tests/scenarios/*.sh file")
    ap.add_argument("--cell", action="append", help="e.g. arm64-bookworm (default: all)")
    ap.add_argument("-v", "--verbose", action="store_true", help="echo the console")
    ap.add_argument("--set", action="append", default=[], metavar="NAME=VALUE",
                    help="shell variable the scenario reads (${NAME:-default}), e.g. "
                         "FUZZ_N=100000; the run uses a copy under build/scenarios-set/")
    ap.add_argument("--timeout", type=int, help="seconds, instead of the header's")
    a = ap.parse_args()
    path = Path(a.scenario)
    if not path.exists():
        path = SCENARIOS / f"{a.scenario}.sh"
    if a.set:
        path = with_settings(path, a.set)
    s = load_scenario(path)
    if a.timeout:
        s = dataclasses.replace(s, timeout=a.timeout)
    ks = [k for k in cells() if not a.cell or k.cell in a.cell]
    bad = 0
    for k in ks:
        if not s.runs_on(k):
            print(f"{k.cell}: {s.name}: skipped (not for this cell)")
            continue
        k, base, warns = prepared(k.cell)
        r = run(k, s, base, echo=(lambda t: sys.stdout.write(t)) if a.verbose else None)
        verdict = "FAIL" if r.problems else "PASS"
        bad += bool(r.problems)
        print(f"{k.cell} ({k.release}): {s.name}: {verdict} "
              f"{len(r.passed)} ok, {len(r.failed)} not ok, {len(r.skipped)} skip, "
              f"{r.wall:.1f}s")
        if r.boot_retry:
            print("    boot retried:", r.boot_retry)
        for p in r.problems:
            print("   ", p)
        if r.problems:
            print("    console:", console_log(k, s))
        for sk in r.skipped:
            print("    skip:", sk)
        if r.leaks is not None:
            print(f"    kmemleak: {len(r.leaks)} objects of this run unreferenced")
        for site, n in r.fault_warnings.items():
            print(f"    kernel warning at {site} x{n} under injected failures "
                  f"(not sbridge's: {vm.FAULT_WARNINGS[tuple(site.split())]})")
        for frame, n in r.kernel_leaks.items():
            print(f"    kmemleak: {n} kernel leaks at {frame} (not sbridge's: "
                  f"{vm.KERNEL_LEAKS[frame]})")
        for name in r.files:
            print("    file:", files_dir(k, s) / name)
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
