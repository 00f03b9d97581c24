#!/bin/sh
# scenario: harness self-test: a module that oopses must fail the run
# arch: any
# suite: bookworm
# timeout: 60
# expect: fail
# reason: Oops|BUG: kernel NULL
. "${SBRIDGE_LIB:-/sbridge/lib.sh}"
plan 1
check "fault module loads in oops mode" insmod $MODDIR/sbridge_selftest_fault.ko mode=oops
sleep 2
