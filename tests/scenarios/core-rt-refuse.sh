#!/bin/sh
# scenario: on Debian's PREEMPT_RT kernel sbridge_core refuses to load, says why, and leaves nothing behind; sbridge_pmu cannot load without it
# arch: any
# rt: only
# timeout: 60
. "${SBRIDGE_LIB:-/sbridge/lib.sh}"
plan 5
check "the kernel is PREEMPT_RT ($(uname -v))" sh -c 'uname -v | grep -q PREEMPT_RT'
check_fail "sbridge_core refuses to load" insmod $MODDIR/sbridge_core.ko
check "the kernel log says why" sh -c 'dmesg | grep "sbridge_core: PREEMPT_RT kernels are not supported"'
check "nothing is left behind" sh -c '! grep -q "^sbridge" /proc/modules && [ ! -e /sys/kernel/sbridge ]'
check_fail "sbridge_pmu does not load without it" insmod $MODDIR/sbridge_pmu.ko
