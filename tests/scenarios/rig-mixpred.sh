#!/bin/sh
# scenario: the instruction-mix predictor on the rig: two programs with the same loads and stores, one integer and one floating point, gain differently from the big core (measured alone on each); with the rig's fitted coefficients sbridge predicts them in that order and near their true speedups, eq. 3 (the same tasks, coefficients cleared) predicts them alike; status and tasks say which predictor is in force; bad coefficients and an unprivileged user change nothing
# arch: any
# suite: bookworm
# topology: 1b1s
# smp: 2
# timeout: 300
# rig: yes
# capacities: no
# debug: no
# stock: arm64
. "${SBRIDGE_LIB:-/sbridge/lib.sh}"

# mixk intloop and fploop walk one 4 KiB array, loading and storing each
# element once; between the load and the store intloop does four integer
# ops, fploop two fused multiply-adds. Neither misses the L1, so eq. 3
# (the stall share) sees two compute-bound programs. The rig charges the
# little core 1.4-1.7x the big one's cycles for integer ops and loads, 2x
# for FP (tools/rig/README.md): the FP loop gains more. The coefficients
# (tools/rig/mixpred-1b1s-*.coef) were fitted on mixk's calibration
# kernels and spin/chase, never on these two.
S=/sys/kernel/sbridge
SECS=6
plan 18
# the rig's PMU first: its freq table gives the core types (rig_cpu_types)
grep -q '^rig_pmu ' /proc/modules || insmod $MODDIR/rig_pmu.ko
check "sbridge loads on the rig's PMU, core types from the rig" \
	load_sbridge cpu_types="$(rig_cpu_types)"
check "the source counts instruction classes" \
	sh -c 'sbridgectl --json status | grep -q "instr-classes"'
check "without coefficients status says eq. 3 is in force" \
	sh -c 'sbridgectl status | grep -q "^predictor: *eq. 3: no coefficients"'
sbridgectl set param window_instr 100000 >/dev/null
sbridgectl set param act.observe 1 >/dev/null
big=$(rig_big) little=$(rig_little)
coef=$(rig_predictor_file)
diag "big cpu $big, little cpu $little, coefficients $coef"

# field of a task's --json row: "speedup_pred": 1.234
jf() { sbridgectl --json tasks --pid="$1" | tr -d '\n ' | sed -n "s/.*\"$2\":\"\{0,1\}\([^,\"}]*\).*/\1/p"; }
# PROG on CPU for SECS: its rate, and its prediction with the coefficients
# and without (eq. 3), read at SECS-2 from the same windows (each
# sbridgectl call takes a while on the paced rig: the task must still
# run when the last one reads it), into /tmp/res.txt
run() {
	taskset -c $2 mixk $1 $SECS > /tmp/rate.txt &
	_p=$!
	sleep $((SECS - 2))
	rig_predictor
	_mix=$(jf $_p speedup_pred) _k1=$(jf $_p pred_kind)
	sbridgectl set predictor none >/dev/null
	_eq3=$(jf $_p speedup_pred) _k2=$(jf $_p pred_kind)
	diag "$1 on cpu$2: $(sbridgectl --json tasks --pid=$_p | tr -d '\n ' | grep -o '"mix":{[^}]*}')"
	wait $_p
	_r=$(sed -n 's/.*rate=\([0-9.]*\).*/\1/p' /tmp/rate.txt)
	echo "$_r $_mix $_eq3 $_k1 $_k2" > /tmp/res.txt
}
run intloop $little; set -- $(cat /tmp/res.txt); i_rl=$1 i_mix=$2 i_eq3=$3 i_k1=$4 i_k2=$5
run fploop $little; set -- $(cat /tmp/res.txt); f_rl=$1 f_mix=$2 f_eq3=$3 f_k1=$4 f_k2=$5
run intloop $big; set -- $(cat /tmp/res.txt); i_rb=$1 i_mixb=$2 i_eq3b=$3
run fploop $big; set -- $(cat /tmp/res.txt); f_rb=$1 f_mixb=$2 f_eq3b=$3
# x100 of a ratio or a decimal, for test(1)
r100() { awk -v a="$1" -v b="$2" 'BEGIN { if (a == "" || b == "" || b == 0) print -1; else printf "%d\n", a / b * 100 }'; }
c100() { awk -v v="$1" 'BEGIN { if (v == "") print -1; else printf "%d\n", v * 100 }'; }
i_true=$(r100 "$i_rb" "$i_rl") f_true=$(r100 "$f_rb" "$f_rl")
diag "true speedups (alone, big over little rate): intloop $i_true/100 fploop $f_true/100"
diag "from the little CPU: mix predicts intloop $i_mix fploop $f_mix; eq. 3 $i_eq3 $f_eq3"
diag "from the big CPU:    mix predicts intloop $i_mixb fploop $f_mixb; eq. 3 $i_eq3b $f_eq3b"
check "the rig gives the FP loop the larger speedup ($f_true vs $i_true /100, by 0.15 at least)" \
	test "$f_true" -ge $((i_true + 15))
