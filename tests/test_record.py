"""The recorder round trip (issue 16): `sbridgectl record` in an arm64 guest,
the file handed back with save_file, read by sbridge-plot's own parser.

One boot of tests/scenarios/ctl-record-roundtrip.sh ("# runner: own":
test_kernels leaves it to this file) in the newest arm64 cell; each test
checks one property of the parsed record, not only that pictures exist.
"""
import json
from pathlib import Path

import pytest

from conftest import record as tally
from sbridge_testbed import build, harness
from sbridgeplot import cli, record

TOP = Path(__file__).resolve().parents[1]

CELL = "arm64-backports"
SCENARIO = harness.SCENARIOS / "ctl-record-roundtrip.sh"


@pytest.fixture(scope="module")
def run():
    """(parsed Record, {pid: comm} of the workloads) from one guest boot."""
    if CELL not in [k.cell for k in harness.cells()]:
        pytest.skip(f"{CELL} not in SBRIDGE_CELLS")
    s = harness.load_scenario(SCENARIO)
    try:
        k, base, _ = harness.prepared(CELL)
    except build.BuildError as e:
        pytest.fail(str(e), pytrace=False)
    r = harness.run(k, s, base)
    tally(CELL, r)
    assert not r.problems, (f"{s.name} in {CELL} ({k.release}); console in "
                            f"{harness.console_log(k, s)}:\n  " + "\n  ".join(r.problems))
    assert {"roundtrip.rec", "pids.txt"} <= set(r.files), sorted(r.files)
    path = harness.files_dir(k, s) / "roundtrip.rec"
    assert path.read_bytes() == r.files["roundtrip.rec"]
    pids = {}
    for line in r.files["pids.txt"].decode().split("\n"):
        if line:
            comm, pid = line.split()
            pids[int(pid)] = comm
    assert sorted(pids.values()) == ["chase", "chase", "spin", "spin"], pids
    # strict parse: a file without its end record is an error here
    return record.parse(path), pids


def test_record_is_complete(run):
    rec, _ = run
    assert rec.end is not None
    assert rec.end.reason == "duration"
    assert rec.meta["sbridge"] == "loaded"
    # the default records every event of the module, and says so (version
    # 3 on); version 4 says what the kernel lost: nothing, on this board
    assert rec.version == "4"
    assert rec.end.counts["lost"] == 0
    assert rec.meta["sbridge_events"] == tuple(
        f"sbridge_{e}" for e in ("window", "phase", "period", "decide", "act", "report"))
    c = rec.end.counts
    if c["dropped"] == 0:
        held = {"events": len(rec.events) + sum(rec.other_events.values()),
                "samples": len(rec.samples), "switches": len(rec.switches)}
        assert {k: c[k] for k in held} == held
    # -d 6: about 6 s of mono time; samples at most 20 Hz per CPU (late
    # ones are skipped under TCG load, never bunched), yet some every second
    secs = (rec.t1 - rec.t0) / 1e9
    assert 5.0 <= secs <= 9.0, (rec.t0, rec.t1)
    assert rec.meta["rate_hz"] == 20
    for cpu in rec.cpus:
        n = sum(1 for s in rec.samples if s.cpu == cpu)
        assert secs <= n <= 20 * secs + 2, f"cpu{cpu}: {n} samples in {secs:.1f} s"


def test_record_has_the_board(run):
    """1b3s: 4 CPUs, 2 core types, one big."""
    rec, _ = run
    assert sorted(rec.cpus) == [0, 1, 2, 3]
    assert len(rec.types) == 2
    big = [c for c in rec.cpus if rec.type_name(rec.cpus[c].type) == "big"]
    assert len(big) == 1, {c: rec.cpu_label(c) for c in rec.cpus}
    assert {s.cpu for s in rec.samples} == {0, 1, 2, 3}


def test_every_workload_ran(run):
    rec, pids = run
    ran = {iv.pid for iv in rec.intervals()}
    assert set(pids) <= ran, f"never seen running: {set(pids) - ran}"
    names = rec.comms()
    assert {p: names.get(p) for p in pids} == pids


def test_windows_and_classes(run):
    """fakesrc makes spin compute- and chase memory-bound: each has windows
    and sbridge-plot classifies them so."""
    rec, pids = run
    wins = rec.windows()
    for comm in ("spin", "chase"):
        assert any(wins.get(p) for p, c in pids.items() if c == comm), f"no {comm} windows"
    classes = record.Classes([rec])
    got = {p: classes.of(rec, p, c) for p, c in pids.items() if wins.get(p)}
    want = {p: "compute" if pids[p] == "spin" else "memory" for p in got}
    assert got == want


def test_decisions_recorded(run):
    """Little factor 1.4: the spinners are decided onto the big type, and
    placement applies the big CPU's mask to them."""
    rec, pids = run
    assert rec.named("sbridge_period")
    decide = [e for e in rec.named("sbridge_decide") if e.f["pid"] in pids]
    assert decide, "no sbridge_decide event about a workload"
    assert rec.decisions(), "no decision changes a task's target type"
    big_type = rec.types[0]
    big_cpu = next(c for c in rec.cpus if rec.cpus[c].type == big_type)
    to_big = {e.f["pid"] for e in decide if e.f["to"] == big_type}
    assert to_big and {pids[p] for p in to_big} == {"spin"}, \
        {pids[p] for p in to_big}
    masks = {(e.f["pid"], e.f["val"]) for e in rec.named("sbridge_act")
             if e.f["act"] == "placement" and e.f["op"] == "apply"}
    assert any(p in to_big and int(v, 16) == 1 << big_cpu for p, v in masks), masks


def test_pictures_build(run, tmp_path):
    pytest.importorskip("matplotlib")
    rec, pids = run
    src = rec.path
    spin = min(p for p, c in pids.items() if c == "spin")
    outs = {"timeline": ["timeline", src], "compare": ["compare", src, src],
            "heatmap": ["heatmap", src], "tasks": ["tasks", src, "--pid", str(spin)]}
    for name, argv in outs.items():
        out = tmp_path / f"{name}.png"
        assert cli.main(argv + ["-o", str(out)]) == 0, name
        assert out.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n", name


def test_perfetto_builds(run, tmp_path):
    rec, pids = run
    src = rec.path
    out = tmp_path / "trace.json"
    assert cli.main(["perfetto", src, "-o", str(out)]) == 0
    trace = json.loads(out.read_text())
    assert trace["otherData"]["complete"] is True
    slices = [e for e in trace["traceEvents"] if e["ph"] == "X"]
    # a slice per running interval, each workload's class as its category
    assert {e["args"]["pid"] for e in slices} >= set(pids)
    cats = {(pids[e["args"]["pid"]], e["cat"]) for e in slices if e["args"]["pid"] in pids}
    assert ("spin", "compute") in cats and ("chase", "memory") in cats, cats
    assert any(e.get("cat") == "decision" for e in trace["traceEvents"])
