#!/bin/sh
# scenario: the evaluation's workloads (bench/eval/workloads.sh): each Debian program does its fixed work pinned to the big and to the little CPU, exits 0; times and big/little ratios printed
# arch: arm64
# suite: bookworm
# topology: 1b1s
# smp: 2
# rig: yes
# timeout: 1200
# runner: own
# debs: xz zstd bzip2 gzip lz4 brotli sqlite3 openssl stress-ng bc gawk sort gnugo minisat lua5.4 perl lame jq zopfli flac mawk make cyclictest hackbench
# Not in the default test run (runner: own): about 6 minutes on the rig.
# The '# debs:' line must match WL_DEBS. Every guest carries
# bench/eval/workloads.sh as /sbridge/eval/workloads.sh (guest.py), so:
#   tools/testbed/harness.py eval-workloads --cell arm64-bookworm -v
# (x86_64: a copy with '# arch: x86_64' and no rig.)
. "${SBRIDGE_LIB:-/sbridge/lib.sh}"
. /sbridge/eval/workloads.sh
big=$(big_cpus | cut -d' ' -f1) lit=$(little_cpus | cut -d' ' -f1)
# x86_64 (smp, no capacities): cpu0 and cpu1, the same speed
big=${big:-0} lit=${lit:-1}
[ "$lit" = "$big" ] && lit=$(( (big + 1) % $(nproc) ))
set -- ${WL_ONLY:-$WL_NAMES $WL_CALIB}
plan $(($# + 1))
echo "eval: $(uname -r) $(uname -m), big cpu$big, little cpu$lit"

D=/tmp/eval
read u0 _ < /proc/uptime
if wl_prepare $D; then
	read u1 _ < /proc/uptime
	ok "wl_prepare ($(awk -v a=$u0 -v b=$u1 'BEGIN { printf "%.2f", b - a }') s, corpus $(wc -c < $D/corpus) bytes, md5 $(md5sum < $D/corpus | cut -c1-12))"
else
	not_ok "wl_prepare"
fi
# The rig's timing model paces from its driver on: inputs are made at full
# TCG speed before (awk would need ~15 s paced). sbridge is not loaded.
on_rig && { insmod $MODDIR/rig_pmu.ko || echo "# rig_pmu did not load: unpaced"; }

# snap CPU: "MHz cycles lag_ns" of CPU, the rig's counters ("1 0 0" off it);
# modelled seconds x slowdown 50 (rig.conf) = what wall time would be paced
dev=
for d in /sys/bus/pci/devices/*; do
	[ "$(cat $d/device 2>/dev/null)" = 0x1110 ] && [ -f $d/counters ] && dev=$d && break
done
snap() { [ -n "$dev" ] && awk -v c="$1" '$1 == c { print $3, $5, $10 + 0 }' $dev/counters || echo 1 0 0; }
# one NAME CPU: run NAME pinned to CPU; sets secs, rc, mod (modelled
# seconds of CPU), lag (% of the run the host could not keep the model's
# pace) and comm: of the program 1 s in, "+" its children's (stress-ng's
# workers), taken by a helper pinned to the other CPU. The shell pins
# itself while it forks, so the subshell starts pinned (no taskset:
# wl_exec is a shell function) and execs the program.
coll='sleep 1; awk -v s="$1" -v me="$$" '\''{ sub(/^\(/, "", $2); sub(/\)$/, "", $2); pp[$1] = $4; c[$1] = $2 }
	END { for (q in c) if (pp[q] == s && q != me) { o = c[q]; for (k in c) if (pp[k] == q) o = o "+" c[k]; print o } }'\'' /proc/[0-9]*/stat'
one() {
	taskset -c $(( ($2 + 1) % $(nproc) )) sh -c "$coll" coll $$ > /tmp/comm 2> /dev/null &
	q=$!
	taskset -p -c $2 $$ > /dev/null
	s0=$(snap $2)
	read t0 _ < /proc/uptime
	( wl_exec $1 $D ) &
	p=$!
	wait $p
	rc=$?
	read t1 _ < /proc/uptime
	s1=$(snap $2)
	taskset -p -c 0-$(($(nproc) - 1)) $$ > /dev/null
	wait $q
	comm=$(cat /tmp/comm)
	comm=${comm:-exited}
	secs=$(awk -v a=$t0 -v b=$t1 'BEGIN { printf "%.2f", b - a }')
	set -- $s0 $s1
	mod=$(awk -v c=$(($5 - $2)) -v f=$1 'BEGIN { printf "%.2f", c / f / 1e6 * 50 }')
	lag=$(awk -v l=$(($6 - $3)) -v s=$secs 'BEGIN { printf "%.1f", (s > 0 ? l / 1e7 / s : 0) }')
}
for w; do
	one $w $big; bs=$secs brc=$rc bcomm=$comm bm=$mod bl=$lag
	one $w $lit; ls=$secs lrc=$rc lm=$mod ll=$lag
	ratio=$(awk -v b=$bs -v l=$ls 'BEGIN { printf "%.2f", (b > 0 ? l / b : 0) }')
	# the same from the rig's modelled time: independent of host load
	mratio=$(awk -v b=$bm -v l=$lm 'BEGIN { if (b > 0) printf "%.2f", l / b; else print "-" }')
	echo "eval: $w kind=$(wl_kind $w) big_s=$bs little_s=$ls ratio=$ratio model_s=$bm/$lm model_ratio=$mratio lag%=$bl/$ll comm=$bcomm"
	if [ $brc -eq 0 ] && [ $lrc -eq 0 ]; then
		ok "$w exits 0 on big and little ($bs s / $ls s)"
	else
		not_ok "$w exits 0 on big and little" "exit status big $brc, little $lrc"
	fi
done
