"""The testbed's own logic off any guest: cgroup throttling, kernel
packages, scenario headers, device-tree clocks, the reliability table."""
import re
from pathlib import Path

import pytest

TOP = Path(__file__).resolve().parents[1]


def test_throttle_finds_cgroup_mounts(tmp_path):
    """v1 cpu hierarchy and the v2 mount come from the mount table, not fixed paths."""
    from sbridge_testbed import vm
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


def test_kernel_packages_qualify_only_arch_specific(monkeypatch):
    # A fresh machine fetching an arm64 cell first: the Architecture: all
    # headers-common package must go to apt unqualified (":arm64" has no
    # candidate), kbuild is the host's, the rest are ":arm64".
    from sbridge_testbed import kernels
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


def test_stock_header_narrows_only_stock_cells(tmp_path, monkeypatch):
    """stock: x86_64 keeps a scenario off arm64's stock cells, not its debug
    cell; stock: backports off the 6.1 stock cells; SBRIDGE_STOCK=all
    (test_kernels.STOCK_ALL) lifts both."""
    import test_kernels
    from sbridge_testbed import harness, kernels
    p = tmp_path / "s.sh"
    def cell(arch, flavour, suite="bookworm"):
        return kernels.Kernel(arch=arch, suite=suite, release="r",
                              version="v", flavour=flavour)
    p.write_text("#!/bin/sh\n# scenario: s\n# stock: x86_64\n")
    s = harness.load_scenario(p)
    assert test_kernels._case(cell("x86_64", ""), s)
    assert not test_kernels._case(cell("arm64", ""), s)
    assert s.runs_on(cell("arm64", "")) and s.runs_on(cell("arm64", "debug"))
    assert test_kernels._case(cell("arm64", "debug"), s) == test_kernels.DEBUG_ALL
    p.write_text("#!/bin/sh\n# scenario: s\n# stock: arm64 backports\n")
    s = harness.load_scenario(p)
    assert test_kernels._case(cell("arm64", "", "backports"), s)
    for k in (cell("arm64", ""), cell("x86_64", "", "backports")):
        assert s.runs_on(k) and not test_kernels._case(k, s)
    monkeypatch.setattr(test_kernels, "STOCK_ALL", True)
    assert test_kernels._case(cell("arm64", ""), s)
    assert test_kernels._case(cell("x86_64", "", "backports"), s)
    for bad in ("# stock: sparc\n", "# arch: arm64\n# stock: x86_64\n",
                "# stock:\n", "# suite: bookworm\n# stock: backports\n"):
        p.write_text("#!/bin/sh\n# scenario: s\n" + bad)
        with pytest.raises(ValueError):
            harness.load_scenario(p)


def test_timeout_scale_takes_whole_numbers_only(monkeypatch):
    """SBRIDGE_TIMEOUT_SCALE (make test-debug: 4) stretches the timeouts;
    anything but a whole number from 1 to 100 stops with its name."""
    from sbridge_testbed import harness
    monkeypatch.delenv("SBRIDGE_TIMEOUT_SCALE", raising=False)
    assert harness.timeout_scale() == 1
    monkeypatch.setenv("SBRIDGE_TIMEOUT_SCALE", "4")
    assert harness.timeout_scale() == 4
    for bad in ("0", "-1", "1.5", "x", "", "101"):
        monkeypatch.setenv("SBRIDGE_TIMEOUT_SCALE", bad)
        with pytest.raises(SystemExit, match="SBRIDGE_TIMEOUT_SCALE"):
            harness.timeout_scale()


def test_rig_slowdown_changes_only_the_slowdown(tmp_path, monkeypatch):
    """SBRIDGE_RIG_SLOWDOWN=N (run.py --slowdown) boots the rig from a copy
    of rig.conf that differs in `slowdown` only, and stretches the timeout
    by N over rig.conf's; unset, rig.conf as it is; bad values stop."""
    from sbridge_testbed import harness, kernels
    monkeypatch.setattr(kernels, "BUILD", tmp_path)
    monkeypatch.delenv("SBRIDGE_RIG_SLOWDOWN", raising=False)
    assert harness.rig_config() == (None, 1)
    conf = (harness.TOP / "tools" / "rig" / "rig.conf").read_text()
    m = re.search(r"^slowdown\s*=\s*(\d+)", conf, re.M)
    assert m, "rig.conf has no slowdown"
    base = int(m.group(1))
    monkeypatch.setenv("SBRIDGE_RIG_SLOWDOWN", str(base * 2 + 1))
    path, stretch = harness.rig_config()
    assert stretch == 3
    new = path.read_text()
    assert re.search(rf"^slowdown = {base * 2 + 1}$", new, re.M)
    assert [a for a in zip(conf.splitlines(), new.splitlines()) if a[0] != a[1]] == \
        [(f"slowdown = {base}", f"slowdown = {base * 2 + 1}")]
    for bad in ("0", "x", "1.5", "1001"):
        monkeypatch.setenv("SBRIDGE_RIG_SLOWDOWN", bad)
        with pytest.raises(SystemExit, match="SBRIDGE_RIG_SLOWDOWN"):
            harness.rig_config()


