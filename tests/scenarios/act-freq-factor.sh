#!/bin/sh
# scenario: frequency-invariant CPU factor on a board with cpufreq (cpufreq-dt, one policy per cluster): lowering the little policy's frequency raises the little type's effective factor by max/cur, lowering the big one's lowers it, restoring brings the nominal factor back
# arch: arm64
# topology: 1b3s
# smp: 4
# timeout: 150
# cpufreq: yes
. "${SBRIDGE_LIB:-/sbridge/lib.sh}"

# The effective factor of type j is nominal x (cur/max of the big, reference
# type) / (cur/max of j). The performance governor runs each policy at its
# scaling_max_freq, so lowering that sets the frequency exactly.
S=/sys/kernel/sbridge
P=/sys/devices/system/cpu/cpufreq
# factor KEY CPU: sbridgectl's KEY (factor | factor_nominal) of CPU x 10000
factor() {
	sbridgectl --json get $2 | sed -n "s/.*\"$1\": *\([0-9.]*\).*/\1/p" | head -n 1 |
		awk '{ printf "%d\n", $1 * 10000 + 0.5 }'
}
# near GOT WANT: GOT within 2 % of WANT
near() { [ $(( ($1 - $2) * 100 )) -le $(( $2 * 2 )) ] && [ $(( ($2 - $1) * 100 )) -le $(( $2 * 2 )) ]; }
# wait_factor CPU WANT: up to 10 s (the factors refresh once a second)
wait_factor() {
	_i=0
	while [ $_i -lt 40 ] && ! near "$(factor factor $1)" "$2"; do sleep 0.25; _i=$((_i + 1)); done
	near "$(factor factor $1)" "$2"
}
freqs() { for q in $P/policy*; do echo "${q##*/} cur $(cat $q/scaling_cur_freq) max $(cat $q/scaling_max_freq)"; done | tr '\n' ';'; }
plan 11

check "cpufreq-dt loads" insmod /sbridge/kmod/cpufreq-dt.ko
sleep 1
check "one policy per cluster (big: $(cat $P/policy0/related_cpus 2>&1), little: $(cat $P/policy1/related_cpus 2>&1))" \
	test "$(cat $P/policy0/related_cpus)" = 0 -a "$(cat $P/policy1/related_cpus)" = "1 2 3"
gov0=$(cat $P/policy0/scaling_governor) gov1=$(cat $P/policy1/scaling_governor)
bmax=$(cat $P/policy0/scaling_max_freq) lmax=$(cat $P/policy1/scaling_max_freq)
check "performance governor on both policies" \
	sh -c "echo performance > $P/policy0/scaling_governor && echo performance > $P/policy1/scaling_governor"
check "sbridge loads" load_sbridge
nom=$(factor factor_nominal 1)
diag "little nominal factor x10000: $nom; $(freqs)"
check "both policies at their maximum: effective factor = nominal ($(factor factor 1) vs $nom)" \
	wait_factor 1 "$nom"

# little cluster to 800 MHz: it is slower, its factor grows by max/cur
echo 800000 > $P/policy1/scaling_max_freq
want=$((nom * lmax / 800000))
check "little policy at 800 MHz: scaling_cur_freq follows ($(cat $P/policy1/scaling_cur_freq))" \
	test "$(cat $P/policy1/scaling_cur_freq)" = 800000
check "little effective factor rises to nominal x $lmax/800000 (want $want)" wait_factor 1 "$want"
diag "little: effective $(factor factor 1), nominal $(factor factor_nominal 1); $(freqs)"
diag "$(cat $S/types)"
# The clock behind the OPPs is a fixed clock: clk_set_rate() on it succeeds
# without changing anything, so policy->cur (scaling_cur_freq) and
# arch_freq_scale, which the factor follows, are the requested frequency
# while cpuinfo_cur_freq (the clock's rate) stays at the maximum. The
# emulated CPU never slows: this shows the factor tracks what cpufreq
# says, not a real speed change.
hw=$(cat $P/policy1/cpuinfo_cur_freq 2>&1)
sleep 1
diag "little at 800 MHz: scaling_cur_freq $(cat $P/policy1/scaling_cur_freq), clock (cpuinfo_cur_freq) $hw, effective factor $(factor factor 1)"
echo "$lmax" > $P/policy1/scaling_max_freq
check "little restored: effective factor back to nominal" wait_factor 1 "$nom"

# big (reference) cluster to 1000 MHz: the little type's factor falls
echo 1000000 > $P/policy0/scaling_max_freq
want=$((nom * 1000000 / bmax))
check "big policy at 1000 MHz: little effective factor falls to nominal x 1000000/$bmax (want $want)" \
	wait_factor 1 "$want"
diag "little: effective $(factor factor 1); big: effective $(factor factor 0), nominal $(factor factor_nominal 0); $(freqs)"
echo "$bmax" > $P/policy0/scaling_max_freq
check "big restored: effective factor back to nominal" wait_factor 1 "$nom"

check "sbridge unloads" unload_sbridge
echo "$gov0" > $P/policy0/scaling_governor
echo "$gov1" > $P/policy1/scaling_governor
rmmod cpufreq-dt
