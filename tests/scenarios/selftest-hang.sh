#!/bin/sh
# scenario: harness self-test: a scenario that never finishes must time out
# arch: x86_64
# suite: bookworm
# timeout: 10
# expect: fail
# reason: timed out
. "${SBRIDGE_LIB:-/sbridge/lib.sh}"
plan 1
check "fault module loads in hang mode" insmod $MODDIR/sbridge_selftest_fault.ko mode=hang
# wait on the hung kthread forever, like a test stuck on a deadlocked module
while :; do sleep 1; done
