"""Debug kernels: Debian's own source of a cell's kernel, built small with
the kernel's checkers on (KASAN, lockdep with PROVE_RCU, atomic-sleep,
debug objects, kmemleak, UBSAN, SLUB debug, fault injection).

The source is apt's linux-source-<major.minor> of the bookworm cell's
version (Debian's patches applied), configured from allnoconfig plus the
fragments in tools/testbed/debug-kernel/ and built in the bookworm build
root. The tree is cached outside the clone, under $SBRIDGE_CACHE
(/var/cache/sbridge-testbed), keyed by source version, arch and a hash of
the fragments, so later runs and other checkouts reuse it. Inside the build
root the cache appears at MOUNT (a bind mount per command), which is also
where module builds find the tree.
"""
import hashlib
import os
import re
import shutil
import subprocess
from dataclasses import dataclass
from pathlib import Path

if not __package__:  # a script, or imported flat: see standalone.py
    import standalone  # type: ignore[import-not-found]  # noqa: F401
from sbridge_testbed import kernels
from sbridge_testbed.common import TOP, deb_unpack, log, run
from sbridge_testbed.kernels import Kernel

CACHE = Path(os.environ.get("SBRIDGE_CACHE", "/var/cache/sbridge-testbed"))
BASE_SUITE = "bookworm"
FRAGMENTS = TOP / "tools" / "testbed" / "debug-kernel"
MOUNT = "/usr/src/sbridge-debug"
IMAGE = {"x86_64": "arch/x86/boot/bzImage", "arm64": "arch/arm64/boot/Image"}


@dataclass
class DebugKernel(Kernel):
    """A debug build of the bookworm cell's kernel source."""
    key: str = ""      # <source version>-<arch>-<fragment hash>

    @property
    def cell(self):
        return f"{self.arch}-debug"

    @property
    def headers(self):
        return f"{MOUNT}/{self.key}"

    @property
    def tree(self):
        return CACHE / "debug-kernel" / self.key

    @property
    def binds(self):
        return ((CACHE / "debug-kernel", MOUNT),)

    @property
    def make_vars(self):
        # no Debian header Makefile names the compiler here
        return [f"ARCH={self.arch}", f"CC={self.gcc}",
                f"HOSTCC=gcc-{kernels.GCC[BASE_SUITE]}"] + \
            ([f"CROSS_COMPILE={self.cross}"] if self.cross else [])


def fragment(arch):
    """The merged config fragment for @arch (common first)."""
    return "".join((FRAGMENTS / f).read_text() for f in ("common.config", f"{arch}.config"))


def wanted(text):
    """{CONFIG_X: value} of a fragment's setting lines."""
    return dict(re.findall(r"^(CONFIG_[A-Z0-9_]+)=(\S+)$", text, re.M))


def source_package(base):
    """apt name of the linux-source package matching kernel @base."""
    m = re.match(r"(\d+\.\d+)\.", base.version)
    if not m:
        raise SystemExit(f"{base.cell}: cannot tell major.minor from {base.version}")
    name = f"linux-source-{m.group(1)}"
    if not kernels._show(name, base.version):
        raise SystemExit(f"{name}={base.version} is not in apt: run tools/testbed/setup-host.sh")
    return name


def resolve(arch):
    base = kernels.resolve(arch, BASE_SUITE)
    h = hashlib.sha1(fragment(arch).encode()).hexdigest()[:10]
    return DebugKernel(arch, BASE_SUITE, "", base.version, "debug", key=f"{base.version}-{arch}-{h}")


def kernels_all(arches=kernels.ARCHES):
    return [resolve(a) for a in arches]


def _unpack_source(k):
    """linux-source's tarball, unpacked into @k.tree."""
    name, debs = source_package(k), CACHE / "debs"
    deb = debs / f"{name}_{k.version.replace(':', '%3a')}_all.deb"
    if not deb.exists():
        debs.mkdir(parents=True, exist_ok=True)
        run(["apt-get", "-q", "-o", "APT::Sandbox::User=root", "download",
                     f"{name}={k.version}"], cwd=debs, stdout=subprocess.DEVNULL)
    tmp = k.tree.parent / f".{k.key}.tmp"
    shutil.rmtree(tmp, ignore_errors=True)
    tmp.mkdir(parents=True)
    deb_unpack(deb, tmp, ["./usr/src/linux-source-*.tar.xz"])
    tarball = next(tmp.rglob("linux-source-*.tar.xz"))
    shutil.rmtree(k.tree, ignore_errors=True)
    k.tree.mkdir(parents=True)
    run(["tar", "-xJf", str(tarball), "-C", str(k.tree), "--strip-components=1"])
    shutil.rmtree(tmp)


def _make(k, *targets, capture=False):
    argv = ["make", "-C", k.headers, f"-j{os.cpu_count() or 1}", *k.make_vars, *targets]
    return kernels.in_root(k, argv, capture=capture)


def build(k):
    """Configure and build @k's tree unless the cache has it."""
    stamp = k.tree / ".sbridge-complete"
    if stamp.exists():
        return
    kernels.buildroot(BASE_SUITE)
    if not (k.tree / "Makefile").exists():
        log(f"{k.cell}: unpacking {source_package(k)} {k.version}")
        _unpack_source(k)
    frag = fragment(k.arch)
    (k.tree / "sbridge-debug.config").write_text(frag)
    _make(k, "KCONFIG_ALLCONFIG=sbridge-debug.config", "allnoconfig", capture=True)
    have = wanted((k.tree / ".config").read_text())
    missing = [f"{o}={v}" for o, v in wanted(frag).items() if have.get(o) != v]
    if missing:
        raise SystemExit(f"{k.cell}: the kernel's Kconfig dropped {' '.join(missing)} "
                         f"(a dependency is missing from {FRAGMENTS})")
    log(f"{k.cell}: building {k.version} with the checkers (cached in {k.tree})")
    _make(k, "all", capture=True)
    stamp.touch()


def fetch(k):
    """Build (or reuse) @k and lay it out like a stock cell's kernel dir."""
    build(k)
    k.dir.mkdir(parents=True, exist_ok=True)
    shutil.copy(k.tree / IMAGE[k.arch], k.vmlinuz)
    shutil.copy(k.tree / ".config", k.dir / "config")
    k.release = (k.tree / "include/config/kernel.release").read_text().strip()
    (k.dir / "release").write_text(k.release + "\n")
    for m in kernels.DISTRO_MODULES[k.arch]:
        found = list(k.tree.rglob(f"{m}.ko"))
        if not found:
            raise SystemExit(f"{k.cell}: {m}.ko was not built (see {FRAGMENTS})")
        (k.dir / "kmod").mkdir(exist_ok=True)
        shutil.copy(found[0], k.dir / "kmod" / f"{m}.ko")
    return k


if __name__ == "__main__":
    import argparse
    import time
    ap = argparse.ArgumentParser(description="build the debug kernels (cached)")
    ap.add_argument("--arch", action="append", choices=kernels.ARCHES)
    a = ap.parse_args()
    for arch in a.arch or kernels.ARCHES:
        t0 = time.time()
        k = fetch(resolve(arch))
        print(f"{k.cell}\t{k.release}\t{k.tree}\t{time.time() - t0:.0f}s")
