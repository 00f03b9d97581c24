#!/bin/sh
# Print sbridge's version: VERSION file if present (DKMS copies, tarballs),
# else derived from git: v1.2.3 tags -> 1.2.3[-N-gHASH], no tag -> 0.1.0-N-gHASH.
top=${1:-$(dirname "$0")/..}
if [ -f "$top/VERSION" ]; then
	cat "$top/VERSION"
	exit 0
fi
if d=$(git -C "$top" describe --tags --match 'v[0-9]*' --dirty 2>/dev/null); then
	echo "${d#v}"
elif h=$(git -C "$top" rev-parse --short=12 HEAD 2>/dev/null); then
	n=$(git -C "$top" rev-list --count HEAD)
	dirty=$(git -C "$top" diff --quiet HEAD 2>/dev/null || echo -dirty)
	echo "0.1.0-$n-g$h$dirty"
else
	echo 0.1.0
fi
