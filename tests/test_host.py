"""Host-side tests: the plain-C suites (built and run by make) and the harness's own logic."""
import os
import re
import shutil
import sys
import subprocess
from pathlib import Path

import pytest

TOP = Path(__file__).resolve().parents[1]
SUITES = [d for d in ("tests/unit", "tests/host/ctl") if (TOP / d / "Makefile").exists()]


@pytest.mark.parametrize("suite", SUITES)
def test_host_suite(suite):
    r = subprocess.run(["make", "-s", "-C", str(TOP / suite)], text=True,
                       capture_output=True)
    out = r.stdout + r.stderr
    m = re.findall(r"(\d+) passed, (\d+) failed", out)
    assert r.returncode == 0, out[-4000:]
    assert m, f"{suite}: no 'N passed, N failed' line:\n{out[-2000:]}"
    passed, failed = map(int, m[-1])
    assert failed == 0 and passed > 0, out[-4000:]


def test_tap_parser_keeps_failure_diagnostics():
    """A failed point carries the diagnostics that follow it, and nothing else's."""
    import sys
    sys.path.insert(0, str(TOP / "tools" / "testbed"))
    import vm
    console = ("@@SB-BEGIN 6.1 2cpu\n1..4\nok 1 - loads\n# before\n"
               "not ok 2 - counts\n# counts: cpu0 reads 0\n# more\n"
               "ok 3 - x # SKIP no pmu\n# after skip\nok 4 - y\n# after ok\n"
               "@@SB-RC 0\n@@SB-DMESG\n@@SB-END\n")
    r = vm.parse(console, timed_out=False)
    assert r.passed == ["loads", "y"]
    assert r.skipped == ["x (no pmu)"]
    assert r.failed == ["counts | counts: cpu0 reads 0 | more"]
    assert r.problems == ["not ok: counts | counts: cpu0 reads 0 | more"]


def test_ktap_totals_bail_out():
    """lib.sh's KTAP: totals that agree pass, a disagreement and Bail out! fail."""
    import sys
    sys.path.insert(0, str(TOP / "tools" / "testbed"))
    import vm
    head = "@@SB-BEGIN 6.1 2cpu\nTAP version 13\n1..3\nok 1 - a\nok 2 - b # SKIP no\n"
    tail = "@@SB-RC 0\n@@SB-DMESG\n@@SB-END\n"
    good = "not ok 3 - c\n# Totals: pass:1 fail:1 xfail:0 xpass:0 skip:1 error:0\n"
    r = vm.parse(head + good + tail, timed_out=False)
    assert (r.passed, r.skipped, r.failed, r.tap_problems) == (["a"], ["b (no)"], ["c"], [])
    lost = "# Totals: pass:2 fail:0 xfail:0 xpass:0 skip:1 error:0\n"
    r = vm.parse(head + lost + tail, timed_out=False)
    assert any("KTAP totals pass:2 fail:0 skip:1 disagree" in p for p in r.problems)
    bail = "Bail out! no cgroup v2\n# Totals: pass:1 fail:0 xfail:0 xpass:0 skip:1 error:0\n"
    r = vm.parse(head + bail + tail, timed_out=False)
    assert r.failed == ["Bail out! no cgroup v2"] and not r.tap_problems
    assert "not ok: Bail out! no cgroup v2" in r.problems


def test_throttle_finds_cgroup_mounts(tmp_path):
    """v1 cpu hierarchy and the v2 mount come from the mount table, not fixed paths."""
    import sys
    sys.path.insert(0, str(TOP / "tools" / "testbed"))
    import vm
    cpu = tmp_path / "cpu,cpuacct"
    cpu.mkdir()
    (cpu / "cpu.cfs_quota_us").write_text("-1\n")
    table = tmp_path / "mounts"
    table.write_text(f"cgroup2 {tmp_path}/unified cgroup2 rw,relatime 0 0\n"
                     f"cgroup {tmp_path}/memory cgroup rw,memory 0 0\n"
                     f"cgroup {cpu} cgroup rw,relatime,cpu,cpuacct 0 0\n")
    assert vm.Throttle.mounts(table) == (cpu, tmp_path / "unified")
    # v2 only (a systemd host): no v1 hierarchy
    table.write_text("cgroup2 /sys/fs/cgroup cgroup2 rw,nsdelegate 0 0\n")
    assert vm.Throttle.mounts(table) == (None, Path("/sys/fs/cgroup"))


