#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# gen-params.sh PARAMS_C: the core's parameter table (sbridge_param_tab[]
# in sbridge-core/params.c: wire name, range, and the default from the
# initializers above it) as C initializers of struct sb_param_desc, so that
# `sbridgectl config check` knows the parameters of its own version
# offline. Each actuator keeps its act.* switch in its own act_*.c (its
# struct sbridge_param_desc); they stand after act.observe, in the order of
# actuators.c's sbridge_acts[], as the core lists them. Run by the
# Makefile; the output is not kept in git.
set -e
dir=$(dirname "$1")
acts=$(sed -n '/sbridge_acts\[\] = {/,/^};/s/.*&sbridge_act_\([a-z_0-9]*\),.*/\1/p' "$dir/actuators.c")
switches=""
for a in $acts; do
	line=$(awk '
	/^static u32 sbridge_[a-z_0-9]+( = [0-9]+)?;/ {
		v = $3; d = $4 == "=" ? $5 : 0; sub(/;.*/, "", v); sub(/;.*/, "", d); def[v] = d
	}
	/\.name = "act\.[a-z_0-9]+", \.val = &/ {
		l = $0; sub(/^[ \t]*/, "", l)
		n = split(l, f, ",")
		name = f[1]; sub(/^\.name = /, "", name)
		v = f[2]; sub(/^ *\.val = &/, "", v)
		mn = f[3]; sub(/^ *\.min = /, "", mn)
		mx = f[4]; sub(/^ *\.max = /, "", mx)
		if (!(v in def)) { print "gen-params.sh: no default for " v > "/dev/stderr"; exit 1 }
		printf "\t{ %s, %s, %s, %s },", name, mn, mx, def[v]
	}' "$dir/act_$a.c")
	[ -n "$line" ] || { echo "gen-params.sh: no switch in act_$a.c" >&2; exit 1; }
	switches="$switches$line"
done
awk -v switches="$switches" '
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
	if (trim(f[1]) == "\"act.observe\"") {
		gsub(/\t\{/, "\n\t{", switches)
		printf "%s\n", substr(switches, 2)
	}
}
END { if (!count) { print "gen-params.sh: no parameter table in " FILENAME > "/dev/stderr"; exit 1 } }
' "$1"
