#!/bin/sh
# scenario: on the rig, spin and chase run alternately on the big and the little CPU; the measured big/little speedup of each is within 10 % of the rig's calibrated ratio, in order, reaches the matrix and seeds the next run; predicted and measured are shown side by side
# arch: arm64
# suite: bookworm backports
# stock: backports
# topology: 1b1s
# smp: 2
# timeout: 300
# rig: yes
. "${SBRIDGE_LIB:-/sbridge/lib.sh}"

# tools/rig/README.md calibrates the rig's asymmetry: in wall-clock terms
# spin runs 1.98-2.03x faster on big and chase 1.09-1.10x. The measured
# speedup is time per instruction on little over big from warm windows
# only, with the clock each CPU was measured to run at while busy (cycles
# over busy time: the rig has no cpufreq), so it must land on those
# ratios: within 10 %, and in order. The numbers go to the diag lines.
plan 13
check "sbridge loads on the rig's PMU" load_sbridge
# sbridge_pmu counts user mode only and the rig's PMU tells the modes
# apart (tools/rig/README.md, "Privilege modes"): no fallback to every mode
check "sbridge's events count user mode only on the rig" sh -c \
	"dmesg | grep -q 'rig PMU for.*user and kernel mode apart' && ! dmesg | grep -q 'cannot leave kernel mode out'"
check "learning on" sh -c 'sbridgectl status | grep -q "CPI learning: *yes"'
big=$(big_cpus | cut -d' ' -f1)
little=$(little_cpus | cut -d' ' -f1)
# More, shorter windows: chase retires well under a million instructions
# per second of guest time on the paced rig.
sbridgectl set param window_instr 100000 >/dev/null

# column of a task's row in `sbridgectl tasks`: 9 CPI_B, 10 PRED, 11 MEAS,
# 12 SPEEDUP
tcol() { sbridgectl tasks --pid="$1" | awk -v c="$2" 'NR == 2 { print $c }'; }
# Every window of the legs, from the sbridge_window trace event: per core
# type and kind the windows' mean CPI, modelled stall CPI, clock and time
# per instruction, and the rig's own counters, so that a measured speedup
# off the rig's can be taken apart (busybox awk: no log(), plain means).
T=/sys/kernel/tracing
echo 0 > $T/tracing_on; echo 4096 > $T/buffer_size_kb; : > $T/trace
echo 1 > $T/events/sbridge/sbridge_window/enable && echo 1 > $T/tracing_on
wins() {
	awk -v p=" pid=$1 " 'index($0, p) {
		for (i = 1; i <= NF; i++) { split($i, kv, "="); v[kv[1]] = kv[2] }
		k = "type " v["type"] " " v["kind"]
		n[k]++; cpi[k] += v["cpi"]; st[k] += v["stall"]; kh[k] += v["khz"]; tp[k] += v["tpi"]
	} END { for (k in n) printf "%s: %d windows, cpi %.2f stall %.2f khz %d tpi %.0f ps\n", k, n[k],
		cpi[k] / n[k] / 1000, st[k] / n[k] / 1000, kh[k] / n[k], tp[k] / n[k] / 16 }' $T/trace | sort
}
# on PID: SECS on big, then little, big, ... LEGS legs in all
alternate() {
	_p=$1 _s=$2 _l=$3 _c=$big
	while [ "$_l" -gt 0 ]; do
		taskset -pc $_c $_p >/dev/null
		sleep $_s
		[ $_c = $big ] && _c=$little || _c=$big
		_l=$((_l - 1))
	done
}
# x100 of a decimal, for test(1)
c100() { awk -v v="$1" 'BEGIN { if (v == "" || v == "-") print -1; else printf "%d\n", v * 100 }'; }

