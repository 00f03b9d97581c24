"""Host-side tests: the plain-C suites (built and run by make) and the harness's own logic."""
import re
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
    src = (TOP / "sbridge-core/main.c").read_text()
    table = src[src.index("sbridge_param_tab[] = {"):]
    table = table[:table.index("};")]
    names = set(re.findall(r'\{ "([a-z_.]+)", &', table))
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
