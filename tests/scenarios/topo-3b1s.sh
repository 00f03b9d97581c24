#!/bin/sh
# scenario: arm64 3b1s board: the scheduler sees the device-tree capacities and clusters
# arch: arm64
# topology: 3b1s
# smp: 4
# timeout: 60
# throttle: 0.45
. /sbridge/lib.sh
expect="1024 1024 1024 446"
plan 3
got=$(cat /sys/devices/system/cpu/cpu*/cpu_capacity 2>/dev/null | tr '\n' ' ' | sed 's/ $//')
check "cpu_capacity is $expect" test "$got" = "$expect"
# big and little CPUs sit in different clusters (cpu-map), like on a board
if [ "$(echo $expect | tr ' ' '\n' | sort -u | wc -l)" -gt 1 ]; then
	b=$(big_cpus | cut -d' ' -f1); l=$(little_cpus | cut -d' ' -f1)
	cb=$(cat /sys/devices/system/cpu/cpu$b/topology/cluster_cpus_list 2>/dev/null)
	cl=$(cat /sys/devices/system/cpu/cpu$l/topology/cluster_cpus_list 2>/dev/null)
	check "big cpu$b and little cpu$l in different clusters ($cb / $cl)" test -n "$cb" -a "$cb" != "$cl"
else
	check "one cluster" test "$(cat /sys/devices/system/cpu/cpu0/topology/cluster_cpus_list)" = "0-$(($(nproc) - 1))"
fi
# speed per CPU, for the record only (host timing is never asserted)
for c in $(seq 0 $(($(nproc) - 1))); do
	diag "cpu$c capacity $(cat /sys/devices/system/cpu/cpu$c/cpu_capacity): $(taskset -c $c spin 0.5)"
done
d=/sys/kernel/debug/sched/domains/cpu0
if [ ! -d $d ]; then
	skip "SD_ASYM_CPUCAPACITY in cpu0's sched domains" "no $d (sched_verbose off)"
elif [ "$(echo $expect | tr ' ' '\n' | sort -u | wc -l)" -gt 1 ]; then
	check "SD_ASYM_CPUCAPACITY in cpu0's sched domains" sh -c "cat $d/domain*/flags | grep -q SD_ASYM_CPUCAPACITY"
else
	check "no SD_ASYM_CPUCAPACITY on a symmetric board" sh -c "! cat $d/domain*/flags | grep -q SD_ASYM_CPUCAPACITY"
fi