spin 120 >/dev/null &
pid=$!
alternate $pid 3 4
sp_pred=$(tcol $pid 10); sp_meas=$(tcol $pid 11); sp_blend=$(tcol $pid 12)
diag "$(sbridgectl tasks --pid=$pid)"
diag "$(wins $pid)"
kill $pid; wait $pid 2>/dev/null

# chase first builds its list (compute-like) on big: give that time to wash
# out of big's average before the legs.
taskset -c $big chase 16 120 >/dev/null &
pid=$!
sleep 4
alternate $pid 6 4
ch_pred=$(tcol $pid 10); ch_meas=$(tcol $pid 11); ch_blend=$(tcol $pid 12)
diag "$(sbridgectl tasks --pid=$pid)"
diag "$(wins $pid)"
echo 0 > $T/events/sbridge/sbridge_window/enable; echo 0 > $T/tracing_on
diag "$(cat "$(rig_dev)/counters")"
kill $pid; wait $pid 2>/dev/null
task_gone $pid

# the rig's calibrated ratios, +-10 % (tools/rig/README.md)
sp_lo=180 sp_hi=222 ch_lo=98 ch_hi=121
diag "spin:  predicted $sp_pred measured $sp_meas blend $sp_blend"
diag "chase: predicted $ch_pred measured $ch_meas blend $ch_blend"
diag "prediction error (predicted - measured): spin $(awk -v p=$sp_pred -v m=$sp_meas 'BEGIN { printf "%+.2f", p - m }'), chase $(awk -v p=$ch_pred -v m=$ch_meas 'BEGIN { printf "%+.2f", p - m }')"
s=$(c100 "$sp_meas"); c=$(c100 "$ch_meas")
check "spin has a measured speedup" test "$s" -ge 0
check "chase has a measured speedup" test "$c" -ge 0
check "spin's measured speedup in [$sp_lo, $sp_hi]/100 (the rig's 2.0 +- 10 %)" test "$s" -ge $sp_lo -a "$s" -le $sp_hi
# chase's own instructions are outnumbered on the rig by the guest
# kernel's timer ticks (50 x as dense as on a board: the paced guest);
# sbridge counts user mode only, which the rig's PMU honours, so its time
# per instruction is chase's own: 1.062 in two runs (every mode's counts
# gave 0.91-1.0, reported then, not asserted; tools/rig/README.md)
check "chase's measured speedup in [$ch_lo, $ch_hi]/100 (the rig's 1.1 +- 10 %)" \
	test "$c" -ge $ch_lo -a "$c" -le $ch_hi
check "spin's measured speedup exceeds chase's by >= 0.5" test "$s" -ge $((c + 50))

# Each taskset move cuts the window in progress; from an eighth of
# window_instr on it is sampled as the CPU's the task left (sample.c)
cut=$(cat /sys/kernel/sbridge/windows_cut)
check "windows the legs' moves cut short were sampled ($cut of $(cat /sys/kernel/sbridge/samples))" \
	test "$cut" -gt 0
sbridgectl matrix show > /tmp/mx
diag "$(cat /tmp/mx)"
check "spin's matrix cells carry the measured speedup" \
	awk '$1 == "spin" && $7 != "-" { f = 1 } END { exit !f }' /tmp/mx
check "chase's matrix cells carry the measured speedup" \
	awk '$1 == "chase" && $7 != "-" { f = 1 } END { exit !f }' /tmp/mx

# A new run, model frozen (no windows of its own): seeded from the matrix.
sbridgectl set param learning 0 >/dev/null
taskset -c $big spin 10 >/dev/null &
pid=$!
sleep 1
m1=$(tcol $pid 11)
kill $pid; wait $pid 2>/dev/null
sbridgectl set param learning 1 >/dev/null
diag "new spin, no windows yet: measured $m1 (from the matrix)"
check "a new spin starts with the matrix's measured speedup" \
	awk -v m="$m1" '$1 == "spin" && $7 == m { f = 1 } END { exit !f }' /tmp/mx
check "sbridge unloads" unload_sbridge
