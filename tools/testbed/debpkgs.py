"""Debian programs in test guests: `# debs: perf trace-cmd` in a scenario.

Each program comes from bookworm's package for the guest's architecture,
with its shared-library closure and the ELF loader, as one extra cpio
archive appended to that scenario's initramfs. Packages are downloaded
with `apt-get download` and unpacked with dpkg-deb (common.deb_unpack),
never installed: a foreign-arch install would break the host toolchain.

Libraries land in the Debian multiarch dirs they came from
(/lib/<triplet>, /usr/lib/<triplet>), which the loader searches by
default: the guest has no /etc/ld.so.cache and needs none.
"""
import hashlib
import json
import re
import shutil
import subprocess
import tempfile
from dataclasses import dataclass
from pathlib import Path

if not __package__:  # a script, or imported flat: see standalone.py
    import standalone  # type: ignore[import-not-found]  # noqa: F401
from sbridge_testbed import guest
from sbridge_testbed.common import BUILD, apt_name, deb_unpack, log, run
from sbridge_testbed.kernels import DEB_ARCH

TRIPLET = {"amd64": "x86_64-linux-gnu", "arm64": "aarch64-linux-gnu"}


@dataclass(frozen=True)
class Prog:
    """A program a scenario may ask for.

    @package: the Debian package shipping it. @binary: paths (globs, relative
    to the root) tried in order for the ELF to install as /usr/bin/<name>;
    the first match wins. @extra: globs of files it opens at run time
    (plugins it dlopens): copied at their own paths, with their libraries.
    "{triplet}" in a glob is the arch's multiarch triplet.
    """
    package: str
    binary: tuple = ()
    extra: tuple = ()


# One line per program. The evaluation's workloads (bench/eval/workloads.sh)
# come after perf and trace-cmd. Several share a name with a busybox applet
# (gzip, bzip2, xz, bc, sort...): the guest's PATH puts /usr/bin first, and
# workloads.sh runs them by full path so busybox can never stand in.
PROGRAMS = {
    # some linux-perf versions ship /usr/bin/perf as a shell wrapper that
    # execs perf_<kernel version> for the running kernel only: take the ELF
    "perf": Prog("linux-perf", binary=("usr/bin/perf_[0-9]*", "usr/bin/perf"),
                 extra=("usr/lib/{triplet}/traceevent/plugins/*.so",)),
    "trace-cmd": Prog("trace-cmd",
                      extra=("usr/lib/{triplet}/traceevent/plugins/*.so",
                             "usr/lib/{triplet}/trace-cmd/plugins/*.so")),
    "xz": Prog("xz-utils"),
    "zstd": Prog("zstd"),
    "bzip2": Prog("bzip2"),
    "gzip": Prog("gzip"),
    "lz4": Prog("lz4"),
    "brotli": Prog("brotli"),
    "sqlite3": Prog("sqlite3"),
    "openssl": Prog("openssl"),
    "stress-ng": Prog("stress-ng"),
    "bc": Prog("bc"),
    "gawk": Prog("gawk"),
    "sort": Prog("coreutils"),
    "chrt": Prog("util-linux"),
    # the evaluation's held-out programs (#28) and its multithreaded and
    # latency workloads
    "gnugo": Prog("gnugo", binary=("usr/games/gnugo",)),
    "minisat": Prog("minisat"),
    "lua5.4": Prog("lua5.4"),
    "perl": Prog("perl-base"),
    "lame": Prog("lame"),
    "jq": Prog("jq"),
    "zopfli": Prog("zopfli"),
    "flac": Prog("flac"),
    "mawk": Prog("mawk"),
    "make": Prog("make"),
    "cyclictest": Prog("rt-tests"),
    "hackbench": Prog("rt-tests"),
}
# Only shared-library packages are followed (Debian's "Section: libs"):
# nothing an ELF links against lives in interpreters' module trees, data or
# docs. A library really missing is caught by the DT_NEEDED walk.
LIB_SECTIONS = ("libs", "oldlibs")
SKIP_DEP = re.compile(r"-(common|data|doc|dev|stdlib|minimal)$")


