#!/bin/sh
# scenario: emulated big.LITTLE rig: compute-bound code is >= 1.7x slower on a little core, memory-bound <= 1.2x
# arch: arm64
# suite: bookworm
# runner: rig
# topology: 1b1s
# smp: 2
# timeout: 240
# icount: no
# rig: yes
# debug: no
. "${SBRIDGE_LIB:-/sbridge/lib.sh}"

# The asserted ratios are properties of the rig's timing model
# (tools/rig/rig.conf: per-class CPI, frequency, LLC, fixed memory latency),
# measured with the rig's own cycle counter: speed = loop iterations per
# modelled microsecond of the CPU the workload is pinned to. The wall-clock
# ratios (what a task experiences) match them when the host keeps up with
# the pacing; they are judged only when the rig reports that it did (lag_ns).

plan 9

dev=
for d in /sys/bus/pci/devices/*; do
	[ "$(cat "$d/vendor" 2>/dev/null)" = 0x1af4 ] &&
	[ "$(cat "$d/device" 2>/dev/null)" = 0x1110 ] && dev=$d && break
done
if [ -z "$dev" ]; then
	i=0
	while [ $i -lt 9 ]; do i=$((i + 1)); skip "rig check $i" "no rig device (not a rig cell)"; done
	exit 0
fi
ok "rig ivshmem device present at ${dev##*/}"

if [ ! -e /sys/bus/pci/drivers/rig_pmu ]; then
	insmod $MODDIR/rig_pmu.ko 2>/tmp/rig-insmod.err
fi
if [ -r "$dev/counters" ]; then
	ok "rig_pmu driver bound"
else
	not_ok "rig_pmu driver bound" "$(cat /tmp/rig-insmod.err 2>/dev/null)"
fi
echo 1 > "$dev/pace" 2>/dev/null
check "rig pacing enabled" grep -qx 1 "$dev/pace"
check "rig_pmu registered as a perf PMU" test -d /sys/bus/event_source/devices/rig_pmu

# Pick one CPU of each type from the rig's own per-CPU records.
big=$(awk '$2 == "big" { print $1; exit }' "$dev/counters")
little=$(awk '$2 == "little" { print $1; exit }' "$dev/counters")
diag "$(cat "$dev/counters")"
if [ -z "$big" ] || [ -z "$little" ]; then
	not_ok "topology has a big and a little core" "big='$big' little='$little'"
	exit 0
fi
ok "topology has a big (cpu$big) and a little (cpu$little) core"

# snap CPU: "freq cycles lag_ns" of that CPU now
snap() { awk -v c="$1" '$1 == c { print $3, $5, $10 + 0 }' "$dev/counters"; }

# run1 CPU CMD...: run CMD pinned; sets n (its iters=/loads= work count),
# rate (its wall-clock rate=), f, cyc (modelled cycles of CPU meanwhile),
# lagpct (share of the run the host could not keep the model's pace)
run1() {
	_c=$1; shift
	_b=$(snap "$_c")
	_t0=$(awk '{ print $1 }' /proc/uptime)
	_o=$(taskset -c "$_c" "$@")
	_t1=$(awk '{ print $1 }' /proc/uptime)
	_a=$(snap "$_c")
	n=$(echo "$_o" | sed -n 's/.*iters=\([0-9]*\).*/\1/p; s/.*loads=\([0-9]*\).*/\1/p')
	rate=$(echo "$_o" | sed -n 's/.*rate=\([0-9.]*\).*/\1/p')
	set -- $_b $_a		# 1-3 before, 4-6 after
	f=$1 cyc=$(($5 - $2))
	lagpct=$(awk -v l="$(($6 - $3))" -v a="$_t0" -v b="$_t1" \
		'BEGIN { d = (b - a) * 1e9; if (d <= 0) d = 1; printf "%.1f", 100 * l / d }')
}

# measure CPU NAME ARGS-BEFORE-SECONDS: runs "NAME ARGS 1" and "NAME ARGS 3";
# the difference cancels start-up and set-up (chase builds its list), so
# model = work units per modelled microsecond of the steady loop; wall = the
# long run's own rate; lag = the worse of the two runs.
measure() {
	_cpu=$1; shift
	run1 "$_cpu" "$@" 1; _n1=${n:-0} _c1=$cyc _l1=$lagpct
	run1 "$_cpu" "$@" 3; wall=$rate
	model=$(awk -v n="$((${n:-0} - _n1))" -v c="$((cyc - _c1))" -v f="$f" \
		'BEGIN { if (c > 0 && n > 0) printf "%.4f", n * f / c; else print 0 }')
	lag=$(awk -v a="$_l1" -v b="$lagpct" 'BEGIN { if (a + 0 > b + 0) print a; else print b }')
}

measure "$big" spin;        sbw=$wall; sbm=$model; lag1=$lag
measure "$little" spin;     slw=$wall; slm=$model; lag2=$lag
measure "$big" chase 16;    mbw=$wall; mbm=$model; lag3=$lag
measure "$little" chase 16; mlw=$wall; mlm=$model; lag4=$lag
diag "spin  per model us: big $sbm little $slm; wall rate: big $sbw/s little $slw/s"
diag "chase per model us: big $mbm little $mlm; wall rate: big $mbw/s little $mlw/s"
diag "share of each run the host could not keep pace (%): $lag1 $lag2 $lag3 $lag4"

if [ -n "$sbw" ] && [ -n "$slw" ] && [ -n "$mbw" ] && [ -n "$mlw" ]; then
	ok "workloads ran on both core types"
else
	not_ok "workloads ran on both core types" "spin '$sbw' '$slw' chase '$mbw' '$mlw'"
fi

ratio() { awk -v a="$1" -v b="$2" 'BEGIN { if (b > 0) printf "%.3f", a / b; else print 0 }'; }
cr=$(ratio "$sbm" "$slm"); mr=$(ratio "$mbm" "$mlm")
crw=$(ratio "$sbw" "$slw"); mrw=$(ratio "$mbw" "$mlw")
diag "compute-bound big/little speed ratio: model $cr, wall clock $crw (Cortex-A15/A7 Dhrystone ~1.9)"
diag "memory-bound  big/little speed ratio: model $mr, wall clock $mrw"
if awk -v r="$cr" 'BEGIN { exit !(r >= 1.7) }'; then
	ok "compute-bound ratio $cr >= 1.7"
else
	not_ok "compute-bound ratio $cr >= 1.7"
fi
if awk -v r="$mr" 'BEGIN { exit !(r > 0 && r <= 1.2) }'; then
	ok "memory-bound ratio $mr <= 1.2"
else
	not_ok "memory-bound ratio $mr <= 1.2"
fi

# Wall clock: only meaningful if every run stayed on its model's pace.
maxlag=$(echo "$lag1 $lag2 $lag3 $lag4" |
	awk '{ m = $1; for (i = 2; i <= NF; i++) if ($i > m) m = $i; print m }')
if awk -v l="$maxlag" 'BEGIN { exit !(l <= 2) }'; then
	if awk -v c="$crw" -v m="$mrw" 'BEGIN { exit !(c >= 1.7 && m > 0 && m <= 1.2) }'; then
		ok "wall-clock ratios follow the model (compute $crw, memory $mrw)"
	else
		not_ok "wall-clock ratios follow the model (compute $crw, memory $mrw)"
	fi
else
	skip "wall-clock ratios follow the model" "host overloaded: lag ${maxlag}% of a run"
fi
