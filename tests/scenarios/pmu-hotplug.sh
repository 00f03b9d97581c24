#!/bin/sh
# scenario: sbridge_pmu survives CPU offline/online cycles while counting, and unloads at any moment (busy CPUs, a CPU offline)
# arch: arm64
# topology: sym
# smp: 4
# timeout: 240
# icount: no
. "${SBRIDGE_LIB:-/sbridge/lib.sh}"

M=$MODDIR
P=/sys/module/sbridge_pmu/parameters
C=/sys/devices/system/cpu

# CPU-bound load on every CPU so that counters run and tasks switch.
busy_pids=""
start_busy() {
	for _ in 1 2 3 4; do
		sh -c 'while :; do :; done' &
		busy_pids="$busy_pids $!"
	done
}
stop_busy() {
	# shellcheck disable=SC2086
	[ -n "$busy_pids" ] && kill $busy_pids 2>/dev/null
	wait 2>/dev/null
	busy_pids=""
}

# Offline then online every CPU but cpu0, $1 rounds; fails on the first error.
cycle_cpus() {
	r=0
	while [ $r -lt "$1" ]; do
		for c in 1 2 3; do
			echo 0 >$C/cpu$c/online || return 1
			[ "$(cat $C/cpu$c/online)" = 0 ] || return 1
			echo 1 >$C/cpu$c/online || return 1
			[ "$(cat $C/cpu$c/online)" = 1 ] || return 1
		done
		r=$((r + 1))
	done
}

# CPUs listed in the events view ("cpus 0-2,5 pmu ..." lines), counted
events_cpus() {
	sed -n 's/^cpus \([^ ]*\) pmu .*/\1/p' $P/events |
	awk '{ n = split($1, r, ","); for (i = 1; i <= n; i++) {
		if (split(r[i], b, "-") == 2) c += b[2] - b[1] + 1; else c++ } }
		END { print c + 0 }'
}

plan 11

check "sbridge_core loads" insmod $M/sbridge_core.ko
check "sbridge_pmu loads" insmod $M/sbridge_pmu.ko mem_latency_ns=100
status=$(cat $P/status)
diag "status: $status"
start_busy
check "3 offline/online rounds of cpus 1-3 while counting" cycle_cpus 3
check "events still covers all 4 CPUs" test "$(events_cpus)" = 4
check "status unchanged" test "$(cat $P/status)" = "$status"
sleep 1
check "unload while every CPU is busy" rmmod sbridge_pmu

check "reload" insmod $M/sbridge_pmu.ko mem_latency_ns=100
echo 0 >$C/cpu3/online
check "events leaves out the offline CPU" test "$(events_cpus)" = 3
check "unload with cpu3 offline" rmmod sbridge_pmu
echo 1 >$C/cpu3/online

# Online/offline with the core but no counter source, then reload on all.
check "cycles without the source loaded" cycle_cpus 1
check "reload, unload everything while busy" sh -c \
	"insmod $M/sbridge_pmu.ko mem_latency_ns=100 && sleep 1 && rmmod sbridge_pmu && rmmod sbridge_core"
stop_busy