class DebError(Exception):
    pass


def _policy(names):
    """{name: candidate version or None} for arch-qualified @names, one apt call."""
    out = subprocess.run(["apt-cache", "policy", *names], text=True,
                         capture_output=True).stdout
    got, cur = {}, None
    for line in out.splitlines():
        if line and not line.startswith(" ") and line.endswith(":"):
            cur = line[:-1]
        elif cur and line.strip().startswith("Candidate:"):
            v = line.split(":", 1)[1].strip()
            got[cur] = None if v == "(none)" else v
    return {n: got.get(n) for n in names}


def _stanzas(specs):
    out = subprocess.run(["apt-cache", "show", *specs], text=True,
                         capture_output=True).stdout
    res = {}
    for st in out.split("\n\n"):
        m = re.search(r"^Package: (\S+)$", st, re.M)
        a = re.search(r"^Architecture: (\S+)$", st, re.M)
        v = re.search(r"^Version: (\S+)$", st, re.M)
        if m and v:
            res[(m.group(1), v.group(1), a.group(1) if a else "")] = st
    return res


def _deps(stanza):
    """Depends + Pre-Depends as lists of alternatives (names only)."""
    alts = []
    for field in ("Pre-Depends", "Depends"):
        m = re.search(rf"^{field}: (.*)$", stanza, re.M)
        if m:
            for group in m.group(1).split(","):
                alts.append([a.strip().split(" ")[0] for a in group.split("|")])
    return alts


def resolve(darch, packages):
    """Dependency closure of @packages for @darch: {package: version}.

    Candidates are apt's (bookworm on our hosts); only arch-specific
    library packages are taken (LIB_SECTIONS, SKIP_DEP), the programs' own
    packages always are.
    """
    closure: dict[str, str | None] = {}
    level = list(packages)
    while level:
        names = [n for n in dict.fromkeys(level) if n not in closure]
        if not names:
            break
        pol = _policy([apt_name(n, darch) for n in names])
        # Architecture: all packages take no ":arm64" qualifier
        unq = [n for n in names if pol[apt_name(n, darch)] is None]
        plain = _policy(unq) if unq else {}
        specs, vers = [], {}
        for n in names:
            v = pol[apt_name(n, darch)]
            spec = apt_name(n, darch)
            if v is None and plain.get(n):
                v, spec = plain[n], n
            if v is None:
                if n in packages:
                    raise DebError(f"no {darch} candidate for package {n}")
                closure[n] = None  # virtual or absent: the alternatives decide
                continue
            vers[n] = v
            specs.append(f"{spec}={v}")
        st = _stanzas(specs) if specs else {}
        level = []
        for (name, ver, arch_), text in st.items():
            if vers.get(name) != ver or closure.get(name):
                continue
            sec = re.search(r"^Section: (?:\S+/)?(\S+)$", text, re.M)
            # Architecture: all holds no ELF to link against (perl-modules)
            if name not in packages and (not sec or sec.group(1) not in LIB_SECTIONS
                                         or arch_ == "all"):
                closure[name] = None
                continue
            closure[name] = ver
            for alts in _deps(text):
                alts = [a for a in (x.split(":")[0] for x in alts if not x.endswith(":any"))]
                if not alts or any(a in closure and closure[a] for a in alts):
                    continue
                pick = alts[0]
                if SKIP_DEP.search(pick):
                    continue
                level.append(pick)
        for n in vers:
            closure.setdefault(n, None)  # apt showed no stanza: not followed again
    return {n: v for n, v in closure.items() if v}


def _debname(name, ver):
    """How apt-get download names a .deb, up to the arch (epoch ':' quoted)."""
    return f"{name}_{ver.replace(':', '%3a')}_"


