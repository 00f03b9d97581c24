#!/bin/sh
# scenario: fork safety: steered and clamped tasks fork hundreds of children while placement and uclamp toggle and sbridge unloads mid-storm; then no task carries a mask or clamp sbridge set, and SCHED_RESET_ON_FORK survives clamping
# arch: arm64
# stock: trixie backports
# topology: 1b3s
# smp: 4
# timeout: 240
# icount: no
. "${SBRIDGE_LIB:-/sbridge/lib.sh}"

# Children copy the parent's mask (dup_task_struct) and clamp request
# (uclamp_fork) long before sched_process_fork fires: a release or an
# unload in between must not leave them with sbridge's values.
S=/sys/kernel/sbridge
mask_of() { taskset -p $1 2>/dev/null | sed 's/.*: //'; }
ncpu=$(ls -d /sys/devices/system/cpu/cpu[0-9]* | wc -l)
all=$(printf '%x' $(( (1 << ncpu) - 1 )))
haveu=0
plan 11

# every thread's mask and clamp before sbridge loads: the audit holds each
# thread that lives through to it to these, nothing left out
user_tasks_snapshot > /tmp/base
check "sbridge loads" load_sbridge
grep -q '^uclamp: unavailable' $S/actuators || haveu=1
printf 'comm=forkhold class=compute\n' > /tmp/fh.rules
check "rule: forkhold compute-bound" sbridgectl rules load /tmp/fh.rules
sbridgectl set param act.period_ms 50 >/dev/null
[ $haveu = 1 ] && sbridgectl set param act.uclamp 1 >/dev/null
forkhold 14 250 rof > /tmp/fh1 & f1=$!
forkhold 14 250 rof > /tmp/fh2 & f2=$!
forkhold 14 250 > /tmp/fh3 & f3=$!
sleep 3
st=$(awk '$1 == "placement_steered" { print $2 }' $S/checker)
diag "after 3 s: $(grep -e '^placement' -e '^uclamp' -e '^mode' $S/actuators | tr '\n' ';') steered $st"
check "the forking tasks are steered" test "${st:-0}" -gt 0
# toggle everything while they fork
i=0
while [ $i -lt 8 ]; do
	sbridgectl set param act.placement $((i % 2)) >/dev/null
	[ $haveu = 1 ] && sbridgectl set param act.uclamp $(((i + 1) % 2)) >/dev/null
	sleep 0.3
	i=$((i + 1))
done
sbridgectl set param act.placement 1 >/dev/null
[ $haveu = 1 ] && sbridgectl set param act.uclamp 1 >/dev/null
sleep 1.5
diag "$(grep -e '^placement_' $S/checker | tr '\n' ' ')"
check "sbridge unloads mid-storm" unload_sbridge
wait $f1 $f2 $f3
diag "$(cat /tmp/fh1 /tmp/fh2 /tmp/fh3 | tr '\n' ';')"
kids=$(pidof forkhold | wc -w)
check "hundreds of children alive for the audit ($kids)" test "$kids" -ge 100
# Audit every task of every process (threads too) outside the kernel;
# a planted mask shows that the audit can see one, and the same audit
# told of it lists nothing but what sbridge left.
taskset 1 sleep 60 & planted=$!
sleep 0.2
user_tasks_audit $all /tmp/base > /tmp/audit0
echo "$planted 1 -" > /tmp/expect
user_tasks_audit $all /tmp/base /tmp/expect > /tmp/audit
kill $planted; wait $planted 2>/dev/null
check "the audit finds a planted mask" grep -q "^mask $planted:" /tmp/audit0
n=$(sed -n 's/^n //p' /tmp/audit)
badm=$(sed -n 's/^mask //p' /tmp/audit | tr '\n' ' ')
badu=$(sed -n 's/^clamp //p' /tmp/audit | tr '\n' ' ')
diag "audited $n user tasks"
check "the audit saw the children ($n tasks)" test "$n" -ge "$kids"
check "no task keeps a mask sbridge set: ${badm:-none}" test -z "$badm"
if [ $haveu = 1 ]; then
	check "no task keeps a clamp sbridge set: ${badu:-none}" test -z "$badu"
	check "SCHED_RESET_ON_FORK kept by the clamped parents ($(cat /tmp/fh1 /tmp/fh2 | grep -o 'rof=[0-9-]*' | tr '\n' ' '))" \
		sh -c "grep -q 'rof=1' /tmp/fh1 && grep -q 'rof=1' /tmp/fh2"
else
	skip "no task keeps a clamp sbridge set" "kernel $(kver) has no CONFIG_UCLAMP_TASK"
	skip "SCHED_RESET_ON_FORK kept by clamped parents" "kernel $(kver) has no CONFIG_UCLAMP_TASK"
fi
kill $(pidof forkhold) 2>/dev/null
check "no kernel complaint" sh -c "! dmesg | grep -e 'WARNING:' -e 'BUG:'"
