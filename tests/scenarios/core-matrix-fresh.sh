#!/bin/sh
# scenario: a running task's matrix cell is refreshed while it runs and no window is folded twice; a task run on both core types gets a measured speedup that reaches the matrix and seeds the next run
# arch: arm64
# suite: backports
# topology: 1b1s
# smp: 2
# timeout: 240
# icount: no
. "${SBRIDGE_LIB:-/sbridge/lib.sh}"

# sbridge_fakesrc (tests/modules/fakesrc) gives every window the same
# counts and the same 1 GHz clock on every CPU: a task measured on both
# core types must come out at speedup 1.0 exactly (the same time per
# instruction), while the CPI stack predicts the capacity ratio for a
# compute-bound task. The numbers test the plumbing, not the hardware
# (rig-speedup does that on the rig).
plan 20

core_with "sbridge_fakesrc loads" sbridge_fakesrc
big=$(big_cpus | cut -d' ' -f1)
little=$(little_cpus | cut -d' ' -f1)
diag "big cpu$big, little cpu$little"

# samples (windows) folded into spin's cells, all types and phases
mx_samples() {
	sbridgectl matrix show | awk -v k="$1" '$1 == k { s += $6 } END { print s + 0 }'
}
# column of a task's row in `sbridgectl tasks`: 10 PRED, 11 MEAS, 12 SPEEDUP
tcol() { sbridgectl tasks --pid="$1" | awk -v c="$2" 'NR == 2 { print $c }'; }

# --- 1. the cell of a running task is refreshed while it runs ------------
spin 60 >/dev/null &
pid=$!
i=0
while [ $i -lt 20 ] && [ "$(mx_samples spin)" -eq 0 ]; do sleep 0.5; i=$((i + 1)); done
s1=$(mx_samples spin)
sleep 3
s2=$(mx_samples spin)
diag "spin's cells while it runs: $s1 -> $s2 windows"
check "cell appears while the task runs" test "$s1" -gt 0
check "its window count grows while the task runs" test "$s2" -gt "$s1"
check "the task is still running" kill -0 $pid

# --- 2. no window twice: frozen model, nothing more to fold --------------
sbridgectl set param learning 0 >/dev/null
sleep 2.5
s3=$(mx_samples spin)
sleep 2.5
s4=$(mx_samples spin)
kill $pid; wait $pid 2>/dev/null
task_gone $pid
s5=$(mx_samples spin)
sbridgectl set param learning 1 >/dev/null
diag "learning off: $s3 -> $s4 while running, $s5 after exit"
check "no refresh without new windows" test "$s4" -eq "$s3"
check "the fold at exit adds nothing already folded" test "$s5" -eq "$s4"

# --- 3. measured speedup: run on both core types --------------------------
# A workload the matrix has not seen (its comm is the key): spin ran free
# above and has a measured speedup already.
cp "$(command -v spin)" /tmp/sbmeas
taskset -c $big /tmp/sbmeas 60 >/dev/null &
pid=$!
sleep 1
m0=$(tcol $pid 11)
taskset -pc $little $pid >/dev/null
sleep 1.5
taskset -pc $big $pid >/dev/null
sleep 1.5
pred=$(tcol $pid 10); meas=$(tcol $pid 11); sp=$(tcol $pid 12)
sbridgectl set param learn.measured 0 >/dev/null
sp_off=$(tcol $pid 12)
sbridgectl set param learn.measured 1 >/dev/null
diag "$(sbridgectl tasks --pid=$pid)"
diag "on big only: MEAS $m0"
diag "after both types: PRED $pred MEAS $meas SPEEDUP $sp; learn.measured=0: $sp_off"
check "no measurement from one core type" test "$m0" = "-"
check "measured speedup after windows on both types: 1.0 (same counts)" test "$meas" = "1.0"
check "prediction from the CPI stack and capacities (> 1.5)" \
	awk -v p="$pred" 'BEGIN { exit !(p > 1.5) }'
# Prediction and measurement count by their errors: the measurement's,
# from many windows of the same time, is far smaller than the prediction's
# 20 %, so the estimate is mostly measured (SRC meas) and lies within a
# fifth of the way from the measurement to the prediction.
src=$(tcol $pid 14)
check "the measurement counts most: SRC $src, SPEEDUP $sp within a fifth of MEAS $meas -> PRED $pred" \
	awk -v s="$sp" -v m="$meas" -v p="$pred" -v src="$src" \
	'BEGIN { exit !(src == "meas" && s >= m && s - m <= (p - m) / 5) }'
check "learn.measured=0: the blend is the prediction" test "$sp_off" = "$pred"
check "tasks --json has the speedup fields" \
	sh -c "sbridgectl --json tasks --pid=$pid | grep -q '\"speedup_pred\":.*\"speedup_meas\":1.0'"
kill $pid; wait $pid 2>/dev/null
task_gone $pid
sbridgectl matrix show > /tmp/mx
diag "$(cat /tmp/mx)"
check "its cells carry the measured speedup" \
	awk '$1 == "sbmeas" && $7 == "1.0" { f = 1 } END { exit !f }' /tmp/mx

# --- 4. the next run starts from it; save/load round-trips it -------------
# The model stays frozen from here: nothing folds while the files are made.
# The windows sampled before (this shell's too, which window_us closes
# every few milliseconds of its CPU time) are folded by the refresh,
# once a second: let it run first, or it folds them between the saves.
sbridgectl set param learning 0 >/dev/null
sleep 2.5
/tmp/sbmeas 10 >/dev/null &
pid=$!
sleep 0.5
m1=$(tcol $pid 11); sp1=$(tcol $pid 12)
kill $pid; wait $pid 2>/dev/null
diag "new run, no windows of its own: MEAS $m1 SPEEDUP $sp1"
check "a new run is seeded with the measured speedup" test "$m1" = "1.0"
sbridgectl matrix save /tmp/m1 >/dev/null
check "saved matrix has speedup=" grep -q '^key=sbmeas .* speedup=1.0' /tmp/m1
check "matrix load accepts it" sbridgectl matrix load /tmp/m1
sbridgectl matrix save /tmp/m2 >/dev/null
# Seeding reorders the LRU list: compare the entries, not their order.
sort /tmp/m1 > /tmp/m1s; sort /tmp/m2 > /tmp/m2s
cmp -s /tmp/m1s /tmp/m2s || diag "$(diff /tmp/m1s /tmp/m2s)"
check "save -> load -> save gives the same entries" cmp /tmp/m1s /tmp/m2s
sbridgectl set param learning 1 >/dev/null
check "fakesrc unloads" rmmod sbridge_fakesrc
check "sbridge_core unloads" rmmod sbridge_core
