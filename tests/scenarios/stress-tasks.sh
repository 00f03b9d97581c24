#!/bin/sh
# scenario: stress: 50 000 live tasks: sbridge loads with half of them alive and adopts them all, tracks the other half as they start, re-matches all on a rules load, acts on a fork storm on top, and unloads with all alive, every entry freed
# arch: arm64
# suite: backports
# runner: stress
# topology: 1b3s
# smp: 4
# mem: 3072
# timeout: 600
# icount: no
. "${SBRIDGE_LIB:-/sbridge/lib.sh}"

N=${N:-50000}
S=/sys/kernel/sbridge
ncpu=$(ls -d /sys/devices/system/cpu/cpu[0-9]* | wc -l)
all=$(printf '%x' $(( (1 << ncpu) - 1 )))
plan 9

# room for them: pids and threads beyond the defaults for this memory
echo 4194304 > /proc/sys/kernel/pid_max
echo $((N * 2)) > /proc/sys/kernel/threads-max
ntasks() { ls -d /proc/[0-9]*/task/[0-9]* 2>/dev/null | wc -l; }
# waits for manytasks' "alive" line in $1
alive() {
	_i=0
	while ! grep -qs '^alive' "$1" && [ $_i -lt 1200 ]; do sleep 0.5; _i=$((_i + 1)); done
	sed -n 's/^alive //p' "$1"
}

half=$((N / 2))
user_tasks_snapshot > /tmp/base
manytasks $half > /tmp/mt1 & m1=$!
a1=$(alive /tmp/mt1)
check "$half tasks live before the load ($a1)" test "${a1%% of *}" = $half
ACT="act_placement=1 act_uclamp=1 act_capacity=1 act_period_ms=20"
# shellcheck disable=SC2086
check "sbridge loads with every actuator on" load_sbridge $ACT
ad=$(dmesg | sed -n 's/.*hooks attached, \([0-9]*\) live tasks adopted.*/\1/p' | tail -n 1)
check "it adopts every live task ($ad)" test "${ad:-0}" -ge $half

manytasks $((N - half)) > /tmp/mt2 & m2=$!
a2=$(alive /tmp/mt2)
live=$(ntasks)
diag "rel: tasks=$live"
check "$N tasks live with sbridge tracking ($a2; $live in all)" \
	test "${a2%% of *}" = $((N - half)) -a "$live" -ge "$N"
check "none untracked ($(cat $S/untracked))" test "$(cat $S/untracked)" = 0

printf 'comm=spin class=compute\ncomm=forkstorm class=compute\n' > /tmp/r.rules
check "a rules load re-matches them all" sbridgectl rules load /tmp/r.rules
diag "$(dmesg | grep 'tasks re-matched' | tail -n 1)"
forkstorm 2000 4 >/dev/null & f=$!
spin 20 >/dev/null & p1=$!
spin 20 >/dev/null & p2=$!
# the decision layer looks at every tracked task each period: with 50 000
# of them under TCG one period can take seconds, so wait up to 20 s
i=0 st=0
while [ $i -lt 40 ] && [ "${st:-0}" -eq 0 ]; do
	sleep 0.5
	i=$((i + 1))
	st=$(awk '$1 == "placement_steered" { print $2 }' $S/checker)
done
diag "first steering after about $((i / 2)) s"
kill $p1 $p2 2>/dev/null
if [ "$(wc -l < $S/types)" -gt 1 ]; then
	check "the actuators act among them (steered ${st:-0})" test "${st:-0}" -gt 0
else
	skip "the actuators act among them" "one core type: nothing to steer"
fi
wait $f
check "sbridge unloads with $N tasks live" unload_sbridge
# the sleepers never ran under sbridge; auditing them costs minutes here
kill $m1 $m2
wait $m1 $m2
user_tasks_audit $all /tmp/base > /tmp/audit
bal=$(dmesg | grep 'sbridge_core: task entries:' | tail -n 1)
diag "$bal"
check "every entry freed, no task keeps a mask or clamp ($(sed -n 's/^n //p' /tmp/audit) audited)" \
	sh -c "echo '$bal' | awk '\$(NF-3) != \$(NF-1) { exit 1 }' && ! grep -q '^mask\|^clamp' /tmp/audit"
grep "^mask\|^clamp" /tmp/audit | head -n 5 | while read -r l; do diag "$l"; done