def download(darch, pkgs):
    """The .deb files of @pkgs ({name: version}), downloaded once into build/debs."""
    dest = BUILD / "debs" / f"progs-{darch}"
    dest.mkdir(parents=True, exist_ok=True)

    def have(n, v):
        return [p for p in dest.glob(_debname(n, v) + "*.deb")
                if p.name.endswith((f"_{darch}.deb", "_all.deb"))]
    todo = [n for n, v in pkgs.items() if not have(n, v)]
    if todo:
        # one apt call: Architecture: all packages take no ":arm64" qualifier
        pol = _policy([apt_name(n, darch) for n in todo])
        specs = [f"{apt_name(n, darch) if pol[apt_name(n, darch)] else n}={pkgs[n]}"
                 for n in todo]
        # -o ...: apt's sandbox user cannot write into root-owned build dirs
        run(["apt-get", "-q", "-o", "APT::Sandbox::User=root", "download", *specs],
            cwd=dest, stdout=subprocess.DEVNULL)
    files = {}
    for n, v in pkgs.items():
        f = have(n, v)
        if not f:
            raise DebError(f"apt-get download gave no .deb for {n}={v}")
        files[n] = f[0]
    return files


def unpack(darch, debs):
    """Unpack @debs into the per-arch root build/debroot/<darch>; returns it."""
    root = BUILD / "debroot" / darch
    stamps = root / ".unpacked"
    stamps.mkdir(parents=True, exist_ok=True)
    for deb in debs:
        stamp = stamps / deb.name
        if not stamp.exists():
            deb_unpack(deb, root)
            stamp.touch()
    return root


def _elf(path):
    with open(path, "rb") as f:
        return f.read(4) == b"\x7fELF"


def _readelf(path):
    """(PT_INTERP or None, [DT_NEEDED], [DT_RUNPATH/RPATH dirs]) of an ELF."""
    out = subprocess.run(["readelf", "-W", "-d", "-l", str(path)], text=True,
                         capture_output=True).stdout
    interp = re.search(r"\[Requesting program interpreter: (.*?)\]", out)
    needed = re.findall(r"\(NEEDED\)\s+Shared library: \[(.*?)\]", out)
    rpath = [d for m in re.findall(r"\((?:RUNPATH|RPATH)\)\s+Library r(?:un)?path: \[(.*?)\]",
                                   out) for d in m.split(":")]
    return (interp.group(1) if interp else None), needed, rpath


def _inside(root, rel):
    """@rel (a guest path) in @root, following symlinks inside @root."""
    p = root / rel.lstrip("/")
    for _ in range(40):
        if not p.is_symlink():
            return p if p.exists() else None
        t = Path(str(p.readlink()))
        p = (root / str(t).lstrip("/")) if t.is_absolute() else p.parent / t
    return None


def _libdirs(darch):
    t = TRIPLET[darch]
    # the loader's default search path, in its order (ld.so --help)
    return [f"/lib/{t}", f"/usr/lib/{t}", "/lib", "/usr/lib"]


