#!/bin/sh
# scenario: scx_sbridge (sched_ext, 7.x): loads and unloads under a fork storm, reads sbridge's hints through its kfuncs, runs tasks from their CPU's own queue, sbridge_core cannot be removed while it runs (sbridge_pmu can), SysRq-S ends it and sbridge's placement resumes; then sbridge_core loads and unloads under a fork storm beneath an scx_sbridge started without it, which stays attached, and no task keeps a mask or clamp
# arch: any
# suite: backports
# stock: arm64
# topology: 1b3s
# smp: 4
# timeout: 210
# icount: no
# debug: no
. "${SBRIDGE_LIB:-/sbridge/lib.sh}"

X=/sys/kernel/sched_ext
LOG=/tmp/scx.log
# sbridge_pmu rounds under the attached scx_sbridge, and sbridge_core
# rounds beneath one started without it (about 8 s each on x86 TCG)
ROUNDS=3
CORE_ROUNDS=${CORE_ROUNDS:-2}
all=$(printf '%x' $(( (1 << $(nproc)) - 1 )))
storm() { forkstorm 100000 2 >/dev/null 2>&1 & storm=$!; }
plan 34

[ -d $X ] || bail_out "no $X: this kernel has no sched_ext"
command -v scx_sbridge >/dev/null || bail_out "scx_sbridge was not built for this cell"
# every thread's mask and clamp before sbridge loads, for the audit in 6.
user_tasks_snapshot > /tmp/base

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
# as many spinners as CPUs: the one sbridge wants fast (a turn each)
# must run on the big CPU (cpu0), though none of them ever sleeps: cpu0
# takes FAST_DSQ first at every end of slice. Sampled from sbridgectl
# tasks (CPU, PLACE).
sps=
for _i in $(seq 2 $(nproc)); do spin 30 > /dev/null & sps="$sps $!"; done
nap 2
on=0 seen=0 _i=0
while [ $_i -lt 24 ]; do
	_c=$(sbridgectl tasks | awk '$3 == "spin" && $15 ~ /fast/ { print $4; exit }')
	if [ -n "$_c" ]; then
		seen=$((seen + 1))
		[ "$_c" = 0 ] && on=$((on + 1))
	fi
	nap 0.25
	_i=$((_i + 1))
done
kill $sps 2>/dev/null
wait $sps 2>/dev/null
check "the spinner sbridge wants fast runs on the big CPU ($on of $seen samples, at least 70 %)" \
	test $seen -ge 8 -a $((on * 10)) -ge $((seen * 7))
check_fail "rmmod sbridge_core is refused while scx_sbridge runs" rmmod sbridge_core
check "sched_ext still enabled after the refused rmmod" test "$(scx_state)" = enabled
# sbridge_pmu is not the BPF program's: it goes and comes under the storm,
# sbridge_core stays held (its counter source comes and goes beneath the
# kfuncs)
r=0 bad=
while [ $r -lt $ROUNDS ]; do
	r=$((r + 1))
	rmmod sbridge_pmu || bad="$bad pmu unload $r;"
	rmmod sbridge_core 2>/dev/null && { bad="$bad core unloaded $r;"; break; }
	insmod $MODDIR/sbridge_pmu.ko || bad="$bad pmu load $r;"
	[ "$(scx_state)" = enabled ] || bad="$bad state $(scx_state) $r;"
done
check "$ROUNDS sbridge_pmu unload/load rounds while scx_sbridge runs, sbridge_core held${bad:+:$bad}" \
	test -z "$bad"

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
# issue 33: tasks waited in their CPU's own queue and ran from it there
last=$(grep '^stats:' $LOG | tail -n 1)
enq=$(echo "$last" | sed -n 's/.* enq_cpu=\([0-9]*\).*/\1/p')
ran=$(echo "$last" | sed -n 's/.* cpu_ran=\([0-9]*\).*/\1/p')
diag "per-CPU queues: $(echo "$last" | grep -o 'enq_cpu=.*')"
check "tasks queued on their own CPU ran there (enq_cpu=${enq:-none}, cpu_ran=${ran:-none})" \
	test "${enq:-0}" -gt 0 -a "${ran:-0}" -gt 0

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

