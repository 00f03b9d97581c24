#!/bin/sh
# scenario: a running task whose CPI_B share shifts for good changes phase (after the hysteresis), and both phases reach the matrix
# arch: any
# stock: x86_64
# trixie: no
# topology: smp
# smp: 2
# timeout: 180
# icount: no
. "${SBRIDGE_LIB:-/sbridge/lib.sh}"

# sbridge_fakesrc's "force" parameter turns every task memory-bound at run
# time: a compute phase followed by a memory phase in one process.
S=/sys/kernel/sbridge
F=/sys/module/sbridge_fakesrc/parameters/force
plan 10

core_with "sbridge_fakesrc loads" sbridge_fakesrc force=1
nltest param phase_windows 3

share() { nltest tasks | awk -v p=$pid '$1 == p { print $5 }'; }
spin 60 >/dev/null &
pid=$!
sleep 3
share1=$(share)
ph0=$(cat $S/phase_changes)
tk0=$(cat $S/ticks)
echo 2 > $F
# The hysteresis needs phase_windows windows; the tick path closes them
# even while spin owns its CPU. Poll: TCG timing is noisy.
n=0
while [ $n -lt 40 ] && [ "$(share)" != 204 ]; do sleep 0.5; n=$((n + 1)); done
share2=$(share)
ph1=$(cat $S/phase_changes)
tk1=$(cat $S/ticks)
kill $pid; wait $pid 2>/dev/null
diag "spin share $share1 -> $share2 after ~$((n / 2)) s, phase changes $ph0 -> $ph1, tick reads $tk0 -> $tk1"
check "compute phase first (share 1024)" test "$share1" = 1024
check "memory phase after the shift (share 204)" test "$share2" = 204
check "phase change counted" test "$ph1" -gt "$ph0"
check "running tasks' counters read between switches" test "$tk1" -gt "$tk0"

i=0
while [ $i -lt 10 ] && ! nltest matrix | grep -q '^spin .* 204 '; do
	sleep 1; i=$((i + 1))
done
nltest matrix > /tmp/mx
diag "$(grep '^spin ' /tmp/mx)"
# The matrix keeps the phase the task ended in; the compute phase of an
# earlier run would be a separate cell. Check the memory-phase cell.
check "matrix cell for the memory phase" grep -q '^spin [0-9]* [1-9] [0-9]* 204 ' /tmp/mx
check "matrix cell for the compute phase" grep -q "^spin [0-9]* 0 [0-9]* 1024 " /tmp/mx
check "fakesrc unloads" rmmod sbridge_fakesrc
check "sbridge_core unloads" rmmod sbridge_core
