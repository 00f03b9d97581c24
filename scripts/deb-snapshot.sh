#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# deb-snapshot.sh COPY VERSION DESCRIBED: make the copy of the tree `make
# deb` builds in say VERSION (scripts/deb-version.sh, from DESCRIBED,
# scripts/version.sh's) and its builder: a changelog
# entry on top of debian/changelog unless its newest entry is VERSION
# already (a release), and the Maintainer of debian/control. Whoever
# builds the packages maintains them: DEBFULLNAME and DEBEMAIL, as dch
# takes them, else git's user.name and user.email; without either the
# control file's placeholder stays and this says so. Only the copy is
# changed, never the clone.
set -e
dir=$1
ver=$2
described=$3
name=${DEBFULLNAME:-$(git config user.name 2>/dev/null || true)}
mail=${DEBEMAIL:-$(git config user.email 2>/dev/null || true)}
if [ -n "$name" ] && [ -n "$mail" ]; then
	who="$name <$mail>"
	WHO=$who awk '/^Maintainer: / { print "Maintainer: " ENVIRON["WHO"]; next } { print }' \
		"$dir/debian/control" > "$dir/debian/control.new"
	mv "$dir/debian/control.new" "$dir/debian/control"
else
	who=$(sed -n 's/^Maintainer: //p' "$dir/debian/control")
	echo "sbridge: make deb: set DEBFULLNAME and DEBEMAIL (or git's user.name and user.email): the packages name the placeholder maintainer $who" >&2
fi
top=$(dpkg-parsechangelog -l "$dir/debian/changelog" -SVersion)
[ "$top" = "$ver" ] && exit 0
dist=$(dpkg-parsechangelog -l "$dir/debian/changelog" -SDistribution)
{
	printf 'sbridge (%s) %s; urgency=medium\n\n' "$ver" "$dist"
	printf '  * Snapshot of %s, built by make deb.\n' "$described"
	printf '    NEWS says what changed since the release.\n\n'
	printf ' -- %s  %s\n\n' "$who" "$(date -R -u ${SOURCE_DATE_EPOCH:+-d @$SOURCE_DATE_EPOCH})"
	cat "$dir/debian/changelog"
} > "$dir/debian/changelog.new"
mv "$dir/debian/changelog.new" "$dir/debian/changelog"
