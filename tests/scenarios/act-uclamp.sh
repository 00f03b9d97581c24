#!/bin/sh
# scenario: uclamp actuator (kernels with CONFIG_UCLAMP_TASK, e.g. 7.x): a compute-class task gets util_min from its share; disable and unload restore its clamps
# arch: any
# topology: smp
# smp: 2
# timeout: 120
# icount: no
. "${SBRIDGE_LIB:-/sbridge/lib.sh}"

S=/sys/kernel/sbridge
umin() { awk '$1 == "uclamp.min" { print $NF }' /proc/$1/sched; }
umax() { awk '$1 == "uclamp.max" { print $NF }' /proc/$1/sched; }
plan 9

check "sbridge loads" load_sbridge
why=
if grep -q '^uclamp: unavailable' $S/actuators; then
	diag "$(grep '^uclamp' $S/actuators)"
	ok "status says why uclamp is unavailable"
	why="kernel $(kver) has no CONFIG_UCLAMP_TASK"
else
	ok "uclamp available on $(kver)"
	# the clamps are read from /proc/PID/sched: without it every check
	# below would compare empty strings
	clamps_visible || why="kernel $(kver): /proc/PID/sched shows no clamps (no CONFIG_SCHED_DEBUG)"
fi
if [ -n "$why" ]; then
	for t in "rule" "util_min set" "util_max kept" "off restores" "on again" "unload restores"; do
		skip "$t" "$why"
	done
	check "sbridge unloads" unload_sbridge
	exit 0
fi
echo 'comm=spin class=compute' > /tmp/act.rules
check "rule: spin is compute-bound" sbridgectl rules load /tmp/act.rules
spin 40 >/dev/null &
p=$!
sleep 0.5
b0="$(umin $p)/$(umax $p)"
sbridgectl set param act.uclamp 1
n=0
while [ $n -lt 20 ] && [ "$(umin $p)" != 512 ]; do sleep 0.5; n=$((n + 1)); done
check "util_min 512 for share 1.0 (was $b0, now $(umin $p))" test "$(umin $p)" = 512
check "util_max 1024" test "$(umax $p)" = 1024
sbridgectl set param act.uclamp 0
sleep 1
check "off: clamps back ($(umin $p)/$(umax $p), was $b0)" test "$(umin $p)/$(umax $p)" = "$b0"
sbridgectl set param act.uclamp 1
sleep 1
check "on again ($(umin $p))" test "$(umin $p)" = 512
check "sbridge unloads" unload_sbridge
check "unload: clamps back ($(umin $p)/$(umax $p), was $b0)" test "$(umin $p)/$(umax $p)" = "$b0"
kill $p; wait $p 2>/dev/null || true
