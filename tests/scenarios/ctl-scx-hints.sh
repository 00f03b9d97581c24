#!/bin/sh
# scenario: sbridgectl hintmap: creates scx_layered's task-hint map on a bpffs, writes the hints of tracked spinners into it (pidfd keys) and reads them back; a loop removes the entry of a task renamed out of --comm, counts an exited one gone and clears its entries at SIGTERM; threads need 6.9; a map of another layout, a program, a path off bpffs and an unprivileged caller are refused
# arch: arm64
# suite: backports
# topology: smp
# smp: 2
# timeout: 150
# icount: no
. "${SBRIDGE_LIB:-/sbridge/lib.sh}"

plan 22

grep -q ' /sys/fs/bpf bpf ' /proc/mounts || mount -t bpf bpf /sys/fs/bpf || bail_out "no bpffs"
D=/sys/fs/bpf/sbtest
rm -rf $D
mkdir -p $D && chmod 755 /sys/fs/bpf $D
M=$D/hints

# Run a command, keep its exit code in $crc and its output in $cout.
run() {
	cout=$("$@" 2>&1)
	crc=$?
}
expect_rc() {
	if [ "$crc" = "$1" ]; then ok "$2"; else not_ok "$2" "exit $crc, want $1: $cout"; fi
}
# value TID: the hint the dump shows for TID, empty if none
value() { sbridgectl hintmap dump $M | awk -v t="$1" '$1 == t { print $2 }'; }
# hint_of PID: sbridge's hint of PID as a number (- 0, fast 1, slow 2)
hint_of() {
	case $(sbridgectl --json tasks --pid="$1") in
	*'"hint":"fast"'*) echo 1 ;;
	*'"hint":"slow"'*) echo 2 ;;
	*'"hint":"-"'*) echo 0 ;;
	*) echo "?" ;;
	esac
}
# wait_log REGEX: wait up to 5 s for the writer's log to have a matching line
wait_log() {
	_w=0
	while [ $_w -lt 25 ] && ! grep -Eq "$1" /tmp/hm.log; do nap 0.2; _w=$((_w + 1)); done
	grep -Eq "$1" /tmp/hm.log
}

check "sbridge loads" load_sbridge
check "hintmap create pins an empty map" sbridgectl hintmap create $M
run sbridgectl hintmap dump $M
[ "$crc" = 0 ] && [ "$(echo "$cout" | tail -n1)" = "0 entries" ] &&
	ok "dump of the new map: 0 entries" || not_ok "dump of the new map: 0 entries" "$cout"
run sbridgectl hintmap create $M
expect_rc 2 "create over an existing pin: exit 2"

# two spinners and a sleeper named spin too (renamer, which renames itself
# at SIGUSR1: /proc/PID/comm of another process cannot be written)
mkdir -p /tmp/hm
cp "$(command -v renamer)" /tmp/hm/spin
spin 60 >/dev/null & s1=$!
/tmp/hm/spin spun 60 & s2=$!
spin 60 >/dev/null & s3=$!
sleep 1
h1=$(hint_of $s1)
run sbridgectl hintmap write --comm=spin --base=100 $M
case "$crc:$cout" in
"0:pass 1: wrote 3, removed 0, gone 0, skipped 0") ok "write once: the 3 tasks named spin" ;;
*) not_ok "write once: the 3 tasks named spin" "exit $crc: $cout" ;;
esac
h2=$(hint_of $s1)
run sbridgectl hintmap dump $M
diag "$cout"
[ "$(echo "$cout" | tail -n1)" = "3 entries" ] && ok "dump: 3 entries, only the tasks named spin" ||
	not_ok "dump: 3 entries, only the tasks named spin" "$cout"
v1=$(value $s1)
if [ "$h1" = "$h2" ] && [ "$h1" != "?" ]; then
	[ "$v1" = $((100 + h1)) ] && ok "spinner $s1: 100 + its hint $h1 = $v1" ||
		not_ok "spinner $s1: 100 + its hint $h1" "dump says '$v1'"
else
	# the hint changed while we looked: either value is the truth
	case "$v1" in
	100 | 101 | 102) ok "spinner $s1: $v1 (its hint moved from $h1 to $h2)" ;;
	*) not_ok "spinner $s1: a value in 100-102" "dump says '$v1'" ;;
	esac
fi
run sbridgectl --json hintmap dump $M
case "$cout" in
*"{\"tid\":$s2,\"hint\":10"[012]",\"comm\":\"spin\"}"*'"count":3,'*) ok "--json dump: tid, hint, comm and count" ;;
*) not_ok "--json dump: tid, hint, comm and count" "$cout" ;;
esac

# a loop: rename one spinner out of --comm, let another exit, then SIGTERM
sbridgectl hintmap write --comm=spin --base=100 --interval=0.2 $M >/tmp/hm.log 2>&1 &
w=$!
wait_log '^pass 1: wrote 3,' && ok "the loop's first pass writes the 3" ||
	not_ok "the loop's first pass writes the 3" "$(cat /tmp/hm.log)"
