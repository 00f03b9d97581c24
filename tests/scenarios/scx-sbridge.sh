#!/bin/sh
# scenario: scx_sbridge (sched_ext, 7.x): loads and unloads under a fork storm, reads sbridge's hints through its kfuncs, sbridge_core cannot be removed while it runs, SysRq-S ends it and sbridge's placement resumes
# arch: any
# suite: backports
# topology: 1b3s
# smp: 4
# timeout: 150
# icount: no
# debug: no
. "${SBRIDGE_LIB:-/sbridge/lib.sh}"

X=/sys/kernel/sched_ext
LOG=/tmp/scx.log
storm() { forkstorm 100000 2 >/dev/null 2>&1 & storm=$!; }
plan 23

[ -d $X ] || bail_out "no $X: this kernel has no sched_ext"
command -v scx_sbridge >/dev/null || bail_out "scx_sbridge was not built for this cell"

scx_steering
case $(scx_line) in
"kfuncs registered"*) ok "status: sched_ext kfuncs registered" ;;
*) not_ok "status: sched_ext kfuncs registered" "$(sbridgectl status)" ;;
esac

# 0. sbridge steers a compute-bound spinner to the big CPU (cpu0 on both
# boards) before scx_sbridge runs
scx_spin_steered "placement steers the spinner first"

# 1. load under a fork storm
storm
scx_sbridge -H -s 2 > $LOG 2>&1 &
scx=$!
if scx_wait enabled; then ok "sched_ext enabled under a fork storm"; else
	not_ok "sched_ext enabled under a fork storm" "state $(scx_state); $(cat $LOG)"; fi
check "root ops is sbridge" grep -qx sbridge $X/root/ops
case $(scx_mode) in
"sched_ext: scx_sbridge, affinity steering off"*) ok "status: affinity steering off" ;;
*) not_ok "status: affinity steering off" "$(scx_mode)" ;;
esac
case $(scx_line) in
*"scx_sbridge runs"*) ok "status: scx_sbridge runs" ;;
*) not_ok "status: scx_sbridge runs" "$(scx_line)" ;;
esac

# 2. placement stood down: the spinner has its own mask back; hints flow
check "placement gave the spinner its own mask back ($full)" scx_mask_wait $sp $full =
# a spinner started under sched_ext (no PELT: sbridge counts its run time)
spin 60 >/dev/null &
sp2=$!
kill $sp
wait $sp 2>/dev/null
nap 4
check_fail "rmmod sbridge_core is refused while scx_sbridge runs" rmmod sbridge_core
check "sched_ext still enabled after the refused rmmod" test "$(scx_state)" = enabled

# 3. unload under the storm (SIGINT: the loader destroys its link)
kill -INT $scx
wait $scx
rc=$?
check "the loader exits 0 on SIGINT (exit $rc)" test $rc = 0
if scx_wait disabled; then ok "sched_ext disabled again"; else
	not_ok "sched_ext disabled again" "state $(scx_state)"; fi
diag "$(grep -E '^(stats|scx_sbridge)' $LOG | tail -n 3)"
h=$(grep "^hint: pid=$sp2 " $LOG)
diag "spinner started under scx_sbridge: ${h:-no hint line}"
case $h in
*" hint=1 "*) ok "the BPF side read the new spinner's hint: fast" ;;
*) not_ok "the BPF side read the new spinner's hint: fast" "$(grep -c '^hint:' $LOG) hint lines" ;;
esac
found=$(sed -n 's/^stats: .*hint_found=\([0-9]*\).*/\1/p' $LOG | tail -n 1)
check "hints were found for tracked tasks (${found:-0})" test "${found:-0}" -gt 0

# 4. again, then SysRq-S ends it: the loader sees it, sbridge steers again
scx_sbridge > $LOG 2>&1 &
scx=$!
scx_wait enabled || diag "second load: state $(scx_state); $(cat $LOG)"
echo S > /proc/sysrq-trigger
if scx_wait disabled; then ok "SysRq-S disables sched_ext"; else
	not_ok "SysRq-S disables sched_ext" "state $(scx_state)"; fi
_w=0
while [ $_w -lt 20 ] && kill -0 $scx 2>/dev/null; do nap 0.25; _w=$((_w + 1)); done
if kill -0 $scx 2>/dev/null; then
	not_ok "the loader exits by itself" "$(cat $LOG)"
	kill -INT $scx
else
	ok "the loader exits by itself"
fi
wait $scx
grep -qi 'exited: .*reason=".*sysrq' $LOG && ok "the loader reports SysRq as the reason" ||
	not_ok "the loader reports SysRq as the reason" "$(cat $LOG)"
kill $storm 2>/dev/null
wait $storm 2>/dev/null
scx_steers_again $sp2 "placement steers the new spinner again"
kill $sp2 2>/dev/null
wait $sp2 2>/dev/null

# 5. nothing holds sbridge_core any more (the programs are freed after RCU)
check "sbridge unloads once scx_sbridge is gone" scx_unload
