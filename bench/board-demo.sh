#!/bin/sh
# scenario: the main job: an emulated big.LITTLE board running sbridge
# arch: arm64
# topology: 1b3s
# smp: 4
# rig: yes
# timeout: 300
# Guest side of `make demo` (not part of the test suite). The board is the
# rig (tools/rig): 1 Cortex-A15-like big core and 3 A7-like little ones
# whose speed depends on the code, with an emulated PMU. The same mixed
# workload runs twice: under the stock scheduler alone, then with sbridge
# learning CPI stacks and steering.
. /sbridge/lib.sh
say() { echo; echo "== $*"; }
SECS=${SECS:-12}
big=$(big_cpus | cut -d' ' -f1)

# Runs 2 spin (compute-bound) + 2 chase (memory-bound, 16 MB) for $SECS s
# under `sbridgectl record` (NAME.rec, handed to the host for the demo's
# picture); prints each one's rate and how often it was seen on the big core.
workload() {
	sbridgectl record -r 10 -o /tmp/$1.rec --force 2> /tmp/$1.err & rp=$!
	spin $SECS > /tmp/s1 & p1=$!
	spin $SECS > /tmp/s2 & p2=$!
	chase 16 $SECS > /tmp/c1 & p3=$!
	chase 16 $SECS > /tmp/c2 & p4=$!
	n=0 b1=0 b2=0 b3=0 b4=0
	while [ $n -lt $((SECS * 2 - 2)) ]; do
		sleep 0.5; n=$((n + 1))
		for i in 1 2 3 4; do
			eval "pid=\$p$i"
			[ "$(cut -d' ' -f39 /proc/$pid/stat 2>/dev/null)" = "$big" ] &&
				eval "b$i=\$((b$i + 1))"
		done
		[ $n = $((SECS)) ] && [ -n "$2" ] && { echo "-- mid-run:"; $2; }
	done
	wait $p1 $p2 $p3 $p4
	kill -INT $rp
	if wait $rp; then
		save_file /tmp/$1.rec
	else
		echo "-- recorder failed: $(cat /tmp/$1.err)"
	fi
	echo "-- on big cpu$big (of $n looks): spin $((b1 * 100 / n))% $((b2 * 100 / n))%, chase $((b3 * 100 / n))% $((b4 * 100 / n))%"
	for f in s1 s2 c1 c2; do echo "   $(cat /tmp/$f)"; done
	spin_rate=$(cat /tmp/s1 /tmp/s2 | sed -n 's/.*rate=\([0-9.]*\).*/\1/p' | awk '{ s += $1 } END { printf "%d", s }')
	chase_rate=$(cat /tmp/c1 /tmp/c2 | sed -n 's/.*rate=\([0-9.]*\).*/\1/p' | awk '{ s += $1 } END { printf "%d", s }')
}
mid() {
	sbridgectl tasks --comm spin
	sbridgectl tasks --comm chase | tail -n +2
}

say "board: $(uname -r), $(nproc) CPUs, capacities: $(cat /sys/devices/system/cpu/cpu*/cpu_capacity | tr '\n' ' ')"
# The rig's guest PMU driver also switches on its pacing (core speeds).
insmod $MODDIR/rig_pmu.ko || { echo "demo: rig_pmu failed to load"; exit 1; }
for c in $big $(little_cpus); do
	echo "cpu$c: $(taskset -c $c spin 1 | sed 's/ x=.*//')   $(taskset -c $c chase 4 1 | sed 's/ p=.*//')"
done

say "1. stock scheduler alone: 2 spin + 2 chase, $SECS s"
workload stock
s0=$spin_rate c0=$chase_rate

say "2. load sbridge, placement on"
load_sbridge || { echo "demo: loading sbridge failed"; exit 1; }
sbridgectl set param act.placement 1
sbridgectl set param act.period_ms 100
sbridgectl status

say "3. the same workload with sbridge"
workload sbridge mid
say "result: spin total $s0 -> $spin_rate it/s ($(awk -v a=$spin_rate -v b=$s0 'BEGIN { printf "%.2fx", b ? a / b : 0 }')), chase total $c0 -> $chase_rate loads/s ($(awk -v a=$chase_rate -v b=$c0 'BEGIN { printf "%.2fx", b ? a / b : 0 }'))"
grep '^placement_steers\|^placement_releases' /sys/kernel/sbridge/checker

say "learned scale-factor matrix"
sbridgectl matrix show

say "unload"
unload_sbridge && echo "sbridge unloaded; $(dmesg | grep -o 'task entries: .*' | tail -n 1)"
rmmod rig_pmu
plan 1
ok "demo ran"
