#!/bin/sh
# scenario: sbridge_pmu's events per core model fall back step by step as the rig's PMU loses events (rig_pmu refuse=, hide=, counters=): event_table names the event each kind counts and what a fallback costs, the core shows each CPU's PMU and chosen chain through the source's ops (get, status), the fallback event counts a pointer chaser's misses and stalls, status says what is missing, and raw_events= still wins
# arch: arm64
# suite: bookworm
# topology: 1b1s
# smp: 2
# timeout: 240
# rig: yes
# debug: no
. "${SBRIDGE_LIB:-/sbridge/lib.sh}"

# The rig's PMU is numbered as Arm PMUv3's common events on both guest
# architectures and has no PMCEID: an event it lacks fails to open, so the
# chains of pmu-monitor/evtab.c's "rig" entry (the PMUv3 ones) run step
# by step here. The table's per-core choices are unit-tested on the host
# (tests/unit/test_evtab.c); this checks the module opens what they say.
P=/sys/module/sbridge_pmu/parameters
plan 17

# reload the rig's PMU with ARGS, then sbridge
reload() {
	unload_sbridge
	rmmod rig_pmu 2>/dev/null
	insmod $MODDIR/rig_pmu.ko "$@" && load_sbridge
}
# sum of kind $1 over the CPUs' counts
total() { awk -v k="$1" '{ for (i = 1; i < NF; i++) if ($i == k) s += $(i + 1) } END { print s + 0 }' $P/counts; }
# does kind $1 count while a pointer chaser runs?
counts_chase() {
	_a=$(total "$1")
	chase 8 1 >/dev/null
	_b=$(total "$1")
	[ "$_b" -gt "$_a" ] || { echo "$1: $_a -> $_b"; return 1; }
}
# every event_table line says each of "$@" (fixed strings)
table_says() {
	while read -r l; do diag "event_table: $l"; done < $P/event_table
	grep -q . $P/event_table || return 1
	for _s; do
		! grep -vqF -- "$_s" $P/event_table || return 1
	done
}

# every CPU's PMU is the rig's and its chain "$1", as the core shows them
# (the source's .pmu op, SBRIDGE_A_CPU_PMU*, `sbridgectl --json get`)
core_says() {
	_j=$(sbridgectl --json get) || return 1
	# one CPU a line: busybox grep -o stops at a line's first fixed string
	_n=$(echo "$_j" | tr '{' '\n' | grep -c '"cpu":')
	_m=$(echo "$_j" | tr '{' '\n' | grep -cF "\"pmu\":\"rig_pmu\",\"pmu_chain\":\"$1\"")
	[ "$_n" -gt 0 ] && [ "$_n" -eq "$_m" ] || { echo "$_m of $_n CPUs: $_j"; return 1; }
}

# --- the full rig: LL_CACHE_MISS_RD is not served, LL_CACHE_MISS is ------
check "loads on the rig's PMU" reload
check "rig entry: llc_misses from LL_CACHE_MISS (0x37 not served: fallback 1)" \
	table_says "core rig: cycles generic; instructions generic; llc_misses LL_CACHE_MISS 0x33, fallback: counts write misses too"
check "stall_cycles from STALL_BACKEND_MEM, no fallback" \
	table_says "; stall_cycles STALL_BACKEND_MEM 0x4005"
check "learning on, nothing missing ($(cat $P/status))" grep -qx 'learning on' $P/status
sbridgectl status | tail -n 3 | while read -r l; do diag "status: $l"; done
check "the core names each CPU's PMU and the chain it took (get --json)" \
	core_says "rig: llc_misses LL_CACHE_MISS (fallback), stall_cycles STALL_BACKEND_MEM"
check "status shows them in its CPU table" sh -c \
	"sbridgectl status | grep -qE ' rig_pmu +rig: llc_misses LL_CACHE_MISS \(fallback\), stall_cycles STALL_BACKEND_MEM\$'"

# --- no LL_CACHE_MISS, no STALL_BACKEND_MEM: the next steps ---------------
check "loads with refuse=0x33,0x4005" reload refuse=0x33,0x4005
check "llc_misses falls back to L2D_CACHE_REFILL, stall_cycles to STALL_BACKEND" \
	table_says "llc_misses L2D_CACHE_REFILL 0x17, fallback: L2 refills" \
		"; stall_cycles STALL_BACKEND 0x24, fallback: every backend stall"
check "the core's view follows the fallbacks" \
	core_says "rig: llc_misses L2D_CACHE_REFILL (fallback), stall_cycles STALL_BACKEND (fallback)"
check "the fallback LLC event counts a pointer chaser's misses" counts_chase llc_misses
check "the fallback stall event counts its stalls" counts_chase stall_cycles

# --- no miss event at all: the kind is missing, the stall event stands in -
check "loads with refuse=0x33,0x17" reload refuse=0x33,0x17
check "llc_misses none, status says so ($(cat $P/status))" \
	sh -c "grep -qF 'llc_misses none;' $P/event_table && grep -qx 'learning on (missing: llc_misses)' $P/status"

# --- fewer counters: three pinned, the stall chain finds no counter --------
check "loads with counters=3" reload counters=3
check "stall_cycles none with three counters" \
	sh -c "grep -qF 'stall_cycles none' $P/event_table && grep -qF 'llc_misses LL_CACHE_MISS' $P/event_table"

# --- raw_events= wins over the table, kind by kind ------------------------
unload_sbridge
rmmod rig_pmu
insmod $MODDIR/rig_pmu.ko
insmod $MODDIR/sbridge_core.ko
check "loads with raw_events=rig_pmu:llc_misses=0x17" \
	insmod $MODDIR/sbridge_pmu.ko raw_events=rig_pmu:llc_misses=0x17
check "llc_misses from raw_events, stall_cycles still from the table" \
	table_says "llc_misses raw_events; stall_cycles STALL_BACKEND_MEM 0x4005"
unload_sbridge
rmmod rig_pmu
