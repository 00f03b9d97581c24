"""Host-side suites (plain C, built and run by make), one test each."""
import re
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
