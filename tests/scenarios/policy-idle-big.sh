#!/bin/sh
# scenario: an idle big core is a loss: while the big CPU is taken the other compute-bound tasks are kept on the littles; when its holder exits, the next best candidate is moved up within a few periods and nothing that gains less takes its place
# arch: arm64
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
big=$(big_cpus | cut -d' ' -f1)
ncpu=$(ls -d /sys/devices/system/cpu/cpu[0-9]* | wc -l)
bigmask=$(printf '%x' $((1 << big)))
litmask=$(printf '%x' $(( (1 << ncpu) - 1 - (1 << big) )))
# held PID MASK: PID holds MASK for 3 looks in a row within 15 s
held() {
	_w=0 _h=0
	while [ $_w -lt 30 ] && [ $_h -lt 3 ]; do
		sleep 0.5; _w=$((_w + 1))
		if [ "$(mask_of $1)" = "$2" ]; then _h=$((_h + 1)); else _h=0; fi
	done
	[ $_h -ge 3 ]
}
plan 9

core_with "sbridge_fakesrc loads" sbridge_fakesrc
sbridgectl set param act.period_ms 100 >/dev/null
# fakesrc gives a task the same CPI on every core type, so its measured
# speedup would (rightly) be 1.0: decide on the prediction here. No turns:
# the holder keeps the big CPU until it leaves.
check "predicted speedup only, rotation off" sh -c "sbridgectl set param learn.measured 0 && sbridgectl set param act.hold_ms 0"
spin 120 >/dev/null & a=$!
spin 120 >/dev/null & b=$!
chase 16 120 >/dev/null & c=$!
n=0
while [ $n -lt 30 ] && [ "$(mask_of $a)" != "$bigmask" ] && [ "$(mask_of $b)" != "$bigmask" ]; do
	sleep 0.5; n=$((n + 1))
done
if [ "$(mask_of $a)" = "$bigmask" ]; then h=$a o=$b; else h=$b o=$a; fi
diag "holder $h, other $o: $(why)"
check "one spin holds the big CPU ($(mask_of $h))" held $h $bigmask
check "big full: the other spin is kept on the littles ($(mask_of $o))" test "$(mask_of $o)" = "$litmask"
check "and so is chase ($(mask_of $c))" test "$(mask_of $c)" = "$litmask"
kill $h; wait $h 2>/dev/null
t0=$(cut -d' ' -f1 /proc/uptime)
check "holder gone: the other spin moves up ($(mask_of $o))" held $o $bigmask
diag "moved up within $(awk -v a=$t0 -v b=$(cut -d' ' -f1 /proc/uptime) 'BEGIN { printf "%.1f", b - a }') s (incl. 1.5 s of looks); $(why)"
check "chase, which gains less, stays on the littles ($(mask_of $c))" test "$(mask_of $c)" = "$litmask"
diag "$(grep -e '^reports' -e '^candidates' $S/checker | tr '\n' ' ')"
kill $o $c; wait 2>/dev/null
check "sbridge unloads" sh -c "rmmod sbridge_fakesrc && rmmod sbridge_core"