def test_boot_low_clocks_start_at_the_lowest_opp():
    """cpufreq: boot-low gives each cluster's clock its lowest OPP, yes its highest."""
    from sbridge_testbed import guest
    dts = "/ {\n\tcpus {\n\t\tcpu@0 {\n\t\t\tphandle = <0x1>;\n\t\t};\n\t};\n};\n"
    rates = {}
    for low in (False, True):
        out = guest._add_opps(dts, [guest.BIG], boot_low=low)
        m = re.search(r"clock-frequency = <(\d+)>", out)
        assert m, out
        rates[low] = int(m.group(1))
        assert "operating-points-v2 = <&sbridge_opp0>" in out
    assert rates[False] == max(guest.OPP_MHZ[guest.BIG]) * 1000000
    assert rates[True] == min(guest.OPP_MHZ[guest.BIG]) * 1000000


def test_reliability_leaves_out_scenarios_a_cell_no_longer_runs(tmp_path, monkeypatch):
    """A console left by a scenario the cell stopped selecting is no finding."""
    from sbridge_testbed import reliability
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


def test_reliability_names_the_tree_of_each_cell_and_merges_directories(
        tmp_path, monkeypatch, capsys):
    """Each row says which sbridge its consoles ran (the module's own
    version line); --cells merges several build directories."""
    from sbridge_testbed import reliability
    scen = tmp_path / "scenarios"
    scen.mkdir()
    monkeypatch.setattr(reliability, "SCENARIOS", scen)
    (scen / "a.sh").write_text("#!/bin/sh\n# scenario: a\n")
    con = ("@@SB-BEGIN 6.1.192 2cpu\n1..1\nok 1 - fine\n@@SB-RC 0\n@@SB-DMESG\n"
           "[    1.0] sbridge_core: version {v} loaded: 2 core type(s), API 5\n@@SB-END\n")
    for d, cell, v in (("one", "x86_64-debug", "0.2.0-1-gaaaaaaa"),
                       ("one", "x86_64-bookworm", "0.2.0-1-gaaaaaaa"),
                       ("two", "x86_64-debug", "0.2.0-2-gbbbbbbb")):
        (tmp_path / d / cell).mkdir(parents=True)
        (tmp_path / d / cell / "a.console").write_text(con.format(v=v))
    rows = {r[0]: r for r in reliability.cell_rows(tmp_path / "one")}
    assert rows["x86_64-debug"][5] == ["0.2.0-1-gaaaaaaa"]
    assert "| x86_64-debug | 6.1.192 | 0.2.0-1-gaaaaaaa | 1 |" in reliability.table(list(rows.values()))
    monkeypatch.setattr("sys.argv", ["reliability.py", "--cells", str(tmp_path / "one"),
                                     "--cells", str(tmp_path / "two")])
    assert reliability.main() == 0
    out = capsys.readouterr().out
    # the later directory's debug cell, the first one's bookworm cell
    assert "| x86_64-debug | 6.1.192 | 0.2.0-2-gbbbbbbb |" in out
    assert "| x86_64-bookworm | 6.1.192 | 0.2.0-1-gaaaaaaa |" in out


def _retry_scenario(tmp_path, monkeypatch, name):
    """A scenario @name whose boots the caller fakes (vm.boot), with the
    build directory and the reliability table's scenarios in @tmp_path."""
    from sbridge_testbed import guest, harness, kernels, reliability
    monkeypatch.setattr(kernels, "BUILD", tmp_path)
    monkeypatch.setattr(guest, "scenario_initramfs", lambda *a, **kw: None)
    scen = tmp_path / "scenarios"
    scen.mkdir()
    path = scen / f"{name}.sh"
    path.write_text(f"#!/bin/sh\n# scenario: {name}\n")
    monkeypatch.setattr(reliability, "SCENARIOS", scen)
    return harness.load_scenario(path)


