#!/bin/sh
# fetch-qemu-plugin-h.sh OUTDIR - put QEMU's include/qemu/qemu-plugin.h into
# OUTDIR, taken from Debian's source package of the QEMU that is installed
# (nothing of QEMU is kept in the sbridge tree).  Needs a deb-src entry for
# the host suite; adds one (bookworm) if apt has no source for qemu.
set -eu
out=${1:?usage: fetch-qemu-plugin-h.sh OUTDIR}
mkdir -p "$out"
[ -s "$out/qemu-plugin.h" ] && exit 0

if ! apt-cache showsrc qemu >/dev/null 2>&1 ||
   [ -z "$(apt-cache showsrc qemu 2>/dev/null)" ]; then
	echo "rig: adding deb-src entry for bookworm (needs root)" >&2
	cat > /etc/apt/sources.list.d/rig-deb-src.sources <<EOT
Types: deb-src
URIs: http://deb.debian.org/debian
Suites: bookworm
Components: main
Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg
EOT
	apt-get update >/dev/null
fi

ver=$(dpkg-query -W -f '${Version}' qemu-system-data 2>/dev/null || true)
src="$out/src"
mkdir -p "$src"
cd "$src"
if ! ls qemu_*.orig.tar.* >/dev/null 2>&1; then
	apt-get source --download-only "qemu${ver:+=$ver}" >/dev/null 2>&1 ||
		apt-get source --download-only qemu >/dev/null
fi
orig=$(ls qemu_*.orig.tar.* | head -n1)
tar -xf "$orig" --wildcards '*/include/qemu/qemu-plugin.h'
cp */include/qemu/qemu-plugin.h "$out/qemu-plugin.h.tmp"
mv "$out/qemu-plugin.h.tmp" "$out/qemu-plugin.h"
echo "rig: qemu-plugin.h from $orig" >&2
