#!/bin/sh
# scenario: sbridge_core tracks 10000 short-lived tasks: every entry created is freed once reaped, none leaked at unload
# arch: any
# stock: x86_64
# topology: smp
# smp: 2
# timeout: 300
# icount: no
. "${SBRIDGE_LIB:-/sbridge/lib.sh}"

S=/sys/kernel/sbridge
plan 12

rd() { cat $S/$1; }

# Hundreds of tasks alive at load: adoption takes them in batches (64
# entries allocated ahead of each pass), every one of them.
i=0
while [ $i -lt 300 ]; do sleep 120 & i=$((i + 1)); done
live=$(cut -d' ' -f4 /proc/loadavg | cut -d/ -f2)
check "sbridge_core loads" insmod $MODDIR/sbridge_core.ko
adopted=$(dmesg | sed -n 's/.*hooks attached, \([0-9]*\) live tasks adopted.*/\1/p' | tail -n 1)
check "hundreds of live tasks adopted at load ($adopted; $live threads before)" test "${adopted:-0}" -ge 300
# Some sleepers may still be execing (named "sh") while the walk runs:
# that race is part of the check. Their execs are over before the table
# is read.
i=0
while [ $i -lt 30 ] && [ "$(pidof sleep | wc -w)" -lt 300 ]; do
	sleep 1; i=$((i + 1))
done
sbridgectl tasks > /tmp/tasks
n=$(awk '$3 == "sleep"' /tmp/tasks | wc -l)
check "every sleeper among them ($n of $(pidof sleep | wc -w) running)" test "$n" -ge 300
# On a miss, each sleeper the list does not name so, and its line.
if [ "$n" -lt 300 ]; then
	for p in $(pidof sleep); do
		line=$(awk -v p="$p" '$1 == p' /tmp/tasks)
		case "$line" in
		"") diag "sleeper $p: not listed" ;;
		*) awk -v p="$p" '$1 == p && $3 == "sleep" { f = 1 } END { exit !f }' \
			/tmp/tasks || diag "sleeper $p: $line" ;;
		esac
	done
fi
# The list comes in several netlink messages; entries come and go (and
# the table resizes) between them. A storm of short-lived tasks runs while
# the list is read again and again: every sleeper, alive throughout, must
# be in every list, once.
forkstorm 4000 4 > /dev/null &
storm=$!
off=""
i=0
while [ $i -lt 8 ]; do
	n=$(sbridgectl tasks | awk '$3 == "sleep"' | wc -l)
	[ "$n" -ne 300 ] && off="$off $n"
	i=$((i + 1))
done
wait $storm
check "every list read under churn names the 300 sleepers once${off:+ (counts:$off)}" \
	test -z "$off"
kill $(pidof sleep) 2>/dev/null
wait 2>/dev/null
bytes=$(rd task_entry_bytes)
diag "per-task entry: $bytes bytes"
# the goal is a production kernel's: lock debugging (lockdep) grows the
# entry's spinlock, and the build checks the size only without it
if [ -e /proc/lockdep ]; then
	skip "per-task entry <= 256 bytes" "lock debugging on: $bytes bytes"
else
	check "per-task entry <= 256 bytes" test "$bytes" -le 256
fi

# Tracked entries minus the kernel's thread count (/proc/loadavg field 4):
# constant unless entries leak. Kernel threads that the storm spawns
# (kworkers) are tracked like any task, so raw counts may drift; this
# difference may not.
excess() {
	_t=$(rd tasks)
	_n=$(cut -d' ' -f4 /proc/loadavg | cut -d/ -f2)
	echo $((_t - _n))
}
a0=$(rd allocs) f0=$(rd frees) ex0=$(excess)
check "forkstorm 10000 runs" forkstorm 10000 8

# Entries are freed when the kernel frees the task_struct (after an RCU
# grace period), so give it a few seconds to settle.
i=0
while [ $i -lt 30 ] && [ "$(excess)" -gt "$ex0" ]; do
	sleep 1; i=$((i + 1))
done
a1=$(rd allocs) f1=$(rd frees) ex1=$(excess)
diag "allocs $a0 -> $a1, frees $f0 -> $f1, tracked-minus-threads $ex0 -> $ex1"
check "10000 entries created" test $((a1 - a0)) -ge 10000
check "10000 entries freed" test $((f1 - f0)) -ge 10000
# Lower is fine: entries of tasks that were exiting at the baseline went too.
# Entries go when the task_struct is freed, and the kernel may hold a few
# exited ones longer (seen: +3 after 30 s under single-threaded TCG); a leak
# in the storm's 10000 would be far more than 16. The exact balance is
# checked at unload (allocated == freed).
check "no entries beyond the live threads (+16)" test "$ex1" -le $((ex0 + 16))
check "no allocation failures" test "$(rd alloc_fail)" -eq 0

check "sbridge_core unloads" rmmod sbridge_core
line=$(dmesg | grep 'sbridge_core: task entries:' | tail -n1)
diag "$line"
n_alloc=$(echo "$line" | sed -n 's/.*entries: \([0-9]*\) allocated, \([0-9]*\) freed.*/\1/p')
n_free=$(echo "$line" | sed -n 's/.*entries: \([0-9]*\) allocated, \([0-9]*\) freed.*/\2/p')
check "unload: allocated == freed ($n_alloc/$n_free)" test -n "$n_alloc" -a "$n_alloc" = "$n_free"
