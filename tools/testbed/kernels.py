"""Debian kernels for the test matrix: resolve from apt, download, unpack.

Every kernel is resolved at run time from apt's metadata (never hard-coded)
and unpacked, never installed: arm64 packages must not touch the host's
package database. Builds run inside a per-suite debootstrap root that has
that suite's compiler (6.12/7.x need gcc-14), with the kernel headers
unpacked at their natural /usr/src paths, because Debian's header Makefiles
include /usr/src/linux-headers-<ver>-common by absolute path.
"""
import functools
import lzma
import re
import shutil
import subprocess
from dataclasses import dataclass

if not __package__:  # a script, or imported flat: see standalone.py
    import standalone  # type: ignore[import-not-found]  # noqa: F401
from sbridge_testbed.common import (
    BUILD,
    MIRROR,
    apt_download,
    apt_name,
    deb_unpack,
    log,
    out,
    run,
)
from sbridge_testbed.common import TOP as TOP  # kernels.TOP, as callers know it

ARCHES = ("x86_64", "arm64")
DEB_ARCH = {"x86_64": "amd64", "arm64": "arm64"}
# suite name -> apt release names it draws from, and the build root suite
SUITES = {
    "bookworm": ({"bookworm", "bookworm-security", "bookworm-updates"}, "bookworm"),
    "trixie": ({"trixie", "trixie-security", "trixie-updates"}, "trixie"),
    "backports": ({"trixie-backports"}, "trixie"),
}
GCC = {"bookworm": "12", "trixie": "14"}
# Debian's own modules a scenario may load, copied from the image package
# to the guest's /sbridge/kmod (decompressed: busybox insmod reads plain .ko).
# cpufreq-dt turns the OPP tables of "# cpufreq: yes" and "# eas: yes" trees into policies.
DISTRO_MODULES = {"arm64": ("cpufreq-dt",), "x86_64": ()}
# The cpufreq governors Debian builds as modules (schedutil and performance
# are built in), for the rig's cpufreq driver (tools/rig/guest/rig_cpufreq.c);
# stock cells only: the debug kernels build them in.
GOVERNORS = ("cpufreq_powersave", "cpufreq_ondemand", "cpufreq_conservative",
             "cpufreq_userspace")


def _show(pkg, version=None):
    spec = f"{pkg}={version}" if version else pkg
    r = subprocess.run(["apt-cache", "show", spec], text=True, capture_output=True)
    return r.stdout if r.returncode == 0 else ""


def _depends(stanza):
    m = re.search(r"^Depends: (.*)$", stanza, re.M)
    return [d.strip().split(" ")[0] for d in re.split(r"[,|]", m.group(1))] if m else []


@dataclass
class Kernel:
    """One (arch, suite) cell's kernel."""
    arch: str          # x86_64 | arm64
    suite: str         # bookworm | trixie | backports
    release: str       # uname -r, e.g. 6.1.0-56-arm64
    version: str       # Debian package version
    flavour: str = ""  # "" or Debian's "rt" (PREEMPT_RT) images

    @property
    def cell(self):
        return f"{self.arch}-{self.flavour or self.suite}"

    @property
    def root(self):
        """Build root (chroot) holding this kernel's headers."""
        return BUILD / f"root-{SUITES[self.suite][1]}"

    @property
    def headers(self):
        """Headers path inside the build root."""
        return f"/usr/src/linux-headers-{self.release}"

    @property
    def dir(self):
        return BUILD / "kernels" / self.cell

    @property
    def vmlinuz(self):
        return self.dir / "vmlinuz"

    @property
    def cross(self):
        return "aarch64-linux-gnu-" if self.arch == "arm64" else ""

    @property
    def gcc(self):
        return f"{self.cross}gcc-{GCC[SUITES[self.suite][1]]}"

    @property
    def make_vars(self):
        """Variables every kbuild command against @headers needs."""
        return ["ARCH=arm64", f"CROSS_COMPILE={self.cross}"] if self.arch == "arm64" else []

    @property
    def binds(self):
        """(host dir, build-root path) pairs bind-mounted for in_root()."""
        return ()


