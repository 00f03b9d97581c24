#!/bin/sh
# scenario: the main job: an emulated big.LITTLE board running sbridge
# arch: arm64
# topology: 1b3s
# smp: 4
# throttle: 0.45
# timeout: 180
# Guest side of `make demo` (not part of the test suite): load sbridge on a
# 1 big + 3 little board whose little vCPUs the host throttles, show what it
# sees, run a mixed compute/memory workload, show what it learned.
. /sbridge/lib.sh
say() { echo; echo "== $*"; }
say "board: $(uname -r), $(nproc) CPUs, capacities: $(cat /sys/devices/system/cpu/cpu*/cpu_capacity | tr '\n' ' ')"
say "load sbridge"
load_sbridge || { echo "demo: loading sbridge failed"; exit 1; }
sbridgectl status
say "a mixed workload: 2 compute-bound (spin), 2 memory-bound (chase), 10 s"
for c in $(big_cpus) $(little_cpus); do
	echo "cpu$c: $(taskset -c $c spin 1)"
done
spin 10 > /tmp/s1 & spin 10 > /tmp/s2 &
chase 32 10 > /tmp/c1 & chase 32 10 > /tmp/c2 &
sleep 6
say "tracked tasks mid-run"
sbridgectl tasks --comm spin 2>/dev/null || sbridgectl tasks | head -n 20
sbridgectl tasks --comm chase 2>/dev/null
wait
cat /tmp/s1 /tmp/s2 /tmp/c1 /tmp/c2
say "learned scale-factor matrix"
sbridgectl matrix save /tmp/matrix && cat /tmp/matrix
say "unload"
echo "task entries allocated $(cat /sys/kernel/sbridge/allocs 2>/dev/null), freed $(cat /sys/kernel/sbridge/frees 2>/dev/null)"
unload_sbridge && echo "sbridge unloaded"
plan 1
ok "demo ran"
