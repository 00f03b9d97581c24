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


# What scx_sbridge (scx_sbridge/) is built with, installed into the trixie
# build root on first use: the host's (bookworm) clang 14 and libbpf 1.1
# are too old for sched_ext. arm64's libraries come from the root's
# multiarch, for the cross-linked static loader.
BPF_PKGS = ("clang", "llvm", "bpftool", "libbpf-dev", "libelf-dev", "zlib1g-dev",
            "libzstd-dev")
BPF_PKGS_ARM64 = ("libbpf-dev:arm64", "libelf-dev:arm64", "zlib1g-dev:arm64",
                  "libzstd-dev:arm64", "libc6-dev:arm64")


def bpf_tools(k):
    """clang, bpftool and libbpf (amd64 and arm64) in @k's build root,
    installed with its apt once (stamped; a lock keeps two runs apart)."""
    import fcntl
    stamp = k.root / ".bpf-complete"
    with open(k.root / ".bpf-lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if stamp.exists():
            return
        log(f"{k.root.name}: installing {' '.join(BPF_PKGS)} and arm64 libraries (scx_sbridge)")
        script = ("dpkg --add-architecture arm64 && apt-get -q update && "
                  "DEBIAN_FRONTEND=noninteractive apt-get -q -y --no-install-recommends "
                  "install " + " ".join(BPF_PKGS + BPF_PKGS_ARM64))
        kernels.in_root(k, ["sh", "-c", script])
        stamp.touch()


def scx_sbridge(k):
    """scx_sbridge's static loader (with its BPF object) for cell @k, built
    against @k's BTF; [] where the kernel has no sched_ext. Raises
    BuildError if it does and the build fails."""
    cfg = k.dir / "config"
    if not cfg.exists() or "\nCONFIG_SCHED_CLASS_EXT=y\n" not in "\n" + cfg.read_text():
        return []
    bpf_tools(k)
    tag = f"scx-{k.cell}-{hashlib.sha1(str(BUILD).encode()).hexdigest()[:8]}"
    src = k.root / "src" / tag
    shutil.rmtree(src, ignore_errors=True)
    shutil.copytree(TOP / "scx_sbridge", src / "scx_sbridge",
                    ignore=lambda _d, names: [n for n in names if n.startswith("build-")])
    (src / "include/uapi/linux").mkdir(parents=True)
    shutil.copy(TOP / "include/uapi/linux/sbridge_bpf.h", src / "include/uapi/linux")
    cc = f"{k.cross or 'x86_64-linux-gnu-'}gcc-{kernels.GCC['trixie']}"
    r = kernels.in_root(k, ["make", "-s", "-C", f"/src/{tag}/scx_sbridge", f"ARCH={k.arch}",
                            f"CC={cc}", f"VMLINUX={k.headers}/vmlinux"], capture="keep")
    if r.returncode:
        raise BuildError(f"{k.cell}: scx_sbridge build failed:\n"
                         + "\n".join((r.stdout + r.stderr).splitlines()[-40:]))
    out = BUILD / "cells" / k.cell / "scx_sbridge"
    out.parent.mkdir(parents=True, exist_ok=True)
    shutil.copy(src / "scx_sbridge" / f"build-{k.arch}" / "scx_sbridge", out)
    return [out]


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
