#!/bin/sh
# scenario: work-conserving checker stays quiet on a healthy busy system (20 s here; the 60 s of issue 5 is the bench length) and ignores violations pinning makes unavoidable
# arch: x86_64
# trixie: no
# topology: smp
# smp: 2
# timeout: 150
# icount: no
. "${SBRIDGE_LIB:-/sbridge/lib.sh}"

S=/sys/kernel/sbridge
val() { awk -v k="$1" '$1 == k { print $2 }' $S/checker; }
plan 12

check "sbridge loads" load_sbridge
check "status lists every actuator" sh -c "grep -q '^capacity: ' $S/actuators && grep -q '^placement: on (idle: one core type' $S/actuators && grep -q '^uclamp: ' $S/actuators && grep -q '^freq: ' $S/actuators && grep -q '^checker: on' $S/actuators"
diag "$(cat $S/actuators)"
if [ "$(uname -m)" = x86_64 ]; then
	check "x86: capacity says why it is unavailable" grep -q '^capacity: unavailable: no writable per-CPU capacity' $S/actuators
else
	check "arm64: capacity available (off)" grep -q '^capacity: off' $S/actuators
fi
if [ -d /sys/devices/system/cpu/cpufreq/policy0 ]; then
	check "freq: cpufreq present, actuator off" grep -q '^freq: off' $S/actuators
else
	check "freq: says no cpufreq" grep -q '^freq: unavailable: no cpufreq' $S/actuators
fi
check "checker period 250 ms" sbridgectl set param checker.period_ms 250
check "bad checker period refused" sh -c "! sbridgectl set param checker.period_ms 1"

# Healthy and busy: one spinner per CPU plus a fork storm, 20 s.
c0=$(val checks)
for c in $(seq 1 $(nproc)); do spin 20 >/dev/null & done
forkstorm 3000 4 >/dev/null &
fs=$!
wait
c1=$(val checks)
diag "$(cat $S/checker)"
check "checker ran during the load ($c0 -> $c1 checks)" test "$c1" -gt $((c0 + 20))
check "no report on a healthy busy system" test "$(val reports)" -eq 0
check "sbridgectl check: invariant held" sh -c "sbridgectl check | grep -q '^0 reports: work-conserving invariant held'"

# Two spinners pinned to cpu0, cpu1 idle: the affinity makes it unavoidable.
u0=$(val unavoidable)
taskset -c 0 spin 6 >/dev/null &
taskset -c 0 spin 6 >/dev/null &
wait
diag "$(cat $S/checker)"
check "pinned-unavoidable violations were seen ($u0 -> $(val unavoidable))" test "$(val unavoidable)" -gt "$u0"
check "and never reported" test "$(val reports)" -eq 0
check "sbridge unloads" unload_sbridge