def resolve(arch, suite, flavour=""):
    """Newest kernel of @suite for @arch, from apt's metadata; @flavour "rt"
    for Debian's PREEMPT_RT build of it. A fresh Kernel each call."""
    release, version = _resolve(arch, suite, flavour)
    return Kernel(arch, suite, release, version, flavour)


@functools.cache
def _resolve(arch, suite, flavour):
    """(release, version) of resolve(): apt-cache takes seconds a call and
    every test module asks for the matrix, so once per process."""
    darch = DEB_ARCH[arch]
    meta = apt_name(f"linux-image-{flavour + '-' if flavour else ''}{darch}", darch)
    releases = SUITES[suite][0]
    for line in out(["apt-cache", "madison", meta]).splitlines():
        cols = [c.strip() for c in line.split("|")]
        if len(cols) < 3 or not cols[2].endswith("Packages"):
            continue
        rel = cols[2].split()[1].split("/")[0]
        if rel not in releases:
            continue
        for dep in _depends(_show(meta, cols[1])):
            m = re.fullmatch(rf"linux-image-(.+-{darch})", dep)
            if m:
                return m.group(1), cols[1]
    raise SystemExit(f"no {darch} kernel found in {suite}: run tools/testbed/setup-host.sh")


def buildroot(suite):
    """debootstrap the build root for @suite ('bookworm' or 'trixie')."""
    root = BUILD / f"root-{suite}"
    if (root / ".complete").exists():
        return root
    gcc = GCC[suite]
    shutil.rmtree(root, ignore_errors=True)
    log(f"debootstrap {suite} build root (gcc-{gcc})")
    inc = (f"gcc-{gcc},make,libc6-dev,gcc-{gcc}-aarch64-linux-gnu,libelf-dev,"
           "bc,flex,bison,pahole,kmod,libssl-dev,python3,perl")
    run(["debootstrap", "--variant=minbase", f"--include={inc}", suite, str(root), MIRROR],
        stdout=subprocess.DEVNULL)
    (root / ".complete").touch()
    return root


def packages(k):
    """apt names of @k's image and header packages, arch-qualified where apt
    wants it: image first."""
    darch = DEB_ARCH[k.arch]
    # image: 7.x splits it into linux-binary-*, 6.x ships it in linux-image-*
    for cand in (f"linux-binary-{k.release}", f"linux-image-{k.release}-unsigned",
                 f"linux-image-{k.release}"):
        if _show(apt_name(cand, darch), k.version):
            image = cand
            break
    else:
        raise SystemExit(f"no image package for {k.release}")
    hdr = f"linux-headers-{k.release}"
    hdeps = [d for d in _depends(_show(apt_name(hdr, darch), k.version))
             if re.match(r"linux-(headers|kbuild|base)-\d", d)]
    # kbuild holds host binaries (fixdep, modpost): always the build host's arch
    # and linux-headers-*-common is Architecture: all, which takes no
    # ":arm64" qualifier (apt: "no candidate")
    pkgs = [apt_name(image, darch), apt_name(hdr, darch)]
    pkgs += [d if d.startswith("linux-kbuild") or not _show(apt_name(d, darch), k.version)
             else apt_name(d, darch) for d in hdeps]
    return pkgs


def modules_package(k):
    """apt name of the package holding @k's modules if it is not the image
    (7.x splits them into linux-modules-*), else None."""
    name = apt_name(f"linux-modules-{k.release}", DEB_ARCH[k.arch])
    return name if _show(name, k.version) else None


