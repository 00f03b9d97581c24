#!/bin/sh
# scenario: arm64 sym board: the scheduler sees the device-tree capacities and clusters
# arch: arm64
# trixie: no
# topology: sym
# smp: 4
# timeout: 60

. "${SBRIDGE_LIB:-/sbridge/lib.sh}"
plan 3
topo_check "1024 1024 1024 1024"
