"""A Debian guest that boots systemd, for the package test (tests/test_deb.py).

The busybox guests (guest.py) have no init system, and what the packages
do on a board happens through it: modules-load.d loads the modules at
boot, udev makes sbridge_core a systemd device (60-sbridge.rules), and the
units bound to that device apply the configuration and load the rules.
Here a minbase bookworm root with systemd, udev and kmod is
debootstrapped once per build directory (about 2 minutes, cached as
build/root-bookworm-systemd, 120 MB once documentation and apt's lists
are gone). Per run it is copied, sbridgectl's .deb is installed into the
copy with dpkg (its maintainer scripts enable the units), sbridge-dkms's
files and the modules DKMS built from it on the host are laid out as the
package and DKMS lay them out, and the tree boots as an initramfs with
systemd as PID 1 on the cell's kernel. tests/guest/units.sh, run by a
unit once the system is up, writes TAP between the markers vm.parse()
reads and powers the guest off.
"""
import shutil
import subprocess
import tempfile
from pathlib import Path

if not __package__:  # a script, or imported flat: see standalone.py
    import standalone  # type: ignore[import-not-found]  # noqa: F401
from sbridge_testbed import guest
from sbridge_testbed.common import BUILD, MIRROR, TOP, log, run

ROOT = BUILD / "root-bookworm-systemd"
# what a package test root needs besides minbase
INCLUDE = "systemd-sysv,udev,kmod"
# dropped after debootstrap: nothing at boot reads them
TRIM = ("usr/share/doc", "usr/share/man", "usr/share/info", "usr/share/locale",
        "var/cache/apt", "var/lib/apt/lists", "usr/lib/udev/hwdb.d")

UNIT = """[Unit]
Description=sbridge package test (tests/guest/units.sh)
# simple, not oneshot: the script waits for the boot to finish, which a
# oneshot still starting would hold up
[Service]
Type=simple
ExecStart=/bin/sh /sbridge/units.sh
StandardOutput=tty
StandardError=tty
TTYPath=/dev/ttyS0
TTYReset=no
TTYVHangup=no
[Install]
WantedBy=multi-user.target
"""


def root():
    """The cached systemd root (debootstrapped on first use)."""
    if (ROOT / ".complete").exists():
        return ROOT
    shutil.rmtree(ROOT, ignore_errors=True)
    log(f"debootstrap bookworm systemd guest root ({INCLUDE})")
    run(["debootstrap", "--variant=minbase", f"--include={INCLUDE}", "bookworm", str(ROOT),
         MIRROR], stdout=subprocess.DEVNULL)
    for t in TRIM:
        shutil.rmtree(ROOT / t, ignore_errors=True)
    # not a first boot: no firstboot questions on the console
    (ROOT / "etc/machine-id").write_text("5b1d9e6a0c3f4e2c8a7d6b5c4e3f2a1b\n")
    (ROOT / ".complete").touch()
    return ROOT


def _mask(r, unit):
    link = r / "etc/systemd/system" / unit
    link.unlink(missing_ok=True)
    link.symlink_to("/dev/null")


def image(dest, ctl_deb, dkms_deb, kos, release, files=None):
    """The guest initramfs at @dest: the root with sbridgectl's .deb
    @ctl_deb installed, sbridge-dkms's (@dkms_deb) files and the modules
    @kos (DKMS's build for kernel @release) where they would be, the test
    script and its unit, and @files ({path in the guest: text}) on top."""
    with tempfile.TemporaryDirectory(dir=BUILD) as d:
        r = Path(d) / "root"
        run(["cp", "-a", str(root()), str(r)])
        (r / ".complete").unlink()
        # sbridgectl as apt would install it: its postinst enables the
        # units (no systemd runs in the chroot: nothing is started)
        (r / "sbridge").mkdir()
        shutil.copy(ctl_deb, r / "sbridge/sbridgectl.deb")
        run(["chroot", str(r), "dpkg", "-i", "/sbridge/sbridgectl.deb"],
            stdout=subprocess.DEVNULL)
        # sbridge-dkms: its files, and what its postinst has DKMS build
        x = Path(d) / "dkms"
        run(["dpkg-deb", "-x", str(dkms_deb), str(x)])
        for f in ("etc/modules-load.d/sbridge.conf", "etc/modprobe.d/sbridge.conf"):
            (r / f).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy(x / f, r / f)
        mods = r / f"lib/modules/{release}/updates/dkms"
        mods.mkdir(parents=True)
        for ko in kos:
            shutil.copy(ko, mods / ko.name)
        run(["depmod", "-b", str(r), release])
        # the test: lib.sh, the script, a unit that runs it once up (and
        # /sbridge/sbridgectl.deb, which it removes and installs again)
        shutil.copy(TOP / "tests/guest/lib.sh", r / "sbridge/lib.sh")
        shutil.copy(TOP / "tests/guest/units.sh", r / "sbridge/units.sh")
        (r / "etc/systemd/system/sbridge-pkgtest.service").write_text(UNIT)
        (r / "etc/systemd/system/multi-user.target.wants/sbridge-pkgtest.service").symlink_to(
            "/etc/systemd/system/sbridge-pkgtest.service")
        # the console is the test's: no login prompt on it
        _mask(r, "serial-getty@ttyS0.service")
        for path, text in (files or {}).items():
            p = r / path.lstrip("/")
            p.parent.mkdir(parents=True, exist_ok=True)
            p.write_text(text)
        # the kernel runs /init of an initramfs
        (r / "init").symlink_to("/lib/systemd/systemd")
        guest._cpio(r, dest)
    return dest
