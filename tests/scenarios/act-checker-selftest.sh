#!/bin/sh
# scenario: checker selftest: placement deliberately stacks two spinners on one CPU; the checker confirms the violation after M, reports it (sysfs, netlink), and placement yields
# arch: x86_64
# trixie: no
# topology: smp
# smp: 2
# timeout: 150
# icount: no
. "${SBRIDGE_LIB:-/sbridge/lib.sh}"

# What this proves: the checker's detection/confirmation/report/yield path
# on a violation sbridge itself causes on purpose (checker.selftest makes
# placement pin every hot task to one CPU, ignoring saturation). An
# unmodified CFS does not leave such violations for 100 ms on its own, so
# a scheduler-side report cannot be provoked here without a kernel patch.
S=/sys/kernel/sbridge
val() { awk -v k="$1" '$1 == k { print $2 }' $S/checker; }
full=$(taskset -p $$ | sed 's/.*: //')
plan 10

check "sbridge loads" load_sbridge
check "checker every 300 ms" sbridgectl set param checker.period_ms 300
check "selftest on" sbridgectl set param checker.selftest 1
check "placement on" sbridgectl set param act.placement 1
spin 25 >/dev/null &
p1=$!
spin 25 >/dev/null &
p2=$!
n=0
while [ $n -lt 40 ] && [ "$(val reports)" -eq 0 ]; do sleep 0.5; n=$((n + 1)); done
diag "$(cat $S/checker)"
diag "$(cat $S/reports)"
check "violation reported ($(val reports) reports)" test "$(val reports)" -ge 1
check "placement yielded to the checker" test "$(val placement_yields)" -ge 1
check "report names placement (in force, caused: 0x102)" sh -c "grep 'hints=' $S/reports | grep -q 'hints=0x1[0-9a-f][2367abef]'"
check "GET_REPORTS dump carries it" sh -c "sbridgectl check | grep -q 'invariant was violated'"
diag "$(sbridgectl check)"
sbridgectl set param act.placement 0
sleep 1
a1=$(taskset -p $p1 | sed 's/.*: //'); a2=$(taskset -p $p2 | sed 's/.*: //')
check "placement off: both spinners have their own mask back ($a1 $a2, was $full)" test "$a1" = "$full" -a "$a2" = "$full"
kill $p1 $p2 2>/dev/null
wait
check "sbridge unloads" unload_sbridge
