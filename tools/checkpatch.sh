#!/bin/bash
# checkpatch.pl over sbridge's kernel sources. checkpatch is not packaged on
# its own in Debian: take it (with its spelling and const-struct lists) from
# the kernel source package's upstream tarball, cached under build/.
# Usage: tools/checkpatch.sh [FILES...]   (default: every kernel source)
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
cache=$top/build/checkpatch
cp=$cache/scripts/checkpatch.pl
if [ ! -x "$cp" ]; then
	mkdir -p "$cache/dl"
	(cd "$cache/dl" && apt-get -q -o APT::Sandbox::User=root source --download-only linux/bookworm >/dev/null)
	tarball=$(ls "$cache"/dl/linux_*.orig.tar.xz | head -n1)
	tar -xJf "$tarball" -C "$cache" --strip-components=1 --wildcards \
		'*/scripts/checkpatch.pl' '*/scripts/spelling.txt' '*/scripts/const_structs.checkpatch'
	rm -rf "$cache/dl"
fi
cd "$top"
if [ $# -eq 0 ]; then
	set -- $(git ls-files -co --exclude-standard -- 'sbridge-core/*.[ch]' 'pmu-monitor/*.[ch]' \
		'include/*.h' 'tests/modules/*.[ch]' | grep -v -e '\.mod\.c$')
fi
# --no-tree: there is no kernel tree here. Ignored: the version-check idiom
# (LINUX_VERSION_CODE on the left of >=) that compat.h is made of.
exec perl "$cp" --no-tree --quiet --show-types --max-line-length=100 \
	--ignore FILE_PATH_CHANGES,SPDX_LICENSE_TAG,LINUX_VERSION_CODE,CONSTANT_COMPARISON -f "$@"
