#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Print the Debian version of the packages `make deb` builds from the tree
# at $1: scripts/version.sh's version in Debian's spelling, revision 1, so
# that every newer build of the tree upgrades the one installed:
#   1.2.3                 -> 1.2.3-1                    a release tag
#   1.2.3-N-gHASH         -> 1.2.3+gitN.gHASH-1         N commits after it
#   ...-dirty             -> ...+dirty.STAMP-1 / ....dirty.STAMP-1
# STAMP is the UTC time (YYYYMMDDhhmmss) of the newest changed file, so that
# two builds of one tree get one version and a later edit a higher one.
top=${1:-$(dirname "$0")/..}
v=$("$(dirname "$0")/version.sh" "$top") || exit 1
case $v in
*-dirty)
	v=${v%-dirty}
	newest=$(git -C "$top" ls-files -z -m -o --exclude-standard 2>/dev/null |
		(cd "$top" && xargs -0 -r stat -c %Y -- 2>/dev/null) | sort -n | tail -n 1)
	stamp=$(date -u -d "@${newest:-$(date +%s)}" +%Y%m%d%H%M%S)
	dirty=dirty.$stamp
	;;
*)
	dirty=
	;;
esac
case $v in
*-*-g*)
	# 1.2.3-N-gHASH
	base=${v%%-*}
	rest=${v#*-}
	n=${rest%%-*}
	hash=${rest#*-}
	v=$base+git$n.$hash${dirty:+.$dirty}
	;;
*)
	v=$v${dirty:++$dirty}
	;;
esac
echo "$v-1"