def test_man_page_lists_every_parameter():
    # The SET_PARAM table in the core is the truth; the man page must name
    # every entry (and nothing the core does not know).
    src = (TOP / "sbridge-core/params.c").read_text()
    table = src[src.index("sbridge_param_tab[] = {"):]
    table = table[:table.index("};")]
    names = set(re.findall(r'\{ "([a-z_.]+)", &', table))
    # each actuator keeps its act.* switch in its act_*.c
    for p in (TOP / "sbridge-core").glob("act_*.c"):
        names |= set(re.findall(r'\.name = "(act\.[a-z_]+)", \.val = &', p.read_text()))
    man = (TOP / "docs/man/sbridgectl.8").read_text()
    sec = man[man.index(".SH PARAMETERS"):man.index(".SH CPU LISTS")]
    documented = {n.replace("\\-", "-") for n in re.findall(r'^\.BR (\S+) "', sec, re.M)}
    assert len(names) > 10
    assert names == documented, f"only in the core: {names - documented}; only in the man page: {documented - names}"


def test_kernel_packages_qualify_only_arch_specific(monkeypatch):
    # A fresh machine fetching an arm64 cell first: the Architecture: all
    # headers-common package must go to apt unqualified (":arm64" has no
    # candidate), kbuild is the host's, the rest are ":arm64".
    sys.path.insert(0, str(TOP / "tools/testbed"))
    import kernels
    avail = {"linux-image-6.1.0-9-arm64-unsigned:arm64", "linux-headers-6.1.0-9-arm64:arm64",
             "linux-headers-6.1.0-9-common", "linux-kbuild-6.1"}

    def show(pkg, version=None):
        if pkg not in avail:
            return ""
        if pkg.startswith("linux-headers-6.1.0-9-arm64"):
            return ("Package: x\nDepends: linux-headers-6.1.0-9-common (= 6.1.1-1), "
                    "linux-kbuild-6.1 (>= 6.1.1-1), gcc-12\n")
        return "Package: x\n"
    monkeypatch.setattr(kernels, "_show", show)
    k = kernels.Kernel("arm64", "bookworm", "6.1.0-9-arm64", "6.1.1-1")
    assert kernels.packages(k) == ["linux-image-6.1.0-9-arm64-unsigned:arm64",
                                   "linux-headers-6.1.0-9-arm64:arm64",
                                   "linux-headers-6.1.0-9-common", "linux-kbuild-6.1"]


def _file_block(name, data, cut=0):
    """A save_file block as lib.sh prints it (busybox base64 wraps at 76)."""
    import base64
    import gzip
    b64 = base64.b64encode(gzip.compress(data)).decode()
    lines = [b64[i:i + 76] for i in range(0, len(b64), 76)]
    if cut:
        return f"@@SB-FILE {name} {len(data)}\n" + "\n".join(lines[:cut]) + "\n"
    return (f"@@SB-FILE {name} {len(data)}\n" + "\n".join(lines)
            + f"\n@@SB-FILE-END {name}\n")


def _console(middle, plan=2):
    return (f"@@SB-BEGIN 6.1 2cpu\n1..{plan}\nok 1 - before\n{middle}ok 2 - after\n"
            "@@SB-RC 0\n@@SB-DMESG\n@@SB-END\n")


def test_saved_files_round_trip():
    """save_file blocks come back byte for byte, out of the TAP stream."""
    import random
    sys.path.insert(0, str(TOP / "tools" / "testbed"))
    import vm
    rnd = random.Random(16)
    blobs = {f"blob{i}.bin": bytes(rnd.randrange(256) for _ in range(n))
             for i, n in enumerate((0, 1, 77, 4096, 100000))}
    r = vm.parse(_console("".join(_file_block(n, d) for n, d in blobs.items())), False)
    assert r.files == blobs
    assert r.passed == ["before", "after"]
    assert r.problems == []


def test_saved_file_cut_short_is_a_problem():
    """A block without its end marker (the guest died mid-file) fails the run."""
    import os
    sys.path.insert(0, str(TOP / "tools" / "testbed"))
    import vm
    data = os.urandom(5000)
    console = ("@@SB-BEGIN 6.1 2cpu\n1..1\nok 1 - before\n" + _file_block("rec", data, cut=3))
    r = vm.parse(console, True)
    assert "rec" not in r.files
    assert any("file rec: cut short" in p for p in r.problems), r.problems
    # a block whose size does not match is a problem too
    block = _file_block("rec", data).replace(f"rec {len(data)}", f"rec {len(data) + 1}", 1)
    r = vm.parse(_console(block), False)
    assert "rec" not in r.files
    assert any("announced" in p for p in r.problems), r.problems


