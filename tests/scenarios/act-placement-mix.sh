#!/bin/sh
# scenario: arm64 1b3s placement with two compute- and two memory-bound tasks (classes from a rule file): fraction of samples each spends on the big core
# arch: arm64
# suite: backports
# topology: 1b3s
# smp: 4
# timeout: 200
# throttle: 0.45
# icount: no
. "${SBRIDGE_LIB:-/sbridge/lib.sh}"

# The guests have no usable PMU (cycles only), so the classes come from
# rules, exactly as a deployment without counters would do. Fractions are
# reported, not asserted (noisy host); what is asserted is behaviour:
# memory-bound tasks are never restricted to the big core.
S=/sys/kernel/sbridge
# on_big PID: PID last ran on the big CPU (builtins only: a fork per
# sample costs seconds on throttled little vCPUs and skews the samples)
on_big() { read -r _l < /proc/$1/stat && set -- $_l && [ "${39}" = "$big" ]; }
mask_of() { taskset -p $1 | sed 's/.*: //'; }
big=$(big_cpus | cut -d' ' -f1)
ncpu=$(ls -d /sys/devices/system/cpu/cpu[0-9]* | wc -l)
litmask=$(printf '%x' $(( (1 << ncpu) - 1 - (1 << big) )))
fullmask=$(printf '%x' $(( (1 << ncpu) - 1 )))
plan 6

check "sbridge loads" load_sbridge
printf 'comm=spin class=compute\ncomm=chase class=memory\n' > /tmp/mix.rules
check "rules: spin compute, chase memory" sbridgectl rules load /tmp/mix.rules
check "placement on" sbridgectl set param act.placement 1
spin 150 >/dev/null & s1=$!
spin 150 >/dev/null & s2=$!
chase 64 150 >/dev/null & m1=$!
chase 64 150 >/dev/null & m2=$!
sleep 3
n=0; b1=0; b2=0; c1=0; c2=0; 
while [ $n -lt 20 ]; do
	nap 0.5
	n=$((n + 1))
	on_big $s1 && b1=$((b1 + 1))
	on_big $s2 && b2=$((b2 + 1))
	on_big $m1 && c1=$((c1 + 1))
	on_big $m2 && c2=$((c2 + 1))
done
diag "samples on big cpu$big out of $n: spin $b1 $b2, chase $c1 $c2"
diag "compute-bound on big: $(( (b1 + b2) * 100 / (2 * n) ))% of task-samples; memory-bound: $(( (c1 + c2) * 100 / (2 * n) ))%"
ms=$(mask_of $m1); ms2=$(mask_of $m2)
diag "masks: spin $(mask_of $s1) $(mask_of $s2), chase $(mask_of $m1) $(mask_of $m2)"
diag "$(cat $S/checker)"
# Steered to the littles ($litmask) unless the checker made placement yield
# (then the full mask is back): never restricted to the big core.
check "memory-bound tasks never steered to big (masks $ms $ms2)" sh -c "for m in $ms $ms2; do [ \$m = $litmask ] || [ \$m = $fullmask ] || exit 1; done"
check "compute-bound tasks held the big core more than memory-bound ones" test $((b1 + b2)) -gt $((c1 + c2))
kill $s1 $s2 $m1 $m2
wait 2>/dev/null || true
check "sbridge unloads" unload_sbridge
