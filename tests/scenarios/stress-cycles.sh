#!/bin/sh
# scenario: stress: sbridge loads and unloads CYCLES times (100 in make test-debug) with every actuator on and a rule steering a fork and exec storm; then every entry allocated was freed, no task keeps a mask or clamp sbridge set, every cpufreq floor and CPU capacity is what it was
# arch: arm64
# suite: bookworm backports
# stock: backports
# topology: 1b3s
# smp: 4
# timeout: 420
# cpufreq: yes
# debug: sample
. "${SBRIDGE_LIB:-/sbridge/lib.sh}"

CYCLES=${CYCLES:-15}
S=/sys/kernel/sbridge
P=/sys/devices/system/cpu/cpufreq
ncpu=$(ls -d /sys/devices/system/cpu/cpu[0-9]* | wc -l)
all=$(printf '%x' $(( (1 << ncpu) - 1 )))
plan 8

check "cpufreq-dt loads" insmod /sbridge/kmod/cpufreq-dt.ko
settings() {
	for q in $P/policy*; do echo "${q##*/} $(cat $q/scaling_min_freq) $(cat $q/scaling_max_freq)"; done
	cat /sys/devices/system/cpu/cpu*/cpu_capacity
}
settings > /tmp/settings0
# every thread's mask and clamp before sbridge ever loads: the audit holds
# each thread that lives through to it to these
user_tasks_snapshot > /tmp/base
printf 'comm=spin class=compute\ncomm=forkstorm class=compute\n' > /tmp/st.rules

# The storm: forks in a loop, and programs started one after another.
(while :; do forkstorm 400 4 >/dev/null; done) & f1=$!
(while :; do spin 0.2 >/dev/null; done) & f2=$!
(while :; do spin 1 >/dev/null; done) & f3=$!

ACT="act_placement=1 act_uclamp=1 act_capacity=1 act_freq=1 act_period_ms=20"
c=0 lbad=""
while [ $c -lt $CYCLES ]; do
	c=$((c + 1))
	# shellcheck disable=SC2086
	if ! insmod $MODDIR/sbridge_core.ko $ACT; then lbad="$lbad load $c;"; break; fi
	insmod $MODDIR/sbridge_pmu.ko || lbad="$lbad pmu load $c;"
	sbridgectl rules load /tmp/st.rules >/dev/null || lbad="$lbad rules $c;"
	# every third cycle long enough for the actuators to act
	[ $((c % 3)) = 0 ] && sleep 1 || sleep 0.2
	unload_sbridge || { lbad="$lbad unload $c;"; break; }
done
diag "rel: cycles=$c"
check "$c load/unload cycles under the storm with every actuator on" test -z "$lbad" -a $c = $CYCLES
[ -n "$lbad" ] && diag "$lbad"

# One more time, long enough to see the actuators act, then stop the storm.
# shellcheck disable=SC2086
insmod $MODDIR/sbridge_core.ko $ACT && insmod $MODDIR/sbridge_pmu.ko
sbridgectl rules load /tmp/st.rules >/dev/null
sleep 3
diag "$(grep -e '^placement' -e '^uclamp' -e '^capacity' -e '^freq' $S/actuators | tr '\n' ';')"
# steers since this load, not tasks steered at this instant (the storm's
# children live for milliseconds)
st=$(awk '$1 == "placement_steers" { print $2 }' $S/checker)
check "the actuators act on the storm (${st:-0} steers)" test "${st:-0}" -gt 0
check "sbridge unloads mid-storm" unload_sbridge
# the audit runs with the storm still forking: its children copy whatever
# their parents hold
user_tasks_audit $all /tmp/base > /tmp/audit
kill $f1 $f2 $f3 2>/dev/null
wait 2>/dev/null

bal=$(dmesg | grep 'sbridge_core: task entries:' | awk '$(NF-3) != $(NF-1)')
n=$(dmesg | grep -c 'sbridge_core: task entries:')
check "all $n unloads freed every entry" test -z "$bal" -a "$n" -ge "$CYCLES"
[ -n "$bal" ] && diag "$bal"
check "no task keeps a mask or a clamp ($(sed -n 's/^n //p' /tmp/audit) tasks audited)" \
	sh -c '! grep -q "^mask\|^clamp" /tmp/audit'
grep "^mask\|^clamp" /tmp/audit | head -n 5 | while read -r l; do diag "$l"; done
settings > /tmp/settings1
check "cpufreq floors and CPU capacities as they were" cmp /tmp/settings0 /tmp/settings1
diff /tmp/settings0 /tmp/settings1 | head -n 6 | while read -r l; do diag "$l"; done
check "cpufreq-dt unloads" rmmod cpufreq-dt
