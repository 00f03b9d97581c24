#!/bin/sh
# scenario: both modules load, report their version, and unload cleanly
# arch: any
# board: yes
# timeout: 90
. "${SBRIDGE_LIB:-/sbridge/lib.sh}"
plan 8
check "sbridge_core loads" insmod $MODDIR/sbridge_core.ko
check "sbridge_pmu loads" insmod $MODDIR/sbridge_pmu.ko
check "version in sysfs" test -s /sys/kernel/sbridge/version
diag "version $(cat /sys/kernel/sbridge/version 2>/dev/null)"
check "core refuses to unload while the source uses it" sh -c '! rmmod sbridge_core 2>/dev/null'
check "modules stay loaded under a short workload" forkstorm 200
check "sbridge_pmu unloads" rmmod sbridge_pmu
check "sbridge_core unloads" rmmod sbridge_core
check "nothing left in sysfs" test ! -e /sys/kernel/sbridge
