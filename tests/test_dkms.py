"""DKMS for real on the x86_64 host: add/build/install against the installed
Debian headers, boot the 6.1 guest with exactly the modules DKMS installed,
then `dkms remove` must leave nothing behind."""
import os
import shutil
import subprocess
from pathlib import Path

import pytest

from conftest import boot_load, dkms_modules
from sbridge_testbed import build, harness

TOP = Path(__file__).resolve().parents[1]
CELL = "x86_64-bookworm"


def _make(target, rel):
    r = subprocess.run(["make", "-s", "-C", str(TOP), target, f"KVER={rel}"], text=True,
                       capture_output=True)
    assert r.returncode == 0, f"make {target} failed:\n{r.stdout}\n{r.stderr}"
    return r.stdout


def _leftovers(rel, version):
    found = [str(p) for p in (Path(f"/usr/src/sbridge-{version}"), Path("/var/lib/dkms/sbridge"))
             if p.exists()]
    found += [str(p) for p in Path(f"/lib/modules/{rel}").rglob("sbridge_*.ko*")]
    status = subprocess.run(["dkms", "status", "sbridge"], text=True, capture_output=True)
    return found + [line for line in status.stdout.splitlines() if line.strip()]


@pytest.mark.skipif(os.geteuid() != 0 or not shutil.which("dkms"), reason="needs root and dkms")
def test_dkms_install_boot_remove(tmp_path):
    k = next((k for k in harness.cells() if k.cell == CELL), None)
    if k is None:
        pytest.skip(f"{CELL} not in SBRIDGE_CELLS")
    try:
        # the guest kernel image: this test may be the first to need it
        k = harness.prepared(CELL)[0]
    except build.BuildError as e:
        pytest.fail(f"{CELL}: {e}")
    if not Path(f"/lib/modules/{k.release}/build").exists():
        pytest.fail(f"host headers for {k.release} not installed (apt-get install "
                    f"linux-headers-amd64); the cell and the host headers must agree")
    # the Debian package's DKMS tree (test_deb.py) is dpkg's: make dkms-remove
    # must not delete it from under dpkg
    pkg = subprocess.run(["dpkg-query", "-W", "-f", "${db:Status-Abbrev}", "sbridge-dkms"],
                         text=True, capture_output=True)
    if pkg.returncode == 0 and pkg.stdout[:2] not in ("un", "pn", ""):
        pytest.fail("the sbridge-dkms package is installed: apt-get purge sbridge-dkms first")
    version = subprocess.run([str(TOP / "scripts/version.sh"), str(TOP)], text=True,
                             capture_output=True, check=True).stdout.strip()
    _make("dkms-remove", k.release)
    assert not _leftovers(k.release, version), "stale sbridge DKMS state before the test"
    try:
        _make("dkms-install", k.release)
        kos = dkms_modules(k.release, tmp_path)
        modinfo = subprocess.run(["modinfo", "-F", "version", str(kos[0])], text=True,
                                 capture_output=True).stdout.strip()
        assert modinfo == version, f"module says version {modinfo!r}, tree is {version!r}"
        r = boot_load(k, kos, tmp_path, "dkms")
        assert not r.problems, "DKMS-built modules in the 6.1 guest:\n" + "\n".join(r.problems)
    finally:
        _make("dkms-remove", k.release)
    assert not _leftovers(k.release, version), "dkms remove left files behind"
