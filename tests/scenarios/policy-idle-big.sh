#!/bin/sh
# scenario: two equal predictions are a tie left to the stock scheduler (act.margin); with act.margin 0, an idle big core is a loss: two equal compute-bound tasks take turns on the one big CPU (neither starved), a memory-leaning one stays little while they want it; when the holder exits the other moves up at once (a decision kicked by the idle big CPU, not the next period); once both are gone the memory-leaning one fills the big CPU
# arch: arm64
# suite: backports
# trixie: no
# topology: 1b3s
# smp: 4
# timeout: 180
# icount: no
. "${SBRIDGE_LIB:-/sbridge/lib.sh}"

# sbridge_fakesrc: spin compute-bound (predicted speedup = the capacity
# ratio, 2.3 here), chase memory-leaning (1.26). One big CPU.
S=/sys/kernel/sbridge
mask_of() { taskset -p $1 2>/dev/null | sed 's/.*: //'; }
why() { sed -n 's/^mode: //p' $S/actuators; }
early() { sed -n 's/^decisions: [0-9]* runs, \([0-9]*\) early.*/\1/p' $S/actuators; }
big=$(big_cpus | cut -d' ' -f1)
ncpu=$(ls -d /sys/devices/system/cpu/cpu[0-9]* | wc -l)
bigmask=$(printf '%x' $((1 << big)))
litmask=$(printf '%x' $(( (1 << ncpu) - 1 - (1 << big) )))
# on_big PID SECS: seen with the big mask within SECS (looks every 0.2 s)
on_big() {
	_w=0
	while [ $_w -lt $(($2 * 5)) ]; do
		[ "$(mask_of $1)" = "$bigmask" ] && return 0
		sleep 0.2; _w=$((_w + 1))
	done
	return 1
}
plan 13

core_with "sbridge_fakesrc loads" sbridge_fakesrc
sbridgectl set param act.period_ms 100 >/dev/null
# fakesrc gives a task the same CPI on every core type, so its measured
# speedup would (rightly) be 1.0: decide on the prediction here.
check "predicted speedup only" sbridgectl set param learn.measured 0
# and eq. 3's memory term (stalls take as long on either type): chase
# gains less than spin by prediction, which is what this scenario is about
sbridgectl set param model.mem_ratio 1024 >/dev/null
spin 120 >/dev/null & a=$!
spin 120 >/dev/null & b=$!
chase 16 120 >/dev/null & c=$!
# Two equal predictions differ by less than their errors: a tie, left to
# the stock scheduler (no hint); chase, told apart below them but
# wanting the big CPU, is left to it too rather than pinned little.
tied() { why | sed -n 's/.* \([0-9]*\) tied.*/\1/p'; }
_w=0
# (2 while the fairness bound gives a spin its turn)
while [ $_w -lt 30 ] && [ "$(tied)" != 3 ]; do sleep 0.5; _w=$((_w + 1)); done
n=$(tied)
check "default act.margin: the three are left to stock ($n tied: $(why))" test "${n:-0}" -ge 2
steered=0 k=0
while [ $k -lt 10 ]; do
	for p in $a $b $c; do [ "$(mask_of $p)" = "$bigmask" ] && steered=$((steered + 1)); done
	[ "$(mask_of $c)" = "$litmask" ] && steered=$((steered + 1))
	sleep 0.2; k=$((k + 1))
done
# steered they would show in 20 or more (one spin big, the others little);
# what is left is the fairness bound's turns: a spin that stock keeps
# little gets one when its fast share falls below its floor
check "and they are not steered but for fairness turns ($steered of 30 looks)" test $steered -le 8
# turns among equals: choosing on any difference
sbridgectl set param act.margin 0 >/dev/null
check "spin $a gets the big CPU" on_big $a 15
check "spin $b gets it too: equal tasks take turns" on_big $b 15
# never both at once, never chase while they want it: 20 looks, each
# reading the three masks in one process (two taskset runs under TCG are
# far enough apart for a turn to pass between them)
masks() { cat /proc/$a/status /proc/$b/status /proc/$c/status | sed -n 's/^Cpus_allowed:[[:space:]]*//p' | tr -d ','; }
both=0 chased=0 k=0
while [ $k -lt 20 ]; do
	set -- $(masks)
	[ $((0x$1)) = $((0x$bigmask)) ] && [ $((0x$2)) = $((0x$bigmask)) ] && both=$((both + 1))
	[ $((0x$3)) = $((0x$bigmask)) ] && chased=$((chased + 1))
	sleep 0.2; k=$((k + 1))
done
# a turn's hand-over may show both masks at once for a moment
check "the spins do not share the big CPU (both on it in $both of 20 looks)" test $both -le 2
check "chase, which gains less, stays off it ($chased of 20 looks)" test $chased -eq 0
# The exit: a long period, and a run more than half of it ago, so that the
# move comes from the idle big CPU's kick (rate-bounded to half a period),
# not from a periodic run that found the holder exiting (it drops a
# PF_EXITING task's hint, and then nothing is left to kick for).
sbridgectl set param act.period_ms 2000 >/dev/null
sleep 1.2
if [ "$(mask_of $a)" = "$bigmask" ]; then h=$a o=$b; else h=$b o=$a; fi
e0=$(early)
diag "holder $h, other $o: $(why); $(grep '^decisions' $S/actuators)"
kill $h; wait $h 2>/dev/null
t0=$(cut -d' ' -f1 /proc/uptime)
check "holder gone: the other spin moves up ($(mask_of $o))" on_big $o 5
diag "moved up within $(awk -v a=$t0 -v b=$(cut -d' ' -f1 /proc/uptime) 'BEGIN { printf "%.2f", b - a }') s; $(grep '^decisions' $S/actuators)"
check "an early decision: the idle big CPU kicked it ($(early) early, $e0 before)" test "$(early)" -gt "$e0"
kill $o; wait $o 2>/dev/null
check "both spins gone: chase fills the big CPU ($(mask_of $c))" on_big $c 5
diag "$(grep -e '^reports' -e '^candidates' $S/checker | tr '\n' ' ')"
kill $c; wait 2>/dev/null
check "sbridge unloads" sh -c "rmmod sbridge_fakesrc && rmmod sbridge_core"
