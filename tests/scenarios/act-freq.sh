#!/bin/sh
# scenario: frequency-floor actuator on a board with cpufreq (cpufreq-dt, one policy per cluster): a compute-class task raises its policy's scaling_min_freq, nothing else moves; exit, disable and unload put every policy back; the cpufreq driver can go and come back under a floor
# arch: arm64
# topology: 1b3s
# smp: 4
# timeout: 150
# cpufreq: yes
. "${SBRIDGE_LIB:-/sbridge/lib.sh}"

S=/sys/kernel/sbridge
P=/sys/devices/system/cpu/cpufreq
limits() { for q in $P/policy*; do echo "${q##*/} $(cat $q/scaling_min_freq) $(cat $q/scaling_max_freq)"; done; }
# wait_min POLICY KHZ: up to 10 s for POLICY's floor to settle at KHZ
wait_min() {
	_i=0
	while [ $_i -lt 40 ] && [ "$(cat $P/$1/scaling_min_freq)" != "$2" ]; do sleep 0.25; _i=$((_i + 1)); done
	[ "$(cat $P/$1/scaling_min_freq)" = "$2" ]
}
# why PID: what the actuator's inputs were, for a failed check
why() {
	diag "task $1: $(grep -E 'util_avg' /proc/$1/sched 2>/dev/null | tr -s ' \n' ' ')"
	diag "cur kHz: $(cat $P/policy*/scaling_cur_freq | tr '\n' ' ') $(grep '^freq' $S/actuators)"
	diag "$(sbridgectl tasks --pid=$1 2>&1 | tr '\n' ';')"
}
# max_khz CPU: what sbridge's topology collector says of CPU's type
max_khz() { sbridgectl --json get $1 | sed -n 's/.*"max_khz": *\([0-9]*\).*/\1/p' | head -n 1; }
plan 21

check "cpufreq-dt loads" insmod /sbridge/kmod/cpufreq-dt.ko
sleep 1
check "one policy per cluster (big: $(cat $P/policy0/related_cpus 2>&1), little: $(cat $P/policy1/related_cpus 2>&1))" \
	test "$(cat $P/policy0/related_cpus)" = 0 -a "$(cat $P/policy1/related_cpus)" = "1 2 3"
diag "governor $(cat $P/policy0/scaling_governor); limits: $(limits | tr '\n' ';')"
before=$(limits)
bmax=$(cat $P/policy0/cpuinfo_max_freq) bmin=$(cat $P/policy0/scaling_min_freq)
lmin=$(cat $P/policy1/scaling_min_freq)

check "sbridge loads" load_sbridge
check "status: freq actuator present and off ($(grep '^freq' $S/actuators))" grep -qx 'freq: off' $S/actuators
check "topology reads each type's maximum from cpufreq (big $(max_khz 0), little $(max_khz 1) kHz)" \
	test "$(max_khz 0)" = "$bmax" -a "$(max_khz 1)" = "$(cat $P/policy1/cpuinfo_max_freq)"

printf 'comm=spin class=compute\ncomm=chase class=memory\n' > /tmp/freq.rules
check "rules: spin compute, chase memory" sbridgectl rules load /tmp/freq.rules
taskset -c 0 spin 120 >/dev/null &
sp=$!
taskset -c 1 chase 64 120 >/dev/null &
cp=$!
sleep 1
sbridgectl set param act.freq 1
check "compute-class task on the big cluster: its floor rises to share 1.0 x max = $bmax kHz" \
	wait_min policy0 "$bmax"
diag "limits with the floor: $(limits | tr '\n' ';')"
why $sp
check "status: freq on" grep -qx 'freq: on' $S/actuators
check "memory-class task on the little cluster: floor untouched ($(cat $P/policy1/scaling_min_freq), was $lmin)" \
	test "$(cat $P/policy1/scaling_min_freq)" = "$lmin"
check "no policy's maximum moved" test "$(limits | awk '{ print $3 }')" = "$(echo "$before" | awk '{ print $3 }')"

kill $sp; wait $sp 2>/dev/null
check "task gone: floor dropped back to $bmin" wait_min policy0 "$bmin"
taskset -c 0 spin 120 >/dev/null &
sp=$!
check "task back: floor up again" wait_min policy0 "$bmax"
sbridgectl set param act.freq 0
check "disabled: floor back to $bmin" wait_min policy0 "$bmin"
sbridgectl set param act.freq 1
check "enabled again: floor up" wait_min policy0 "$bmax"
# The driver goes while sbridge holds a request on its policy: the request
# must be dropped before the policy is freed, and the new policy gets one.
check "cpufreq-dt unloads under sbridge's floor" rmmod cpufreq-dt
check "status: no cpufreq now ($(grep '^freq' $S/actuators))" grep -q '^freq: unavailable: no cpufreq' $S/actuators
check "cpufreq-dt loads again" insmod /sbridge/kmod/cpufreq-dt.ko
check "the new big policy gets the floor" wait_min policy0 "$bmax"
check "sbridge unloads while the floor is up" unload_sbridge
check "unload: every policy's limits exactly as before" test "$(limits)" = "$before"
kill $sp $cp; wait 2>/dev/null
check "cpufreq-dt unloads" rmmod cpufreq-dt
