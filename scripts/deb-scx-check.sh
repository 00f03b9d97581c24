#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# deb-scx-check.sh DEB_ARCH VMLINUX: can `make deb` build sbridge-scx
# (scx_sbridge's static loader, scx_sbridge/Makefile) for DEB_ARCH here?
# Prints nothing if it can, else one line saying why not; the Makefile
# then builds with the pkg.sbridge.noscx profile (debian/README.source).
# It needs trixie's (or newer) clang, bpftool and static libbpf for
# DEB_ARCH, and VMLINUX, the BTF of a kernel with sched_ext
# (/sys/kernel/btf/vmlinux, or a 7.x linux-headers package's vmlinux).
arch=$1 vmlinux=$2
for t in clang bpftool; do
	command -v $t > /dev/null || { echo "no $t (trixie's or newer)"; exit 0; }
done
major=$(clang -dumpversion | cut -d. -f1)
[ "$major" -ge 16 ] || { echo "clang $major is too old (trixie's 19 builds it)"; exit 0; }
v=$(dpkg-query -Wf '${Version}' "libbpf-dev:$arch" 2>/dev/null)
[ -n "$v" ] || { echo "no libbpf-dev:$arch"; exit 0; }
dpkg --compare-versions "$v" ge 1:1.5 ||
	{ echo "libbpf-dev:$arch $v is older than trixie's 1:1.5"; exit 0; }
[ -r "$vmlinux" ] || { echo "no kernel BTF at $vmlinux (SCX_VMLINUX=)"; exit 0; }
bpftool btf dump file "$vmlinux" 2>/dev/null | grep -q "^\[[0-9]*\] STRUCT 'sched_ext_ops'" ||
	echo "$vmlinux is the BTF of a kernel without sched_ext (SCX_VMLINUX=)"
exit 0