def test_saved_file_text_is_not_scanned():
    """Base64 spelling 'Oops' or a TAP line inside a block neither fails nor
    counts; a kernel message that lands inside one still fails the run."""
    import base64
    import gzip
    sys.path.insert(0, str(TOP / "tools" / "testbed"))
    import vm
    # stored gzip (level 0): the data sits at byte 15 of the stream, a
    # multiple of 3, so chosen bytes come out as chosen base64 text; the
    # second line of 76 characters starts at byte 57 = data byte 42
    data = bytearray(range(120))
    data[0:3] = base64.b64decode("Oops")
    data[42:45] = base64.b64decode("ok+/")
    data = bytes(data)
    b64 = base64.b64encode(gzip.compress(data, compresslevel=0, mtime=0)).decode()
    assert "Oops" in b64
    lines = [b64[i:i + 76] for i in range(0, len(b64), 76)]
    assert lines[1].startswith("ok+/") and vm.TAP.match(lines[1])
    block = f"@@SB-FILE f.bin {len(data)}\n" + "\n".join(lines) + "\n@@SB-FILE-END f.bin\n"
    r = vm.parse(_console(block), False)
    assert r.files == {"f.bin": data}
    assert r.passed == ["before", "after"]
    assert r.problems == []
    # a kernel line on the shared console, inside a block: scanned, not data
    oops = "[   12.345] Oops: 0000 [#1] SMP"
    block = (f"@@SB-FILE f.bin {len(data)}\n{lines[0]}\n{oops}\n" + "\n".join(lines[1:])
             + "\n@@SB-FILE-END f.bin\n")
    r = vm.parse(_console(block), False)
    assert r.files == {"f.bin": data}
    assert r.kernel_errors == [oops]


def _leak(addr, comm, jiffies, frames):
    bt = "".join(f"    [<(____ptrval____)>] {f}\n" for f in frames)
    return (f"unreferenced object {addr} (size 16):\n  comm \"{comm}\", pid 9, "
            f"jiffies {jiffies}\n  hex dump (first 16 bytes):\n    00 00  ..\n"
            f"  backtrace:\n{bt}")


def test_kmemleak_report_counts_only_the_scenarios_objects():
    """Objects from before the scenario are left out, the kernel's known
    leaks are counted apart, anything else is a problem; no report (a stock
    kernel) means no kmemleak at all."""
    sys.path.insert(0, str(TOP / "tools" / "testbed"))
    import vm
    report = (_leak("0xa", "swapper", 100, ["kmalloc+0x1", "boot_thing+0x2"])
              + _leak("0xb", "failnth", 600, ["kstrdup_const+0x4", "sysfs_slab_add+0x18a/0x200",
                                              "kmem_cache_create+0xd"])
              + _leak("0xc", "insmod", 700, ["kmalloc_trace+0x1", "0xffffffffa000c54f"]))
    console = ("@@SB-BEGIN 6.1 2cpu\n1..1\nok 1 - x\n@@SB-RC 0\n"
               f"@@SB-KMEMLEAK 500\n{report}@@SB-KMEMLEAK-END\n@@SB-TAINT 4096\n"
               "@@SB-DMESG\n@@SB-END\n")
    r = vm.parse(console, timed_out=False)
    assert r.kernel_leaks == {"sysfs_slab_add+": 1}
    assert len(r.leaks) == 1 and "by insmod" in r.leaks[0] and "0xffffffffa000c54f" in r.leaks[0]
    assert r.taint == []
    assert any(p.startswith("kmemleak: 0xc (size 16) by insmod") for p in r.problems)
    stock = vm.parse(console.split("@@SB-KMEMLEAK")[0] + "@@SB-DMESG\n@@SB-END\n", False)
    assert stock.leaks is None and not stock.problems
    off = vm.parse(console.split("@@SB-KMEMLEAK")[0]
                   + "@@SB-KMEMLEAK-OFF kmemleak refused a scan\n@@SB-DMESG\n@@SB-END\n", False)
    assert off.problems == ["kmemleak: kmemleak refused a scan"]


def test_bad_taint_without_a_logged_report_is_a_problem():
    """A warning whose report fell out of the kernel log still fails the run."""
    sys.path.insert(0, str(TOP / "tools" / "testbed"))
    import vm
    console = ("@@SB-BEGIN 6.1 2cpu\n1..1\nok 1 - x\n@@SB-RC 0\n"
               f"@@SB-TAINT {4096 | 512}\n@@SB-DMESG\n@@SB-END\n")
    r = vm.parse(console, timed_out=False)
    assert r.taint == ["W (warning)"]
    assert r.problems == ["kernel tainted W (warning), its report not in the log"]


def test_debug_fragments_are_settings_the_check_can_read():
    """Every fragment line is a CONFIG_X=value the build's check compares
    (a typo would otherwise be dropped by Kconfig without a word)."""
    sys.path.insert(0, str(TOP / "tools" / "testbed"))
    import debugkernel
    for arch in ("x86_64", "arm64"):
        text = debugkernel.fragment(arch)
        lines = [ln for ln in text.splitlines() if ln and not ln.startswith("#")]
        assert len(debugkernel.wanted(text)) == len(lines), arch
        assert debugkernel.wanted(text)["CONFIG_KASAN"] == "y"
        assert debugkernel.wanted(text)["CONFIG_FAILSLAB"] == "y"