# 6. the other way round: scx_sbridge started without sbridge_core found
# none of its kfuncs (they are weak), runs without hints and holds no
# reference on the module, so sbridge_core and sbridge_pmu load and unload
# beneath it. Each load steers a spinner as it would under the fair class
# (scx_sbridge never told it to stand down), each unload gives back what
# it set. scx_sbridge stays attached throughout, and the storm's forks all
# finish.
rm -f /tmp/storm.stop /tmp/storm.out
(while [ ! -e /tmp/storm.stop ]; do forkstorm 200 4 >> /tmp/storm.out 2>&1 || echo failed >> /tmp/storm.out; done) &
storm=$!
spin 60 > /dev/null &
sp=$!
scx_sbridge -s 2 > $LOG 2>&1 &
scx=$!
if scx_wait enabled; then ok "scx_sbridge enabled without sbridge_core"; else
	not_ok "scx_sbridge enabled without sbridge_core" "state $(scx_state); $(cat $LOG)"; fi
check "the loader says: kfuncs not found, no hints" grep -q "kfuncs not found: no hints" $LOG
r=0 bad= steers=
while [ $r -lt $CORE_ROUNDS ]; do
	r=$((r + 1))
	# shellcheck disable=SC2086
	load_sbridge $scx_types act_period_ms=100 || { bad="$bad load $r;"; break; }
	sbridgectl rules load /tmp/scx.rules > /dev/null || bad="$bad rules $r;"
	case $(scx_line) in
	"kfuncs registered; scx_sbridge runs"*) bad="$bad status says attached $r;" ;;
	"kfuncs registered"*) ;;
	*) bad="$bad status $(scx_line) $r;" ;;
	esac
	nap 1
	steers="$steers $(awk '$1 == "placement_steers" { print $2 }' /sys/kernel/sbridge/checker)"
	unload_sbridge || { bad="$bad unload $r;"; break; }
	[ "$(scx_state)" = enabled ] && kill -0 $scx || { bad="$bad scx gone $r;"; break; }
done
diag "placement steers per load:$steers"
check "$CORE_ROUNDS sbridge load/unload rounds beneath scx_sbridge under a fork storm${bad:+:$bad}" \
	test -z "$bad" -a $r = $CORE_ROUNDS
check "scx_sbridge still attached (state $(scx_state), root ops $(cat $X/root/ops 2>/dev/null))" \
	test "$(scx_state)" = enabled -a "$(cat $X/root/ops 2>/dev/null)" = sbridge
touch /tmp/storm.stop
wait $storm
n=$(grep -c '^forkstorm children=200 failed=0 ' /tmp/storm.out)
check "the storm's forks all finished ($n storms of 200, $(grep -vc '^forkstorm children=200 failed=0 ' /tmp/storm.out) bad)" \
	sh -c "test $n -gt 0 && ! grep -vq '^forkstorm children=200 failed=0 ' /tmp/storm.out"
kill -INT $scx
wait $scx
rc=$?
x=$(grep '^scx_sbridge: exited:' $LOG)
diag "${x:-no exit line: $(cat $LOG)}"
case "$rc $x" in
'0 scx_sbridge: exited: kind=64 '*'reason="unregistered from user space"'*)
	ok "the loader exits 0, unregistered from user space" ;;
*) not_ok "the loader exits 0, unregistered from user space" "exit $rc; $(cat $LOG)" ;;
esac
kill $sp 2>/dev/null
wait $sp 2>/dev/null
user_tasks_audit $all /tmp/base > /tmp/audit
check "no task keeps a mask or a clamp ($(sed -n 's/^n //p' /tmp/audit) tasks audited)" \
	sh -c '! grep -q "^mask\|^clamp" /tmp/audit'
grep "^mask\|^clamp" /tmp/audit | head -n 5 | while read -r l; do diag "$l"; done
k=$(dmesg | grep -E 'WARNING:|BUG:|Oops|Call trace:|Call Trace:|circular locking|lock state')
check "no kernel warning in the log" test -z "$k"
if [ -n "$k" ]; then diag "$(echo "$k" | head -n 3)"; fi
