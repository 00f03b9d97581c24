#!/bin/sh
# scenario: arm64 1b3s board: the scheduler sees the device-tree capacities and clusters
# arch: arm64
# trixie: no
# topology: 1b3s
# smp: 4
# timeout: 60
# throttle: 0.45
. "${SBRIDGE_LIB:-/sbridge/lib.sh}"
plan 3
topo_check "1024 446 446 446"
