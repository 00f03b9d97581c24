"""pytest glue: the testbed lives in tools/testbed; TAP points inside each
guest are tallied per cell and printed at the end, skips apart from passes."""
import collections
import lzma
from pathlib import Path

TALLY: collections.defaultdict[str, collections.Counter[str]] = \
    collections.defaultdict(lambda: collections.Counter())
THROTTLE: collections.Counter[str] = collections.Counter()  # host throttling mode -> boots
# cell -> seconds its tests took (builds and boots): where the suite's hour goes
SECONDS: collections.Counter[str] = collections.Counter()
RETRIES: list[str] = []  # boots thrown away: the emulator hung or ran a stale int3 (harness.run)


def record(cell, result):
    t = TALLY[cell]
    t["boots"] += 1
    t["ok"] += len(result.passed)
    t["not ok"] += len(result.failed)
    t["skip"] += len(result.skipped)
    if result.throttle:
        THROTTLE[result.throttle] += 1
    if result.boot_retry:
        RETRIES.append(f"{cell}: {result.boot_retry}")


def pytest_configure(config):
    config.addinivalue_line(
        "markers", "slow: a check too slow for make test's hour (make test-slow runs them)")


def pytest_runtest_makereport(item, call):
    cell = getattr(item, "callspec", None) and item.callspec.params.get("cell")
    if cell and call.when in ("setup", "call"):
        SECONDS[cell] += call.duration


def dkms_modules(release, dest):
    """The sbridge modules DKMS installed for kernel @release, copied to
    directory @dest uncompressed (the guest's insmod takes plain .ko);
    returns their paths, core first. Asserts both are there."""
    kos = []
    for name in ("sbridge_core", "sbridge_pmu"):
        found = list(Path(f"/lib/modules/{release}/updates/dkms").glob(f"{name}.ko*"))
        assert found, f"DKMS installed no {name} for {release}"
        data = found[0].read_bytes()
        kos.append(Path(dest) / f"{name}.ko")
        kos[-1].write_bytes(lzma.decompress(data) if found[0].suffix == ".xz" else data)
    return kos


def boot_load(k, kos, tmp_path, label):
    """Boot cell kernel @k with exactly the modules @kos and run load.sh;
    recorded in the summary as cell(@label). Returns the vm.Result."""
    from sbridge_testbed import guest, harness
    base = guest.base_initramfs(k, kos, harness.programs(k.arch),
                                dest=tmp_path / f"{label}-base.cpio.gz")
    r = harness.run(k, harness.load_scenario(Path(__file__).parent / "scenarios/load.sh"), base)
    record(f"{k.cell}({label})", r)
    return r


def pytest_terminal_summary(terminalreporter):
    if not TALLY:
        return
    tr = terminalreporter
    tr.section("in-guest TAP points per kernel cell")
    for cell in sorted(TALLY):
        t = TALLY[cell]
        took = f"  {SECONDS[cell] / 60:5.1f} min" if cell in SECONDS else ""
        tr.write_line(f"{cell:20} boots {t['boots']:3}  ok {t['ok']:4}  "
                      f"not ok {t['not ok']:3}  skip {t['skip']:3}{took}")
    for mode, n in sorted(THROTTLE.items()):
        tr.write_line(f"little vCPUs throttled with {mode}: {n} boots")
    for line in RETRIES:
        tr.write_line(f"boot retried, {line}")
    from sbridge_testbed import kernels, reliability
    tr.section("reliability (tools/testbed/reliability.py; docs/testing.md)")
    rows = [r for r in reliability.cell_rows(kernels.BUILD / "cells") if r[0] in TALLY]
    for line in reliability.table(rows).splitlines():
        tr.write_line(line)
