#!/bin/sh
# scenario: on the rig's emulated PMU, the unmodified pmu-monitor yields CPI stacks that put compute-bound spin's CPI_B share clearly above memory-bound chase's
# arch: arm64
# suite: bookworm
# topology: 1b1s
# smp: 2
# timeout: 240
# rig: yes
. "${SBRIDGE_LIB:-/sbridge/lib.sh}"
plan 6
check "sbridge loads on the rig's PMU" load_sbridge
check "counter source delivers instructions and LLC misses: learning on" \
	sh -c 'sbridgectl status | grep -q "CPI learning: *yes"'
diag "$(sbridgectl status | grep -i -e source -e learning)"
# One workload at a time on the big core; read its CPI_B share mid-run, in
# steady state (chase's list building is compute-like, its chase is not).
cur_share() {	# comm -> current CPI_B share x100 (table column 9)
	sbridgectl tasks --comm "$1" | awk 'NR > 1 && $9 != "-" { printf "%d\n", $9 * 100; exit }'
}
taskset -c 0 spin 4 > /dev/null & sleep 3; s=$(cur_share spin); wait
check "spin ran and has a share" test -n "$s"
taskset -c 0 chase 16 8 > /dev/null & sleep 7; c=$(cur_share chase); wait
check "chase ran and has a share" test -n "$c"
diag "$(sbridgectl matrix show)"
diag "CPI_B share x100 in steady state: spin ${s:-none}, chase ${c:-none}"
check "spin is compute-bound (share >= 0.8)" test "${s:-0}" -ge 80
check "spin's CPI_B share exceeds chase's by >= 0.3" test "${s:-0}" -ge $((${c:-100} + 30))
