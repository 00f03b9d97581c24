#!/bin/sh
# scenario: the kernel changes CPU capacities after load (arm64 scales capacity-dmips-mhz by the boot clock, then by each cluster's highest OPP once cpufreq-dt registers: here the clocks boot low and cpufreq-dt comes after sbridge, as on a board that loads sbridge first): the core types keep their CPUs and take the kernel's capacities, factors and maximum frequencies; sbridge's own capacity writes are never taken for the kernel's; unload leaves the kernel's values
# arch: arm64
# topology: 1b3s
# smp: 4
# timeout: 150
# cpufreq: boot-low
# icount: no
# suite: bookworm
. "${SBRIDGE_LIB:-/sbridge/lib.sh}"

S=/sys/kernel/sbridge
cap() { cat /sys/devices/system/cpu/cpu$1/cpu_capacity; }
# type_field TYPE KEY: KEY=value of TYPE's line in $S/types
# field FILE LINE KEY: KEY=value of the line of $S/FILE that starts with LINE
field() {
	awk -v l="$2" -v k="$3=" '$1 == l { for (i = 2; i <= NF; i++)
		if (index($i, k) == 1) print substr($i, length(k) + 1) }' $S/$1
}
type_field() { field types "$1" "$2"; }
# cpu_factor CPU: the CPU's nominal factor (no frequency scaling)
cpu_factor() { field cpus "$1" factor; }
# wait_for 'SHELL TEST': up to 10 s for it to hold (the refresh is once a second)
wait_for() {
	_w=0
	until eval "$1"; do
		[ $_w -ge 40 ] && return 1
		nap 0.25; _w=$((_w + 1))
	done
}
big=$(big_cpus | cut -d' ' -f1)
lit=$(little_cpus | cut -d' ' -f1)
lits=$(little_cpus | tr ' ' ',' | sed 's/,$//')
plan 16

check "no cpufreq driver yet" test ! -e /sys/devices/system/cpu/cpufreq/policy0
raw=$(cap $lit)
check "sbridge loads before the cpufreq driver" load_sbridge
diag "types at load: $(tr '\n' ';' < $S/types)"
check "type 0 has the kernel's capacity ($(type_field 0 capacity) = $raw), no maximum ($(type_field 0 max_khz) kHz)" \
	test "$(type_field 0 capacity)" = "$raw" -a "$(type_field 0 max_khz)" = 0
f_raw=$(cpu_factor $lit)

check "cpufreq-dt loads" insmod /sbridge/kmod/cpufreq-dt.ko
wait_for '[ "$(cap $lit)" != "$raw" ]'
scaled=$(cap $lit)
check "the kernel rescales the little CPUs ($raw -> $scaled)" test "$scaled" != "$raw"
wait_for '[ "$(type_field 0 capacity)" = "$scaled" ]'
diag "types now: $(tr '\n' ';' < $S/types)"
check "type 0 follows: capacity $(type_field 0 capacity) = $scaled" test "$(type_field 0 capacity)" = "$scaled"
check "its CPUs stay ($(type_field 0 cpus), the little ones: $lits)" \
	sh -c "[ '$(type_field 0 cpus)' = 1-3 ] || [ '$(type_field 0 cpus)' = '$lits' ]"
f_scaled=$(cpu_factor $lit)
check "cpu$lit's factor follows ($f_raw -> $f_scaled)" test "$f_scaled" -gt "$f_raw"
check "the maximum frequencies are learned (big $(type_field 1 max_khz), little $(type_field 0 max_khz) kHz)" \
	test "$(type_field 0 max_khz)" -gt 0 -a "$(type_field 1 max_khz)" -gt "$(type_field 0 max_khz)"
check "the log says so" sh -c "dmesg | grep -q 'core type 0: capacity $scaled, was $raw'"

# sbridge's own write into cpu_scale is not the kernel's: nothing follows it
sbridgectl set cpu-factor $lit 4 >/dev/null
sbridgectl set param act.capacity 1 >/dev/null
wait_for '[ "$(cap $lit)" = 256 ]'
mine=$(cap $lit)
nap 3
check "sbridge's own capacity ($mine) is not followed (type 0: $(type_field 0 capacity))" \
	test "$mine" = 256 -a "$(type_field 0 capacity)" = "$scaled"
sbridgectl set param act.capacity 0 >/dev/null
sbridgectl set cpu-factor $lit 0 >/dev/null
wait_for '[ "$(cap $lit)" = "$scaled" ]'
check "the actuator off puts the kernel's capacity back ($(cap $lit))" test "$(cap $lit)" = "$scaled"
check "no reload warning: the grouping held" sh -c "! dmesg | grep -q 'reload sbridge to regroup'"
check "sbridge unloads" unload_sbridge
check "the kernel's capacities stay (cpu$lit $(cap $lit), cpu$big $(cap $big))" \
	test "$(cap $lit)" = "$scaled" -a "$(cap $big)" = 1024
check "no kernel complaint" sh -c "! dmesg | grep -e 'WARNING:' -e 'BUG:'"
