#!/bin/sh
# scenario: arm64 1b3s capacity actuator: CPU factor overrides reach cpu_capacity; disable and unload restore the boot values exactly
# arch: arm64
# topology: 1b3s
# smp: 4
# timeout: 120
# throttle: 0.45
# icount: no
. "${SBRIDGE_LIB:-/sbridge/lib.sh}"

S=/sys/kernel/sbridge
caps() { cat /sys/devices/system/cpu/cpu*/cpu_capacity | tr '\n' ' '; }
lit=$(little_cpus | cut -d' ' -f1)
boot=$(caps)
plan 10

check "sbridge loads" load_sbridge
check "loading changes no capacity" test "$(caps)" = "$boot"
check "little cpu$lit factor 4.0" sbridgectl set cpu-factor $lit 4
check "capacity actuator on" sbridgectl set param act.capacity 1
sleep 1
got=$(cat /sys/devices/system/cpu/cpu$lit/cpu_capacity)
check "cpu$lit capacity is 1024/4 = 256 (got $got)" test "$got" = 256
diag "capacities now: $(caps) (boot: $boot)"
diag "$(grep '^capacity' $S/actuators)"
check "status: capacity on" grep -q '^capacity: on' $S/actuators
check "capacity actuator off" sbridgectl set param act.capacity 0
sleep 1
check "off: boot capacities back exactly ($(caps))" test "$(caps)" = "$boot"
sbridgectl set param act.capacity 1
sleep 1
diag "on again: $(caps)"
check "sbridge unloads" unload_sbridge
check "unload: boot capacities back exactly ($(caps))" test "$(caps)" = "$boot"
