"""The Debian packages for real (debian/, `make deb`): build sbridge-dkms and
sbridgectl for amd64 and arm64, check them with lintian, install the amd64
ones with apt on the x86_64 host, then a second build of the tree one
commit on, which must upgrade them (DKMS keeps only the new sources), boot
the 6.1 kernel on a Debian root with systemd, the second build's
sbridgectl installed and exactly the modules its DKMS hook built, and
check that loading the modules (at boot, by hand, after a reload) applies
the configuration and the rules every time (tests/guest/units.sh); then
`apt-get purge` must leave nothing behind, the host's package set
included."""
import filecmp
import os
import re
import shutil
import subprocess
import time
from pathlib import Path

import pytest

from conftest import dkms_modules, record
from sbridge_testbed import build, harness, sysguest, vm

TOP = Path(__file__).resolve().parents[1]
OUT = TOP / "build/deb"
CELL = "x86_64-bookworm"
PACKAGES = ("sbridge-dkms", "sbridgectl")
APT = ["apt-get", "-o", "DPkg::Lock::Timeout=900", "-y", "-q"]
ENV = dict(os.environ, DEBIAN_FRONTEND="noninteractive")
# what the packages put outside their own file lists: DKMS state and the
# units' enablement (deb-systemd-helper)
STATE_GLOBS = ("/usr/src/sbridge-*", "/var/lib/dkms/sbridge", "/etc/sbridge",
               "/etc/systemd/system/*/sbridge-*.service",
               "/var/lib/systemd/deb-systemd-helper-enabled/**/*sbridge-*")


def _run(cmd, **kw):
    r = subprocess.run(cmd, text=True, capture_output=True, env=ENV, **kw)
    assert r.returncode == 0, f"{' '.join(map(str, cmd))} failed:\n{r.stdout}\n{r.stderr}"
    return r.stdout


def _installed(pkg):
    r = subprocess.run(["dpkg-query", "-W", "-f", "${db:Status-Abbrev}", pkg], text=True,
                       capture_output=True)
    return r.returncode == 0 and r.stdout[:2] not in ("un", "pn", "")


def _host_packages():
    return _run(["dpkg-query", "-W", "-f",
                 "${Package}:${Architecture} ${Version} ${db:Status-Abbrev}\n"]).splitlines()


def _files(deb):
    """Paths (not directories) a .deb installs."""
    return [line.split(None, 5)[5].split(" -> ")[0].lstrip(".")
            for line in _run(["dpkg-deb", "-c", str(deb)]).splitlines()
            if not line.startswith("d")]


def _state():
    found = []
    for g in STATE_GLOBS:
        found += [str(p) for p in Path("/").glob(g.lstrip("/"))]
    return found


def _leftovers(rel, debs):
    found = _state()
    found += [str(p) for p in Path(f"/lib/modules/{rel}").rglob("sbridge_*.ko*")]
    for deb in debs:
        found += [f for f in _files(deb) if os.path.lexists(f)]
    status = subprocess.run(["dkms", "status", "sbridge"], text=True, capture_output=True)
    return found + [line for line in status.stdout.splitlines() if line.strip()]


def _remove_make_installed(rel):
    """`make dkms-install` state (test_dkms, a developer's install): none of it
    belongs to a package here (checked before), and dkms would mix it up
    with the package's."""
    r = subprocess.run(["make", "-s", "-C", str(TOP), "dkms-remove", f"KVER={rel}"],
                       text=True, capture_output=True)
    assert r.returncode == 0, f"make dkms-remove failed:\n{r.stdout}\n{r.stderr}"
    for line in subprocess.run(["dkms", "status", "sbridge"], text=True,
                               capture_output=True).stdout.splitlines():
        m = re.match(r"sbridge/([^,\s]+)", line)
        if m:
            subprocess.run(["dkms", "remove", f"sbridge/{m.group(1)}", "--all"],
                           capture_output=True)
    for p in Path("/usr/src").glob("sbridge-*"):
        shutil.rmtree(p)


