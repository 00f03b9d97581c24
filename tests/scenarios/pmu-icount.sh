#!/bin/sh
# scenario: with -icount the arm64 PMU counts instructions, so sbridge_pmu turns learning on
# arch: arm64
# topology: sym
# smp: 2
# timeout: 180
# icount: yes
. "${SBRIDGE_LIB:-/sbridge/lib.sh}"

M=$MODDIR
P=/sys/module/sbridge_pmu/parameters

plan 7

check "sbridge_core loads" insmod $M/sbridge_core.ko
check "sbridge_pmu loads" insmod $M/sbridge_pmu.ko mem_latency_ns=100
status=$(cat $P/status)
diag "status: $status"
cat $P/events | while read -r l; do diag "events: $l"; done
case "$status" in
"learning on"*) ok "status says learning on" ;;
*) not_ok "status says learning on" "$status (QEMU counts instructions only with precise -icount shift=N, not shift=auto)" ;;
esac
check "dmesg says learning on" sh -c "dmesg | grep -q 'sbridge_pmu: learning on'"
check "every CPU counts cycles and instructions" sh -c \
	"! grep -v ' cycles instructions' $P/events | grep -q ."
i=0
while [ $i -lt 20000 ]; do i=$((i + 1)); done
cat $P/counts | while read -r l; do diag "counts: $l"; done
# shellcheck disable=SC2046
set -- $(awk '{ c += $5; i += $7 } END { print c + 0, i + 0 }' $P/counts)
check "cycles and instructions reach the core" test "$1" -gt 0 -a "$2" -gt 0
check "unloads" sh -c "rmmod sbridge_pmu && rmmod sbridge_core"
