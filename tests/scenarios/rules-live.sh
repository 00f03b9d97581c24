#!/bin/sh
# scenario: rules act on running tasks: a load re-matches live tasks (comm, exe and exe glob, cgroup, uid), clear returns them to auto, a prctl rename and a cgroup move re-match, hit counts grow
# arch: any
# stock: x86_64
# board: yes
# trixie: no
# topology: smp
# smp: 2
# timeout: 240
# icount: no
. "${SBRIDGE_LIB:-/sbridge/lib.sh}"

plan 42

T=/tmp/rules-live
rm -rf $T
mkdir -p $T
R=$T/live.rules

# "COMM CLASS RULE" of the task with TID $1 ("-" fields if untracked).
task_of() {
	sbridgectl tasks --pid="$1" | awk 'NR == 2 { print $3, $5, $NF; f = 1 }
		END { if (!f) print "- - -" }'
}
# Same for the (single) task named $1.
task_named() {
	sbridgectl tasks --comm="$1" | awk 'NR == 2 { print $3, $5, $NF; f = 1 }
		END { if (!f) print "- - -" }'
}
# Hits of the rule on line $1 of $R, from "rules list".
hits_of() {
	sbridgectl rules list | grep "live.rules:$1," |
		sed -n 's/.*, \([0-9][0-9]*\) hits*$/\1/p'
}
# is NAME GOT WANT: ok if GOT == WANT, else not ok with both.
is() {
	[ "$2" = "$3" ] && ok "$1" || not_ok "$1" "got '$2', want '$3'"
}

check "sbridge loads" load_sbridge

# Three sleeping programs started before any rule exists. renamer names
# its second thread rl-worker at once and renames itself on SIGUSR1.
cp "$(command -v renamer)" $T/rl-exe
renamer -t rl-worker rl-content 200 &
A=$!
renamer rl-b 200 &
B=$!
$T/rl-exe rl-c 200 &
C=$!
sleep 1
is "running task is auto before any rule" "$(task_of $A)" "renamer auto -"

cat > $R <<EOF2
# rules-live: first match wins, so the cgroup rule goes before comm=renamer
comm=rl-content  class=memory  prefer=little
cgroup=/rl-moved class=memory
comm=renamer     class=compute prefer=big
exe=$T/rl-exe    class=memory
EOF2
check "rules load" sbridgectl rules load $R
is "a task started before the load gets its class" "$(task_of $A)" \
	"renamer compute $R:4"
is "its other thread matches by the process's name" "$(task_named rl-worker)" \
	"rl-worker compute $R:4"
is "an exe rule matches a task that was already running" "$(task_of $C)" \
	"rl-exe memory $R:5"
h4=$(hits_of 4)
h2=$(hits_of 2)
diag "hits after load: line 2 '$h2', line 4 '$h4', line 5 '$(hits_of 5)'"
check "hits count the tasks matched at load" test "${h4:-0}" -ge 3
is "a rule nothing matched has no hits" "$h2" 0
check "dmesg reports the re-match" sh -c 'dmesg | grep -q "rules in force, [0-9]* tasks re-matched"'

# A comm change (prctl(PR_SET_NAME) on the main thread) re-matches.
kill -USR1 $A
sleep 1
is "a prctl rename re-matches the task" "$(task_of $A)" \
	"rl-content memory $R:2"
is "its thread follows the process's new name" "$(task_named rl-worker)" \
	"rl-worker memory $R:2"
h2b=$(hits_of 2)
check "hits grow with the rename" test "${h2b:-0}" -gt "$h2"
check "sysfs rule_hits counts too" test "$(cat /sys/kernel/sbridge/rule_hits)" -gt "${h4:-0}"

# A move to another cgroup v2 cgroup re-matches.
CG=/sys/fs/cgroup
if mkdir -p $CG && { grep -q " $CG cgroup2 " /proc/mounts ||
	mount -t cgroup2 none $CG 2>/dev/null; } && mkdir -p $CG/rl-moved; then
	is "before the move comm=renamer matches" "$(task_of $B)" \
		"renamer compute $R:4"
	h3=$(hits_of 3)
	echo $B > $CG/rl-moved/cgroup.procs
	is "a cgroup move re-matches (the earlier cgroup rule wins)" \
		"$(task_of $B)" "renamer memory $R:3"
	check "hits grow with the move" test "$(hits_of 3)" -gt "${h3:-0}"
	echo $B > $CG/cgroup.procs
	is "moving back re-matches again" "$(task_of $B)" "renamer compute $R:4"
else
	for c in "before the move" "cgroup move re-matches" "hits grow with the move" \
		"moving back re-matches"; do
		skip "$c" "no cgroup v2 in this guest kernel"
	done
fi

check "rules clear" sbridgectl rules clear
is "clear puts a running task back to auto" "$(task_of $A)" "rl-content auto -"
is "clear resets an exe-matched task" "$(task_of $C)" "rl-exe auto -"
is "clear resets the thread" "$(task_named rl-worker)" "rl-worker auto -"

# A load matches the name a task has now, not the one it had at exec.
check "rules load again" sbridgectl rules load $R
is "a renamed task matches its current name at load" "$(task_of $A)" \
	"rl-content memory $R:2"
