"""Kernel coding style and static checks: checkpatch and sparse over every module source, clean."""
import subprocess
from pathlib import Path

import pytest

TOP = Path(__file__).resolve().parents[1]


def test_checkpatch_clean():
    # checkpatch exits non-zero on any finding; the script fails if it cannot
    # fetch checkpatch. --quiet prints nothing for clean files.
    r = subprocess.run([str(TOP / "tools/checkpatch.sh")], text=True, capture_output=True)
    assert r.returncode == 0, f"{r.stdout[-6000:]}\n{r.stderr[-2000:]}"


def test_sparse_clean():
    """make sparse (C=2) against the x86_64 6.1 cell's headers on the host
    (the ones test_dkms builds with): not one warning."""
    from sbridge_testbed import harness
    k = next((k for k in harness.cells() if k.cell == "x86_64-bookworm"), None)
    if k is None:
        pytest.skip("x86_64-bookworm not in SBRIDGE_CELLS")
    if not Path(f"/lib/modules/{k.release}/build/Makefile").exists():
        pytest.fail(f"host headers for {k.release} not installed (tools/testbed/setup-host.sh)")
    r = subprocess.run(["make", "-s", "-C", str(TOP), "sparse", f"KVER={k.release}"],
                       text=True, capture_output=True)
    assert r.returncode == 0, f"{r.stdout[-6000:]}\n{r.stderr[-2000:]}"


def _pycheck(*files):
    """tools/pycheck.sh (ruff and mypy at pinned versions); a skip, never a
    pass, when they cannot be installed."""
    r = subprocess.run([str(TOP / "tools/pycheck.sh"), *map(str, files)], text=True,
                       capture_output=True)
    if r.returncode == 77:
        pytest.skip(f"ruff/mypy not installable: {r.stderr.strip()[-500:]}")
    return r


def test_python_lint_and_types_clean():
    """ruff and mypy over the host's Python (pyproject.toml): not one finding."""
    r = _pycheck()
    assert r.returncode == 0, f"{r.stdout[-6000:]}\n{r.stderr[-2000:]}"


def test_python_check_catches_findings(tmp_path):
    """The check can fail: an unused import (ruff) and a wrong return type (mypy)."""
    bad = tmp_path / "bad.py"
    bad.write_text('import os\n\n\ndef f() -> int:\n    return "x"\n')
    r = _pycheck(bad)
    assert r.returncode == 1, r.stdout + r.stderr
    assert "F401" in r.stdout and "[return-value]" in r.stdout, r.stdout
