#!/bin/sh
# scenario: the sched_ext watchdog ends scx_sbridge (7.x): with one task never dispatched (the loader's test option -S), the kernel disables sched_ext for a runnable task stall naming that task, the loader exits non-zero with that reason, the task runs again in the fair class, sbridge's placement steers again and it unloads
# arch: any
# stock: x86_64
# suite: backports
# topology: 1b3s
# smp: 4
# timeout: 120
# icount: no
# debug: no
. "${SBRIDGE_LIB:-/sbridge/lib.sh}"

# The stalled task is a shell that wakes every 0.1 s and counts its rounds
# in a file: each wakeup goes through scx_sbridge's select_cpu and
# enqueue, which hold it back for good (a spinner that never sleeps would
# be kept running by sched_ext without ever being enqueued again).
# Watchdog 3 s (-w): the kernel checks every half timeout, so it trips 3 to
# 4.5 s after the first held-back wakeup.
LOG=/tmp/scx.log
TICKS=/tmp/scx.ticks
WD_MS=3000
ticks() { wc -l < $TICKS; }
on_scx() { sed -n 's/^ext\.enabled *: *//p' /proc/$1/sched; }
plan 18

[ -n "$(scx_state)" ] || bail_out "no /sys/kernel/sched_ext: this kernel has no sched_ext"
command -v scx_sbridge >/dev/null || bail_out "scx_sbridge was not built for this cell"

scx_steering
scx_spin_steered "placement steers a spinner"

nap 0.1		# makes nap's fifo before the ticker shares it
: > $TICKS
ticker() { while :; do echo >> $TICKS; nap 0.1; done; }
ticker &
st=$!
nap 0.5

scx_sbridge -S $st -w $WD_MS -s 1 > $LOG 2>&1 &
scx=$!
if scx_wait enabled; then ok "scx_sbridge runs, task $st never dispatched, watchdog $WD_MS ms"; else
	not_ok "scx_sbridge runs, task $st never dispatched, watchdog $WD_MS ms" "state $(scx_state); $(cat $LOG)"; fi
case $(scx_mode) in
"sched_ext: scx_sbridge, affinity steering off"*) ok "status: affinity steering off" ;;
*) not_ok "status: affinity steering off" "$(scx_mode)" ;;
esac
nap 0.3
t0=$(ticks)
nap 1
t1=$(ticks) m=$(scx_mask $sp) e=$(on_scx $st) s=$(scx_state)
check "task $st held back: on sched_ext ($e), did not run ($t0 -> $t1 rounds, state $s)" \
	test "$e" = 1 -a "$t1" = "$t0" -a "$s" = enabled
check "placement gave the spinner its own mask back ($m)" test "$m" = "$full"

# the watchdog: state, the loader's exit and reason, the kernel's log
if scx_wait disabled; then ok "the watchdog disables sched_ext"; else
	not_ok "the watchdog disables sched_ext" "state $(scx_state)"; fi
_w=0
while [ $_w -lt 20 ] && kill -0 $scx 2>/dev/null; do nap 0.25; _w=$((_w + 1)); done
kill -0 $scx 2>/dev/null && kill -INT $scx
wait $scx
rc=$?
check "the loader exits by itself, non-zero (exit $rc)" test $rc != 0 -a $_w -lt 20
x=$(grep '^scx_sbridge: exited:' $LOG)
diag "${x:-no exit line: $(cat $LOG)}"
case $x in
*'kind=1026 '*'reason="runnable task stall" msg="'*"[$st] failed to run for "*)
	ok "the loader reports a runnable task stall of task $st (SCX_EXIT_ERROR_STALL)" ;;
*) not_ok "the loader reports a runnable task stall of task $st (SCX_EXIT_ERROR_STALL)" "$(cat $LOG)" ;;
esac
k=$(dmesg | grep 'sched_ext:.*disabled (runnable task stall)')
diag "$k"
check "the kernel's log says the watchdog ended it" test -n "$k"
n=$(sed -n 's/^stats: .*stalled=\([0-9]*\).*/\1/p' $LOG | tail -n 1)
check "the BPF side held task $st back ($n enqueues)" test "${n:-0}" -gt 0

# the fair class runs it again; sbridge steers again
t2=$(ticks)
nap 1
t3=$(ticks) e=$(on_scx $st)
check "task $st runs again in the fair class (on sched_ext: $e; rounds $t1 -> $t2 -> $t3)" \
	test "$e" = 0 -a "$t3" -gt "$t2" -a "$t2" -ge "$t1"
scx_steers_again $sp "placement steers the spinner again"
kill $st $sp 2>/dev/null
wait $st $sp 2>/dev/null
check "sbridge unloads once scx_sbridge is gone" scx_unload
