#!/bin/sh
# scenario: benchmark (not pass/fail): seed 000's case (Smove) on the rig's per-core clocks under schedutil: Debian's make running a small build of gzip pipelines, with the stock scheduler, scx_sbridge and scx_sbridge without Smove, alternated in one boot; completion-time ratios, clocks, and how often Smove fired
# arch: any
# suite: backports
# topology: pc4
# smp: 4
# timeout: 1500
# rig: yes
# debs: make gzip
# debug: no
# Not a test: prints ratios (bench/README.md). N (targets), J (make -j)
# and ROUNDS come from the environment (harness.py --set N=...), and
# SCX_ARGS, more options for scx_sbridge in both of its configurations
# (e.g. -G: the global queues only).
# On a host with fewer cores than pc4's four, run it with
# SBRIDGE_RIG_SLOWDOWN=150: at rig.conf's 50 the host cannot keep the
# pace while more than two vCPUs are busy (lag 21-24 % alone on a
# 2-core host), and every wall-clock ratio carries that.
#
# pc4 (tools/rig/rig.conf): 4 big cores, each its own clock domain (per-core
# DVFS, as the x86 servers of seed 000), OPPs 800..1600 MHz, schedutil on
# every one. The workload: make -j J of N targets, each a shell running
# Debian's gzip -6 into gzip -d through a pipe: forks, execs, pipe wakeups
# and waits, a build's pattern. With J below the CPU count idle cores
# remain, and a wakeup that lands on one finds it at a low clock (seed
# 000's frequency inversion; tests/scenarios/rig-inversion.sh measures it
# on 6.1).
# Configurations, rotated every round:
#   stock    the kernel's scheduler (sbridge loaded, act.observe 1)
#   scx      scx_sbridge: Smove on (defaults: -m 2000 us, -l 80 %)
#   nosmove  scx_sbridge -m 0: the same scheduler without Smove, which
#            tells Smove's share apart from the rest of scx_sbridge (its
#            own idle search, its cpuperf signal to schedutil)
. "${SBRIDGE_LIB:-/sbridge/lib.sh}"
N=${N:-40}
SCX_ARGS=${SCX_ARGS:-}
J=${J:-2}
ROUNDS=${ROUNDS:-5}
D=/tmp/smove
plan 1

rig_clocks schedutil || { echo "bench: rig_clocks schedutil failed"; exit 1; }
# paced (the rig's timing model in wall-clock time) only while a build
# runs: loading the BPF scheduler at 1/50 of TCG's speed takes minutes
pace() { echo $1 > "$(rig_dev)/pace"; }
pace 0
load_sbridge || { echo "bench: loading sbridge failed"; exit 1; }
sbridgectl set param act.observe 1 >/dev/null
command -v scx_sbridge >/dev/null || { echo "bench: scx_sbridge was not built for this cell"; exit 1; }

# the tree: N text pieces (lib.sh, numbered), one rule each, all: every one
mkdir -p $D
{
	printf 'all:'
	i=0
	while [ $i -lt $N ]; do printf ' o%d.txt' $i; i=$((i + 1)); done
	printf '\n'
	printf 'o%%.txt: p%%.txt\n\t/usr/bin/gzip -6 -c $< | /usr/bin/gzip -d -c > $@\n'
} > $D/Makefile
i=0
while [ $i -lt $N ]; do sed "s/^/$i /" /sbridge/lib.sh > $D/p$i.txt; i=$((i + 1)); done
build() { /usr/bin/make -s -B -j$J -C $D > /dev/null; }

