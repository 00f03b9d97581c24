#!/bin/sh
# scenario: arm64 3b1s board: the scheduler sees the device-tree capacities and clusters
# arch: arm64
# trixie: no
# suite: backports
# topology: 3b1s
# smp: 4
# timeout: 60
# throttle: 0.45
. "${SBRIDGE_LIB:-/sbridge/lib.sh}"
plan 3
topo_check "1024 1024 1024 446"