def test_a_boot_that_never_reached_init_is_retried_once_and_said(tmp_path, monkeypatch):
    """harness.run boots again when the kernel never ran init (no
    @@SB-BEGIN: nothing of sbridge's had loaded), says so in the result,
    on the console and in the reliability table; a scenario that timed out
    after init is not retried."""
    from sbridge_testbed import harness, kernels, reliability, vm
    s = _retry_scenario(tmp_path, monkeypatch, "hang")
    k = kernels.Kernel("x86_64", "bookworm", "6.1.192", "", "")
    done = "@@SB-BEGIN 6.1.192 2cpu\n1..1\nok 1 - fine\n@@SB-RC 0\n@@SB-DMESG\n@@SB-END\n"
    hung = vm.Result(console="SeaBIOS\nBooting from ROM..\n", timed_out=True, wall=330.0,
                     stuck="vCPU program counters ffffffff81000000")
    late = vm.Result(console="@@SB-BEGIN 6.1.192 2cpu\n1..2\nok 1 - a\n", timed_out=True)
    for first, retried in ((hung, True), (late, False)):
        boots = [first, vm.parse(done, False)]
        monkeypatch.setattr(vm, "boot", lambda *a, b=boots, **kw: b.pop(0))
        r = harness.run(k, s, tmp_path)
        if not retried:
            assert r is late and not r.boot_retry and len(boots) == 1
            assert r.problems[0] == "timed out"
            continue
        assert not boots and not r.problems
        assert "never reached init in 330 s (vCPU program counters ffffffff81000000)" \
            in r.boot_retry
        console = harness.console_log(k, s).read_text()
        assert console.startswith("@@SB-RETRY ") and vm.parse(console, False).passed == ["fine"]
        rows = reliability.cell_rows(tmp_path / "cells")
        assert rows[0][3] == ["hang: first boot never reached init (booted again)"]
    assert hung.problems[0] == "timed out before init (vCPU program counters ffffffff81000000)"


STALE_INT3 = """\
[    2.860581] Oops: int3: 0000 [#1] SMP NOPTI
[    2.864056] CPU: 3 UID: 0 PID: 0 Comm: swapper/3 Not tainted 7.3.4+deb13-amd64 #1 PREEMPT(lazy)
[    2.864056] RIP: 0010:enqueue_task_fair+0xa0b/0xcc0
[    2.864056] Code: e5 f7 ff ff 48 8b 74 24 08 e9 77 fa ff ff {byte} <1f> 44 00 00 48 81 bd 18
[    2.864056] Call Trace:
[    2.864056]  <IRQ>
[    2.864056]  enqueue_task+0x86/0x190
[    2.864056] Modules linked in:
[    2.864056] Kernel panic - not syncing: Fatal exception in interrupt
"""


def test_the_emulators_stale_int3_is_booted_again_and_said(tmp_path, monkeypatch):
    """An "Oops: int3" in kernel text whose trapping byte is back to the
    patched instruction (x86 multi-threaded TCG ran a stale int3 after a
    finished text patch; seen at 2.9 s of a boot, no module loaded) is
    booted once more and said; an int3 still in the text (0xcc: freed
    module text, a real int3) or in a module's code fails the run."""
    from sbridge_testbed import harness, kernels, reliability, vm
    s = _retry_scenario(tmp_path, monkeypatch, "clocks")
    k = kernels.Kernel("x86_64", "backports", "7.3.4", "", "")
    done = "@@SB-BEGIN 7.3.4 4cpu\n1..1\nok 1 - fine\n@@SB-RC 0\n@@SB-DMESG\n@@SB-END\n"
    stale = STALE_INT3.format(byte="0f")
    for oops, retried in ((stale, True), (STALE_INT3.format(byte="cc"), False),
                          (stale.replace("0xcc0", "0xcc0 [rig_pmu]"), False)):
        first = vm.parse("@@SB-BEGIN 7.3.4 4cpu\n1..1\n" + oops, False)
        boots = [first, vm.parse(done, False)]
        monkeypatch.setattr(vm, "boot", lambda *a, b=boots, **kw: b.pop(0))
        r = harness.run(k, s, tmp_path)
        if not retried:
            assert r is first and not r.boot_retry and len(boots) == 1
            assert "kernel: [    2.860581] Oops: int3: 0000 [#1] SMP NOPTI" in r.problems
            continue
        assert not boots and not r.problems
        assert r.boot_retry == ("the first boot ended on the emulator ran a stale int3 at "
                                "enqueue_task_fair+0xa0b/0xcc0 (byte before it now 0f, a "
                                "finished text patch); booted again")
        assert harness.console_log(k, s).read_text().startswith("@@SB-RETRY ")
        rows = reliability.cell_rows(tmp_path / "cells")
        assert rows[0][3] == ["clocks: first boot ran the emulator's stale int3 (booted again)"]
