#!/bin/sh
# scenario: the rig's clocks on the frequency-only board 2f2s: rig_cpufreq gives a policy per cluster with rig.conf's OPPs and the kernel's governors; a program runs at the clock requested (the rig's cycle and reference counters, its work per modelled time, its wall-clock rate); energy follows the OPP's voltage; sbridge's effective clock (the rig's counters) follows the governor, and when the fast cluster's clock drops to the slow one's the slow CPUs' factor falls to 1 and the compute-bound task stops wanting the fast cores
# arch: any
# suite: bookworm backports
# stock: x86_64 backports
# topology: 2f2s
# smp: 4
# timeout: 300
# rig: yes
# capacities: no
# debug: no
. "${SBRIDGE_LIB:-/sbridge/lib.sh}"

# The default suite runs it on x86_64 (6.1 and 7.x: the cpufreq API moved
# between them); make test-clocks on arm64 too, where the kernel's
# frequency invariance comes from the rig's counters (rig-inversion runs
# arm64's in the default suite).
# 2f2s: cpus 0-1 "fast", 2-3 "slow", one microarchitecture; rig.conf gives
# fast OPPs 1600..3200 MHz and slow 800..1600. "capacities: no": the kernel
# sees one capacity on both arches (as on x86), sbridge is told the types.
# Clocks are read from the rig's own counters (the counters table: core
# cycles, and reference cycles at 1 GHz while busy, i.e. busy ns).
S=/sys/kernel/sbridge
P=$CPUFREQ
plan 28

check "rig_cpufreq loads with the performance governor" rig_clocks performance
dev=$(rig_dev)
echo 1 > "$dev/pace"
pol() { echo "$(cat $P/$1/related_cpus) $(cat $P/$1/scaling_available_frequencies)" | tr -s ' ' | sed 's/ $//'; }
check "a policy per cluster with rig.conf's OPPs (policy0: $(pol policy0); policy2: $(pol policy2))" \
	test "$(pol policy0)" = "0 1 1600000 2000000 2400000 2800000 3200000" -a \
	"$(pol policy2)" = "2 3 800000 1000000 1200000 1400000 1600000"
diag "transition latency $(cat $P/policy0/cpuinfo_transition_latency) ns; $(dmesg | grep rig_cpufreq | tail -n 1)"
govs=
for g in powersave ondemand schedutil userspace performance; do
	rig_gov $g policy0 > /tmp/gov.err 2>&1 || govs="$govs $g($(cat /tmp/gov.err))"
done
check "governors powersave, ondemand, schedutil, userspace, performance take policy0${govs:+:$govs}" test -z "$govs"
check_fail "rig_pmu's freq file refuses writes while rig_cpufreq holds the clocks" \
	sh -c "echo '2 1000' > $dev/freq"

# snap CPU: "cycles ref_ns kernel_cycles" of CPU (the counters table)
snap() { awk -v c="$1" '$1 == c { print $5, $11, $21 }' "$dev/counters"; }
# run CPU CMD...: CMD pinned to CPU; sets mhz (cycles per busy ns), n
# (spin's iterations), ns (busy ns), uns (busy ns in user mode), ksh
# (kernel mode's share of the cycles, %), rate (wall), lag (% of the run)
run() {
	_c=$1; shift
	_l0=$(awk -v c="$_c" '$1 == c { print $10 }' "$dev/counters")
	set -- $(snap "$_c") $(taskset -c "$_c" "$@" | sed -n 's/.*iters=\([0-9]*\) secs=\([0-9.]*\) rate=\([0-9.]*\).*/\1 \2 \3/p') \
		$(snap "$_c") $(awk -v c="$_c" '$1 == c { print $10 }' "$dev/counters")
	n=$4 rate=$6 ns=$(($8 - $2))
	_dc=$(($7 - $1)) _dk=$(($9 - $3))
	mhz=$(awk -v c="$_dc" -v r="$ns" 'BEGIN { printf "%.1f", (r > 0 ? c * 1000 / r : 0) }')
	uns=$(awk -v c="$_dc" -v k="$_dk" -v r="$ns" 'BEGIN { printf "%d", (c > 0 ? r * (c - k) / c : 0) }')
	ksh=$(awk -v c="$_dc" -v k="$_dk" 'BEGIN { printf "%.1f", (c > 0 ? 100 * k / c : 0) }')
	lag=$(awk -v l="$((${10} - _l0))" -v s="$5" 'BEGIN { printf "%.1f", (s > 0 ? l / s / 1e7 : 100) }')
}
within() { awk -v r="$1" -v lo="$2" -v hi="$3" 'BEGIN { exit !(r >= lo && r <= hi) }'; }
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.3f", (b > 0 ? a / b : 0) }'; }
# wait_mhz CPU MHZ: up to 2 s for the rig to run CPU at MHZ (latency, ramp)
wait_mhz() {
	_i=0
	while [ $_i -lt 20 ] && [ "$(rig_mhz $1)" != "$2" ]; do taskset -c $1 spin 0.1 > /dev/null; _i=$((_i + 1)); done
	[ "$(rig_mhz $1)" = "$2" ]
}

