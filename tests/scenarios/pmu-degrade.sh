#!/bin/sh
# scenario: sbridge_pmu probes its counters, says exactly what it degrades to, stays loaded; bad parameters fail cleanly
# arch: any
# topology: smp
# smp: 2
# timeout: 180
# icount: no
. "${SBRIDGE_LIB:-/sbridge/lib.sh}"

M=$MODDIR
P=/sys/module/sbridge_pmu/parameters
TAIL="learning off; rules and static factors still apply"
case "$(uname -m)" in
x86_64)  want="no counters: $TAIL" ;;	# TCG: no PMU at all
aarch64) want="cycles only: $TAIL" ;;	# TCG: cycles, instructions only with -icount
*)       want="" ;;
esac

# dmesg lines printed since mark_dmesg
mark_dmesg() { mark=$(dmesg | wc -l); }
new_dmesg() { dmesg | tail -n +$((mark + 1)); }

# insmod must fail, print $2 in dmesg and leave no module behind
bad_param() {
	desc=$1 pattern=$2
	shift 2
	mark_dmesg
	if insmod $M/sbridge_pmu.ko "$@" 2>/dev/null; then
		not_ok "$desc is rejected" "insmod succeeded"
		rmmod sbridge_pmu
	elif [ -d /sys/module/sbridge_pmu ]; then
		not_ok "$desc is rejected" "module left behind"
	elif ! new_dmesg | grep -q "sbridge_pmu: .*$pattern"; then
		not_ok "$desc is rejected" "no message matching '$pattern'"
	else
		ok "$desc is rejected with a message, nothing left"
	fi
}

plan 18

check "sbridge_core loads" insmod $M/sbridge_core.ko

bad_param "raw_events without key" "raw_events: .*no 'key:'" raw_events=cycles=0x11
bad_param "raw_events unknown kind" "raw_events: unknown event" 'raw_events=*:branches=0x11'
bad_param "raw_events bad code" "raw_events: bad code" 'raw_events=*:llc_misses=0x17,stall_cycles=xyz'
bad_param "raw_events duplicate kind" "raw_events: .*given twice" 'raw_events=*:cycles=0x11,cycles=0x11'
bad_param "mem_latency_ns out of range" "mem_latency_ns=200000 out of range" mem_latency_ns=200000
bad_param "writing the read-only status" "status is read-only" status=x

mark_dmesg
check "loads with mem_latency_ns=123 and a raw code for an absent PMU" \
	insmod $M/sbridge_pmu.ko mem_latency_ns=123 'raw_events=nosuch_pmu:llc_misses=0x2a'
check "mem_latency_ns shows the value in use" test "$(cat $P/mem_latency_ns)" = 123

status=$(cat $P/status)
diag "status: $status"
new_dmesg | grep 'sbridge_pmu' | while read -r l; do diag "$l"; done
if [ -n "$want" ]; then
	check "status says what this guest has" test "$status" = "$want"
	check "dmesg says exactly the same" sh -c 'dmesg | grep -qF "$1"' _ "sbridge_pmu: $want"
else
	skip "status says what this guest has" "unknown arch $(uname -m)"
	skip "dmesg says exactly the same" "unknown arch $(uname -m)"
fi

# events: one line per core type, covering every online CPU
ev=$(cat $P/events)
echo "$ev" | while read -r l; do diag "events: $l"; done
# number of CPUs in cpu lists like "0-2,5", one list per input line, summed
count_cpus() {
	awk '{ n = split($1, r, ","); for (i = 1; i <= n; i++) {
		if (split(r[i], b, "-") == 2) c += b[2] - b[1] + 1; else c++ } }
		END { print c + 0 }'
}
check "events covers every online CPU once" test \
	"$(echo "$ev" | sed -n 's/^cpus \([^ ]*\) pmu .*/\1/p' | count_cpus)" = \
	"$(count_cpus </sys/devices/system/cpu/online)"

# Some work and some sleep: context switches reach the source.
i=0
while [ $i -lt 20000 ]; do i=$((i + 1)); done
sleep 1
counts=$(cat $P/counts)
echo "$counts" | while read -r l; do diag "counts: $l"; done
# what the core saw, for a failure report
seen="counts: $(echo "$counts" | tr '\n' ';') core switches $(cat /sys/kernel/sbridge/switches) source $(cat /sys/kernel/sbridge/source)"
# shellcheck disable=SC2046
set -- $(echo "$counts" | awk '{ r += $3; c += $5 } END { print r + 0, c + 0 }')
cmp_ok() { if test "$2" "$3" "$4"; then ok "$1"; else not_ok "$1" "$seen"; fi; }
cmp_ok "the core reads the counters at context switches" "$1" -gt 0
case "$want" in
"cycles only"*) cmp_ok "cycles are counted" "$2" -gt 0 ;;
*) cmp_ok "nothing is counted without counters" "$2" -eq 0 ;;
esac
check "still loaded and registered after 1 s" test -d /sys/module/sbridge_pmu
# A raw code replaces the generic event where the PMU takes it; an entry
# naming the CPU's PMU is matched before "*".
if [ "$(uname -m)" = aarch64 ]; then
	pmu=$(sed -n 's/^cpus [^ ]* pmu \([^ ]*\) .*/\1/p' $P/events | head -n 1)
	# 0x11 is CPU_CYCLES in the Armv8 PMUv3 common events
	if rmmod sbridge_pmu && insmod $M/sbridge_pmu.ko mem_latency_ns=100 \
		"raw_events=*:cycles=0x12;$pmu:cycles=0x11"; then
		cat $P/events | while read -r l; do diag "events: $l"; done
		check "raw cycles code of the named PMU is used on every CPU" sh -c \
			"! grep -v ' cycles(raw)' $P/events | grep -q ."
	else
		not_ok "raw cycles code of the named PMU is used on every CPU" "insmod failed"
	fi
else
	skip "raw cycles code of the named PMU is used on every CPU" "no PMU in this guest"
fi
check "unloads" rmmod sbridge_pmu

# Calibrated latency, then unload everything.
if insmod $M/sbridge_pmu.ko && [ "$(cat $P/mem_latency_ns)" -gt 0 ]; then
	diag "calibrated memory latency: $(cat $P/mem_latency_ns) ns"
	rmmod sbridge_pmu && rmmod sbridge_core
	ok "loads with a measured memory latency, unloads"
else
	not_ok "loads with a measured memory latency, unloads"
	rmmod sbridge_pmu 2>/dev/null
	rmmod sbridge_core 2>/dev/null
fi
