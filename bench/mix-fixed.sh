#!/bin/sh
# scenario: benchmark: fixed-work mix (2 spin + 2 chase) on the rig's 1 big + 3 little board, stock scheduler against sbridge, alternated in one boot; completion times, makespan, big-core busy share and the best static assignment
# arch: arm64
# topology: 1b3s
# smp: 4
# rig: yes
# timeout: 900
# Not a test: prints ratios (bench/README.md). ROUNDS and T (seconds of
# work per program, alone on the big core) come from the environment;
# FACTORS (default "1.0 1.5 2.0 3.0", empty for none) adds a CPU-factor
# sweep: the little CPUs' factor set to each value, one stock and one
# sbridge run per value.
. /sbridge/lib.sh
ROUNDS=${ROUNDS:-2}
T=${T:-5}
FACTORS=${FACTORS-1.0 1.5 2.0 3.0}
big=$(big_cpus | cut -d' ' -f1)
lit=$(little_cpus | cut -d' ' -f1)
rate() { sed -n 's/.*rate=\([0-9.]*\).*/\1/p' "$1"; }
secs() { sed -n 's/.*secs=\([0-9.]*\).*/\1/p' "$1"; }
# busy jiffies of cpu $1 so far (user+nice+system+irq+softirq)
busy() { awk -v c="cpu$1" '$1 == c { print $2 + $3 + $4 + $7 + $8 }' /proc/stat; }
total() { awk -v c="cpu$1" '$1 == c { print $2 + $3 + $4 + $5 + $6 + $7 + $8 }' /proc/stat; }
# Stock = sbridge loaded but changing nothing (it keeps learning).
stock() { sbridgectl set param act.observe 1 >/dev/null 2>&1 || sbridgectl set param act.placement 0 >/dev/null; }
sbridge() { sbridgectl set param act.observe 0 >/dev/null 2>&1; sbridgectl set param act.placement 1 >/dev/null; }

load_sbridge || { echo "bench: loading sbridge failed"; exit 1; }
sbridgectl set param act.period_ms 100 >/dev/null
stock
echo "bench: $(uname -r), big cpu$big, little cpu$lit; $(sbridgectl status | grep -e 'counter source' -e 'in force')"

# Calibration: each program alone on each core type (also trains sbridge).
taskset -c $big spin 3 > /tmp/sb; taskset -c $lit spin 3 > /tmp/sl
taskset -c $big chase 16 3 > /tmp/cb; taskset -c $lit chase 16 3 > /tmp/cl
rsb=$(rate /tmp/sb) rsl=$(rate /tmp/sl) rcb=$(rate /tmp/cb) rcl=$(rate /tmp/cl)
ws=$(awk -v r=$rsb -v t=$T 'BEGIN { printf "%d", r * t }')
wc=$(awk -v r=$rcb -v t=$T 'BEGIN { printf "%d", r * t }')
echo "bench: alone: spin big $rsb little $rsl it/s (speedup $(awk -v a=$rsb -v b=$rsl 'BEGIN { printf "%.2f", a / b }')), chase big $rcb little $rcl loads/s (speedup $(awk -v a=$rcb -v b=$rcl 'BEGIN { printf "%.2f", a / b }'))"
echo "bench: work per program: spin $ws iterations, chase $wc loads ($T s alone on big)"
# Best static assignment: every subset of the 4 programs on the big core
# (sharing it: their times add up), the others one per little core (more
# than 3 share them evenly); the smallest makespan.
sp_s=$(awk -v a=$rsb -v b=$rsl 'BEGIN { print a / b }')
sp_c=$(awk -v a=$rcb -v b=$rcl 'BEGIN { print a / b }')
oracle=$(awk -v s=$sp_s -v c=$sp_c -v t=$T -v nl=$(little_cpus | wc -w) 'BEGIN {
	sp[0] = s; sp[1] = s; sp[2] = c; sp[3] = c; best = 1e9
	for (m = 0; m < 16; m++) {
		onb = 0; nlit = 0; worst = 0; bits = m
		for (i = 0; i < 4; i++) {
			if (bits % 2) onb += t; else { nlit++; if (t * sp[i] > worst) worst = t * sp[i] }
			bits = int(bits / 2)
		}
		if (nlit > nl) worst *= nlit / nl
		mk = onb > worst ? onb : worst
		if (mk < best) best = mk
	}
	printf "%.2f", best }')