def _dkms_install(upstream, rel, out):
    """sbridge/@upstream built and installed by the postinst for kernel @rel
    (asked for if the postinst chose other kernels)."""
    status = _run(["dkms", "status", f"sbridge/{upstream}", "-k", rel])
    assert status.strip(), f"the package's postinst did not dkms add sbridge/{upstream}:\n{out}"
    if "installed" not in status:
        # the postinst builds for the running kernel and the newest
        # /boot/config-*; a kernel that is neither needs asking for
        print(f"postinst did not install for {rel} ({status.strip()}): dkms install")
        _run(["dkms", "install", f"sbridge/{upstream}", "-k", rel])
        status = _run(["dkms", "status", f"sbridge/{upstream}", "-k", rel])
    assert re.search(rf"sbridge/{re.escape(upstream)}, {re.escape(rel)}, .*: installed",
                     status), f"dkms status: {status!r}"
    print(f"dkms status: {status.strip()}")


def _lintian(changes, allowed):
    r = subprocess.run(["lintian", "--fail-on", "none", str(changes)], text=True,
                       capture_output=True)
    assert r.returncode == 0, f"lintian {changes.name} did not run:\n{r.stdout}\n{r.stderr}"
    bad = []
    for line in r.stdout.splitlines():
        m = re.match(r"([EW]): [^:]+: (\S+)", line)
        if m and (m.group(1) == "E" or m.group(2) not in allowed):
            bad.append(line)
    return bad


def _built(top, arch):
    """make deb in @top for @arch: the version built, its debs by name and
    what make said on stderr."""
    r = subprocess.run(["make", "-s", "-C", str(top), "deb", f"DEB_ARCH={arch}"], text=True,
                       capture_output=True, env=ENV)
    assert r.returncode == 0, f"make deb DEB_ARCH={arch} failed:\n{r.stdout}\n{r.stderr}"
    ver = (top / "build/deb/version").read_text().strip()
    return ver, {p.name: p for p in (top / "build/deb").glob(f"*_{ver}_*.deb")}, r.stderr


def _scx_checked(debs, arch, err, tmp):
    """sbridge-scx where this host can build it (scripts/deb-scx-check.sh):
    scx_sbridge for @arch's machine, static, with its manual, and `-h` runs
    where @arch is the host's; elsewhere no package and make deb's reason,
    the script's. Returns the package's path or None."""
    why = _run([str(TOP / "scripts/deb-scx-check.sh"), arch, "/sys/kernel/btf/vmlinux"]).strip()
    scx = [p for n, p in debs.items() if n.startswith("sbridge-scx_") and n.endswith(f"_{arch}.deb")]
    if why:
        assert not scx, f"{scx[0].name} built although {why}"
        assert f"no sbridge-scx for {arch}: {why}" in err, f"make deb did not say why:\n{err}"
        return None
    assert len(scx) == 1, f"make deb made no sbridge-scx for {arch}:\n{err}"
    d = tmp / f"scx-{arch}"
    _run(["dpkg-deb", "-x", str(scx[0]), str(d)])
    assert (d / "usr/share/man/man8/scx_sbridge.8.gz").is_file(), f"{scx[0].name}: no manual"
    machine, dynamic = _elf(d / "usr/sbin/scx_sbridge")
    assert ("X86-64" if arch == "amd64" else "AArch64") in machine and not dynamic, \
        f"{scx[0].name}: scx_sbridge is for {machine}, {'not ' if dynamic else ''}static"
    if arch == _run(["dpkg", "--print-architecture"]).strip():
        assert "usage: scx_sbridge" in _run([str(d / "usr/sbin/scx_sbridge"), "-h"])
    return scx[0]


def _next_commit(dest):
    """A clone of the tree at @dest whose HEAD is one commit past this
    tree's, with the same files (the work tree's changes included): the
    same code built again as the next snapshot."""
    _run(["git", "clone", "-q", str(TOP), str(dest)])
    files = subprocess.run(["git", "-C", str(TOP), "ls-files", "-z", "-c", "-o",
                            "--exclude-standard"], capture_output=True, check=True).stdout
    for rel in files.decode().split("\0"):
        src = TOP / rel
        if not rel or not src.is_file():
            continue
        (dest / rel).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(src, dest / rel)
    ident = ["-c", "user.name=sbridge test", "-c", "user.email=test@sbridge.invalid"]
    _run(["git", "-C", str(dest), "add", "-A"])
    _run(["git", "-C", str(dest), *ident, "commit", "-q", "--allow-empty", "-m",
          "test_deb: the next snapshot"])