check "with coefficients the prediction is the mix predictor's ($i_k1 $f_k1)" \
	test "$i_k1 $f_k1" = "mix mix"
check "without them it is eq. 3's ($i_k2 $f_k2)" test "$i_k2 $f_k2" = "eq3 eq3"
im=$(c100 "$i_mix") fm=$(c100 "$f_mix") ie=$(c100 "$i_eq3") fe=$(c100 "$f_eq3")
imb=$(c100 "$i_mixb") fmb=$(c100 "$f_mixb") ieb=$(c100 "$i_eq3b") feb=$(c100 "$f_eq3b")
check "the mix predictor orders them as their true speedups, from the little CPU ($fm > $im + 10)" \
	test "$fm" -ge $((im + 10))
check "... and from the big CPU ($fmb > $imb + 10)" test "$fmb" -ge $((imb + 10))
check "eq. 3 does not: its predictions differ by less than 0.10 or the wrong way (little: $fe vs $ie)" \
	test "$fe" -lt $((ie + 10))
check "... on the big CPU either ($feb vs $ieb)" test "$feb" -lt $((ieb + 10))
# within the fit's reach: 15 % of the true speedup (x100 values)
near() { awk -v p="$1" -v t="$2" 'BEGIN { d = p - t; if (d < 0) d = -d; exit !(t > 0 && p > 0 && d <= 0.15 * t) }'; }
near2() { near "$1" "$2" && near "$3" "$4"; }
check "mix predictions within 15 % of the true speedups (intloop $im/$i_true, fploop $fm/$f_true)" \
	near2 "$im" "$i_true" "$fm" "$f_true"

# setting coefficients: all or nothing, root only
check "the rig's coefficients apply" rig_predictor
before=$(cat $S/predictor)
check "status says the mix predictor is in force" \
	sh -c 'sbridgectl status | grep -q "^predictor: *instruction mix"'
printf '%s\npair 1/0 clock=9 err=0.1 fast=1,1,1,1,1 slow=1,1,1,1,1\n' "$(grep ^pair $coef)" > /tmp/bad.coef
check_fail "a file with one bad pair is refused" sbridgectl set predictor /tmp/bad.coef
echo "1 0 1024 100 1 1 1 1 1 1 1 1 1 1
5 0 1024 100 1 1 1 1 1 1 1 1 1 1" > /tmp/raw.txt
check_fail "the kernel refuses a line for a type the board lacks, whole" sh -c "cat /tmp/raw.txt > $S/predictor"
check_fail "an unprivileged user cannot set them" as_user sbridgectl set predictor $coef
check "after the refusals the coefficients are unchanged" test "$(cat $S/predictor)" = "$before"
check "sbridge unloads" unload_sbridge
