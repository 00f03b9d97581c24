#!/bin/sh
# scenario: benchmark (not pass/fail): context-switch cost with sbridge_core loaded vs not, alternating in one boot
# arch: any
# topology: smp
# smp: 2
# timeout: 600
# icount: no
. /sbridge/lib.sh

# Workloads: pipe ping-pong pinned to one CPU (every round trip is two
# context switches between the two tasks), and a fan-out of 4 ping-pong
# pairs over all CPUs (hackbench-like). Configurations, alternated ROUNDS
# times so that drift in the host hits all of them alike:
#   off   - no sbridge module
#   core  - sbridge_core only (hooks, lookups, no counter source)
#   src   - sbridge_core + sbridge_fakesrc (hooks + a source read + model
#           sample on every switch: the full switch path)
# Output: one "bench:" line per configuration with the median ns per
# switch and the overhead ratio against "off" (goal: <= 1.005).
ROUNDS=${ROUNDS:-5}
TRIPS=${TRIPS:-5000}
M=/sbridge/modules
has_src=0
[ -e $M/sbridge_fakesrc.ko ] && has_src=1
plan 1

pin() { if command -v taskset >/dev/null; then taskset 1 "$@"; else "$@"; fi; }

# ns per switch of one pinned ping-pong run
one_pp() { pin pingpong $TRIPS | sed -n 's/.*ns_per_trip=\([0-9]*\).*/\1/p' | awk '{ printf "%d\n", $1 / 2 }'; }
# mean ns per switch seen by 4 ping-pong pairs running at once
one_fan() {
	for i in 1 2 3 4; do pingpong $TRIPS > /tmp/fan_run.$i & done
	wait
	cat /tmp/fan_run.1 /tmp/fan_run.2 /tmp/fan_run.3 /tmp/fan_run.4 |
	sed -n 's/.*ns_per_trip=\([0-9]*\).*/\1/p' |
	awk '{ s += $1 } END { if (NR) printf "%d\n", s / NR / 2 }'
}

setup() {
	case $1 in
	off)  rmmod sbridge_fakesrc 2>/dev/null; rmmod sbridge_core 2>/dev/null ;;
	core) rmmod sbridge_fakesrc 2>/dev/null
	      grep -q '^sbridge_core ' /proc/modules || insmod $M/sbridge_core.ko ;;
	src)  grep -q '^sbridge_core ' /proc/modules || insmod $M/sbridge_core.ko
	      grep -q '^sbridge_fakesrc ' /proc/modules || insmod $M/sbridge_fakesrc.ko ;;
	esac
}

configs="off core"
[ $has_src = 1 ] && configs="off core src"
r=0
while [ $r -lt $ROUNDS ]; do
	r=$((r + 1))
	for c in $configs; do
		setup $c
		one_pp >> /tmp/pp.$c
		one_fan >> /tmp/fan.$c
	done
done
setup off

median() { sort -n "$1" | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'; }
pp_off=$(median /tmp/pp.off)
fan_off=$(median /tmp/fan.off)
for c in $configs; do
	pp=$(median /tmp/pp.$c)
	fan=$(median /tmp/fan.$c)
	echo "bench: core-ctxswitch config=$c rounds=$ROUNDS pinned_ns_per_switch=$pp" \
	     "ratio=$(awk -v a=$pp -v b=$pp_off 'BEGIN { printf "%.4f", a / b }')" \
	     "fanout_ns_per_switch=$fan" \
	     "ratio=$(awk -v a=$fan -v b=$fan_off 'BEGIN { printf "%.4f", a / b }')"
	diag "$c pinned runs: $(tr '\n' ' ' < /tmp/pp.$c)"
done
ok "core-ctxswitch benchmark ran (numbers above, not pass/fail)"
