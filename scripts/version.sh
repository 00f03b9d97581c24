#!/bin/sh
# Print sbridge's version: VERSION file if present (DKMS copies, tarballs),
# else from git: v1.2.3 tags -> 1.2.3[-N-gHASH]. A clone without tags (a
# shallow or branch-only fetch) counts, as git describe would, from the
# commit that dated the newest release in NEWS; no release -> 0.1.0-N-gHASH.
top=${1:-$(dirname "$0")/..}
if [ -f "$top/VERSION" ]; then
	cat "$top/VERSION"
	exit 0
fi
if d=$(git -C "$top" describe --tags --match 'v[0-9]*' --dirty 2>/dev/null); then
	echo "${d#v}"
elif h=$(git -C "$top" rev-parse --short HEAD 2>/dev/null); then
	dirty=$(git -C "$top" diff --quiet HEAD 2>/dev/null || echo -dirty)
	# "0.2.0 (2026-11-25)": a release heading; "Since 0.2.0 ..." is not
	head=$(grep -m 1 -E '^[0-9]+\.[0-9]+\.[0-9]+ \([0-9]{4}-[0-9]{2}-[0-9]{2}\)$' \
		"$top/NEWS" 2>/dev/null)
	rel=$(git -C "$top" log --format=%H -F -S"$head" -- NEWS 2>/dev/null | tail -n 1)
	if [ -n "$head" ] && [ -n "$rel" ]; then
		n=$(git -C "$top" rev-list --count "$rel..HEAD")
		echo "${head%% *}-$n-g$h$dirty"
	else
		n=$(git -C "$top" rev-list --count HEAD)
		echo "0.1.0-$n-g$h$dirty"
	fi
else
	echo 0.1.0
fi
