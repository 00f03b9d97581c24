"""What every testbed module shares: the tree's paths, the log, running
commands, and fetching and unpacking Debian packages.

The testbed is a library: what it does is logged, at INFO, on the logger
"sbridge_testbed" (stderr, "[testbed] ..." lines, as the scripts have
always printed them); a script's own output (harness.py's verdicts,
reliability.py's table) stays on stdout.
"""
import logging
import os
import subprocess
import sys
from pathlib import Path

TOP = Path(__file__).resolve().parents[2]
BUILD = Path(os.environ.get("SBRIDGE_BUILD", TOP / "build"))
MIRROR = "http://deb.debian.org/debian"

LOG = logging.getLogger("sbridge_testbed")


class _Stderr(logging.StreamHandler):
    """sys.stderr as it is when a record comes (pytest swaps it per test)."""

    @property  # type: ignore[override]
    def stream(self):
        return sys.stderr

    @stream.setter
    def stream(self, _value):
        pass


if not LOG.handlers:
    _handler = _Stderr()
    _handler.setFormatter(logging.Formatter("[testbed] %(message)s"))
    LOG.addHandler(_handler)
    LOG.setLevel(logging.INFO)
    LOG.propagate = False


def log(msg: str) -> None:
    LOG.info(msg)


def run(cmd, **kw) -> subprocess.CompletedProcess:
    return subprocess.run(cmd, check=True, text=True, **kw)


def out(cmd) -> str:
    return subprocess.run(cmd, check=True, text=True, capture_output=True).stdout


def apt_name(name: str, arch: str) -> str:
    """Package @name as apt names it for Debian architecture @arch."""
    return name if arch == "amd64" else f"{name}:{arch}"


def apt_download(pkgs: list[str], dest: Path) -> list[Path]:
    """apt-get download @pkgs into @dest unless there already; their .debs."""
    dest.mkdir(parents=True, exist_ok=True)
    todo = [p for p in pkgs if not list(dest.glob(p.split(":")[0] + "_*.deb"))]
    if todo:
        # -o ...: apt's sandbox user cannot write into root-owned build dirs
        run(["apt-get", "-q", "-o", "APT::Sandbox::User=root", "download", *todo],
            cwd=dest, stdout=subprocess.DEVNULL)
    return [next(dest.glob(p.split(":")[0] + "_*.deb")) for p in pkgs]


def deb_unpack(deb: Path, dest: Path, members=()) -> None:
    """dpkg-deb -x, but keep a merged-/usr root's /lib symlink a symlink.

    @members: only the paths matching these shell patterns.
    """
    dest.mkdir(parents=True, exist_ok=True)
    pick = ["--wildcards", *members] if members else []
    tar = subprocess.Popen(["tar", "-x", "--keep-directory-symlink", "-C", str(dest), *pick],
                           stdin=subprocess.PIPE)
    run(["dpkg-deb", "--fsys-tarfile", str(deb)], stdout=tar.stdin)
    assert tar.stdin is not None
    tar.stdin.close()
    if tar.wait():
        raise SystemExit(f"unpacking {deb.name} failed")
