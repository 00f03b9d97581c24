#!/bin/sh
# scenario: the CPU factor drives decisions: factor 1.0 on every type steers nothing; little factor 1.4 makes the compute-bound task want big (the memory-leaning one only fills a free big CPU); a larger little-type factor makes the memory-leaning task want big too; with act.model 0 (load only) both want big whatever the factor
# arch: arm64
# suite: backports
# topology: 3b1s
# smp: 4
# timeout: 200
# icount: no
. "${SBRIDGE_LIB:-/sbridge/lib.sh}"

# sbridge_fakesrc makes spin compute-bound (CPI_B share 1.0) and chase
# memory-leaning (share 0.2). With LF = C x Cap x CPI_B the predicted
# big/little speedup is 1 + LF_little - LF_big: Cap x 1.0 for spin,
# 1 + 0.2 x (Cap - 1) for chase; a task wants the big type from 1.1
# (act.gain). 3 big CPUs, 1 little: room on big for both. A task below
# the gain does not want big, but while big CPUs are free it fills one (it
# gains 1.08 there): wanting shows in the decision ("N gain from fast").
S=/sys/kernel/sbridge
mask_of() { taskset -p $1 | sed 's/.*: //'; }
why() { sed -n 's/^mode: //p' $S/actuators; }
wanting() { why | sed -n 's/.* \([0-9]*\) gain from fast.*/\1/p'; }
# wait_wanting N: up to 10 s for the last decision to count N wanting tasks
wait_wanting() {
	_w=0
	while [ $_w -lt 20 ] && [ "$(wanting)" != "$1" ]; do sleep 0.5; _w=$((_w + 1)); done
	[ "$(wanting)" = "$1" ]
}
big=$(big_cpus | tr ' ' ',' | sed 's/,$//')
lit=$(little_cpus | tr ' ' ',' | sed 's/,$//')
bigmask=0 allmask=0
for c in $(big_cpus); do bigmask=$((bigmask | (1 << c))); done
for c in $(big_cpus) $(little_cpus); do allmask=$((allmask | (1 << c))); done
bigmask=$(printf '%x' $bigmask) allmask=$(printf '%x' $allmask)
# wait_mask PID MASK: up to 10 s for PID's mask to become MASK
wait_mask() {
	_w=0
	while [ $_w -lt 20 ] && [ "$(mask_of $1)" != "$2" ]; do sleep 0.5; _w=$((_w + 1)); done
	[ "$(mask_of $1)" = "$2" ]
}
# hot() : every task with util_avg >= 200, for the record
hot() {
	for d in /proc/[0-9]*; do
		u=$(awk '$1 == "se.avg.util_avg" { print $3 }' $d/sched 2>/dev/null)
		[ "${u:-0}" -ge 200 ] && echo -n "${d#/proc/}:$(cat $d/comm):u$u:cpu$(cut -d' ' -f39 $d/stat):$(mask_of ${d#/proc/}) "
	done
}
plan 21

core_with "sbridge_fakesrc loads" sbridge_fakesrc
check "placement is on by default with two core types" grep -qx 'placement: on' $S/actuators
check "big cpus $big, little $lit" test -n "$big" -a -n "$lit"
sbridgectl set param act.period_ms 100 >/dev/null
sbridgectl set param learn.measured 0 >/dev/null 2>&1	# predicted speedup only
check "factor 1.0 on every CPU" sbridgectl set cpu-factor $big,$lit 1.0

spin 120 >/dev/null & s=$!
chase 16 120 >/dev/null & c=$!
sleep 4
diag "factor 1.0: $(why)"
check "factor 1.0: nothing steered (spin $(mask_of $s), chase $(mask_of $c))" \
	test "$(mask_of $s)" = "$allmask" -a "$(mask_of $c)" = "$allmask" \
	-a "$(awk '$1 == "placement_steered" { print $2 }' $S/checker)" = 0

check "little factor 1.4" sbridgectl set cpu-factor $lit 1.4
diag "$(sbridgectl get cpu-factor | tr '\n' ';')"
wait_mask $s $bigmask
diag "little factor 1.4: $(why)"
diag "hot: $(hot)"
diag "$(sbridgectl tasks --comm chase | tr -s ' ' | tr '\n' ';')"
check "factor 1.4: compute-bound spin (speedup 1.4) steered to big ($(mask_of $s))" test "$(mask_of $s)" = "$bigmask"
check "memory-leaning chase (speedup 1.08) does not want big: one task gains from fast ($(why))" wait_wanting 1
wait_mask $c $bigmask
check "but fills a free big CPU ($(mask_of $c))" test "$(mask_of $c)" = "$bigmask"

# act.model 0 (the evaluation's HMP-style baseline): every hot task gets
# the capacity ratio as its speedup, so chase wants big by its load alone
check "act.model 0: placement by load alone" sbridgectl set param act.model 0
wait_mask $c $bigmask
check "model off: memory-leaning chase steered to big too ($(mask_of $c))" test "$(mask_of $c)" = "$bigmask"
check_fail "act.model 2 is refused" sbridgectl set param act.model 2
check "act.model 1 again" sbridgectl set param act.model 1
check "model on: chase does not want big again ($(why))" wait_wanting 1

check "little factor 4.0" sbridgectl set cpu-factor $lit 4.0
wait_mask $c $bigmask
diag "little factor 4.0: $(why)"
diag "hot: $(hot)"
check "a larger little factor makes chase want big too ($(why))" wait_wanting 2
check "chase on big ($(mask_of $c))" test "$(mask_of $c)" = "$bigmask"
check "spin still on big ($(mask_of $s))" test "$(mask_of $s)" = "$bigmask"

kill $s $c; wait 2>/dev/null
check "sbridge unloads" sh -c "rmmod sbridge_fakesrc && rmmod sbridge_core"
user_tasks_audit "$(printf '%x' $(( (1 << $(nproc)) - 1 )))" > /tmp/audit
check "nothing left steered ($(sed -n 's/^n //p' /tmp/audit) tasks audited)" \
	sh -c '! grep -q "^mask" /tmp/audit'
grep "^mask" /tmp/audit | head -n 5 | while read -r l; do diag "$l"; done
