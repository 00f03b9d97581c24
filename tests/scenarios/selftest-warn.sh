#!/bin/sh
# scenario: harness self-test: a module that WARNs must fail the run
# arch: any
# suite: bookworm
# timeout: 60
# expect: fail
# reason: WARNING:
. "${SBRIDGE_LIB:-/sbridge/lib.sh}"
plan 1
check "fault module loads in warn mode" insmod $MODDIR/sbridge_selftest_fault.ko mode=warn
