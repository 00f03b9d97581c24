#!/bin/sh
# scenario: sbridge's own periodic works (the decision, the checker, the matrix refresh, the clock follow-up, sbridge_pmu's clock sample) run on a little CPU of the rig's 1 big + 3 little board, also when the modules were loaded from the big CPU, and on another little one while that CPU is offline; where counters measure the clock the cpufreq sample runs once a second; after rmmod none runs
# arch: arm64
# suite: backports
# rig: yes
# topology: 1b3s
# smp: 4
# timeout: 120
. "${SBRIDGE_LIB:-/sbridge/lib.sh}"

# A self-arming delayed work stays on the CPU it first ran on: before,
# the CPU that ran insmod, and in the evaluation's mixes sbridge's
# kworkers took about 1 % of the big CPU's time (stock's: 0.1 %).
I=/sys/kernel/tracing/instances/sbridge-house
EV=$I/events/workqueue/workqueue_execute_start
WORKS="sbridge_act_fn sbridge_checker_fn sbridge_housekeeping_fn sbridge_topo_freq_fn sbridge_pmu_sample_fn"
B=$(big_cpus | cut -d' ' -f1)
L=$(little_cpus)
plan 9

# trace_works SECONDS: sbridge's work executions for that long, one
# "CPU FUNCTION" line each, into /tmp/house
trace_works() {
	: > $I/trace
	echo 1 > $EV/enable
	sleep $1
	echo 0 > $EV/enable
	sed -n 's/.*\[0*\([0-9][0-9]*\)\].*function \(sbridge_[a-z_]*\).*/\1 \2/p' $I/trace > /tmp/house
}

mkdir $I || bail_out "no tracefs instance: $I"
taskset -p -c $B $$ > /dev/null
check "sbridge loads from big cpu$B" load_sbridge
trace_works 4
diag "works run (cpu function count): $(sort /tmp/house | uniq -c | awk '{ printf "%s %s %s; ", $2, $3, $1 }')"
missing=
for w in $WORKS; do
	grep -q " $w\$" /tmp/house || missing="$missing $w"
done
check "each of sbridge's periodic works ran in 4 s (missing:${missing:- none})" test -z "$missing"
on_big=$(awk -v b=$B '$1 == b' /tmp/house | wc -l)
n=$(grep -c ' sbridge_pmu_sample_fn$' /tmp/house)
diag "$(dmesg | grep 'sbridge_pmu: version')"
check "rig counters measure the clock: the cpufreq sample ran once a second, not ten times ($n in 4 s)" test "$n" -le 6
check "none on big cpu$B ($on_big of $(wc -l < /tmp/house))" test "$on_big" = 0
check "every one on a little cpu ($L)" \
	awk -v l=" $L " '{ if (index(l, " " $1 " ") == 0) exit 1 }' /tmp/house
# the CPU they run on goes offline: they go on, on another little CPU
H=$(sort /tmp/house | awk '{ print $1 }' | uniq -c | sort -n | tail -n 1 | awk '{ print $2 }')
# offlined from another little CPU: a timer pending on cpu$H moves to the
# CPU that takes it down, and its work runs unbound once
O=$(for c in $L; do [ $c != $H ] && echo $c; done | head -n 1)
taskset -p -c $O $$ > /dev/null
check "little cpu$H (where they ran) goes offline" sh -c "echo 0 > /sys/devices/system/cpu/cpu$H/online"
trace_works 3
diag "cpu$H offline: $(sort /tmp/house | uniq -c | awk '{ printf "%s %s %s; ", $2, $3, $1 }')"
# a work pending on cpu$H when it went down runs once where the kernel's
# unbound worker is (any CPU), then re-arms on an online little CPU
moved=$(awk -v o=$O '$1 == o' /tmp/house | wc -l)
again=$(awk -v h=$H '$1 != h' /tmp/house | sort | uniq -c | awk '$1 > 1 { print $2 " " $3 }' |
	awk -v o=$O '$1 != o' | wc -l)
check "the works went on on little cpu$O ($moved runs), each at most once elsewhere while they moved" \
	sh -c "test $moved -gt 0 && test $again = 0 &&
	       grep -q '^$O sbridge_act_fn\$' /tmp/house && grep -q '^$O sbridge_checker_fn\$' /tmp/house &&
	       grep -q '^$O sbridge_housekeeping_fn\$' /tmp/house && ! grep -q '^$H ' /tmp/house"
check "cpu$H back online" sh -c "echo 1 > /sys/devices/system/cpu/cpu$H/online"
rmmod sbridge_pmu && rmmod sbridge_core
trace_works 2
check "after rmmod none runs ($(wc -l < /tmp/house))" test ! -s /tmp/house
rmdir $I
