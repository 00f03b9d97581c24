#!/bin/sh
# scenario: sbridgectl calibrate on the rig (1 big + 1 little): the compute and memory ratios and the memory latency it measures are within 10 % of what rig.conf makes them; it sets the little type's CPU factor and model.mem_latency_ns, stores them, status shows them and --auto applies them after a reload; bad options, an unprivileged user and a busy machine change nothing
# arch: arm64
# suite: bookworm
# topology: 1b1s
# smp: 2
# timeout: 300
# rig: yes
# debug: no
. "${SBRIDGE_LIB:-/sbridge/lib.sh}"

# The truth, from the rig's own configuration (tools/rig/rig.conf, which
# the testbed copies to /sbridge/rig): per core type its clock and the
# cycles of an instruction class; an LLC miss costs mem_latency_ns.
CONF=/sbridge/rig/rig.conf
STATE=/var/lib/sbridge/calibration.conf
ini() {
	awk -F' *= *' -v s="[$1]" -v k="$2" '
		/^\[/ { in_s = ($0 == s) } in_s && $1 == k { print $2; exit }' $CONF
}
# ok if MEASURED is within 10 % of TRUTH
within10() { awk -v m="$1" -v t="$2" 'BEGIN { d = m / t - 1; exit !(m != "" && d <= 0.1 && d >= -0.1) }'; }
state() { cat /sys/kernel/sbridge/params; sbridgectl get cpu-factor | awk 'NR > 1 { print $1, $8 }'; }

plan 20
# the clocks as on a board: cpufreq knows each type's top clock, which
# calibrate divides the cycles by (without one it times the probes, and
# on the rig guest time runs 50 times slower than the model's)
check "rig_cpufreq loads with the performance governor" rig_clocks performance
check "sbridge loads on the rig's PMU" load_sbridge
big=$(rig_big)
little=$(rig_little)
tb=$(awk -v c=$big '$1 == c { print $2 }' "$(rig_dev)/freq")
tl=$(awk -v c=$little '$1 == c { print $2 }' "$(rig_dev)/freq")
lat=$(ini rig mem_latency_ns)
# compute: the probe is xorshift, integer ALU only but for its loop's one
# branch in 27 instructions (0.2 % on the ratio); memory: a dependent
# load that misses L1 and the LLC, after an LLC-sized chase that hits the
# LLC, so their difference is the latency alone.
truth=$(awk -v fb=$(ini type.$tb freq_mhz) -v fl=$(ini type.$tl freq_mhz) \
	-v ab=$(ini type.$tb cpi_alu) -v al=$(ini type.$tl cpi_alu) \
	-v lb=$(ini type.$tb cpi_ldst) -v ll=$(ini type.$tl cpi_ldst) \
	-v hb=$(ini type.$tb llc_hit_cycles) -v hl=$(ini type.$tl llc_hit_cycles) -v lat=$lat '
	BEGIN { printf "%.4f %.4f\n", (al / fl) / (ab / fb),
		((ll + hl + lat * fl / 1000) / fl) / ((lb + hb + lat * fb / 1000) / fb) }')
t_compute=${truth% *}
t_memory=${truth#* }
diag "rig.conf: big cpu $big ($tb), little cpu $little ($tl): compute $t_compute, memory $t_memory, latency $lat ns"

before=$(state)
check_fail "a bad option is refused" sbridgectl calibrate --budget 0
check_fail "so is an argument" sbridgectl calibrate now
check_fail "an unprivileged user cannot calibrate" as_user sbridgectl calibrate
as_user sbridgectl calibrate > /tmp/cal.out 2>&1; echo "rc=$?" >> /tmp/cal.out
check "it is told it needs CAP_SYS_ADMIN (exit 4)" sh -c "grep -q CAP_SYS_ADMIN /tmp/cal.out && grep -q rc=4 /tmp/cal.out"

# a busy machine: a spinner on the little CPU
taskset -c $little spin 60 >/dev/null &
sp=$!
sleep 1
sbridgectl calibrate > /tmp/cal.out 2>&1; echo "rc=$?" >> /tmp/cal.out
kill $sp; wait $sp 2>/dev/null
diag "$(cat /tmp/cal.out)"
check "a busy CPU is refused with the reason (exit 1)" \
	sh -c "grep -q 'busy (CPU $little' /tmp/cal.out && grep -q rc=1 /tmp/cal.out"
check "none of it changed anything or stored a calibration" \
	sh -c "test '$(state)' = '$before' -a ! -e $STATE"
sleep 1

# the performance governor has every clock at its top: wait for the
# rig's (calibrate refuses a CPU below it, but this names the clock).
# Reading cpuinfo_cur_freq makes cpufreq re-sync a policy whose idea of
# the clock is stale, which then asks for the top again.
top_b=$(ini type.$tb freq_mhz)
top_l=$(ini type.$tl freq_mhz)
w=0
while [ $w -lt 20 ] && ! [ "$(rig_mhz $big)" = $top_b -a "$(rig_mhz $little)" = $top_l ]; do
	cat $CPUFREQ/policy*/cpuinfo_cur_freq >/dev/null
	nap 0.25; w=$((w + 1))
done
diag "clocks before calibrating: big $(rig_mhz $big)/$top_b MHz, little $(rig_mhz $little)/$top_l MHz (waited ${w}/4 s); cpufreq: $(for p in $CPUFREQ/policy*; do echo "$(basename $p) $(cat $p/scaling_governor) cur $(cat $p/cpuinfo_cur_freq) req $(cat $p/scaling_cur_freq)"; done)"

# 5 s (the default budget) of guest time is 100 ms of the rig's model
# time at its slowdown of 50: the rig gets more
diag "$(sbridgectl get)"
t0=$(date +%s)
out=$(sbridgectl calibrate --budget 20 2>&1)
rc=$?
t1=$(date +%s)
diag "$out"
diag "calibrate took $((t1 - t0)) s of guest time"
check "calibrate runs (exit $rc)" test $rc = 0
# the little CPU's core type index (get's TYPE), which the ratio lines name
lt=$(sbridgectl get | awk -v c=$little '$1 == c { print $2 }')
r=$(echo "$out" | awk -v t="$lt" '$1 == "ratio" && $3 == t { print }')
m_compute=$(echo "$r" | awk '{ print $5 }')
m_memory=$(echo "$r" | awk '{ print $9 }')
m_lat=$(echo "$out" | awk '$1 == "model.mem_latency_ns" { print $2 }')
check "compute ratio $m_compute within 10 % of the rig's $t_compute" within10 "$m_compute" "$t_compute"
check "memory ratio $m_memory within 10 % of the rig's $t_memory" within10 "$m_memory" "$t_memory"
check "memory latency $m_lat ns within 10 % of the rig's $lat" within10 "$m_lat" "$lat"
check "measured by cycles at each type's top clock" sh -c "echo \"\$1\" | grep -q '^measured by cycles'" - "$out"
f=$(sbridgectl get cpu-factor $little | awk 'NR == 2 { print $8 }')
check "the little type's factor is the compute ratio ($f)" awk -v f="$f" -v m="$m_compute" \
	'BEGIN { exit !(f ~ /^[0-9.]+$/ && m != "" && f - m <= 0.006 && m - f <= 0.006) }'
check "model.mem_latency_ns is in force ($(cat /sys/module/sbridge_core/parameters/model_mem_latency_ns))" \
	test "$(cat /sys/module/sbridge_core/parameters/model_mem_latency_ns)" = "$m_lat"
check "the calibration is stored and is a valid config file" sbridgectl config check $STATE
check "status shows it" sh -c "sbridgectl status | grep -q 'memory latency:   $m_lat ns (model.mem_latency_ns' &&
	sbridgectl status | grep -q '^calibration:      $STATE'"
diag "$(sbridgectl status | sed -n '/^memory latency/,/^$/p')"

# after a reload the module has its defaults; --auto (the boot unit)
# applies what was stored without measuring again
rmmod sbridge_pmu; rmmod sbridge_core
load_sbridge >/dev/null 2>&1
check "after a reload the factor is the default again" \
	test "$(sbridgectl get cpu-factor $little | awk 'NR == 2 { print $8 }')" = "-"
check "calibrate --auto applies the stored calibration" sbridgectl calibrate --auto
check "the factor and the latency are back" \
	test "$(sbridgectl get cpu-factor $little | awk 'NR == 2 { print $8 }')" = "$f" \
	-a "$(cat /sys/module/sbridge_core/parameters/model_mem_latency_ns)" = "$m_lat"
