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
