#!/bin/sh
# scenario: the guest boots clean without sbridge (baseline for every cell)
# arch: any
# timeout: 60
. "${SBRIDGE_LIB:-/sbridge/lib.sh}"
plan 3
check "kernel release matches the packaged one" test "$(uname -r)" = "$(cat /sbridge/release)"
check "all vCPUs online" test "$(nproc)" -ge 2
check "workload programs run" spin 0.2
