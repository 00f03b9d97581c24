"""Build everything a test guest needs, per kernel cell and per arch.

Modules are built once per kernel (version magic must match exactly) inside
the suite's build root; user programs are static and built once per arch
with the host's compilers.
"""
import hashlib
import os
import re
import shutil
import subprocess

if not __package__:  # a script, or imported flat: see standalone.py
    import standalone  # type: ignore[import-not-found]  # noqa: F401
from sbridge_testbed import kernels
from sbridge_testbed.common import BUILD, TOP, apt_download, apt_name, deb_unpack, log, run
from sbridge_testbed.kernels import DEB_ARCH

# What of the tree a module build needs (copied into the build root).
MODULE_SRC = ["Kbuild", "sbridge-core", "pmu-monitor", "include", "scripts"]
# Further module dirs built per cell against the main Module.symvers.
EXTRA_MODULE_DIRS = ["tests/modules/*", "tools/rig/guest"]
WARNING = re.compile(r"\bwarning:", re.I)


class BuildError(Exception):
    pass


def _ignore(_dir, names):
    return [n for n in names if n.endswith((".o", ".ko", ".mod", ".mod.c", ".cmd", ".a"))
            or n in ("Module.symvers", "modules.order", ".tmp_versions")]


def _kmake(k, mdir, log_lines, extra=()):
    args = ["make", f"-j{os.cpu_count() or 1}", "-C", k.headers, f"M={mdir}", "W=1",
            *k.make_vars, *extra]
    r = kernels.in_root(k, args + ["modules"], capture="keep")
    log_lines.extend((r.stdout + r.stderr).splitlines())
    if r.returncode:
        raise BuildError(f"{k.cell}: module build in {mdir} failed:\n"
                         + "\n".join((r.stdout + r.stderr).splitlines()[-40:]))


def modules(k):
    """Build sbridge's modules (and test/rig modules) for kernel @k.

    Returns (list of .ko paths, list of W=1 warning lines).
    """
    out = BUILD / "cells" / k.cell / "modules"
    shutil.rmtree(out, ignore_errors=True)
    out.mkdir(parents=True)
    # the build root may be shared by several checkouts (worktrees linking
    # one root): each build directory gets its own source folder, or two
    # builds at once would compile each other's sources
    tag = f"{k.cell}-{hashlib.sha1(str(BUILD).encode()).hexdigest()[:8]}"
    src = k.root / "src" / tag
    shutil.rmtree(src, ignore_errors=True)
    src.mkdir(parents=True)
    for name in MODULE_SRC:
        p = TOP / name
        if p.is_dir():
            shutil.copytree(p, src / name, ignore=_ignore, symlinks=True)
        else:
            shutil.copy(p, src / name)
    # no git inside the build root: freeze the version the host sees
    ver = subprocess.run([str(TOP / "scripts/version.sh"), str(TOP)], text=True,
                         capture_output=True, check=True).stdout.strip()
    (src / "VERSION").write_text(ver + "\n")
    lines: list[str] = []
    _kmake(k, f"/src/{tag}", lines)
    extra = []
    for pattern in EXTRA_MODULE_DIRS:
        for d in sorted(TOP.glob(pattern)):
            if (d / "Kbuild").exists() or (d / "Makefile").exists():
                rel = d.relative_to(TOP)
                shutil.copytree(d, src / rel, ignore=_ignore, symlinks=True)
                extra.append(rel)
    for rel in extra:
        _kmake(k, f"/src/{tag}/{rel}", lines,
               [f"KBUILD_EXTRA_SYMBOLS=/src/{tag}/Module.symvers"])
    kos = []
    for ko in sorted(src.rglob("*.ko")):
        shutil.copy(ko, out / ko.name)
        kos.append(out / ko.name)
    warnings = [line for line in lines if WARNING.search(line)
                and "Skipping BTF" not in line]
    (out.parent / "build.log").write_text("\n".join(lines) + "\n")
    return kos, warnings


def busybox(arch):
    """Static busybox for @arch (arm64's is downloaded and unpacked)."""
    dest = BUILD / "busybox" / arch / "busybox"
    if dest.exists():
        return dest
    darch = DEB_ARCH[arch]
    deb = apt_download([apt_name("busybox-static", darch)], BUILD / "debs" / f"busybox-{darch}")[0]
    tmp = dest.parent / "x"
    shutil.rmtree(tmp, ignore_errors=True)
    deb_unpack(deb, tmp)
    shutil.copy(next(p for p in tmp.rglob("busybox") if p.parent.name == "bin"), dest)
    shutil.rmtree(tmp)
    return dest


def cc(arch):
    return "gcc" if arch == "x86_64" else "aarch64-linux-gnu-gcc"


def programs(arch):
    """Static workload programs and sbridgectl for @arch; returns paths."""
    out = BUILD / "progs" / arch
    out.mkdir(parents=True, exist_ok=True)
    bins = []
    for c in sorted((TOP / "tests/progs").glob("*.c")):
        b = out / c.stem
        if not b.exists() or b.stat().st_mtime < c.stat().st_mtime:
            run([cc(arch), "-O2", "-Wall", "-Wextra", "-static", f"-I{TOP}/include/uapi",
                 "-o", str(b), str(c)])
        bins.append(b)
    ctl = TOP / "userspace-ctl"
    if (ctl / "Makefile").exists():
        darch = DEB_ARCH[arch]
        run(["make", "-s", "-C", str(ctl), f"sbridgectl-{darch}"], stdout=subprocess.DEVNULL)
        shutil.copy(ctl / f"sbridgectl-{darch}", out / "sbridgectl")
        bins.append(out / "sbridgectl")
    else:
        log("userspace-ctl/Makefile missing: guests get no sbridgectl")
    return bins


if __name__ == "__main__":
    import argparse

    from sbridge_testbed import kernels
    ap = argparse.ArgumentParser(description="build modules and programs per cell")
    ap.add_argument("--arch", action="append", choices=kernels.ARCHES)
    ap.add_argument("--suite", action="append", choices=tuple(kernels.SUITES))
    a = ap.parse_args()
    for k in kernels.prepare(tuple(a.arch or kernels.ARCHES), tuple(a.suite or kernels.SUITES)):
        kos, warns = modules(k)
        print(f"{k.cell}: {' '.join(p.name for p in kos)}; {len(warns)} W=1 warnings")
        for w in warns:
            print("   ", w)
