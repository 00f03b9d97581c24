#!/bin/sh
# scenario: uclamp actuator (kernels with CONFIG_UCLAMP_TASK, e.g. 7.x): a compute-class task gets util_min from its share; disable and unload restore its clamps, also of a clamped task its user then made SCHED_RR
# arch: any
# stock: x86_64
# topology: smp
# smp: 2
# timeout: 120
# icount: no
# debs: chrt
. "${SBRIDGE_LIB:-/sbridge/lib.sh}"

S=/sys/kernel/sbridge
umin() { awk '$1 == "uclamp.min" { print $NF }' /proc/$1/sched; }
umax() { awk '$1 == "uclamp.max" { print $NF }' /proc/$1/sched; }
plan 13

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
	for t in "rule" "util_min set" "util_max kept" "off restores" "on again" "unload restores" \
		"loads again" "a second spinner clamped" "unloads with it SCHED_RR" "the RR task's clamps are its own"; do
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

# A clamped task its user then makes SCHED_RR (chrt, rtkit): the kernel
# keeps sbridge's clamp through the policy change (it is user_defined).
# Giving it back needs the task's own RT priority in the request, or the
# kernel refuses it (review 2, N1) and the clamp stays for good.
check "sbridge loads again, uclamp on" load_sbridge act_uclamp=1
sbridgectl rules load /tmp/act.rules >/dev/null
spin 40 >/dev/null &
r=$!
n=0
while [ $n -lt 20 ] && [ "$(umin $r)" != 512 ]; do sleep 0.5; n=$((n + 1)); done
check "a second spinner clamped (util_min $(umin $r))" test "$(umin $r)" = 512
chrt -r -p 1 $r
sleep 1
diag "as SCHED_RR under sbridge: $(umin $r)/$(umax $r); $(grep '^uclamp_' $S/checker | tr '\n' ' ')"
check "sbridge unloads with it SCHED_RR" unload_sbridge
# an RT task's own clamps: util_min the RT default (1024), util_max 1024
check "unload: the RR task's clamps are its own ($(umin $r)/$(umax $r), want 1024/1024)" \
	test "$(umin $r)/$(umax $r)" = 1024/1024
kill $r; wait $r 2>/dev/null || true