def test_fault_warnings_tolerated_only_where_faults_are_injected():
    """A listed kernel warning is counted apart in an injecting scenario,
    a failure anywhere else; an unlisted warning fails both."""
    sys.path.insert(0, str(TOP / "tools" / "testbed"))
    import vm
    warn = ("------------[ cut here ]------------\n"
            "WARNING: CPU: 0 PID: 111 at kernel/trace/trace_events.c:2556 "
            "event_define_fields+0x2d0/0x4a0\nCall Trace:\n x+0x1\n"
            "---[ end trace 0000000000000000 ]---\n")
    other = "WARNING: CPU: 1 PID: 5 at mm/slub.c:10 kfree+0x1\n---[ end trace 1 ]---\n"
    base = "@@SB-BEGIN 6.1 2cpu\n1..1\nok 1 - x\n@@SB-RC 0\n@@SB-TAINT 4608\n@@SB-DMESG\n"
    r = vm.parse(base + warn + "@@SB-END\n", False, injects=True)
    assert r.fault_warnings == {"kernel/trace/trace_events.c event_define_fields": 1}
    assert not r.problems
    assert vm.parse(base + warn + "@@SB-END\n", False).problems
    r = vm.parse(base + warn + other + "@@SB-END\n", False, injects=True)
    assert any("mm/slub.c" in p for p in r.problems)
    alloc = ("failnth: vmalloc error: size 706184, vm_struct allocation failed, "
             "mode:0xcc0(GFP_KERNEL)\nCPU: 1 PID: 43 Comm: failnth\nHardware name: QEMU\n"
             "Call Trace:\n <TASK>\n dump_stack_lvl+0x4c/0x5f\n</TASK>\n")
    r = vm.parse(base.replace("4608", "4096") + alloc + "@@SB-END\n", False, injects=True)
    assert r.fault_warnings == {"allocation-failure report": 1} and not r.problems
    assert vm.parse(base.replace("4608", "4096") + alloc + "@@SB-END\n", False).problems


@pytest.mark.skipif(os.geteuid() != 0, reason="tests/board/run needs root")
def test_board_runner_ktap(tmp_path):
    """tests/board/run: one KTAP subtest per scenario, a failure, a bail-out
    and a short plan each fail it, another arch is skipped, totals add up."""
    scen, progs = tmp_path / "scenarios", tmp_path / "progs"
    scen.mkdir()
    progs.mkdir()
    (progs / "sbridgectl").write_text("#!/bin/sh\nexit 0\n")
    (progs / "sbridgectl").chmod(0o755)
    head = '#!/bin/sh\n# scenario: {}\n# arch: {}\n# board: yes\n. "$SBRIDGE_LIB"\n'
    bodies = {
        "a-pass": ("any", 'plan 2\ncheck "true" true\nskip "later" "not here"\n'),
        "b-fail": ("any", 'plan 2\ncheck "true" true\ncheck "false" false\n'),
        "c-bail": ("any", 'plan 3\nok "first"\nbail_out "setup failed"\n'),
        "d-short": ("any", 'plan 3\nok "only one"\n'),
        "e-other": ("riscv64", 'plan 1\nok "never"\n'),
    }
    for name, (arch, body) in bodies.items():
        (scen / f"{name}.sh").write_text(head.format(name, arch) + body)
    (scen / "f-notboard.sh").write_text('#!/bin/sh\n# scenario: x\n# arch: any\n')
    env = dict(os.environ, SBRIDGE_SCENARIOS=str(scen), SBRIDGE_MODDIR=str(tmp_path),
               SBRIDGE_BOARD_PROGS=str(progs))
    run = TOP / "tests/board/run"
    listed = subprocess.run([str(run), "-l"], env=env, text=True, capture_output=True)
    assert listed.stdout.split() == ["a-pass", "b-fail", "c-bail", "d-short", "e-other"]
    r = subprocess.run([str(run)], env=env, text=True, capture_output=True)
    lines = r.stdout.splitlines()
    assert r.returncode == 1, r.stdout + r.stderr
    assert lines[:2] == ["TAP version 13", "1..5"]
    top = [line for line in lines if re.match(r"(not )?ok \d", line)]
    assert top[0] == "ok 1 - a-pass"
    assert top[1].startswith("not ok 2 - b-fail # exit 0, plan 2, ran 2, not ok 1")
    assert top[2].startswith("not ok 3 - c-bail # exit 1") and "bailed out" in top[2]
    assert top[3].startswith("not ok 4 - d-short # exit 0, plan 3, ran 1")
    assert top[4] == "ok 5 - e-other # SKIP for riscv64, this board is " + \
        {"aarch64": "arm64"}.get(os.uname().machine, os.uname().machine)
    assert "    # Totals: pass:1 fail:0 xfail:0 xpass:0 skip:1 error:0" in lines
    assert "    Bail out! setup failed" in lines
    assert lines[-1] == "# Totals: pass:1 fail:3 xfail:0 xpass:0 skip:1 error:0"
    bad = subprocess.run([str(run), "nosuch"], env=env, text=True, capture_output=True)
    assert bad.returncode == 2 and "no scenario 'nosuch'" in bad.stderr