echo "bench: best static assignment makespan ${oracle} s"
sbridgectl tasks --comm spin 2>/dev/null | head -n 3

mix() {
	b0=$(busy $big) t0=$(total $big)
	spin 600 $ws > /tmp/m1 & p1=$!
	spin 600 $ws > /tmp/m2 & p2=$!
	chase 16 600 $wc > /tmp/m3 & p3=$!
	chase 16 600 $wc > /tmp/m4 & p4=$!
	wait $p1 $p2 $p3 $p4
	b1=$(busy $big) t1=$(total $big)
	a=$(secs /tmp/m1) b=$(secs /tmp/m2) c=$(secs /tmp/m3) d=$(secs /tmp/m4)
	mk=$(printf '%s\n' $a $b $c $d | sort -g | tail -n 1)
	bb=$(( (b1 - b0) * 100 / (t1 - t0 + 1) ))
	echo "bench: $1 round $2: spin $a $b chase $c $d s; makespan $mk s; big busy $bb%"
	echo "$1 $a $b $c $d $mk $bb" >> /tmp/results
}
rm -f /tmp/results
r=1
while [ $r -le $ROUNDS ]; do
	stock; sleep 1; mix stock $r
	sbridge; sleep 1; mix sbridge $r
	r=$((r + 1))
done
sbridgectl status | grep 'in force'
# The factor shapes the predicted speedup; the measured one (learn.measured)
# does not depend on it, so the sweep decides on the prediction alone.
[ -n "${FACTORS:-}" ] && sbridgectl set param learn.measured 0 >/dev/null
for f in ${FACTORS:-}; do
	sbridgectl set cpu-factor $(little_cpus | tr ' ' ',' | sed 's/,$//') $f >/dev/null
	stock; sleep 1; mix "stock-f$f" 1
	sbridge; sleep 1; mix "sbridge-f$f" 1
	awk -v f=$f '$1 == "stock-f" f { s = $6 } $1 == "sbridge-f" f { b = $6 }
		END { printf "bench: factor %s: makespan stock %.2f sbridge %.2f, stock/sbridge %.3f\n", f, s, b, s / b }' /tmp/results
done
if [ -n "${FACTORS:-}" ]; then
	sbridgectl set cpu-factor $(little_cpus | tr ' ' ',' | sed 's/,$//') 0 >/dev/null
	sbridgectl set param learn.measured 1 >/dev/null
fi
awk -v o=$oracle '
	{ n[$1]++; for (i = 2; i <= 7; i++) s[$1, i] += $i }
	END {
		for (i = 2; i <= 7; i++) { st[i] = s["stock", i] / n["stock"]; sb[i] = s["sbridge", i] / n["sbridge"] }
		printf "bench: mean of %d rounds: stock spin %.2f %.2f chase %.2f %.2f makespan %.2f big busy %d%%\n", n["stock"], st[2], st[3], st[4], st[5], st[6], st[7]
		printf "bench: mean of %d rounds: sbridge spin %.2f %.2f chase %.2f %.2f makespan %.2f big busy %d%%\n", n["sbridge"], sb[2], sb[3], sb[4], sb[5], sb[6], sb[7]
		g = 1; for (i = 2; i <= 5; i++) { r = st[i] / sb[i]; g *= r; printf "bench: speedup over stock, program %d: %.3f\n", i - 1, r }
		# fourth root by Newton steps (busybox awk here has no math library)
		x = 1; for (k = 0; k < 40; k++) x = (3 * x + g / (x * x * x)) / 4
		printf "bench: geometric mean speedup %.3f; makespan stock/sbridge %.3f; sbridge makespan / best static %.3f\n", x, st[6] / sb[6], sb[6] / o
	}' /tmp/results
plan 1
ok "benchmark ran"
