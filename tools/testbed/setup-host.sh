#!/bin/bash
# Install what the testbed needs on a Debian 12 (bookworm) amd64 host.
# Idempotent. Foreign-arch (arm64) packages are only ever downloaded and
# unpacked, never installed: apt would replace the host toolchain.
set -euo pipefail

[ "$(id -u)" = 0 ] || { echo "setup-host: must run as root (apt-get)" >&2; exit 1; }
export DEBIAN_FRONTEND=noninteractive

changed=0
if ! dpkg --print-foreign-architectures | grep -qx arm64; then
	dpkg --add-architecture arm64
	changed=1
fi

# trixie and trixie-backports for 6.12 / 7.x kernels and the gcc-14 build
# root; pinned to 1 so nothing from them ever upgrades the host.
src=/etc/apt/sources.list.d/sbridge-testbed.sources
if [ ! -f "$src" ]; then
	cat > "$src" <<'SRC'
Types: deb
URIs: http://deb.debian.org/debian
Suites: trixie trixie-backports
Components: main
Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg

Types: deb-src
URIs: http://deb.debian.org/debian
Suites: bookworm
Components: main
Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg
SRC
	cat > /etc/apt/preferences.d/sbridge-testbed <<'PIN'
Package: *
Pin: release n=trixie
Pin-Priority: 1

Package: *
Pin: release n=trixie-backports
Pin-Priority: 1
PIN
	changed=1
fi

stamp=/var/lib/apt/sbridge-testbed.updated
if [ "$changed" = 1 ] || [ ! -f "$stamp" ] || [ -n "${CI:-}" ]; then
	apt-get -o DPkg::Lock::Timeout=900 update -q
	touch "$stamp"
fi

# debhelper, dh-dkms, lintian: make deb and tests/test_deb.py (its arm64
# cross build uses gcc-aarch64-linux-gnu and libc6-dev-arm64-cross);
# sparse: make sparse (tests/test_style.py); python3-venv: ruff and mypy
# from PyPI in a venv (tools/pycheck.sh: make check, tests/test_style.py)
apt-get -o DPkg::Lock::Timeout=900 install -y -q --no-install-recommends \
	build-essential bc bison flex libelf-dev kmod cpio gzip xz-utils zstd \
	qemu-system-x86 qemu-system-arm device-tree-compiler \
	gcc-aarch64-linux-gnu libc6-dev-arm64-cross \
	busybox-static debootstrap dkms \
	linux-headers-amd64 python3 python3-pytest python3-matplotlib python3-numpy python3-scipy \
	libglib2.0-dev pkg-config dpkg-dev \
	debhelper dh-dkms lintian sparse python3-venv \
	>/dev/null
