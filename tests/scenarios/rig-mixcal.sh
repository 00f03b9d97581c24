#!/bin/sh
# scenario: calibration runs for the instruction-mix predictor (not a test): each calibration program alone on the rig's big and on its little CPU, its rate and what sbridge read of it (class shares, CPI stack), saved as mixcal.txt for tools/mixfit.py
# arch: any
# suite: bookworm
# topology: 1b1s
# smp: 2
# timeout: 600
# rig: yes
# capacities: no
# runner: own
# debug: no
. "${SBRIDGE_LIB:-/sbridge/lib.sh}"

# make mixcal CELL=... boots it and fits (tools/mixfit.py). The programs
# are mixk's calibration kernels and the rig's own calibration programs
# (spin, chase); never the programs a test or the evaluation judges the
# predictor on (mixk intloop/fploop, bench/eval's Debian programs).
SECS=${MIXCAL_SECS:-6}
plan 3
# the rig's PMU first: its freq table gives the core types (rig_cpu_types)
grep -q '^rig_pmu ' /proc/modules || insmod $MODDIR/rig_pmu.ko
check "sbridge loads on the rig's PMU, core types from the rig" \
	load_sbridge cpu_types="$(rig_cpu_types)"
sbridgectl set param window_instr 100000 >/dev/null
sbridgectl set param act.observe 1 >/dev/null
big=$(rig_big) little=$(rig_little)
diag "big cpu $big, little cpu $little; $(sbridgectl status | grep -E 'counter source|predictor')"
out=/tmp/mixcal.txt
: > $out
n=0
for prog in "mixk alu" "mixk mul" "mixk ldst" "mixk branch" "mixk fp" "mixk simd" \
	    "mixk blend" "spin" "chase 16"; do
	for side in big little; do
		[ $side = big ] && cpu=$big || cpu=$little
		taskset -c $cpu $prog $SECS > /tmp/rate.txt &
		pid=$!
		sleep $((SECS - 1))
		js=$(sbridgectl --json tasks --pid=$pid | tr -d '\n')
		wait $pid
		# spin and chase print "rate=R/s", mixk too
		rate=$(sed -n 's/.*rate=\([0-9.]*\).*/\1/p' /tmp/rate.txt)
		echo "run $(echo "$prog" | tr ' ' -) $side $rate $js" >> $out
		n=$((n + 1))
	done
done
diag "$(cut -c1-60 $out)"
check "18 calibration runs recorded ($n)" test "$n" -eq 18
# not under check: it would take save_file's output, the file itself
if save_file $out mixcal.txt; then ok "the runs are saved"; else not_ok "the runs are saved"; fi
