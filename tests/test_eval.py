"""Host-side checks of the evaluation's code (bench/eval): the oracle, the
mixes, the generated scenarios and the report, on synthetic measurements.
The evaluation itself (make eval) boots boards and is not part of the tests.
"""
import csv
import sys
from pathlib import Path

import pytest

TOP = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(TOP / "bench" / "eval"))

import report  # noqa: E402
import run     # noqa: E402
import harness  # noqa: E402  (run.py put tools/testbed on sys.path)

T = {"a": {"big": 2.0, "little": 4.0}, "b": {"big": 2.0, "little": 2.2},
     "c": {"big": 3.0, "little": 6.0}}


def test_oracle_puts_the_program_that_gains_most_on_big():
    mk, ends = report.oracle(["a", "b"], T, 1, 1)
    assert mk == pytest.approx(2.2)
    assert ends == {0: pytest.approx(2.0), 1: pytest.approx(2.2)}


def test_oracle_shares_a_cpu_fairly():
    # one big CPU only: lengths 2 and 3 shared, the shorter ends at 4
    mk, ends = report.oracle(["a", "c"], T, 1, 0)
    assert ends == {0: pytest.approx(4.0), 1: pytest.approx(5.0)}
    assert mk == pytest.approx(5.0)


def test_oracle_is_no_worse_than_any_assignment():
    progs = ["a", "b", "c", "a", "c"]
    mk, _ = report.oracle(progs, T, 1, 2)
    # c on big with a and b... every hand-made assignment costs at least mk
    assert mk <= 6.0 + 1e-9
    assert mk >= max(min(T[p]["big"], T[p]["little"]) for p in progs)


def test_mixes_are_seeded_and_sized_by_cpus():
    names = [f"p{i}" for i in range(14)]
    m1 = run.mixes(names, 4, run.MODES["full"], 7)
    assert m1 == run.mixes(names, 4, run.MODES["full"], 7)
    assert m1 != run.mixes(names, 4, run.MODES["full"], 8)
    sizes = [len(p) for _, p in m1]
    assert sizes == [4, 4, 8]
    assert all(len(set(p)) == len(p) for _, p in m1)  # no repeats within 14
    assert {n for _, p in m1 for n in p} <= set(names)


@pytest.mark.parametrize("board", list(run.BOARDS))
def test_generated_scenarios_pass_the_harness_header_checks(board, tmp_path):
    b = run.BOARDS[board]
    names, _, debs = run.workloads()
    ncpu = len((b["big"] + " " + b["little"]).split())
    text = run.scenario(board, b, run.MODES["quick"], run.mixes(names, ncpu, run.MODES["quick"], 1),
                        eas=b["arch"] == "arm64")
    p = tmp_path / f"eval-{board}.sh"
    p.write_text(text)
    s = harness.load_scenario(p)
    assert s.rig and s.runner == "own" and set(s.debs) == set(debs)
    assert s.smp == ncpu and s.eas == (b["arch"] == "arm64")
    assert "CONFIGS='sym hmp sbridge'" in text if b["arch"] == "x86_64" else \
        "CONFIGS='sym cap eas hmp sbridge'" in text


def _write(path, header, rows):
    with open(path, "w", newline="") as f:
        w = csv.writer(f)
        w.writerow(header)
        w.writerows(rows)


def test_report_on_synthetic_measurements(tmp_path):
    d = tmp_path / "1b1s"
    d.mkdir()
    (d / "console.txt").write_text("eval: board 1b1s kernel k big [0] little [1] capacities [] configs []\n")
    (d / "board.txt").write_text("board=1b1s cell=arm64-bookworm\n")
    _write(d / "alone.csv", ["board", "prog", "type", "secs", "rc"],
           [["1b1s", p, ty, T[p][ty], 0] for p in T for ty in ("big", "little")])
    runs, mixes = [], []
    # sbridge: a 2.0 on big, b 2.2; cap: b on big 2.0, a on little 4.0
    for rnd in (1, 2):
        for cfg, ta, tb in (("cap", 4.0, 2.0), ("sbridge", 2.0, 2.2)):
            runs += [["1b1s", "main", cfg, "n2a", rnd, 0, "a", ta, 0],
                     ["1b1s", "main", cfg, "n2a", rnd, 1, "b", tb, 0]]
            mixes.append(["1b1s", "main", cfg, "n2a", rnd, max(ta, tb), 0.5, 1.0])
    # a third round in which b failed under cap: listed, left out of the means
    runs += [["1b1s", "main", "cap", "n2a", 3, 0, "a", 4.0, 0],
             ["1b1s", "main", "cap", "n2a", 3, 1, "b", 9.9, 1]]
    _write(d / "runs.csv", ["board", "kind", "config", "mix", "round", "slot", "prog", "secs", "rc"], runs)
    _write(d / "mixes.csv", ["board", "kind", "config", "mix", "round", "makespan", "big_share",
                             "big_busy"], mixes)
    _write(d / "overhead.csv", ["board", "round", "config", "short_secs", "pingpong_ns"],
           [["1b1s", 1, "off", 10.0, 1000], ["1b1s", 1, "on", 10.05, 1010]])
    (d / "matrix.txt").write_text("key=a type=0 phase=0 factor=1.9 cpib=0.9 samples=4\n"
                                  "key=a type=1 phase=0 factor=1.0 cpib=0.9 samples=4\n")
    res = report.main(tmp_path, ["1b1s"])[0]
    sp = res["speedup"]["cap"]
    assert sp["mean"] == pytest.approx((4.0 / 2.0 + 2.0 / 2.2) / 2)
    assert sp["worst"] == pytest.approx(2.0 / 2.2) and sp["worst_prog"] == "b"
    assert res["failed"] == ["b"]
    assert res["oracle"]["n2a"] == pytest.approx(2.2)
    assert res["pred"]["a"][0] == pytest.approx(1.9)
    assert res["overhead"]["short"] == pytest.approx(1.005)
    text = (tmp_path / "summary.md").read_text()
    assert "## Board 1b1s" in text and "**missed**" in text and "failed" in text
    assert (d / "speedup.png").stat().st_size > 1000
    assert (d / "speedups.csv").exists()


def test_workloads_check_scenario_carries_every_deb():
    """eval-workloads.sh (booted by hand, runner: own) needs WL_DEBS."""
    s = harness.load_scenario(TOP / "tests" / "scenarios" / "eval-workloads.sh")
    names, calib, debs = run.workloads()
    assert set(s.debs) == set(debs) and s.runner == "own"
    assert len(names) >= 12 and calib == ["spin", "chase"]