# --- a program runs at the clock asked for (userspace governor) ------------
rig_gov userspace policy0
bad=
for f in 3200 1600 2400; do
	echo ${f}000 > $P/policy0/scaling_setspeed
	wait_mhz 0 $f || bad="$bad [cpu0 never at $f: $(rig_mhz 0)]"
	run 0 spin 1
	eval "m$f=$mhz n$f=$n ns$f=$ns u$f=$uns r$f=$rate l$f=$lag"
	diag "asked $f MHz: rig $(rig_mhz 0) MHz, spin at $mhz MHz (cycles / busy ns), $n iterations in $ns busy ns ($ksh % in kernel mode), wall $rate/s, lag $lag %"
	within "$mhz" $((f * 99 / 100)) $((f * 101 / 100)) || bad="$bad [$f: ran at $mhz]"
done
check "spin ran at the clock asked for, 1 % (3200, 1600, 2400 MHz)" test -z "$bad"
[ -z "$bad" ] || diag "$bad"
# work per modelled time follows the clock: iterations per busy ms in
# user mode. The kernel's share (ticks, the rig's pacing) costs about the
# same cycles per second at any clock, so it takes twice the time at half
# the clock: counted in, it put 1600 / 3200 at 0.484 on a loaded host.
per_ms() { awk -v n="$1" -v ns="$2" 'BEGIN { printf "%.4f", (ns > 0 ? n * 1e6 / ns : 0) }'; }
w16=$(ratio "$(per_ms $n1600 $u1600)" "$(per_ms $n3200 $u3200)")
w24=$(ratio "$(per_ms $n2400 $u2400)" "$(per_ms $n3200 $u3200)")
check "work per modelled time in user mode at 1600 / 3200 = $w16 (0.5), at 2400 / 3200 = $w24 (0.75)" \
	awk -v a=$w16 -v b=$w24 'BEGIN { exit !(a >= 0.485 && a <= 0.515 && b >= 0.73 && b <= 0.77) }'
# and so does the wall-clock rate, when the host kept the pace
wr=$(ratio "$r1600" "$r3200")
if ! within "$l1600" 0 2 || ! within "$l3200" 0 2; then
	skip "wall-clock rate follows the clock" "host overloaded: lag $l1600 / $l3200 % of a run"
else
	check "wall-clock rate at 1600 / 3200 = $wr (0.5)" within "$wr" 0.47 0.53
fi

# --- energy: the energy model's power at the OPP in force -------------------
# dyn CPU: dynamic uJ of CPU (the energy table)
dyn() { awk -v c="$1" '$1 == c { print $6 }' "$dev/energy"; }
# epc MHZ: dynamic uJ per million cycles of a second of spin on cpu0 at MHZ
epc() {
	echo ${1}000 > $P/policy0/scaling_setspeed
	wait_mhz 0 $1
	set -- $(snap 0) $(dyn 0)
	taskset -c 0 spin 1 > /dev/null
	set -- "$@" $(snap 0) $(dyn 0)
	awk -v e="$(($8 - $4))" -v c="$(($5 - $1))" 'BEGIN { printf "%.1f", (c > 0 ? e * 1e6 / c : 0) }'
}
# coefficient x V^2: 2000 uW/MHz/V^2 at 850 mV (1600 MHz) and 1150 mV (3200)
lo=$(epc 1600) hi=$(epc 3200)
diag "$(cat $dev/energy)"
check "dynamic energy per cycle is coefficient x V^2 at the OPP: $lo (1445) and $hi (2645) uJ per million cycles, 3 %" \
	awk -v a=$lo -v b=$hi 'BEGIN { exit !(a >= 1401 && a <= 1489 && b >= 2565 && b <= 2725) }'
