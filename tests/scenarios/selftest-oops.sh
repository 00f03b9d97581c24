#!/bin/sh
# scenario: harness self-test: a module that oopses must fail the run
# arch: any
# suite: bookworm
# timeout: 60
# expect: fail
# reason: Oops|BUG: kernel NULL|general protection fault
. "${SBRIDGE_LIB:-/sbridge/lib.sh}"
# x86 with KASAN: the shadow check of the near-NULL address faults first,
# as a general protection fault (an oops without the word)
plan 1
check "fault module loads in oops mode" insmod $MODDIR/sbridge_selftest_fault.ko mode=oops
sleep 2
