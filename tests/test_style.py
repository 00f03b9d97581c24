"""Kernel coding style: checkpatch over every module source, clean."""
import subprocess
from pathlib import Path

TOP = Path(__file__).resolve().parents[1]


def test_checkpatch_clean():
    r = subprocess.run([str(TOP / "tools/checkpatch.sh")], text=True, capture_output=True)
    findings = [line for line in r.stdout.splitlines()
                if line.startswith(("ERROR:", "WARNING:"))]
    assert "total:" in r.stdout, f"checkpatch did not run:\n{r.stdout}\n{r.stderr}"
    assert not findings, r.stdout[-6000:]