def _c_code(text):
    """C text without comments and string literals (names there are not uses)."""
    text = re.sub(r"/\*.*?\*/", "", text, flags=re.S)
    text = re.sub(r"//[^\n]*", "", text)
    return re.sub(r'"(\\.|[^"\\\n])*"', '""', text)


def test_pmu_monitor_uses_only_the_exported_api():
    """The leaf module reaches the core only through include/sbridge/ and the
    symbols sbridge-core exports, as a board's own counter source would."""
    exported = set()
    for p in (TOP / "sbridge-core").glob("*.c"):
        exported |= set(re.findall(r"EXPORT_SYMBOL(?:_GPL)?\((sbridge_\w+)\)", p.read_text()))
    assert "sbridge_register_source" in exported
    core_defs = set()
    for p in (TOP / "sbridge-core").glob("*.c"):
        core_defs |= set(re.findall(r"^(?!static)[a-z][\w *]*?\b(sbridge_\w+)\s*\(",
                                    _c_code(p.read_text()), re.M))
    bad = []
    for p in sorted((TOP / "pmu-monitor").glob("*.[ch]")):
        if p.name.endswith(".mod.c"):
            continue
        code = _c_code(p.read_text())
        for h in re.findall(r'^#include\s+[<"]([^>"]+)[>"]', p.read_text(), re.M):
            if "sbridge-core" in h or h in ("internal.h", "model.h", "trace.h", "actuators.h", "policy.h", "checker.h", "act_ops.h", "trace_act.h"):
                bad.append(f"{p.name} includes {h}")
        for sym in sorted(core_defs - exported):
            if re.search(rf"\b{sym}\b", code):
                bad.append(f"{p.name} uses {sym}, which sbridge-core does not export")
    assert not bad, "\n".join(bad)


def test_bash_completion_offers_rule_files(tmp_path):
    """rules check <TAB> offers *.rules files and directories, in a plain
    bash without extglob or the bash-completion package."""
    (tmp_path / "a.rules").write_text("")
    (tmp_path / "b.txt").write_text("")
    (tmp_path / "sub").mkdir()
    script = f"""
shopt -u extglob
source {TOP}/userspace-ctl/completion/sbridgectl.bash
COMP_WORDS=(sbridgectl rules check "")
COMP_CWORD=3
_sbridgectl
printf '%s\\n' "${{COMPREPLY[@]}}" | sort
"""
    r = subprocess.run(["bash", "--norc", "--noprofile", "-c", script], cwd=tmp_path,
                       text=True, capture_output=True)
    assert r.stdout.split() == ["a.rules", "sub"], r.stdout + r.stderr


@pytest.mark.parametrize("arch,machine", [("x86_64", "X86-64"), ("arm64", "AArch64")])
def test_rig_programs_build(tmp_path, arch, machine):
    """tools/rig's calibration programs: `make progs` builds them static and
    warning-free for the guest's arch (tools/rig/README.md)."""
    r = subprocess.run(["make", "-C", str(TOP / "tools/rig"), "progs", f"PROG_ARCH={arch}",
                        f"BUILD={tmp_path}"], text=True, capture_output=True)
    out = r.stdout + r.stderr
    assert r.returncode == 0, out
    assert "warning:" not in out, out
    for prog in ("rigbench", "rigstat"):
        path = tmp_path / "progs" / arch / prog
        hdr = subprocess.run(["readelf", "-h", "-l", str(path)], text=True,
                             capture_output=True).stdout
        assert re.search(rf"Machine:.*{machine}", hdr), hdr
        assert "INTERP" not in hdr, f"{prog} is not static"


def test_version_without_tags(tmp_path):
    """A clone that lost the tags counts from the release NEWS dates, like describe."""
    def git(*args, cwd=tmp_path / "c"):
        return subprocess.run(["git", "-C", str(cwd), *args], text=True, check=True,
                              capture_output=True).stdout.strip()
    env_id = ["-c", "user.name=t", "-c", "user.email=t@t"]
    (tmp_path / "c").mkdir()
    git("init", "-q")
    (tmp_path / "c/NEWS").write_text("0.1.0 (the untagged snapshots)\n")
    git("add", "NEWS")
    git(*env_id, "commit", "-qm", "first")
    (tmp_path / "c/NEWS").write_text("1.4.2 (2026-01-02)\n=====\n\n0.1.0 (old)\n")
    git(*env_id, "commit", "-qam", "release")
    rel = git("rev-parse", "HEAD")
    (tmp_path / "c/NEWS").write_text("Since 1.4.2 (not released)\n\n1.4.2 (2026-01-02)\n")
    git(*env_id, "commit", "-qam", "after")
    (tmp_path / "c/x").write_text("x\n")
    git("add", "x")
    git(*env_id, "commit", "-qm", "more")

    def version():
        return subprocess.run([str(TOP / "scripts/version.sh"), str(tmp_path / "c")],
                              text=True, check=True, capture_output=True).stdout.strip()
    head = git("rev-parse", "--short", "HEAD")
    assert version() == f"1.4.2-2-g{head}"
    git("tag", "-a", "v1.4.2", rel, "-m", "1.4.2")
    assert version() == f"1.4.2-2-g{head}", "describe and the fallback disagree"
    (tmp_path / "c/x").write_text("y\n")
    assert version().endswith("-dirty")


