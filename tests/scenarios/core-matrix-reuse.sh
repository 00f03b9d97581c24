#!/bin/sh
# scenario: learned factors go to the matrix; a second run of the same program starts from it, a fork that renames itself from its new name's cells; MATRIX_GET/LOAD round-trips
# arch: x86_64
# trixie: no
# topology: smp
# smp: 2
# timeout: 240
# icount: no
. "${SBRIDGE_LIB:-/sbridge/lib.sh}"

# QEMU has no usable CPI counters, so the test source sbridge_fakesrc
# (tests/modules/fakesrc) makes them up: "chase*" tasks look memory-bound
# (CPI_B share 0.2 == 204), everything else compute-bound (1.0 == 1024).
S=/sys/kernel/sbridge
plan 16

core_with "sbridge_fakesrc loads" sbridge_fakesrc
check "status names the source" grep -qx fake $S/source
check "learning possible with the source" grep -qx 1 $S/learning

spin 1 >/dev/null
chase 4 1 >/dev/null
# The matrix learns when a task is freed (after reaping + RCU grace period).
i=0
while [ $i -lt 20 ]; do
	nltest matrix > /tmp/mx
	grep -q '^spin ' /tmp/mx && grep -q '^chase ' /tmp/mx && break
	sleep 1; i=$((i + 1))
done
diag "$(cat /tmp/mx)"
check "spin learned as compute-bound (share 1024)" grep -q '^spin [0-9]* [0-9]* [0-9]* 1024 ' /tmp/mx
check "chase learned as memory-bound (share 204)" grep -q '^chase [0-9]* [0-9]* [0-9]* 204 ' /tmp/mx

# Second run: the new task is seeded at exec, before any sample of its own.
hits0=$(cat $S/matrix_hits)
nltest param learning 0
spin 2 >/dev/null &
sleep 1
nltest tasks > /tmp/tasks
wait
nltest param learning 1
hits1=$(cat $S/matrix_hits)
diag "matrix_hits $hits0 -> $hits1; $(grep ' spin ' /tmp/tasks)"
check "second run seeded from the matrix (matrix_hits grew)" test "$hits1" -gt "$hits0"
check "second run carries the learned share without learning" \
	grep -q ' spin 0 [01] 1024 ' /tmp/tasks
check "cells are keyed by executable too (exe hash set)" \
	grep -q '^spin [0-9]* [0-9]* [0-9]* 1024 [0-9]* 0x[0-9a-f]*[1-9a-f]' /tmp/mx
# Same comm, other executable: no exact cell, falls back to the comm's.
cp "$(command -v spin)" /tmp/spin
hits0=$(cat $S/matrix_hits)
/tmp/spin 1 >/dev/null
check "same comm from another executable falls back to the comm's cells" \
	test "$(cat $S/matrix_hits)" -gt "$hits0"

# A fork that names itself runs another workload of its program (as
# stress-ng's workers): before a window of its own it starts from the
# new name's cells (chase: memory-bound, 204), not from the compute-bound
# shell it forked from.
nltest param learning 0
( printf chase > /proc/self/comm; while :; do :; done ) &
rp=$!
sleep 1
nltest tasks > /tmp/tasks
kill $rp; wait $rp 2>/dev/null
nltest param learning 1
diag "renamed fork: $(grep "^$rp " /tmp/tasks); its shell: $(grep "^$$ " /tmp/tasks)"
check "a fork that renames itself starts from its new name's cells" \
	grep -q "^$rp chase 0 [01] 204 " /tmp/tasks

# Save, reload into a fresh core, compare.
grep -v '^#' /tmp/mx > /tmp/mx.save
rmmod sbridge_fakesrc
rmmod sbridge_core
insmod $MODDIR/sbridge_core.ko
check "fresh core has an empty matrix" test "$(cat $S/matrix)" -eq 0
check "MATRIX_LOAD of the saved matrix" nltest matrix-load-file /tmp/mx.save
nltest matrix > /tmp/mx2
sort /tmp/mx.save > /tmp/a; sort /tmp/mx2 > /tmp/b
check "reloaded matrix equals the saved one" cmp /tmp/a /tmp/b
hits0=$(cat $S/matrix_hits)
spin 1 >/dev/null
check "a loaded matrix seeds new runs" test "$(cat $S/matrix_hits)" -gt "$hits0"
check "sbridge_core unloads" rmmod sbridge_core