def _dkms_versions():
    return sorted(set(re.findall(r"^sbridge/([^,\s]+),", subprocess.run(
        ["dkms", "status", "sbridge"], text=True, capture_output=True).stdout, re.M)))


def _elf(path):
    header = _run(["readelf", "-h", str(path)])
    m = re.search(r"Machine:\s+(.*)", header)
    assert m, header
    machine = m.group(1).strip()
    dynamic = _run(["readelf", "-d", str(path)])
    segments = _run(["readelf", "-l", str(path)])
    return machine, "(NEEDED)" in dynamic or "INTERP" in segments


@pytest.mark.skipif(os.geteuid() != 0, reason="needs root (apt-get install, dkms)")
def test_deb_build_lintian_install_boot_purge(tmp_path):
    k = next((k for k in harness.cells() if k.cell == CELL), None)
    if k is None:
        pytest.skip(f"{CELL} not in SBRIDGE_CELLS")
    missing = [t for t in ("dpkg-buildpackage", "dh", "dh_dkms", "lintian", "dkms",
                           "aarch64-linux-gnu-gcc", "readelf") if not shutil.which(t)]
    if missing:
        pytest.fail(f"missing {' '.join(missing)}: run tools/testbed/setup-host.sh")
    try:
        k = harness.prepared(CELL)[0]
    except build.BuildError as e:
        pytest.fail(f"{CELL}: {e}")
    rel = k.release
    if not Path(f"/lib/modules/{rel}/build").exists():
        pytest.fail(f"host headers for {rel} not installed (apt-get install "
                    f"linux-headers-amd64); the cell and the host headers must agree")
    already = [p for p in PACKAGES if _installed(p)]
    if already:
        pytest.fail(f"{' '.join(already)} already installed on this host; "
                    f"apt-get purge {' '.join(already)} first")

    # the release: debian/changelog's newest entry, which NEWS describes
    rel_ver = _run(["dpkg-parsechangelog", "-l", str(TOP / "debian/changelog"),
                    "-SVersion"]).strip()
    news = re.search(r"^(\d+\.\d+\.\d+)\b", (TOP / "NEWS").read_text(), re.M)
    assert news and news.group(1) == rel_ver.rsplit("-", 1)[0], \
        f"debian/changelog says {rel_ver}, NEWS {news and news.group(1)}"

    # build: amd64 (both packages), then arm64 (sbridgectl, cross); the
    # version is git's, after that release
    deb_ver, debs, err = _built(TOP, "amd64")
    deb_ver_arm, arm, err_arm = _built(TOP, "arm64")
    assert deb_ver_arm == deb_ver, f"amd64 built {deb_ver}, arm64 {deb_ver_arm}"
    debs.update(arm)
    upstream = deb_ver.rsplit("-", 1)[0]
    assert re.fullmatch(rf"{re.escape(news.group(1))}(\+git\d+\.g[0-9a-f]+)?(\.dirty\.\d{{14}}|"
                        rf"\+dirty\.\d{{14}})?-1", deb_ver), f"version {deb_ver} is not git's"
    dkms_deb = OUT / f"sbridge-dkms_{deb_ver}_all.deb"
    ctl_deb = {a: OUT / f"sbridgectl_{deb_ver}_{a}.deb" for a in ("amd64", "arm64")}
    for deb in (dkms_deb, *ctl_deb.values()):
        assert deb.exists(), f"make deb made no {deb.name}"
    assert not list(TOP.parent.glob("sbridge*_*")), "make deb left files next to the clone"

    # sbridgectl: the right machine, static (no NEEDED, no interpreter), the
    # package's version
    for arch, want in (("amd64", "X86-64"), ("arm64", "AArch64")):
        d = tmp_path / f"ctl-{arch}"
        _run(["dpkg-deb", "-x", str(ctl_deb[arch]), str(d)])
        machine, dynamic = _elf(d / "usr/sbin/sbridgectl")
        assert want in machine, f"{ctl_deb[arch].name}: sbridgectl is for {machine}"
        assert not dynamic, f"{ctl_deb[arch].name}: sbridgectl is not static"
    # what a board gets besides the tool: the README's promises, file by file
    shipped = sorted(r.name for r in (TOP / "rules").glob("*.rules"))
    files = ["usr/share/man/man8/sbridgectl.8.gz",
            "usr/share/bash-completion/completions/sbridgectl",
            "usr/share/zsh/vendor-completions/_sbridgectl",
            "lib/systemd/system/sbridge-config.service",
            "lib/systemd/system/sbridge-rules.service",
            "lib/udev/rules.d/60-sbridge.rules",
            "usr/share/fish/vendor_completions.d/sbridgectl.fish",
            "usr/share/doc/sbridgectl/rules/README.md",
            "usr/share/doc/sbridgectl/record-format.md",
            "etc/sbridge/sbridge.conf", "etc/sbridge/rules.d/50-local.rules"] \
        + [f"usr/lib/sbridge/rules.d/{r}" for r in shipped]
    for arch in ("amd64", "arm64"):
        missing = [w for w in files if not (tmp_path / f"ctl-{arch}" / w).is_file()]
        assert not missing, f"{ctl_deb[arch].name} lacks {missing}"
        got = sorted(r.name for r in (tmp_path / f"ctl-{arch}/usr/lib/sbridge/rules.d").iterdir())
        assert got == shipped, f"{ctl_deb[arch].name}: shipped rules {got}, rules/ has {shipped}"
    ver = _run([str(tmp_path / "ctl-amd64/usr/sbin/sbridgectl"), "--version"])
    assert re.search(rf"\b{re.escape(upstream)}\b", ver), f"sbridgectl --version: {ver!r}"
    # sbridge-scx (scx_sbridge) where the host has what it needs, else why not
    for arch, said in (("amd64", err), ("arm64", err_arm)):
        _scx_checked(debs, arch, said, tmp_path)

    # sbridge-dkms: exactly the tree `make dkms-add` lays out, at the version
    d = tmp_path / "dkms"
    _run(["dpkg-deb", "-x", str(dkms_deb), str(d)])
    src = d / f"usr/src/sbridge-{upstream}"
    assert (src / "VERSION").read_text().strip() == upstream
    for w in ("etc/modules-load.d/sbridge.conf", "etc/modprobe.d/sbridge.conf"):
        assert (d / w).is_file(), f"{dkms_deb.name} lacks {w}"
    conf = (src / "dkms.conf").read_text()
    assert f'PACKAGE_VERSION="{upstream}"' in conf and "@VERSION@" not in conf, conf
    ref = tmp_path / "dkms-tree"
    _run(["make", "-s", "-C", str(TOP), "dkms-tree", f"DKMS_SRC={ref}", f"VERSION={upstream}"])
    tree = {str(p.relative_to(ref)): p for p in ref.rglob("*")}
    packaged = {str(p.relative_to(src)): p for p in src.rglob("*")}
    assert sorted(packaged) == sorted(tree), "package tree differs from make dkms-tree's"
    differ = [n for n, p in tree.items() if p.is_file() and
              not filecmp.cmp(p, packaged[n], shallow=False)]
    assert not differ, f"package files differ from make dkms-tree's: {differ}"

    # the same tree one commit on: a newer version, to upgrade to
    t0 = time.time()
    _next_commit(tmp_path / "next")
    deb_ver2, debs2, _ = _built(tmp_path / "next", "amd64")
    upstream2 = deb_ver2.rsplit("-", 1)[0]
    assert subprocess.run(["dpkg", "--compare-versions", deb_ver2, "gt", deb_ver]).returncode == 0, \
        f"the next commit's build {deb_ver2} does not sort above {deb_ver}"
    dkms_deb2 = debs2[f"sbridge-dkms_{deb_ver2}_all.deb"]
    ctl_deb2 = debs2[f"sbridgectl_{deb_ver2}_amd64.deb"]
    print(f"second build {deb_ver2}: {time.time() - t0:.0f} s")

    # lintian: no error; a warning only if debian/README.source explains it
    allowed = set(re.findall(r"^\s*lintian-allowed:\s*(\S+)",
                             (TOP / "debian/README.source").read_text(), re.M))
    bad = []
    for arch in ("amd64", "arm64"):
        bad += _lintian(OUT / f"sbridge_{deb_ver}_{arch}.changes", allowed)
    assert not bad, "lintian:\n" + "\n".join(bad)

    # install on the host, as a board would
    _remove_make_installed(rel)
    all_debs = [dkms_deb, ctl_deb["amd64"], dkms_deb2, ctl_deb2]
    assert not _leftovers(rel, all_debs), "stale sbridge state before the install"
    before = _host_packages()
    try:
        out = _run(APT + ["install", f"./{dkms_deb.relative_to(TOP)}",
                          f"./{ctl_deb['amd64'].relative_to(TOP)}"], cwd=TOP)
        _dkms_install(upstream, rel, out)
        ctl = _run(["/usr/sbin/sbridgectl", "--version"])
        assert upstream in ctl, f"installed sbridgectl --version: {ctl!r}"
        for unit in ("sbridge-config.service", "sbridge-rules.service"):
            assert Path(f"/etc/systemd/system/sys-module-sbridge_core.device.wants/{unit}"
                        ).is_symlink(), f"{unit} not enabled by the package"

        # the next build upgrades both; DKMS keeps the new sources only
        t0 = time.time()
        out = _run(APT + ["install", str(dkms_deb2), str(ctl_deb2)])
        for pkg in PACKAGES:
            got = _run(["dpkg-query", "-W", "-f", "${Version}", pkg])
            assert got == deb_ver2, f"{pkg} is {got} after installing {deb_ver2}:\n{out}"
        _dkms_install(upstream2, rel, out)
        assert _dkms_versions() == [upstream2], f"dkms status after the upgrade: {_dkms_versions()}"
        assert not Path(f"/usr/src/sbridge-{upstream}").exists(), \
            f"/usr/src/sbridge-{upstream} left after the upgrade"
        kos = dkms_modules(rel, tmp_path)
        modinfo = _run(["modinfo", "-F", "version", str(kos[0])]).strip()
        assert modinfo == upstream2, f"module says version {modinfo!r}, package {upstream2!r}"
        print(f"upgrade to {deb_ver2}: {time.time() - t0:.0f} s")

        # a Debian root with systemd and the second build, as a board has it
        t0 = time.time()
        initrd = sysguest.image(tmp_path / "systemd.cpio.gz", ctl_deb2, dkms_deb2, kos, rel, {
            "/etc/sbridge/sbridge.conf": "param act.gain 154\nparam act.hold_ms 700\n",
            "/etc/sbridge/rules.d/90-pkgtest.rules": "comm=sbtest prefer=big\n"})
        s = harness.Scenario(path=TOP / "tests/guest/units.sh", name="debs-units",
                             title="units follow the module", smp=2, timeout=300, mem=1024)
        cmd = vm.qemu_cmd(k.arch, k.vmlinuz, initrd, s.smp, "smp", mem=s.mem,
                          append="systemd.show_status=false")
        r = vm.boot(k, s, initrd, cmd=cmd)
        record(f"{CELL}(deb)", r)
        print(f"systemd guest: image and boot {time.time() - t0:.0f} s (boot {r.wall:.0f} s)")
        assert not r.problems, "the packages in a systemd guest:\n" + "\n".join(r.problems) + \
            "\n" + r.console[-3000:]
    finally:
        subprocess.run(APT + ["purge", *[p for p in PACKAGES if _installed(p)]],
                       env=ENV, capture_output=True)
    left = _leftovers(rel, all_debs)
    assert not left, "apt-get purge left:\n" + "\n".join(left)
    assert [p for p in PACKAGES if _installed(p)] == [], "purge did not remove the packages"
    after = _host_packages()
    changed = sorted(set(before) ^ set(after))
    assert not changed, "the host's packages changed:\n" + "\n".join(changed)
