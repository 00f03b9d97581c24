#!/bin/sh
# scenario: the exported in-kernel API from another module: a task's factor and scaled load per CPU, frequency hint, consumer notifications
# arch: any
# stock: x86_64
# topology: smp
# smp: 2
# timeout: 180
# icount: no
. "${SBRIDGE_LIB:-/sbridge/lib.sh}"

# tests/modules/apitest is a consumer module: "report" shows what
# sbridge_task_factor/_scaled_load/sbridge_cpu_freq_hint return for "pid".
A=/sys/module/sbridge_apitest/parameters
plan 22

core_with "consumer module loads and registers" sbridge_apitest

# A rule fixes spin's factor on type 0 (every CPU here): the API must say
# 1.5 (1536) and scale a load of 1024 to 1536.
printf 'comm=spin factor 0=1.5\n' > /tmp/api.rules
check "rule loads" sbridgectl rules load /tmp/api.rules
spin 30 >/dev/null &
p=$!
sleep 1
echo $p > $A/pid
cat $A/report > /tmp/rep
diag "$(tr '\n' ';' < /tmp/rep)"
check "factor of the ruled task on cpu0 is 1.5" grep -q '^cpu 0 factor 1536 scaled 1536 ' /tmp/rep
check "and on every CPU" test "$(grep -c ' factor 1536 scaled 1536 ' /tmp/rep)" = "$(grep -c '^cpu [0-9]' /tmp/rep)"
check "a bad CPU gets the neutral factor" grep -qx 'cpu -1 factor 1024' /tmp/rep
# The hint: the source's effective frequency, else the type's maximum
# (both unknown without cpufreq/a source here: 0 is the documented answer).
khz=$(awk '$1 == "cpu" && $2 == 0 { print $8 }' /tmp/rep)
check "frequency hint is the type's maximum (${khz:-none} kHz)" \
	test "${khz:-x}" = "$(sbridgectl --json get 0 | sed -n 's/.*"max_khz": *\([0-9]*\).*/\1/p' | head -n 1)"
echo $$ > $A/pid
check "an unruled task gets the CPU factor (1.0 here)" grep -q '^cpu 0 factor 1024 scaled 1024 ' $A/report
kill $p; wait $p 2>/dev/null
echo 999999 > $A/pid
check "a PID that does not exist is reported as such" grep -qx 'no task 999999' $A/report

# Consumers hear of factor changes.
n0=$(cat $A/notified) c0=$(cat $A/notified_cpu)
sbridgectl set cpu-factor 0 1.25 >/dev/null
i=0
while [ $i -lt 20 ] && [ "$(cat $A/notified_cpu)" = "$c0" ]; do sleep 0.2; i=$((i + 1)); done
check "set cpu-factor notifies with cpu_mask_changed ($c0 -> $(cat $A/notified_cpu))" \
	test "$(cat $A/notified_cpu)" -gt "$c0" -a "$(cat $A/notified)" -gt "$n0"
sbridgectl set cpu-factor 0 clear >/dev/null
check "registering a consumer twice is refused (rc $(cat $A/dup_rc))" test "$(cat $A/dup_rc)" = -16
check "unregistering an unknown consumer is only logged" sh -c "dmesg | grep -q 'unregister of a consumer that is not registered'"
check "consumer unloads" rmmod sbridge_apitest
# A consumer module that leaves still registered is dropped, not called.
check "a consumer that will not unregister loads" insmod $MODDIR/sbridge_apitest.ko leak=1
check "and unloads" rmmod sbridge_apitest
check "the core dropped it" sh -c "dmesg | grep -q 'consumer of module sbridge_apitest left without unregistering; dropped'"
sbridgectl set cpu-factor 0 1.25 >/dev/null
sleep 0.5
sbridgectl set cpu-factor 0 clear >/dev/null
check "later notifications reach no freed consumer" sh -c "! dmesg | grep -q -e 'Unable to handle' -e 'BUG:' -e 'Oops'"

# sbridge_topo_house_queue() (API 6, sbridge_pmu's clock sample uses it):
# a work runs on a CPU of the slowest core type; with one type, where it
# was queued. Read from cpu0, so cpu1 is the house's choice.
insmod $MODDIR/sbridge_apitest.ko
h=$(taskset -c 0 cat $A/house)
check "with one core type a house work runs where it was queued ($h)" test "$h" = "house cpu 0"
rmmod sbridge_apitest
rmmod sbridge_core
check "sbridge_core loads with cpu1 the slower type" insmod $MODDIR/sbridge_core.ko "cpu_types=0:1024;1:512"
insmod $MODDIR/sbridge_apitest.ko
h=$(taskset -c 0 cat $A/house; taskset -c 0 cat $A/house; taskset -c 0 cat $A/house)
check "queued from cpu0, a house work runs on cpu1, the slowest type ($(echo $h))" \
	test "$(echo $h)" = "house cpu 1 house cpu 1 house cpu 1"
check "the consumer unloads" rmmod sbridge_apitest
check "sbridge_core unloads" rmmod sbridge_core
