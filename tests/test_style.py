"""Kernel coding style: checkpatch over every module source, clean."""
import subprocess
from pathlib import Path

TOP = Path(__file__).resolve().parents[1]


def test_checkpatch_clean():
    # checkpatch exits non-zero on any finding; the script fails if it cannot
    # fetch checkpatch. --quiet prints nothing for clean files.
    r = subprocess.run([str(TOP / "tools/checkpatch.sh")], text=True, capture_output=True)
    assert r.returncode == 0, f"{r.stdout[-6000:]}\n{r.stderr[-2000:]}"
