#!/bin/sh
# scenario: the fork hook gets no entry (injected at sbridge's fail_fork point: pool empty, allocation failed) under a steered, clamped parent that forks dozens of children and exits: sbridge finds every child by a scan and gives it its own mask and clamp while loaded, and after unload no thread differs from its baseline
# arch: arm64
# topology: 1b3s
# smp: 4
# timeout: 240
# icount: no
# debug: only
. "${SBRIDGE_LIB:-/sbridge/lib.sh}"

D=/sys/kernel/debug
F=$D/sbridge
S=/sys/kernel/sbridge
ncpu=$(ls -d /sys/devices/system/cpu/cpu[0-9]* | wc -l)
all=$(printf '%x' $(( (1 << ncpu) - 1 )))
val() { awk -v k="$1" '$1 == k { print $2 }' $S/checker; }
plan 9

grep -qs " $D " /proc/mounts || mount -t debugfs none $D
user_tasks_snapshot > /tmp/base
check "sbridge loads, placement and uclamp on" \
	load_sbridge act_placement=1 act_uclamp=1 act_period_ms=50
haveu=0
grep -q '^uclamp: unavailable' $S/actuators || haveu=1
printf 'comm=forkhold class=compute\n' > /tmp/fl.rules
sbridgectl rules load /tmp/fl.rules >/dev/null
sbridgectl set param checker.on 0 >/dev/null
check "sbridge's fail_fork point is there" test -w $F/fail_fork/probability

# The fork hook finds no entry to spare (its pool empty and its atomic
# allocation failed, as under memory pressure or with the 4096 entries in
# use), only for the forking task (task filter): every child that copies
# the parent's mask or clamp goes unrecorded.
echo 0 > $F/fail_fork/verbose
echo -1 > $F/fail_fork/times
echo Y > $F/fail_fork/task-filter
echo 100 > $F/fail_fork/probability
# compute-bound 8 s, a child every 20 ms (at most 100), then it exits: the
# children, asleep, are reparented
(echo 1 > /proc/self/make-it-fail; exec forkhold 8 100) > /tmp/fh 2>&1 &
f=$!
wait $f
echo 0 > $F/fail_fork/probability
kids=$(pidof forkhold | wc -w)
diag "$(cat /tmp/fh); $kids children; $(grep -e '^placement_' -e '^uclamp_' $S/checker | tr '\n' ' ')"
check "the parent was steered and the children were not recorded at fork ($(val placement_inherit_lost) lost)" \
	test "$(val placement_steers)" -gt 0 -a "$(val placement_inherit_lost)" -gt 0
nap 1
check "scans found them ($(val placement_swept) masks, $(val uclamp_swept) clamps)" test "$(val placement_swept)" -gt 0
user_tasks_audit $all /tmp/base > /tmp/audit1
grep "^mask\|^clamp" /tmp/audit1 | head -n 5 | while read -r l; do diag "$l"; done
check "while sbridge runs no child keeps the parent's mask or clamp ($(sed -n 's/^n //p' /tmp/audit1) audited)" \
	sh -c '! grep -q "^mask\|^clamp" /tmp/audit1'
check "dozens of children alive for the audits ($kids)" test "$kids" -ge 20
ul=$(val uclamp_inherit_lost) us=$(val uclamp_swept)
check "sbridge unloads" unload_sbridge
user_tasks_audit $all /tmp/base > /tmp/audit
grep "^mask\|^clamp" /tmp/audit | head -n 5 | while read -r l; do diag "$l"; done
check "after unload no thread differs from its baseline ($(sed -n 's/^n //p' /tmp/audit) audited)" \
	sh -c '! grep -q "^mask\|^clamp" /tmp/audit'
if [ $haveu = 1 ]; then
	check "clamps went unrecorded at fork too, and were found ($ul lost, $us found)" \
		test "${ul:-0}" -gt 0 -a "${us:-0}" -gt 0
else
	skip "the clamps were lost at fork too" "kernel $(kver) has no CONFIG_UCLAMP_TASK"
fi
# shellcheck disable=SC2046
kill $(pidof forkhold) 2>/dev/null
true