def test_deb_version_from_git(tmp_path):
    """make deb's version: git's, Debian-spelt, and each later build sorts higher."""
    def git(*args):
        return subprocess.run(["git", "-C", str(tmp_path / "c"), "-c", "user.name=t",
                               "-c", "user.email=t@t", *args], text=True, check=True,
                              capture_output=True).stdout.strip()

    def deb():
        return subprocess.run([str(TOP / "scripts/deb-version.sh"), str(tmp_path / "c")],
                              text=True, check=True, capture_output=True).stdout.strip()

    def newer(a, b):
        return subprocess.run(["dpkg", "--compare-versions", a, "gt", b]).returncode == 0
    (tmp_path / "c").mkdir()
    git("init", "-q")
    (tmp_path / "c/NEWS").write_text("1.4.2 (2026-01-02)\n")
    git("add", "NEWS")
    git("commit", "-qm", "release")
    git("tag", "-a", "v1.4.2", "-m", "1.4.2")
    assert deb() == "1.4.2-1"
    (tmp_path / "c/x").write_text("x\n")
    git("add", "x")
    git("commit", "-qm", "one on")
    one = deb()
    assert one == f"1.4.2+git1.g{git('rev-parse', '--short', 'HEAD')}-1" and newer(one, "1.4.2-1")
    (tmp_path / "c/x").write_text("y\n")
    os.utime(tmp_path / "c/x", (1_800_000_000, 1_800_000_000))
    dirty = deb()
    assert dirty == one[:-2] + ".dirty.20270115080000-1", dirty
    assert deb() == dirty, "two builds of one tree, two versions"
    assert newer(dirty, one)
    os.utime(tmp_path / "c/x", (1_800_000_060, 1_800_000_060))
    assert newer(deb(), dirty), "a later edit does not sort higher"
    git("commit", "-qam", "two on")
    assert newer(deb(), dirty) and "+git2." in deb()
    git("tag", "-a", "v1.4.3", "-m", "1.4.3")
    assert deb() == "1.4.3-1" and newer(deb(), dirty)


def test_stock_header_narrows_only_stock_cells(tmp_path):
    """stock: x86_64 keeps a scenario off arm64's stock cells, not its debug cell."""
    sys.path.insert(0, str(TOP / "tools" / "testbed"))
    sys.path.insert(0, str(TOP / "tests"))
    import harness
    import kernels
    import test_kernels
    p = tmp_path / "s.sh"
    p.write_text("#!/bin/sh\n# scenario: s\n# stock: x86_64\n")
    s = harness.load_scenario(p)
    def cell(arch, flavour):
        return kernels.Kernel(arch=arch, suite="bookworm", release="r",
                              version="v", flavour=flavour)
    assert test_kernels._case(cell("x86_64", ""), s)
    assert not test_kernels._case(cell("arm64", ""), s)
    assert s.runs_on(cell("arm64", "")) and s.runs_on(cell("arm64", "debug"))
    assert test_kernels._case(cell("arm64", "debug"), s) == test_kernels.DEBUG_ALL
    for bad in ("# stock: sparc\n", "# arch: arm64\n# stock: x86_64\n"):
        p.write_text("#!/bin/sh\n# scenario: s\n" + bad)
        with pytest.raises(ValueError):
            harness.load_scenario(p)


def test_boot_low_clocks_start_at_the_lowest_opp():
    """cpufreq: boot-low gives each cluster's clock its lowest OPP, yes its highest."""
    sys.path.insert(0, str(TOP / "tools" / "testbed"))
    import guest
    dts = "/ {\n\tcpus {\n\t\tcpu@0 {\n\t\t\tphandle = <0x1>;\n\t\t};\n\t};\n};\n"
    rates = {}
    for low in (False, True):
        out = guest._add_opps(dts, [guest.BIG], boot_low=low)
        rates[low] = int(re.search(r"clock-frequency = <(\d+)>", out).group(1))
        assert "operating-points-v2 = <&sbridge_opp0>" in out
    assert rates[False] == max(guest.OPP_MHZ[guest.BIG]) * 1000000
    assert rates[True] == min(guest.OPP_MHZ[guest.BIG]) * 1000000


