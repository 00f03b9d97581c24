#!/bin/sh
# scenario: the counter path on the PMU this machine has: sbridge_pmu opens counters on every online CPU and its status says what they allow; each counter it opened counts on every CPU; with cycles and instructions a spinner's windows close into a CPI stack, and with LLC misses a pointer chaser is less compute-bound than the spinner; what the PMU lacks is skipped, never passed
# arch: any
# board: yes
# suite: backports
# smp: 2
# timeout: 180
. "${SBRIDGE_LIB:-/sbridge/lib.sh}"

# In the CI's guests x86_64 has no PMU and arm64 counts cycles only, so
# most of this skips there; it is written for tests/board/run on a real
# board, where rig-speedup's emulated PMU is not what is being checked.
P=/sys/module/sbridge_pmu/parameters
S=/sys/kernel/sbridge
plan 9

# (on the emulation rig, load_sbridge's way: its PMU driver first)
if on_rig && ! grep -q '^rig_pmu ' /proc/modules; then
	insmod $MODDIR/rig_pmu.ko
fi
check "sbridge_core loads" insmod $MODDIR/sbridge_core.ko
check "sbridge_pmu loads" insmod $MODDIR/sbridge_pmu.ko
status=$(cat $P/status)
diag "status: $status"
while read -r l; do diag "events: $l"; done < $P/events

# CPUs named by the "cpus LIST pmu ..." lines, one per line
event_cpus() {
	awk '{ n = split($2, r, ","); for (i = 1; i <= n; i++) {
		if (split(r[i], ab, "-") == 1) ab[2] = ab[1]
		for (c = ab[1]; c <= ab[2]; c++) print c } }' $P/events | sort -n
}
online_cpus() {
	for f in /sys/devices/system/cpu/cpu[0-9]*; do
		c=${f##*cpu}
		[ -e $f/online ] && [ "$(cat $f/online)" = 0 ] && continue
		echo "$c"
	done | sort -n
}
check "events describe every online CPU once" test "$(event_cpus | tr '\n' ' ')" = "$(online_cpus | tr '\n' ' ')"

# learning needs cycles and instructions on every CPU; status must agree
if grep -v ' cycles.* instructions' $P/events | grep -q .; then full=0; else full=1; fi
case "$status" in
"learning on"*) said=1 ;;
*) said=0 ;;
esac
check "status agrees with the events (learning $said, counters allow $full)" test $said = $full

# a spinner on every online CPU, then each opened counter must have counted
ncpu=0
for c in $(online_cpus); do
	taskset -c "$c" spin 2 >/dev/null &
	ncpu=$((ncpu + 1))
done
s0=$(cat $S/samples)
wait
s1=$(cat $S/samples)
while read -r l; do diag "counts: $l"; done < $P/counts
if grep -q ' none$' $P/events; then
	skip "every counter opened counts on every CPU" "a CPU without counters: $status"
else
	# counts: "cpuN reads R cycles C instructions I llc_misses M stall_cycles S"
	# events: "cpus LIST pmu NAME capacity N: KIND KIND ..."
	# not the instruction classes (ldst int ase vfp branch): a spinner runs
	# no FP, and a PMUv3 accepts class events it does not implement and
	# counts 0; the core checks that the classes cover the instructions
	kinds=$(awk '{ for (i = 7; i <= NF; i++) print $i }' $P/events | sed 's/(raw)//' | sort -u |
		grep -v -x -e ldst -e int -e ase -e vfp -e branch | tr '\n' ' ')
	bad=""
	for k in $kinds; do
		z=$(awk -v k="$k" '{ for (i = 4; i < NF; i += 2) if ($i == k && $(i + 1) == 0) print $1 }' $P/counts)
		[ -n "$z" ] && bad="$bad $k:$(echo $z | tr ' ' ',')"
	done
	check "every counter opened counts on every CPU ($kinds)" test -z "$bad"
	[ -n "$bad" ] && diag "zero counts:$bad"
fi

if [ $full = 0 ]; then
	skip "windows close while $ncpu spinners run" "learning off: $status"
	skip "a spinner gets a CPI stack" "learning off: $status"
	skip "chase is less compute-bound than spin" "learning off: $status"
else
	check "windows close while $ncpu spinners run ($s0 -> $s1 samples)" test "$s1" -gt "$s0"
	# CPI_B share (column 9) of a lone task after a few seconds
	cpib() {	# SECONDS CMD...
		_w=$1; shift
		"$@" >/dev/null &
		_p=$!
		sleep "$_w"
		sbridgectl tasks --pid=$_p | awk 'NR == 2 { print $7, $9 }' > /tmp/cpib
		kill $_p 2>/dev/null
		wait $_p 2>/dev/null
		cat /tmp/cpib
	}
	set -- $(cpib 3 spin 30)
	sp_cpi=${1:--} sp_b=${2:--}
	check "a spinner gets a CPI stack (CPI $sp_cpi, CPI_B share $sp_b)" \
		awk -v c="$sp_cpi" -v b="$sp_b" 'BEGIN { exit !(c + 0 > 0 && b + 0 > 0 && b + 0 <= 1) }'
	if grep -q 'llc_misses' $P/events; then
		# 128 MiB of pointers, beyond a board's last-level cache; the
		# list is built first (compute-like), so give the walk time
		set -- $(cpib 8 chase 128 30)
		ch_b=${2:--}
		check "chase is less compute-bound than spin (CPI_B share $ch_b < $sp_b)" \
			awk -v c="$ch_b" -v s="$sp_b" 'BEGIN { exit !(c != "-" && c + 0 < s + 0) }'
	else
		skip "chase is less compute-bound than spin" "no LLC-miss counter: every CPI_B share is 1"
	fi
fi
check "both unload" sh -c "rmmod sbridge_pmu && rmmod sbridge_core"