set -- $(awk '$1 == 3 { print $5, $7 }' "$dev/energy")
nap 1
set -- "$@" $(awk '$1 == 3 { print $5, $7 }' "$dev/energy")
check "idle energy is idle power x idle time (cpu3: $(($4 - $2)) uJ over $(($3 - $1)) us, 500 mW, 2 %)" \
	awk -v e=$(($4 - $2)) -v t=$(($3 - $1)) 'BEGIN { exit !(t > 0 && e / t >= 0.49 && e / t <= 0.51) }'

# --- what sbridge sees ------------------------------------------------------
rig_gov performance
types=$(rig_cpu_types)
check "sbridge loads with cpu_types=$types" load_sbridge "cpu_types=$types"
sbridgectl set param act.period_ms 100 > /dev/null
sbridgectl set param learn.measured 0 > /dev/null
# cur CPU: sbridge's effective MHz of CPU (sbridgectl get, CUR_MHZ)
cur() { sbridgectl --json get $1 | sed -n 's/.*"cur_khz": *\([0-9]*\).*/\1/p' | head -n 1 | awk '{ print int($1 / 1000) }'; }
ckind() { sbridgectl --json get $1 | sed -n 's/.*"clock": *"\([a-z]*\)".*/\1/p' | head -n 1; }
# probe: a short spin on every CPU, so that each has a fresh measured clock
probe() { for _c in 0 1 2 3; do taskset -c $_c spin 0.3 > /dev/null; done; }
# wait_cur CPU MHZ: up to 10 s for sbridge's clock of CPU to be MHZ (2 %)
wait_cur() {
	_i=0
	while [ $_i -lt 10 ] && ! within "$(cur $1)" $(($2 * 98 / 100)) $(($2 * 102 / 100)); do
		probe; _i=$((_i + 1))
	done
	within "$(cur $1)" $(($2 * 98 / 100)) $(($2 * 102 / 100))
}
probe
diag "$(sbridgectl status | grep -e clock -e source)"
# clock_said: status names the rig's counters, kind emulated, not real
clock_said() {
	sbridgectl status | grep -q '^clock: *rig counters (measured by the emulation rig' &&
		sbridgectl --json status | grep -q '"kind": *"emulated"' &&
		sbridgectl --json status | grep -q '"real": *false'
}
check "status: the clock is the rig's counters, emulated, not real" clock_said
check "doctor: the clock is the rig's counters, not a machine's own" sh -c \
	"sbridgectl doctor | grep -q 'clock.*the emulation rig.s counters, measured but not a machine.s own'"
# both F0 F2: sbridge reads cpu0 at F0 and cpu2 at F2 MHz
both() { wait_cur 0 $1 && wait_cur 2 $2; }
check "performance: sbridge reads cpu0 at 3200 and cpu2 at 1600 MHz, from the rig's counters" both 3200 1600
diag "cpu0 $(cur 0) MHz ($(ckind 0)), cpu2 $(cur 2) MHz ($(ckind 2))"
check "every CPU's clock is the rig's counters (emulated)" \
	test "$(for c in 0 1 2 3; do ckind $c; done | sort -u)" = emulated
# spin ran on both types at known clocks: its measured speedup has them
diag "spin in the matrix: $(sbridgectl matrix show 2>&1 | grep -w spin | tr -s ' ' | tr '\n' ';')"
rig_gov powersave
check "powersave: sbridge reads cpu0 at 1600 and cpu2 at 800 MHz" both 1600 800
diag "cpu0 $(cur 0) MHz, cpu2 $(cur 2) MHz"
rig_gov performance
wait_cur 0 3200 > /dev/null