# rig totals over the CPUs: cycles, reference ns (busy), lag_ns,
# kernel-mode cycles, LLC misses, then busy_us, wake_low_us, wakeups,
# energy_uj
rig_tot() {
	awk 'NR > 1 && $1 ~ /^[0-9]+$/ { c += $5; r += $11; l += $10; kc += $21; m += $7 }
		END { printf "%.0f %.0f %.0f %.0f %.0f ", c, r, l, kc, m }' "$(rig_dev)/counters"
	awk 'NR > 1 && $1 ~ /^[0-9]+$/ { b += $4; w += $10; k += $11; e += $8 }
		END { printf "%.0f %.0f %.0f %.0f\n", b, w, k, e }' "$(rig_dev)/energy"
}
ncpu=$(nproc)
# measure CONFIG ROUND: one build; appends "CONFIG ROUND secs MHz wl% busy_ms
# wakeups energy_mJ lag% kernel% llc_misses" to /tmp/smove.res (MHz: cycles
# per busy ns, the clock the work ran at; lag: the share of the run the
# host could not keep the rig's pace, per CPU; kernel%: the share of the
# cycles run in kernel mode, the scheduler's own work among them)
measure() {
	pace 1
	set -- "$1" "$2" $(rig_tot) $(awk '{ print $1 }' /proc/uptime)
	build
	set -- "$@" $(rig_tot) $(awk '{ print $1 }' /proc/uptime)
	pace 0
	awk -v cfg="$1" -v r="$2" -v c=$((${13} - $3)) -v ref=$((${14} - $4)) \
		-v lag=$((${15} - $5)) -v kc=$((${16} - $6)) -v m=$((${17} - $7)) \
		-v b=$((${18} - $8)) -v w=$((${19} - $9)) -v k=$((${20} - ${10})) \
		-v e=$((${21} - ${11})) -v t0="${12}" -v t1="${22}" -v n=$ncpu 'BEGIN {
		s = t1 - t0
		printf "%s %d %.2f %.0f %.1f %d %d %d %.1f %.1f %d\n", cfg, r, s,
			(ref > 0 ? c * 1000 / ref : 0), (b > 0 ? 100 * w / b : 0),
			b / 1000, k, e / 1000, (s > 0 ? lag / s / 1e7 / n : 0),
			(c > 0 ? 100 * kc / c : 0), m }' >> /tmp/smove.res
	tail -n 1 /tmp/smove.res | awk '{ printf "bench: %s round %d: %s s, busy clock %s MHz, wake-low %s %% of busy, busy %s ms, %s wakeups, %s mJ, lag %s %%, kernel %s %% of cycles, %s LLC misses\n", $1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11 }'
}
# run CONFIG ROUND: one build under CONFIG
run() {
	case $1 in
	stock) measure "$@"; return ;;
	scx) a= ;;
	nosmove) a="-m 0" ;;
	esac
	scx_sbridge $a $SCX_ARGS > /tmp/scx.log 2>&1 &
	_p=$!
	scx_wait enabled || scx_wait enabled || scx_wait enabled
	if [ "$(scx_state)" != enabled ]; then
		echo "bench: $1: scx_sbridge did not start: $(cat /tmp/scx.log)"
		kill -INT $_p 2>/dev/null
		wait $_p
		return
	fi
	measure "$@"
	kill -INT $_p
	wait $_p
	sed -n "s/^stats: .*smove_kept=\([0-9]*\) smove_ran=\([0-9]*\) smove_moved=\([0-9]*\).*/bench: $1 round $2: Smove kept \1 wakees on the waker's CPU, \2 ran there, \3 moved after the delay/p" /tmp/scx.log
}

echo "bench: $(uname -r), pc4, schedutil, make -j$J of $N gzip pipelines, $ROUNDS rounds, scx_sbridge ${SCX_ARGS:-(defaults)}; $(sbridgectl status | grep -e '^clock' | head -n 1)"
pace 1
build		# warm: page cache, make's and gzip's first exec
pace 0
rm -f /tmp/smove.res
r=1
while [ $r -le $ROUNDS ]; do
	case $((r % 3)) in
	1) order="stock scx nosmove" ;;
	2) order="scx nosmove stock" ;;
	0) order="nosmove stock scx" ;;
	esac
	for c in $order; do run $c $r; done
	r=$((r + 1))
done

# medians per configuration, and ratios of completion time to stock's
med() { awk -v c="$1" -v f="$2" '$1 == c { print $f }' /tmp/smove.res | sort -g |
	awk '{ v[NR] = $1 } END { if (NR) print (NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2) }'; }
st=$(med stock 3)
for c in stock scx nosmove; do
	s=$(med $c 3)
	[ -n "$s" ] || continue
	echo "bench: scx-smove config=$c rounds=$(grep -c "^$c " /tmp/smove.res) secs=$s" \
		"ratio=$(awk -v a=$s -v b=$st 'BEGIN { printf "%.3f", (b > 0 ? a / b : 0) }')" \
		"busy_mhz=$(med $c 4) wake_low_pct=$(med $c 5) busy_ms=$(med $c 6) energy_mj=$(med $c 8) lag_pct=$(med $c 9)" \
		"kernel_pct=$(med $c 10) llc_misses=$(med $c 11)"
done
# the same, paired within each round (host drift cancels)
awk '{ t[$2, $1] = $3; r[$2] = 1 } END {
	for (i in r) {
		if (t[i, "stock"] > 0 && t[i, "scx"] > 0) printf "bench: round %d: scx/stock %.3f", i, t[i, "scx"] / t[i, "stock"]
		if (t[i, "stock"] > 0 && t[i, "nosmove"] > 0) printf ", nosmove/stock %.3f", t[i, "nosmove"] / t[i, "stock"]
		if (t[i, "nosmove"] > 0 && t[i, "scx"] > 0) printf ", scx/nosmove %.3f", t[i, "scx"] / t[i, "nosmove"]
		printf "\n" } }' /tmp/smove.res
unload_sbridge
ok "scx-smove benchmark ran (numbers above, not pass/fail)"
