#!/bin/sh
# scenario: sbridgectl config: a boot file of set values applies all or nothing (a refused last line puts every earlier change back), save writes what is in force and applies back to the same state, bad files and unprivileged users change nothing; doctor compares the file and the layered rules with what is in force
# arch: any
# stock: x86_64
# board: yes
# trixie: no
# topology: smp
# smp: 2
# timeout: 120
# icount: no
. "${SBRIDGE_LIB:-/sbridge/lib.sh}"

P=/sys/module/sbridge_core/parameters
state() { cat /sys/kernel/sbridge/params; sbridgectl get cpu-factor | awk 'NR > 1 { print $1, $8 }'; }
plan 17

check "sbridge loads" load_sbridge
before=$(state)
printf '# boot settings\nparam act.gain 154\ncpu-factor 0 1.5\nparam act.hold_ms 500\n' > /tmp/good.conf
check "config check accepts a good file" sbridgectl config check /tmp/good.conf
check "config apply sets every line" sbridgectl config apply /tmp/good.conf
check "the values are in force (gain $(cat $P/act_gain), hold $(cat $P/act_hold_ms))" \
	test "$(cat $P/act_gain)" = 154 -a "$(cat $P/act_hold_ms)" = 500
check "and the CPU factor override ($(sbridgectl get cpu-factor 0 | awk 'NR == 2 { print $8 }'))" \
	sh -c "sbridgectl get cpu-factor 0 | awk 'NR == 2 { exit \$8 != \"1.5\" }'"
mid=$(state)
# the kernel refuses the last line: nothing of the file may stay
printf 'param act.gain 300\ncpu-factor 0 2.0\nparam act.period_ms 5\n' > /tmp/refused.conf
check_fail "a file whose last line the kernel refuses fails" sbridgectl config apply /tmp/refused.conf
after=$(state)
[ "$after" = "$mid" ] || diag "changed: $(echo "$mid" > /tmp/a; echo "$after" > /tmp/b; diff /tmp/a /tmp/b | tr '\n' ';')"
check "and changes nothing (all or nothing)" test "$after" = "$mid"
printf 'param act.gain\nbogus 1 2\n' > /tmp/bad.conf
check_fail "a bad file is refused before anything is sent" sbridgectl config apply /tmp/bad.conf
check "errors name file:line:column" sh -c "sbridgectl config check /tmp/bad.conf 2>&1 | grep -q '/tmp/bad.conf:2:1'"
check_fail "an unprivileged user cannot apply" as_user sbridgectl config apply /tmp/good.conf
sbridgectl config save /tmp/saved.conf
# back to the load defaults, then the saved file restores the state
sbridgectl set cpu-factor 0 clear >/dev/null
sbridgectl set param act.gain 102 >/dev/null
sbridgectl set param act.hold_ms 1000 >/dev/null
sbridgectl config apply /tmp/saved.conf >/dev/null
check "save then apply gives back the same state" test "$(state)" = "$mid"
# doctor compares the configuration and the layered rules with what is in
# force, as tuned-adm verify does (--root: the files under /tmp/r)
mkdir -p /tmp/r/etc/sbridge/rules.d
cp /tmp/good.conf /tmp/r/etc/sbridge/sbridge.conf
printf 'comm=dr-a prefer=big\ncomm=dr-b class=memory\n' > /tmp/r/etc/sbridge/rules.d/a.rules
sbridgectl config apply /tmp/good.conf > /dev/null 2>&1
sbridgectl rules load --system --root=/tmp/r > /dev/null
sbridgectl --json doctor --root=/tmp/r > /tmp/d1.json
check "doctor: the file's settings and the rules are in force" sh -c \
	"grep -q '\"area\":\"config\",\"status\":\"ok\"' /tmp/d1.json &&
	 grep -q '\"area\":\"rules\",\"status\":\"ok\",\"message\":\"2 rules in force' /tmp/d1.json ||
	 { cat /tmp/d1.json; exit 1; }"
sbridgectl set param act.gain 200 > /dev/null
sbridgectl rules clear > /dev/null
sbridgectl doctor --root=/tmp/r > /tmp/d2.txt
rc=$?
check "doctor: a parameter set since and cleared rules, by line, with the fix (exit $rc)" sh -c \
	"test $rc = 1 &&
	 grep -q 'sbridge.conf:2: param act.gain is 200 in force, the file says 154' /tmp/d2.txt &&
	 grep -q '2 rules of the files are not in force' /tmp/d2.txt &&
	 grep -q -- '-> systemctl restart sbridge-config.service' /tmp/d2.txt || { cat /tmp/d2.txt; exit 1; }"
# get param reads what is in force: the module's own list, one by name
check "get param lists what sysfs lists" sh -c \
	'test "$(sbridgectl get param | awk "{ print \$1, \$2 }")" = "$(cat /sys/kernel/sbridge/params)"'
check "get param act.gain reads $(cat $P/act_gain)" sh -c \
	"sbridgectl get param act.gain | grep -qx 'act.gain *$(cat $P/act_gain)'"
run_rc() { "$@" >/dev/null 2>&1; echo $?; }
check "get param of a name the module lacks exits 2" test "$(run_rc sbridgectl get param act.nosuch)" = 2
check "sbridge unloads" unload_sbridge
