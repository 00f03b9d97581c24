#!/bin/sh
# scenario: sbridge_core loads and unloads while forks, exits and context switches storm; a counter source comes and goes under load
# arch: any
# stock: x86_64
# trixie: no
# topology: smp
# smp: 2
# timeout: 300
# icount: no
. "${SBRIDGE_LIB:-/sbridge/lib.sh}"

S=/sys/kernel/sbridge
ROUNDS=5
CHURN=20
plan $((ROUNDS * 2 + 6))

# Background load: short-lived tasks and a context-switch ping-pong, one
# after the other in one loop, so that one vCPU stays free for insmod/rmmod
# (two saturated TCG vCPUs on a busy host starve the guest's timers).
(while :; do forkstorm 1000 4 >/dev/null; pingpong 5000 >/dev/null; done) &
storm=$!
sleep 1

r=0
while [ $r -lt $ROUNDS ]; do
	r=$((r + 1))
	check "round $r: load under load" insmod $MODDIR/sbridge_core.ko
	sleep 1
	check "round $r: unload under load" rmmod sbridge_core
done

diag "rel: cycles=$ROUNDS"
# Every unload reported allocated == freed.
bad=$(dmesg | grep 'sbridge_core: task entries:' |
      awk '{ if ($(NF-3) != $(NF-1)) print }')
check "every unload freed every entry" \
	test -z "$bad" -a "$(dmesg | grep -c 'sbridge_core: task entries:')" -ge "$ROUNDS"

# Counter source churn while tasks run (the registry's RCU swap).
check "core loads for source churn" insmod $MODDIR/sbridge_core.ko
if [ -e $MODDIR/sbridge_fakesrc.ko ]; then
	n=0 fail=""
	while [ $n -lt $CHURN ]; do
		n=$((n + 1))
		insmod $MODDIR/sbridge_fakesrc.ko || fail="$fail insmod#$n"
		[ "$(cat $S/source)" = fake ] || fail="$fail source#$n"
		rmmod sbridge_fakesrc || fail="$fail rmmod#$n"
		[ "$(cat $S/source)" = none ] || fail="$fail none#$n"
	done
	check "source registered/unregistered $CHURN times under load" test -z "$fail"
	check "model sampled while the source was there" test "$(cat $S/samples)" -gt 0
else
	skip "source churn" "sbridge_fakesrc.ko not built"
	skip "samples under churn" "sbridge_fakesrc.ko not built"
fi
# The pmu source too, if it loads on this machine.
if insmod $MODDIR/sbridge_pmu.ko 2>/dev/null; then
	sleep 1
	check "sbridge_pmu unloads under load" rmmod sbridge_pmu
else
	skip "sbridge_pmu churn" "sbridge_pmu does not load here"
fi

kill $storm 2>/dev/null
wait 2>/dev/null
check "core unloads after the storm" rmmod sbridge_core