# --- the frequency-invariant factor, and the decision with it ---------------
# factor CPU: sbridge's CPU factor in force of CPU x 100
factor() { sbridgectl --json get $1 | sed -n 's/.*"factor": *\([0-9.]*\).*/\1/p' | head -n 1 | awk '{ printf "%d\n", $1 * 100 + 0.5 }'; }
wanting() { sed -n 's/^mode: .* \([0-9]*\) gain from fast.*/\1/p' $S/actuators; }
# wait_factor CPU LO HI, wait_wanting N: up to 10 s each
wait_factor() {
	_i=0
	while [ $_i -lt 10 ] && ! within "$(factor $1)" $2 $3; do probe; _i=$((_i + 1)); done
	within "$(factor $1)" $2 $3
}
wait_wanting() {
	_i=0
	while [ $_i -lt 20 ] && [ "$(wanting)" != "$1" ]; do nap 0.5; _i=$((_i + 1)); done
	[ "$(wanting)" = "$1" ]
}
spin 120 > /dev/null &
sp=$!
check "both clusters at their top clock: slow CPUs' factor 2.0" wait_factor 2 195 205
check "the compute-bound spin wants the fast cores" wait_wanting 1
diag "factor $(factor 2); $(sed -n 's/^mode: //p' $S/actuators)"
rig_gov powersave policy0
check "fast cluster's governor to powersave (1600 MHz, as the slow one): slow CPUs' factor falls to 1.0" \
	wait_factor 2 95 105
check "and spin no longer wants the fast cores" wait_wanting 0
diag "factor $(factor 2); $(sed -n 's/^mode: //p' $S/actuators)"
diag "$(sbridgectl get)"
rig_gov performance policy0
check "fast cluster back at 3200: slow CPUs' factor 2.0 again" wait_factor 2 195 205
check "and spin wants the fast cores again" wait_wanting 1
kill $sp; wait $sp 2> /dev/null
check "sbridge unloads" unload_sbridge

# --- away with the driver ---------------------------------------------------
check "rig_cpufreq unloads" rmmod rig_cpufreq
# handed_back: no request, every CPU at its configured clock, freq writable
handed_back() {
	test "$(awk 'NR > 1 { printf "%s:%s ", $5, $6 }' $dev/freq)" = "0:3200 0:3200 0:1600 0:1600 " &&
		echo '2 1000' > $dev/freq && echo '2 0' > $dev/freq
}
check "every CPU back at its configured clock, no request, and the freq file writable again" handed_back
check "rig_cpufreq loads again" rig_clocks performance
check "and unloads" rmmod rig_cpufreq

# --- a PMU with fewer events and counters (rig_pmu's hide= and counters=) ----
M=/sys/module/sbridge_pmu/parameters
rmmod rig_pmu
insmod $MODDIR/rig_pmu.ko hide=stall_cycles,llc_misses
load_sbridge "cpu_types=$types" > /dev/null 2>&1
check "hide=stall_cycles,llc_misses: the counter source learns without them ($(cat $M/status))" \
	grep -qx 'learning on (missing: llc_misses stall_cycles)' $M/status
unload_sbridge; rmmod rig_pmu
insmod $MODDIR/rig_pmu.ko counters=2
load_sbridge "cpu_types=$types" > /dev/null 2>&1
probe
# blind: only cycles and instructions pinned (the instruction classes
# after them are flexible events perf rotates, docs/estimate.md); no clock
# measured (no counter left for the rig's pair, no cpufreq driver): none,
# never a nominal one
blind() {
	grep -qE ': cycles instructions( ldst| int| ase| vfp| branch)*$' $M/events &&
		sbridgectl status | grep -q '^clock: *none' &&
		test "$(sbridgectl get | awk 'NR > 1 { print $9 }' | sort -u)" = "-"
}
check "counters=2: cycles and instructions only ($(cut -d: -f2 $M/events | head -n 1)), no counter left for the clock and no cpufreq: no clock ($(sbridgectl status | sed -n 's/^clock: *//p'))" blind
unload_sbridge; rmmod rig_pmu
