#!/bin/sh
# scenario: benchmark (not pass/fail): memory per tracked task (goal <= 256 bytes) with thousands of tasks tracked
# arch: any
# topology: smp
# smp: 2
# timeout: 300
# icount: no
. /sbridge/lib.sh

# Per-task state lives in the "sbridge_task" kmem_cache: its object size
# (slab-rounded) is the memory per tracked task. forkstorm with many
# children alive at once (zombies until reaped) pushes the tracked count
# up while we sample the cache.
S=/sys/kernel/sbridge
N=${N:-10000}
PAR=${PAR:-2000}
plan 1

insmod $MODDIR/sbridge_core.ko || { not_ok "sbridge_core loads"; exit 0; }
slab() { awk '$1 == "sbridge_task" { print $2, $3, $4 }' /proc/slabinfo 2>/dev/null; }
forkstorm $N $PAR >/dev/null &
peak=0 peak_slab=""
while kill -0 $! 2>/dev/null; do
	t=$(cat $S/tasks)
	[ "$t" -gt "$peak" ] && { peak=$t; peak_slab=$(slab); }
done
wait
set -- $peak_slab
objsize=${3:-0}
echo "bench: core-memory entry_bytes=$(cat $S/task_entry_bytes) slab_objsize=$objsize" \
     "peak_tracked=$peak peak_active_objs=${1:-?} peak_kib=$(( ${2:-0} * objsize / 1024 ))" \
     "created=$(cat $S/allocs)"
rmmod sbridge_core
ok "core-memory benchmark ran (numbers above, not pass/fail)"