def fetch(k):
    """Download and unpack @k's image and headers (idempotent)."""
    stamp = k.dir / ".complete"
    kmods = [k.dir / "kmod" / f"{m}.ko" for m in DISTRO_MODULES[k.arch] + GOVERNORS]
    if stamp.exists() and (k.root / k.headers.lstrip("/")).exists() \
            and all(m.exists() for m in kmods):
        return k
    debs = BUILD / "debs" / k.suite
    pkgs = packages(k)
    log(f"{k.cell}: {k.release} ({k.version}): {' '.join(pkgs)}")
    files = apt_download(pkgs, debs)
    tmp = k.dir / "image"
    shutil.rmtree(tmp, ignore_errors=True)
    deb_unpack(files[0], tmp)
    vml = [p for p in tmp.rglob("vmlinu[xz]*") if p.is_file()]
    if not vml:
        raise SystemExit(f"{pkgs[0]}: no vmlinuz inside")
    shutil.copy(vml[0], k.vmlinuz)
    mods = modules_package(k) if kmods else None
    if mods:
        deb_unpack(apt_download([mods], debs)[0], tmp, [f"*/{m.stem}.ko*" for m in kmods])
    for m in kmods:
        _copy_module(tmp, m)
    for deb in files[1:]:
        deb_unpack(deb, k.root)
    # 7.x moved the config out of the image package into linux-base-*
    cfg = [p for p in tmp.rglob("config*") if p.is_file()]
    shutil.copy(cfg[0] if cfg else k.root / k.headers.lstrip("/") / ".config",
                k.dir / "config")
    shutil.rmtree(tmp)
    (k.dir / "release").write_text(k.release + "\n")
    stamp.touch()
    return k


def _copy_module(image, dest):
    """Module @dest.name from the unpacked image package @image, decompressed."""
    found = [p for p in image.rglob(f"{dest.stem}.ko*") if p.is_file()]
    if not found:
        raise SystemExit(f"{image}: no {dest.name} in the image package")
    data = found[0].read_bytes()
    if found[0].suffix == ".xz":
        data = lzma.decompress(data)
    elif found[0].suffix != ".ko":
        raise SystemExit(f"{found[0].name}: unknown module compression")
    dest.parent.mkdir(parents=True, exist_ok=True)
    dest.write_bytes(data)


def in_root(k, argv, capture=False):
    """Run @argv chrooted in @k's build root, with a private /proc (objtool
    on 7.x reads /proc/self/limits) and @k's bind mounts (a debug kernel's
    cached tree). Raises SystemExit with the output's tail on failure unless
    @capture is "keep" (then the caller judges the CompletedProcess)."""
    import shlex
    script = 'mount -t proc proc "$0/proc"'
    for src, dst in k.binds:
        # the mount point is made here: a build root may predate the cache
        d = f'"$0"{shlex.quote(dst)}'
        script += f' && mkdir -p {d} && mount --bind {shlex.quote(str(src))} {d}'
    r = subprocess.run(["unshare", "--mount", "--fork", "sh", "-c",
                        script + ' && exec chroot "$0" "$@"', str(k.root), *argv],
                       text=True, capture_output=bool(capture))
    if capture == "keep":
        return r
    if r.returncode:
        tail = "\n".join(((r.stdout or "") + (r.stderr or "")).splitlines()[-40:])
        raise SystemExit(f"{k.cell}: {' '.join(argv[:4])} ... failed:\n{tail}")
    return r


def kernels(arches=ARCHES, suites=tuple(SUITES)):
    return [resolve(a, s) for s in suites for a in arches]


def prepare(arches=ARCHES, suites=tuple(SUITES)):
    """Build roots plus every kernel of the matrix, ready to build against."""
    ks = kernels(arches, suites)
    for s in sorted({SUITES[k.suite][1] for k in ks}):
        buildroot(s)
    for k in ks:
        fetch(k)
    return ks


if __name__ == "__main__":
    import argparse
    ap = argparse.ArgumentParser(description="resolve/fetch the kernel matrix")
    ap.add_argument("--arch", action="append", choices=ARCHES)
    ap.add_argument("--suite", action="append", choices=tuple(SUITES))
    ap.add_argument("--resolve-only", action="store_true")
    a = ap.parse_args()
    fn = kernels if a.resolve_only else prepare
    for k in fn(tuple(a.arch or ARCHES), tuple(a.suite or SUITES)):
        print(f"{k.cell}\t{k.release}\t{k.version}")
