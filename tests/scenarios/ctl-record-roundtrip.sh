#!/bin/sh
# scenario: sbridgectl record on a 1b3s board with placement on (little factor 1.4) while 2 spin + 2 chase run; the file goes to the host, where tests/test_record.py parses it with sbridge-plot's reader
# arch: arm64
# suite: backports
# topology: 1b3s
# smp: 4
# timeout: 240
# icount: no
# runner: own
. "${SBRIDGE_LIB:-/sbridge/lib.sh}"

# Counters from tests/modules/fakesrc (TCG has no usable PMU): spin looks
# compute-bound, chase memory-bound, so both get windows. With a factor
# of 1.0 on every type nothing gains from big: a little factor of 1.4 and
# the predicted speedup only (fakesrc's CPI is the same on every core, a
# measured one is 1.0), as policy-factor, make the spinners want it.
lit=$(little_cpus | tr ' ' ',' | sed 's/,$//')
plan 8
check "sbridge_core loads (capacities from the device tree)" insmod $MODDIR/sbridge_core.ko
check "sbridge_fakesrc loads" insmod $MODDIR/sbridge_fakesrc.ko
sbridgectl set param learn.measured 0 >/dev/null 2>&1
check "little cpus $lit: factor 1.4" sbridgectl set cpu-factor "$lit" 1.4
check "placement on" sbridgectl set param act.placement 1
spin 30 >/dev/null & s1=$!
spin 30 >/dev/null & s2=$!
chase 64 30 >/dev/null & m1=$!
chase 64 30 >/dev/null & m2=$!
printf 'spin %s\nspin %s\nchase %s\nchase %s\n' $s1 $s2 $m1 $m2 > /tmp/pids
diag "workloads: $(tr '\n' ' ' < /tmp/pids)"
check "sbridgectl record -d 6 exits 0" sbridgectl record -d 6 -o /tmp/rt.rec
diag "record: $(wc -c < /tmp/rt.rec) bytes, $(wc -l < /tmp/rt.rec) lines; $(tail -n1 /tmp/rt.rec)"
kill $s1 $s2 $m1 $m2
wait 2>/dev/null
# not through check: it would capture the block instead of printing it
if save_file /tmp/rt.rec roundtrip.rec; then ok "the record goes to the host"; else not_ok "the record goes to the host"; fi
if save_file /tmp/pids pids.txt; then ok "the workload pids go to the host"; else not_ok "the workload pids go to the host"; fi
rmmod sbridge_fakesrc
check "sbridge unloads" rmmod sbridge_core