def test_reliability_leaves_out_scenarios_a_cell_no_longer_runs(tmp_path, monkeypatch):
    """A console left by a scenario the cell stopped selecting is no finding."""
    sys.path.insert(0, str(TOP / "tools" / "testbed"))
    import reliability
    scen = tmp_path / "scenarios"
    scen.mkdir()
    monkeypatch.setattr(reliability, "SCENARIOS", scen)
    (scen / "kept.sh").write_text("#!/bin/sh\n# scenario: kept\n")
    (scen / "gone.sh").write_text("#!/bin/sh\n# scenario: gone\n# debug: no\n")
    bad = ("@@SB-BEGIN 6.1.192 4cpu\n1..1\n# rel: faults=7\nnot ok 1 - stray move\n"
           "@@SB-RC 0\n@@SB-DMESG\n@@SB-END\n")
    for cell in ("arm64-debug", "arm64-bookworm"):
        (tmp_path / "cells" / cell).mkdir(parents=True)
        for stem in ("kept", "gone"):
            (tmp_path / "cells" / cell / f"{stem}.console").write_text(bad)
    (tmp_path / "cells" / "arm64-bookworm" / "deleted.console").write_text(bad)
    rows = {r[0]: r for r in reliability.cell_rows(tmp_path / "cells")}
    assert rows["arm64-debug"][2]["runs"] == 1
    assert rows["arm64-debug"][2]["faults"] == 7
    assert rows["arm64-debug"][3] == ["kept: stray move"]
    assert rows["arm64-bookworm"][2]["runs"] == 2
    assert sorted(rows["arm64-bookworm"][3]) == ["gone: stray move", "kept: stray move"]


def _rigtest(tmp_path):
    """tests/host/rig/rigtest.c linked with the rig's plugin (its QEMU API stubbed)."""
    subprocess.run(["make", "-s", "-C", str(TOP / "tools/rig")], check=True,
                   capture_output=True)  # fetches qemu-plugin.h if needed
    glib = subprocess.run(["pkg-config", "--cflags", "--libs", "glib-2.0"], text=True,
                          capture_output=True, check=True).stdout.split()
    exe = tmp_path / "rigtest"
    r = subprocess.run(["gcc", "-O2", "-Wall", "-Wextra", "-Wno-unused-parameter",
                        f"-I{TOP / 'build/rig'}", f"-I{TOP / 'tools/rig/guest'}",
                        str(TOP / "tools/rig/plugin/rig.c"),
                        str(TOP / "tests/host/rig/rigtest.c"), "-o", str(exe), "-lm", *glib],
                       text=True, capture_output=True)
    assert r.returncode == 0 and "warning:" not in r.stderr, r.stderr
    return exe


def _rig_conf(tmp_path, name, edit=lambda s: s):
    p = tmp_path / name
    p.write_text(edit((TOP / "tools/rig/rig.conf").read_text()))
    return p


def test_rig_plugin_model(tmp_path):
    """The rig's timing model off QEMU: class counts, reference cycles,
    dynamic and idle energy from the energy model, the DVFS latency and
    ramp (wall time = model x slowdown), low clocks after a wakeup
    (tools/rig/README.md, "The model")."""
    exe = _rigtest(tmp_path)
    conf = _rig_conf(tmp_path, "t.conf", lambda s: s.replace("slowdown = 50", "slowdown = 10")
                     .replace("dvfs_latency_us = 100", "dvfs_latency_us = 1000")
                     .replace("dvfs_ramp_mhz_per_us = 10", "dvfs_ramp_mhz_per_us = 1"))
    r = subprocess.run([str(exe), str(conf), str(tmp_path / "shm")], text=True,
                       capture_output=True)
    assert r.returncode == 0 and "not ok" not in r.stdout, r.stdout + r.stderr
    assert r.stdout.count("\nok - ") >= 18, r.stdout


@pytest.mark.parametrize("what,edit,topology", [
    ("an OPP voltage missing", lambda s: s.replace("opp_mv = 900 950 1000 1050 1100",
                                                    "opp_mv = 900 950 1000 1050"), "1b1s"),
    ("the top OPP not freq_mhz", lambda s: s.replace("opp_mhz = 800 1000 1200 1400 1600",
                                                      "opp_mhz = 800 1000 1200 1400 1500"), "1b1s"),
    ("OPPs not ascending", lambda s: s.replace("opp_mhz = 800 1000 1200 1400 1600",
                                                "opp_mhz = 800 1200 1000 1400 1600"), "1b1s"),
    ("a domain spanning two types", lambda s: s + "\n[domains]\n1b1s = 0 0\n", "1b1s"),
    ("a negative DVFS latency", lambda s: s.replace("dvfs_latency_us = 100",
                                                     "dvfs_latency_us = -5"), "1b1s"),
    ("low_clock_pct above 100", lambda s: s.replace("low_clock_pct = 75",
                                                     "low_clock_pct = 150"), "1b1s"),
])
def test_rig_plugin_refuses_bad_clocks(tmp_path, what, edit, topology):
    """A configuration with bad clocks, OPPs or domains is refused at load."""
    exe = _rigtest(tmp_path)
    r = subprocess.run([str(exe), str(_rig_conf(tmp_path, "bad.conf", edit)),
                        str(tmp_path / "shm"), topology], text=True, capture_output=True)
    assert r.returncode == 1, f"{what}: accepted\n{r.stderr}"
    assert r.stderr.startswith("rig: "), r.stderr


