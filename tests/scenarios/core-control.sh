#!/bin/sh
# scenario: sbridge netlink control: unprivileged changes refused, malformed requests rejected with a message and no state change, rules apply at exec
# arch: x86_64
# topology: smp
# smp: 2
# timeout: 180
# icount: no
. "${SBRIDGE_LIB:-/sbridge/lib.sh}"

S=/sys/kernel/sbridge
plan 56

check "sbridge_core loads" insmod $MODDIR/sbridge_core.ko

# State fingerprint: everything a bad request could have changed (lib.sh).
sb_state > /tmp/s0

# --- unprivileged ------------------------------------------------------
check "user may read status" as_user nltest status
check "user may dump tasks" as_user nltest tasks
for req in "cpu-factor 0 1536" "rule-comm spin 1" "rules-clear" \
	   "matrix-load spin 0 0 512" "param learning 0"; do
	out=$(as_user nltest $req 2>&1)
	rc=$?
	if [ $rc -ne 0 ] && echo "$out" | grep -q 'error=1 '; then
		ok "user refused (EPERM): $req"
	else
		not_ok "user refused (EPERM): $req" "rc=$rc $out"
	fi
done
sb_state > /tmp/s1
check "refused requests changed nothing" cmp /tmp/s0 /tmp/s1

# Without CAP_PERFMON a user sees his own tasks only, and not one running
# a set-id program (perf's rule): a setuid-root copy of spin, started by
# the user, is his by real uid but not his to inspect.
asuser 1000 spin 20 >/dev/null & mine=$!
cp "$(command -v spin)" /suspin && chmod 4755 /suspin
asuser 1000 /suspin 20 >/dev/null & suid=$!
# and not one holding a capability his shell lacks (a file capability:
# ptrace's rule, permitted set within the caller's)
cp "$(command -v spin)" /tmp/capspin && chmod 755 /tmp/capspin
fcap /tmp/capspin; frc=$?
case $frc in
0) ok "a copy of spin gets a file capability" ;;
3) skip "a copy of spin gets a file capability" "kernel $(kver): tmpfs keeps no security xattrs" ;;
*) not_ok "a copy of spin gets a file capability" "fcap exited $frc" ;;
esac
asuser 1000 /tmp/capspin 20 >/dev/null & fcap=$!
sleep 1
diag "the capability program: $(grep -i '^cap[pe]' /proc/$fcap/status | tr '\n' ' ')"
as_user nltest tasks > /tmp/ut
nltest tasks > /tmp/rt
check "user sees none of root's tasks" sh -c '! grep -q "^[0-9]* [^ ]* 0 " /tmp/ut'
check "user sees his own task with its counter data" sh -c "grep '^$mine spin 1000 ' /tmp/ut | grep -qv ' 9999 '"
check "user does not see his setuid-root program" sh -c "! grep -q '^$suid ' /tmp/ut"
if [ $frc = 3 ]; then
	skip "user does not see his program with a file capability" "no file capability here"
else
	check "user does not see his program with a file capability" sh -c "! grep -q '^$fcap ' /tmp/ut"
fi
check "root sees every task with counter data" \
	sh -c "grep -q '^$suid ' /tmp/rt && grep -q '^$fcap ' /tmp/rt && ! grep -q ' 9999 ' /tmp/rt"
kill $mine $suid $fcap; wait $mine $suid $fcap 2>/dev/null

# --- malformed (as root) -----------------------------------------------
# The steer threshold below the release one would steer and release every
# period: refused, both left as they were.
u0=$(cat /sys/module/sbridge_core/parameters/act_up_util)
check_fail "act.up_util below act.down_util refused" sbridgectl set param act.up_util 100
check "and act.up_util unchanged ($u0)" test "$(cat /sys/module/sbridge_core/parameters/act_up_util)" = "$u0"
for kind in factor-range factor-low factor-short mask-empty mask-nocpu \
	    mask-missing unknown-attr attr-beyond-max rule-match \
	    rule-comm-long rule-exe-relative rule-class rule-second-bad \
	    rule-factor matrix-type matrix-share matrix-dup matrix-nokey \
	    param-unknown param-range param-unterminated bad-cmd; do
	out=$(nltest bad $kind 2>&1)
	rc=$?
	msg=$(echo "$out" | sed -n 's/.*msg=//p')
	if [ $rc -eq 0 ] && echo "$out" | grep -q 'error=' ; then
		ok "rejected: $kind (${out})"
	else
		not_ok "rejected: $kind" "rc=$rc $out"
	fi
	[ -z "$msg" ] && diag "  (no extack message for $kind)"
done
sb_state > /tmp/s2
check "rejected requests changed nothing" cmp /tmp/s0 /tmp/s2

# --- valid changes ------------------------------------------------------
check "root sets a CPU factor" nltest cpu-factor 0 1536
check "override visible in sysfs" grep -q '^0 .*override=1536 ' $S/cpus
check "root clears it" nltest cpu-factor 0 0
check "root sets a parameter" nltest param phase_windows 5
check "parameter visible" grep -qx 'phase_windows 5' $S/params

# A rule applies at exec: spin becomes COMPUTE (class 1).
hits0=$(cat $S/rule_hits)
check "root loads a rule" nltest rule-comm spin 1 1
check "rule listed" sh -c 'nltest rules | grep -qx "1 spin 1 1"'
spin 2 >/dev/null &
sleep 1
nltest tasks > /tmp/rt
wait
diag "$(grep ' spin ' /tmp/rt)"
check "rule matched at exec" test "$(cat $S/rule_hits)" -gt "$hits0"
check "matching task has class COMPUTE" grep -q ' spin 0 [01] 1024 1$' /tmp/rt
# Executable rule: spin by path becomes MEMORY (class 2).
check "root loads an exe rule" nltest rule 2 "$(command -v spin)" 2 0
spin 2 >/dev/null &
sleep 1
nltest tasks > /tmp/rt
wait
check "exe rule matched" grep -q ' spin 0 [01] 0 2$' /tmp/rt
# cgroup v2 rule (prefix on a path component).
if mkdir -p /sys/fs/cgroup && { grep -q ' /sys/fs/cgroup cgroup2 ' /proc/mounts ||
	mount -t cgroup2 none /sys/fs/cgroup 2>/dev/null; } &&
	mkdir -p /sys/fs/cgroup/sbtest/inner; then
	check "root loads a cgroup rule" nltest rule 3 /sbtest 1 0
	sh -c 'echo $$ > /sys/fs/cgroup/sbtest/inner/cgroup.procs && exec spin 2' >/dev/null &
	sleep 1
	nltest tasks > /tmp/rt
	wait
	check "cgroup rule matched a task in a sub-cgroup" grep -q ' spin 0 [01] 1024 1$' /tmp/rt
	rmdir /sys/fs/cgroup/sbtest/inner /sys/fs/cgroup/sbtest 2>/dev/null
else
	skip "cgroup rule" "no cgroup v2 here"
	skip "cgroup rule matched" "no cgroup v2 here"
fi
check "root clears the rules" nltest rules-clear
check "no rules left" test "$(cat $S/rules)" -eq 0

check "sbridge_core unloads" rmmod sbridge_core
