#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# gen-params.sh PARAMS_C: the core's parameter table (sbridge_param_tab[]
# in sbridge-core/params.c: wire name, range, and the default from the
# initializers above it) as C initializers of struct sb_param_desc, so that
# `sbridgectl config check` knows the parameters of its own version
# offline. Run by the Makefile; the output is not kept in git.
set -e
awk '
function trim(s) { sub(/^[ \t]+/, "", s); sub(/[ \t]+$/, "", s); return s }
/^struct sbridge_params sbridge_params = \{/ { blk = "sbridge_params"; next }
/^struct sbridge_act_params sbridge_act_params = \{/ { blk = "sbridge_act_params"; next }
blk != "" && /^\};/ { blk = ""; next }
blk != "" && /^\t\.[a-z_0-9]+ = / {
	line = $0
	sub(/^\t\./, "", line)
	sub(/,[ \t]*(\/\*.*)?$/, "", line)
	eq = index(line, " = ")
	def[blk "." substr(line, 1, eq - 1)] = substr(line, eq + 3)
	next
}
/sbridge_param_tab\[\] = \{/ { tab = 1; next }
tab && /^\};/ { tab = 0; next }
tab && /\{ "/ {
	line = $0
	sub(/^[^{]*\{ /, "", line)
	sub(/ \},?[ \t]*$/, "", line)
	n = split(line, f, ",")
	if (n != 4) { print "gen-params.sh: cannot read: " $0 > "/dev/stderr"; exit 1 }
	store = trim(f[2]); sub(/^&/, "", store)
	if (!(store in def)) { print "gen-params.sh: no default for " store > "/dev/stderr"; exit 1 }
	printf "\t{ %s, %s, %s, %s },\n", trim(f[1]), trim(f[3]), trim(f[4]), def[store]
	count++
}
END { if (!count) { print "gen-params.sh: no parameter table in " FILENAME > "/dev/stderr"; exit 1 } }
' "$1"
