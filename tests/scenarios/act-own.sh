#!/bin/sh
# scenario: who owns a steered mask: a user's taskset to exactly the fast CPUs (6.2+), a cpuset move to exactly the fast CPUs, hotplug of every CPU of a steered set, a re-steer refused as a CPU goes offline (fault point): the user's, the cpuset's or the task's own mask stands, never sbridge's, and after unload too
# arch: arm64
# suite: bookworm backports
# topology: 3b1s
# smp: 4
# timeout: 240
# icount: no
# debug: sample
. "${SBRIDGE_LIB:-/sbridge/lib.sh}"

S=/sys/kernel/sbridge
G=/sys/fs/cgroup
C=/sys/devices/system/cpu
F=/sys/kernel/debug/sbridge
val() { awk -v k="$1" '$1 == k { print $2 }' $S/checker; }
mask1() { masks_of "$1" | awk '{ print $2 }'; }
# wait_mask PID MASK [TENTHS]: up to TENTHS/10 s for PID's mask to be MASK
wait_mask() {
	_i=0
	while [ $_i -lt "${3:-100}" ] && [ "$(mask1 "$1")" != "$2" ]; do nap 0.1; _i=$((_i + 1)); done
	[ "$(mask1 "$1")" = "$2" ]
}
# events that end a steering: releases and hands-offs
ends() { echo $(( $(val placement_releases) + $(val placement_user_wins) )); }
# wait_end N: up to 10 s for a steering to end after N
wait_end() {
	_i=0
	while [ $_i -lt 100 ] && [ "$(ends)" -le "$1" ]; do nap 0.1; _i=$((_i + 1)); done
}
fastm=$(printf '%x' $(( $(for c in $(big_cpus); do printf '%d+' $((1 << c)); done; echo 0) )))
plan 15

check "sbridge loads, placement on" load_sbridge act_placement=1 act_period_ms=50 act_hold_ms=200
printf 'comm=spin class=compute\n' > /tmp/own.rules
sbridgectl rules load /tmp/own.rules >/dev/null
# the work-conserving guard's yields are not this scenario's subject
sbridgectl set param checker.on 0 >/dev/null
diag "fast CPUs $(big_cpus)(mask $fastm)"

# 1. The user pins a steered task to exactly the fast CPUs: from 6.2 the
# kernel records the request (user_cpus_ptr) and the pin is the user's;
# when the task leaves the decision, nothing is given "back".
spin 200 >/dev/null & a=$!
check "a spinner is steered to the fast CPUs ($(wait_mask $a $fastm 150; mask1 $a))" test "$(mask1 $a)" = "$fastm"
e0=$(ends)
taskset -p "$fastm" $a >/dev/null
kill -STOP $a
wait_end "$e0"
if kver_ge 6.2; then
	check "the user's taskset to exactly the fast CPUs stands ($(mask1 $a))" test "$(mask1 $a)" = "$fastm"
else
	skip "the user's taskset to exactly the fast CPUs stands" \
		"$(kver) keeps no record of a user's request: taken for sbridge's (docs/reliability.md)"
fi

# 2. A steered task moved into a cpuset of exactly the fast CPUs: the
# move (another cpuset css) makes the mask the cpuset's; giving the old
# mask "back" would let the task out of its cpuset.
havecg=0
if { grep -q " $G cgroup2 " /proc/mounts || mount -t cgroup2 none $G 2>/dev/null; } &&
	echo +cpuset > $G/cgroup.subtree_control && mkdir -p $G/fast &&
	echo "$(big_cpus | tr ' ' ',' | sed 's/,$//')" > $G/fast/cpuset.cpus; then
	havecg=1
fi
spin 200 >/dev/null & b=$!
check "a second spinner is steered ($(wait_mask $b $fastm 150; mask1 $b))" test "$(mask1 $b)" = "$fastm"
if [ $havecg = 1 ]; then
	e0=$(ends)
	echo $b > $G/fast/cgroup.procs
	kill -STOP $b
	wait_end "$e0"
	check "moved into a cpuset of exactly the fast CPUs, it keeps the cpuset's mask ($(mask1 $b))" \
		test "$(mask1 $b)" = "$fastm"
else
	kill -STOP $b
	skip "moved into a cpuset of exactly the fast CPUs, it keeps the cpuset's mask" "no cgroup v2 cpuset"
fi

# 3. Every CPU of a steered set goes offline: the kernel's fallback widens
# the mask past the user's own (here it excludes CPU 0); the task gets its
# own mask back, not the fallback, and not hands off.
taskset -c 1-3 spin 200 >/dev/null & c=$!
check "a spinner allowed CPUs 1-3 is steered to 1-2 ($(wait_mask $c 6 150; mask1 $c))" test "$(mask1 $c)" = 6
f0=$(val placement_fallbacks)
echo 0 > $C/cpu1/online && echo 0 > $C/cpu2/online
check "with CPUs 1-2 offline it has its own mask 1-3 ($(wait_mask $c e 50; mask1 $c))" test "$(mask1 $c)" = e
check "placement counted the fallback ($f0 -> $(val placement_fallbacks))" test "$(val placement_fallbacks)" -gt "$f0"
echo 1 > $C/cpu1/online && echo 1 > $C/cpu2/online
kill -STOP $c

# 4. A re-steer the kernel refuses, as a CPU goes offline under it (the
# fault point stands for the race): the record keeps saying what the task
# holds, so its own mask comes back in the end, not the narrowed one.
grep -qs ' /sys/kernel/debug ' /proc/mounts || mount -t debugfs none /sys/kernel/debug 2>/dev/null
if [ -w $F/fail_write/probability ]; then
	echo 0 > $F/fail_write/verbose
	taskset -c 1-3 spin 200 >/dev/null & d=$!
	check "a fourth spinner is steered to 1-2 ($(wait_mask $d 6 150; mask1 $d))" test "$(mask1 $d)" = 6
	echo 1 > $F/fail_write/times
	echo 100 > $F/fail_write/probability
	echo 0 > $C/cpu2/online
	nap 1
	check "the re-steer was refused ($(cat $F/fail_write/times) failures left)" test "$(cat $F/fail_write/times)" = 0
	echo 0 > $F/fail_write/probability
	echo 1 > $C/cpu2/online
	e0=$(ends)
	kill -STOP $d
	wait_end "$e0"
	check "released, it has its own mask 1-3 ($(wait_mask $d e 50; mask1 $d))" test "$(mask1 $d)" = e
else
	skip "a fourth spinner is steered" "no sbridge fault points (kernel without CONFIG_FAULT_INJECTION_DEBUG_FS)"
	skip "the re-steer was refused" "no sbridge fault points"
	skip "released, it has its own mask 1-3" "no sbridge fault points"
fi

check "sbridge unloads" unload_sbridge
if kver_ge 6.2; then
	check "after unload the user's pin stands ($(mask1 $a))" test "$(mask1 $a)" = "$fastm"
else
	skip "after unload the user's pin stands" "$(kver) keeps no record of a user's request"
fi
if [ $havecg = 1 ]; then
	check "after unload the cpuset's mask stands ($(mask1 $b))" test "$(mask1 $b)" = "$fastm"
else
	skip "after unload the cpuset's mask stands" "no cgroup v2 cpuset"
fi
check "after unload the hotplugged task keeps its own mask 1-3 ($(mask1 $c))" test "$(mask1 $c)" = e
# shellcheck disable=SC2086
kill -9 $a $b $c ${d:-} 2>/dev/null
wait 2>/dev/null
[ $havecg = 1 ] && rmdir $G/fast 2>/dev/null
true