def plan(darch, root, names):
    """{guest path: host file} for programs @names out of the unpacked @root."""
    files, todo = {}, []
    for name in names:
        prog = PROGRAMS[name]
        globs = prog.binary or tuple(f"{d}/{name}" for d in ("usr/bin", "bin", "usr/sbin", "sbin"))
        found = None
        for g in globs:
            hits = [_inside(root, "/" + str(p.relative_to(root))) for p in sorted(root.glob(g))]
            hits = [h for h in hits if h and h.is_file() and _elf(h)]
            if hits:
                found = hits[-1]  # the newest of perf_6.1, perf_6.12
                break
        if not found:
            raise DebError(f"{name}: no ELF program in {prog.package} ({', '.join(globs)})")
        files[f"/usr/bin/{name}"] = found
        todo.append(found)
        for g in prog.extra:
            for p in sorted(root.glob(g.format(triplet=TRIPLET[darch]))):
                real = _inside(root, "/" + str(p.relative_to(root)))
                if real and real.is_file():
                    files["/" + str(p.relative_to(root))] = real
                    if _elf(real):
                        todo.append(real)
    seen = set()
    while todo:
        elf = todo.pop()
        if elf in seen:
            continue
        seen.add(elf)
        interp, needed, rpath = _readelf(elf)
        if interp:
            got = _inside(root, interp)
            if not got:
                raise DebError(f"{elf.name}: interpreter {interp} not in the unpacked root")
            files[interp] = got
        for lib in needed:
            for d in rpath + _libdirs(darch):
                d = d.replace("$ORIGIN", "/" + str(elf.parent.relative_to(root))) \
                    if elf.is_relative_to(root) else d
                got = _inside(root, f"{d}/{lib}")
                if got and got.is_file():
                    # keep the name the loader asks for, in the dir it searches
                    files[f"{d}/{lib}"] = got
                    todo.append(got)
                    break
            else:
                raise DebError(f"{elf.name} needs {lib}: in none of the packages' "
                               f"library dirs (add its package to the closure?)")
    return files


def _cache_key(darch, names, pkgs):
    text = json.dumps([darch, sorted(names), sorted(pkgs.items()),
                       {n: repr(PROGRAMS[n]) for n in sorted(names)}])
    return hashlib.sha1(text.encode()).hexdigest()[:16]


def _apt_stamp():
    """Changes when apt's metadata does: resolutions are cached against it."""
    lists = Path("/var/lib/apt/lists")
    return max((p.stat().st_mtime_ns for p in lists.glob("*Packages*")), default=0)


def archive(arch, names):
    """gzipped cpio with programs @names for @arch; built once per
    (arch, programs, package versions), reused after."""
    names = sorted(set(names))
    unknown = [n for n in names if n not in PROGRAMS]
    if unknown:
        raise DebError(f"unknown Debian program(s) {' '.join(unknown)}: "
                       f"add them to debpkgs.PROGRAMS ({' '.join(sorted(PROGRAMS))})")
    darch = DEB_ARCH[arch]
    out = BUILD / "debroot" / f"{darch}-archives"
    out.mkdir(parents=True, exist_ok=True)
    want = sorted({PROGRAMS[n].package for n in names})
    memo = out / ("resolve-" + hashlib.sha1(json.dumps(
        [want, _apt_stamp()]).encode()).hexdigest()[:16] + ".json")
    if memo.exists():
        pkgs = json.loads(memo.read_text())
    else:
        pkgs = resolve(darch, want)
        memo.write_text(json.dumps(pkgs, indent=1))
    dest = out / f"{'+'.join(names)}-{_cache_key(darch, names, pkgs)}.cpio.gz"
    if dest.exists():
        return dest
    log(f"debs for {arch}: {' '.join(names)}: {len(pkgs)} packages")
    root = unpack(darch, download(darch, pkgs).values())
    files = plan(darch, root, names)
    with tempfile.TemporaryDirectory() as tmpdir:
        d = Path(tmpdir)
        d.chmod(0o755)  # the archive's "." entry would reset / to 0700
        for gpath, src in files.items():
            t = d / gpath.lstrip("/")
            t.parent.mkdir(parents=True, exist_ok=True)
            shutil.copy(src, t)  # contents, not the package's symlink
        for p in d.rglob("*"):
            p.chmod(0o755)  # dirs traversable, ELFs executable, plugins readable
        tmp = dest.with_suffix(".part")
        guest._cpio(d, tmp)
        tmp.rename(dest)
    return dest


if __name__ == "__main__":
    import argparse

    from sbridge_testbed import kernels
    ap = argparse.ArgumentParser(description="build the guest archive of Debian programs")
    ap.add_argument("--arch", choices=kernels.ARCHES, default="arm64")
    ap.add_argument("programs", nargs="+", choices=sorted(PROGRAMS))
    a = ap.parse_args()
    print(archive(a.arch, a.programs))