run_json=$(sbridgectl --json tasks --pid=$A)
case "$run_json" in
*"\"rule\":\"$R:2\""*) ok "tasks --json names the rule" ;;
*) not_ok "tasks --json names the rule" "$run_json" ;;
esac
run_json=$(sbridgectl --json rules list)
case "$run_json" in
*'"hits":'*) ok "rules list --json has hit counts" ;;
*) not_ok "rules list --json has hit counts" "$run_json" ;;
esac

# The shipped browser rules: a Firefox child starts as "firefox" and names
# itself "Web Content" afterwards; it must leave the UI's prefer=big rule.
B_R=$RULESDIR/browsers.rules
if [ -f $B_R ]; then
	ui=$(grep -n '^comm=firefox ' $B_R | cut -d: -f1)
	wc_=$(grep -n '^comm="Web Content"' $B_R | cut -d: -f1)
	cp "$(command -v renamer)" $T/firefox
	$T/firefox -t "DOM Worker" "Web Content" 200 &
	F=$!
	sleep 1
	check "shipped rules load" sbridgectl rules load $RULESDIR
	rule=$(task_of $F | awk '{ print $NF }')
	case "$rule" in
	*browsers.rules:$ui) ok "a browser process is under the UI rule" ;;
	*) not_ok "a browser process is under the UI rule" "rule '$rule', want line $ui" ;;
	esac
	kill -USR1 $F
	sleep 1
	rule=$(task_of $F | awk '{ print $NF }')
	case "$rule" in
	*browsers.rules:$wc_) ok "renamed to Web Content it leaves the UI rule" ;;
	*) not_ok "renamed to Web Content it leaves the UI rule" "rule '$rule', want line $wc_" ;;
	esac
	rule=$(sbridgectl tasks --comm="DOM Worker" | awk 'NR == 2 { print $NF }')
	case "$rule" in
	*browsers.rules:$wc_) ok "the content process's threads follow it" ;;
	*) not_ok "the content process's threads follow it" "rule '$rule', want line $wc_" ;;
	esac
	kill $F
else
	for c in "shipped rules load" "browser process under the UI rule" \
		"renamed to Web Content" "content threads follow"; do
		skip "$c" "$RULESDIR not in the image"
	done
fi

# Loads and clears racing forks, exits and renames: no error in the log
# (the harness scans it), every command succeeds, and the end state is
# what the last load gives.
forkstorm 3000 8 >/dev/null &
FS=$!
i=0
while [ $i -lt 15 ]; do
	sbridgectl rules load $R >/dev/null || break
	kill -USR1 $A
	sbridgectl rules clear >/dev/null || break
	i=$((i + 1))
done
wait $FS
check "15 loads and clears racing a fork storm and renames" test $i -eq 15
check "rules load after the storm" sbridgectl rules load $R
is "the end state is the last load's" "$(task_of $A)" "rl-content memory $R:2"

# The other matches: an exe glob, a user, a cgroup written without its
# leading '/'. Both tasks run before the load and exec after it.
R2=$T/kinds.rules
mkdir -p $T/glob-1
cp "$(command -v renamer)" $T/glob-1/rl-g1
$T/glob-1/rl-g1 rl-glob 200 &
G=$!
asuser 4321 renamer rl-user 200 &
U=$!
sleep 1
cat > $R2 <<EOF2
exe=$T/glob-[0-9]/rl-g?  class=compute
uid=4321                  class=memory prefer=little
cgroup=rl-rel             class=compute
EOF2
check "rules with a glob, a uid and a relative cgroup load" sbridgectl rules load $R2
is "an exe glob matches a running task" "$(task_of $G)" "rl-g1 compute $R2:1"
is "a uid rule matches a running task of that user" "$(task_of $U)" \
	"renamer memory $R2:2"
is "the relative cgroup is listed with its '/'" \
	"$(sbridgectl rules list | grep -c '^cgroup=/rl-rel ')" 1
mkdir -p $T/glob-22
cp "$(command -v renamer)" $T/glob-22/rl-g1
$T/glob-22/rl-g1 rl-glob2 200 &
G2=$!
sleep 1
is "the glob's [0-9] is one character" "$(task_of $G2)" "rl-g1 auto -"
kill $G2
$T/glob-1/rl-g1 rl-glob3 200 &
G3=$!
asuser 4322 renamer rl-user2 200 &
U2=$!
sleep 1
is "an exe glob matches at exec" "$(task_of $G3)" "rl-g1 compute $R2:1"
is "another user's task is not matched" "$(task_of $U2)" "renamer auto -"
if [ -d $CG/rl-moved ] && mkdir -p $CG/rl-rel; then
	echo $U2 > $CG/rl-rel/cgroup.procs
	is "a move into the relative cgroup matches" "$(task_of $U2)" \
		"renamer compute $R2:3"
	echo $U2 > $CG/cgroup.procs
else
	skip "a move into the relative cgroup matches" "no cgroup v2 in this guest kernel"
fi
kill $G $G3 $U $U2

kill $A $B $C
wait 2>/dev/null
rmdir $CG/rl-moved $CG/rl-rel 2>/dev/null
check "rules clear at the end" sbridgectl rules clear
check "sbridge unloads with tasks re-matched" unload_sbridge