def test_rig_plugin_takes_every_topology(tmp_path):
    """rig.conf's own topologies all load (two vCPUs of each)."""
    import configparser
    exe = _rigtest(tmp_path)
    ini = configparser.ConfigParser()
    ini.read(TOP / "tools/rig/rig.conf")
    for topo in ini["topology"]:
        if topo == "default":
            continue
        r = subprocess.run([str(exe), str(TOP / "tools/rig/rig.conf"), str(tmp_path / "shm"),
                            topo], text=True, capture_output=True)
        assert r.returncode == 0, f"{topo}: {r.stderr}"


def _mixcal(tmp_path, progs, fast, slow, clock, noise=0.0):
    """A calibration file as rig-mixcal.sh saves it, from CPI tables."""
    import json
    import random
    rnd = random.Random(27)
    lines = []
    for name, (shares, stall_ns) in progs.items():
        cf = sum(a * b for a, b in zip(fast, shares))
        cs = sum(a * b for a, b in zip(slow, shares))
        # the big clock is `clock` GHz, the little one 1 GHz; stalls in ns
        t_big, t_little = cf / clock + stall_ns, cs + stall_ns
        for side, cpi, st, t in (("big", cf + stall_ns * clock, stall_ns * clock, t_big),
                                 ("little", cs + stall_ns, stall_ns, t_little)):
            task = {"tasks": [{"cpi": cpi, "cpi_stall": st, "mix": dict(
                zip(("ldst", "int", "fp", "branch"), shares[1:]))}]}
            rate = 1000 / t * (1 + rnd.uniform(-noise, noise))
            lines.append(f"run {name} {side} {rate} {json.dumps(task)}")
    f = tmp_path / "mixcal.txt"
    f.write_text("\n".join(lines) + "\n")
    return f


def _pair(text):
    m = re.search(r"^pair 1/0 clock=([\d.]+) err=([\d.]+) fast=([\d.,]+) slow=([\d.,]+)$",
                  text, re.M)
    assert m, text
    return (float(m[1]), float(m[2]), [float(x) for x in m[3].split(",")],
            [float(x) for x in m[4].split(",")])


# other, ldst, int, fp, branch: shares of each calibration program
MIX_PROGS = {
    "alu": ([0.05, 0.05, 0.8, 0.0, 0.1], 0.0), "ldst": ([0.0, 0.6, 0.3, 0.0, 0.1], 0.0),
    "branch": ([0.0, 0.0, 0.5, 0.0, 0.5], 0.0), "fp": ([0.0, 0.0, 0.05, 0.9, 0.05], 0.0),
    "blend": ([0.1, 0.2, 0.4, 0.1, 0.2], 0.0), "chase": ([0.0, 0.4, 0.4, 0.0, 0.2], 90.0),
    "mix2": ([0.12, 0.3, 0.3, 0.2, 0.08], 0.0), "fp2": ([0.0, 0.3, 0.1, 0.5, 0.1], 0.0),
    "br2": ([0.15, 0.1, 0.3, 0.1, 0.35], 0.0),
}


def test_mixfit_recovers_a_board(tmp_path):
    """tools/mixfit.py finds the CPI tables and clock that made the runs."""
    fast, slow, clock = [0.5, 0.6, 0.45, 0.8, 0.6], [0.7, 1.0, 0.65, 1.6, 0.9], 1.6
    f = _mixcal(tmp_path, MIX_PROGS, fast, slow, clock)
    r = subprocess.run(["/usr/bin/python3", str(TOP / "tools/mixfit.py"), str(f)],
                       text=True, capture_output=True)
    assert r.returncode == 0, r.stderr
    c, err, cf, cs = _pair(r.stdout)
    assert abs(c - clock) < 0.01 and err == 0.03, r.stdout
    assert all(abs(a - b) < 0.01 for a, b in zip(cf + cs, fast + slow)), r.stdout


def test_mixfit_error_follows_the_noise(tmp_path):
    """Noisy rates give a larger leave-one-out error, and too few programs no fit."""
    fast, slow = [0.5, 0.6, 0.45, 0.8, 0.6], [0.7, 1.0, 0.65, 1.6, 0.9]
    f = _mixcal(tmp_path, MIX_PROGS, fast, slow, 1.6, noise=0.15)
    r = subprocess.run(["/usr/bin/python3", str(TOP / "tools/mixfit.py"), str(f)],
                       text=True, capture_output=True)
    assert r.returncode == 0, r.stderr
    assert _pair(r.stdout)[1] > 0.05, r.stdout
    two = dict(list(MIX_PROGS.items())[:2])
    f = _mixcal(tmp_path, two, fast, slow, 1.6)
    r = subprocess.run(["/usr/bin/python3", str(TOP / "tools/mixfit.py"), str(f)],
                       text=True, capture_output=True)
    assert r.returncode != 0 and "need 3" in r.stderr