kill -USR1 $s2
wait_log 'removed 1,' && ok "a task renamed out of --comm: removed 1" ||
	not_ok "a task renamed out of --comm: removed 1" "$(cat /tmp/hm.log)"
if kill -0 $s2 2>/dev/null && [ -z "$(value $s2)" ]; then
	ok "the renamed task lives on without an entry"
else
	not_ok "the renamed task lives on without an entry" "value '$(value $s2)', comm $(cat /proc/$s2/comm)"
fi
# the writer stopped while the spinner dies and is reaped: an exiting task
# not yet reaped still has its entry, which a pass would count as removed
kill -STOP $w
kill $s3
wait $s3 2>/dev/null
kill -CONT $w
wait_log 'gone 1,' && ok "an exited spinner: gone 1 (the kernel freed its entry)" ||
	not_ok "an exited spinner: gone 1" "$(cat /tmp/hm.log)"
run sbridgectl hintmap dump $M
[ "$(echo "$cout" | tail -n1)" = "1 entry" ] && [ -n "$(value $s1)" ] &&
	ok "dump: only spinner $s1 left" || not_ok "dump: only spinner $s1 left" "$cout"
kill -TERM $w
wait $w
crc=$?
cout=$(cat /tmp/hm.log)
diag "$cout"
case "$crc:$cout" in
0:*"cleared after pass "*": wrote 0, removed 1, gone 0"*) ok "SIGTERM: exit 0, its last entry removed" ;;
*) not_ok "SIGTERM: exit 0, its last entry removed" "exit $crc" ;;
esac
run sbridgectl hintmap dump $M
[ "$(echo "$cout" | tail -n1)" = "0 entries" ] && ok "dump after the loop: 0 entries" ||
	not_ok "dump after the loop: 0 entries" "$cout"
kill $s1 $s2 2>/dev/null

# threads other than a process's first: pidfds of threads came in 6.9.
# manytasks 4: itself, and a child process of 3 threads more (5 tasks)
manytasks 4 >/tmp/mt.log 2>&1 &
mt=$!
_w=0
while [ $_w -lt 25 ] && ! grep -q '^alive 4 of 4' /tmp/mt.log; do nap 0.2; _w=$((_w + 1)); done
run sbridgectl hintmap write --comm=manytasks $M
n=$(sbridgectl hintmap dump $M | grep -c ' manytasks$')
if kver_ge 6.9; then
	case "$crc:$cout:$n" in
	"0:pass 1: wrote 5, removed 0, gone 0, skipped 0:5") ok "6.9+: the 3 threads written too" ;;
	*) not_ok "6.9+: the 3 threads written too" "exit $crc, $n entries: $cout" ;;
	esac
else
	case "$crc:$cout:$n" in
	"0:pass 1: wrote 2, removed 0, gone 0, skipped 3:2") ok "before 6.9: the 2 leaders written, 3 threads skipped" ;;
	*) not_ok "before 6.9: the 2 leaders written, 3 threads skipped" "exit $crc, $n entries: $cout" ;;
	esac
fi
kill $mt
wait $mt 2>/dev/null

# refused before anything is written
bpfpin $D/hash map 1 4 8 || bail_out "bpfpin failed"
bpfpin $D/array map 2 4 32 || bail_out "bpfpin failed"
bpfpin $D/prog prog || bail_out "bpfpin failed"
run sbridgectl hintmap write $D/hash
case "$crc:$cout" in
2:*"4-byte key and a 8-byte value"*) ok "a hash map 4/8: exit 2, sizes named" ;;
*) not_ok "a hash map 4/8: exit 2, sizes named" "exit $crc: $cout" ;;
esac
run sbridgectl hintmap write $D/array
case "$crc:$cout" in
2:*"type 2"*"task-storage map (type 29)"*) ok "an array map of the right sizes: exit 2, type named" ;;
*) not_ok "an array map of the right sizes: exit 2, type named" "exit $crc: $cout" ;;
esac
run sbridgectl hintmap dump $D/prog
case "$crc:$cout" in
2:*"not a BPF map"*) ok "a pinned program: exit 2, not a map" ;;
*) not_ok "a pinned program: exit 2, not a map" "exit $crc: $cout" ;;
esac
: > /tmp/notbpf
run sbridgectl hintmap write /tmp/notbpf
case "$crc:$cout" in
2:*"not on a BPF filesystem"*) ok "a file off bpffs: exit 2" ;;
*) not_ok "a file off bpffs: exit 2" "exit $crc: $cout" ;;
esac
run sbridgectl hintmap write $D/none
expect_rc 2 "a path that does not exist: exit 2"
run as_user sbridgectl hintmap write $M
case "$crc:$cout" in
4:*"CAP_SYS_ADMIN or CAP_BPF"*) ok "unprivileged: exit 4, says what it needs" ;;
*) not_ok "unprivileged: exit 4, says what it needs" "exit $crc: $cout" ;;
esac
rm -rf $D /tmp/hm
