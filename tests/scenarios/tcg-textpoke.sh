#!/bin/sh
# scenario: stock kernel survives toggling sched_switch under load (the testbed avoids the TCG text_poke race)
# arch: x86_64
# suite: trixie
# timeout: 120
. "${SBRIDGE_LIB:-/sbridge/lib.sh}"
plan 1
pingpong 3000000 >/dev/null & p=$!
t=/sys/kernel/tracing/events/sched/sched_switch/enable
i=0
while [ $i -lt 100 ]; do echo 1 > $t; echo 0 > $t; i=$((i+1)); done
kill $p 2>/dev/null
ok "100 toggles done"
