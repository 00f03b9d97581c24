#!/bin/sh
# scenario: seed 000's frequency inversion on the rig: a configure-like shell loop of short fork/exec'd programs on 4 cores with a clock each; under schedutil the programs spend much of their run time at a low clock right after their core woke up (and more CPU time), under performance none, and run on one core (Slocal-like) far less
# arch: arm64
# suite: bookworm
# runner: rig
# topology: pc4
# smp: 4
# timeout: 300
# rig: yes
# debug: no
. "${SBRIDGE_LIB:-/sbridge/lib.sh}"

# pc4 (tools/rig/rig.conf): 4 big cores, each its own clock domain (per-core
# DVFS, as the x86 servers of seed 000), OPPs 800..1600 MHz; a clock below
# 75 % of the top (1200) is low. The rig accounts per CPU the busy time at
# a low clock after a wakeup from idle, until the clock first comes up
# (wake_low_us of its energy table): the inversion of seed 000 is a task
# woken on an idle core whose clock is low while the waker's core, high,
# goes idle. The workload: N steps like a configure script's, each a shell
# that runs a short program (fixed work: spin, 1 unit, about 6 ms at the
# top clock) into a pipe read by another (wc), one after another.
N=${N:-40}
plan 7

check "rig_cpufreq loads, schedutil on every core" rig_clocks schedutil
dev=$(rig_dev)
echo 1 > "$dev/pace"
check "a policy per core" test "$(cat $CPUFREQ/policy*/related_cpus | tr '\n' ' ')" = "0 1 2 3 "
# tot: busy, low and wake-low us, wakeups, summed over the CPUs
tot() { awk 'NR > 1 && $1 ~ /^[0-9]+$/ { b += $4; l += $9; w += $10; k += $11 } END { print b, l, w, k }' "$dev/energy"; }
steps() {
	_i=0
	while [ $_i -lt "$1" ]; do
		sh -c 'spin 10 1 | wc -l' > /dev/null
		_i=$((_i + 1))
	done
}
# measure NAME CMD: run CMD (a string); sets wl (wake-low % of busy time),
# lo (low %), busy (model us: the same work at a lower clock is more) and
# secs (wall: it depends on the host keeping the pace too), and says them
measure() {
	_what=$1 _cmd=$2
	set -- $(tot) $(awk '{ print $1 }' /proc/uptime)
	eval "$_cmd"
	set -- "$@" $(tot) $(awk '{ print $1 }' /proc/uptime)
	wl=$(awk -v w=$(($8 - $3)) -v b=$(($6 - $1)) 'BEGIN { printf "%.1f", b ? 100 * w / b : 0 }')
	lo=$(awk -v l=$(($7 - $2)) -v b=$(($6 - $1)) 'BEGIN { printf "%.1f", b ? 100 * l / b : 0 }')
	secs=$(awk -v a=$5 -v b=${10} 'BEGIN { printf "%.2f", b - a }')
	busy=$(($6 - $1))
	diag "$_what: $secs s, busy $(($6 - $1)) us (model), at a low clock $lo %, of it right after a wakeup $wl %, $(($9 - $4)) wakeups"
}
ALL=$(printf '%x' $(((1 << $(nproc)) - 1)))
steps 5		# warm the page cache: exec'ing from it costs the same everywhere
measure "schedutil, free" "steps $N"
wls=$wl secs_s=$secs busy_s=$busy
rig_gov performance
measure "performance" "steps $N"
wlp=$wl secs_p=$secs busy_p=$busy
rig_gov schedutil
# the shell and so every step on cpu0: the woken task finds its core busy
# and its clock up, as seed 000's Slocal places it
taskset -p 1 $$ > /dev/null
measure "schedutil, one core" "steps $N"
taskset -p $ALL $$ > /dev/null
wl1=$wl secs_1=$secs

within() { awk -v r="$1" -v lo="$2" -v hi="$3" 'BEGIN { exit !(r >= lo && r <= hi) }'; }
check "schedutil: frequency inversion, $wls % of the run time at a low clock right after a wakeup (>= 20 %)" \
	within "$wls" 20 100
check "performance: none ($wlp %)" within "$wlp" 0 0.5
check "on one core (Slocal-like) far less: $wl1 % (<= half of $wls %)" \
	awk -v a="$wl1" -v b="$wls" 'BEGIN { exit !(a <= b / 2) }'
check "the inversion costs time: the same steps keep the CPUs busy $busy_s us under schedutil, $busy_p us under performance (>= 15 % more)" \
	awk -v a="$busy_s" -v b="$busy_p" 'BEGIN { exit !(a >= b * 1.15) }'
diag "wall clock (the guest's, host pace included): schedutil $secs_s s, performance $secs_p s, one core $secs_1 s"
check "rig_cpufreq unloads" rmmod rig_cpufreq
