"""Every scenario in every kernel cell it is meant for, plus the build.

A cell is (arch, Debian suite): x86_64/arm64 x bookworm (6.1), trixie
(6.12), trixie-backports (newest 7.x), resolved from apt when tests start,
plus x86_64-debug and arm64-debug (bookworm's source with the kernel's
checkers, tools/testbed/debugkernel.py). The debug cells run the scenarios
marked "# debug: sample"; SBRIDGE_DEBUG=all (make test-debug) runs every
scenario there. The trixie (6.12) cells skip "# trixie: no" scenarios,
which exercise nothing of the kernel that 6.1 and 7.x do not already;
SBRIDGE_TRIXIE=all (make test-trixie) runs them there too. A "# stock:
x86_64 backports" scenario runs in the stock cells of that arch and suite
only (the debug cells run it on both arches; SBRIDGE_STOCK=all everywhere
its arch: and suite: allow).
"""
import os
import re

import pytest

from conftest import record
from sbridge_testbed import build, harness, kernels

CELLS = harness.cells()
# "# runner: own" scenarios are booted by a test of their own (test_record);
# "# runner: rig" ones check the rig, not sbridge: SBRIDGE_RUNNER=rig (make
# test-rig) runs those instead
RUNNER = os.environ.get("SBRIDGE_RUNNER", "kernels")
SCENARIOS = [s for s in harness.scenarios() if s.runner == RUNNER]


def _prepared(cell):
    try:
        return harness.prepared(cell)
    except build.BuildError as e:
        pytest.fail(str(e), pytrace=False)


@pytest.mark.parametrize("cell", [k.cell for k in CELLS])
def test_build_w1_clean(cell):
    """Both modules build for the cell with W=1 and no warning."""
    k, _base, warnings = _prepared(cell)
    mods = {p.name for p in (build.BUILD / "cells" / cell / "modules").glob("*.ko")}
    assert {"sbridge_core.ko", "sbridge_pmu.ko"} <= mods
    assert not warnings, "W=1 warnings:\n" + "\n".join(warnings)


DEBUG_ALL = os.environ.get("SBRIDGE_DEBUG") == "all"
TRIXIE_ALL = os.environ.get("SBRIDGE_TRIXIE") == "all"
STOCK_ALL = os.environ.get("SBRIDGE_STOCK") == "all"


def _stock(k, s):
    """Whether stock cell @k is one of the cells scenario @s's stock: names."""
    words = set(s.stock) - {"any"}
    arches, suites = words & set(kernels.ARCHES), words - set(kernels.ARCHES)
    return (not arches or k.arch in arches) and (not suites or k.suite in suites)


def _case(k, s):
    if not s.runs_on(k):
        return False
    if k.suite == "trixie" and not (s.trixie or TRIXIE_ALL):
        return False
    if k.flavour != "debug" and not STOCK_ALL and not _stock(k, s):
        return False
    return DEBUG_ALL or s.debug in ("sample", "only") \
        or k.flavour != "debug"


CASES = [pytest.param(k.cell, s, id=f"{k.cell}-{s.name}")
         for k in CELLS for s in SCENARIOS if _case(k, s)]


@pytest.mark.parametrize("cell,scenario", CASES)
def test_scenario(cell, scenario):
    k, base, _ = _prepared(cell)
    r = harness.run(k, scenario, base)
    record(cell, r)
    log = harness.console_log(k, scenario)
    if scenario.expect == "fail":
        # harness self-test: the run must be judged failed, for the right reason
        assert r.problems, f"{scenario.name} should have failed but passed"
        assert any(re.search(scenario.reason, p) for p in r.problems), \
            f"failed, but not for '{scenario.reason}': {r.problems}"
        return
    assert not r.problems, (f"{scenario.name} in {cell} ({k.release}); console in {log}:\n  "
                            + "\n  ".join(r.problems))
    if r.skipped and not r.passed:
        pytest.skip(f"every check skipped: {'; '.join(r.skipped)}")
