#!/bin/sh
# scenario: netlink fuzzer (tests/progs/nlfuzz.c): random and structure-aware requests as root and as a user; a rejected request changes nothing, a user changes nothing, the kernel never complains
# arch: any
# stock: x86_64 backports
# topology: smp
# smp: 2
# timeout: 600
# icount: no
# suite: bookworm backports
. "${SBRIDGE_LIB:-/sbridge/lib.sh}"

# nlfuzz N SEED [1]: N requests built from SEED (the same seed sends the
# same requests again); the state fingerprint (rules, CPU factors, matrix
# cells, parameters) is taken after each one and must not move unless the
# request was an accepted change; as uid 1000 no change may be accepted.
# Its violations name the message index: "nlfuzz I+1 SEED" replays up to it.
# FUZZ_N and FUZZ_SEED (harness.py --set) change the count and the seeds.
# 100 000 requests took 130-260 s as root and 70-125 s as uid 1000 (x86_64
# and arm64, 6.1 and 7.x, TCG on 2 shared host cores): make test-fuzz sends
# that many, the default suite 10 000 of each.
N=${FUZZ_N:-10000}
ROOT_SEED=${FUZZ_SEED:-1301}
USER_SEED=$((ROOT_SEED + 1))
S=/sys/kernel/sbridge
plan 8

check "sbridge_core loads" insmod $MODDIR/sbridge_core.ko


# The kernel log has none of what fails a run (the harness scans it again
# at the end, but the root run's accepted changes log enough to push early
# lines out of the ring; nlfuzz itself reads /dev/kmsg as it goes).
kernel_clean() {
	! dmesg | grep -E 'Oops|BUG:|WARNING:|Kernel panic|general protection|Unable to handle|scheduling while atomic|lockdep is turned off|DEBUG_LOCKS_WARN_ON|circular locking|blocked for more than|soft lockup|UBSAN:|KASAN:|refcount_t:|list_(add|del) corruption|Call Trace:'
}

# fuzz DESC CMD...: one TAP point; nlfuzz's lines and the wall time as diag.
fuzz() {
	_d=$1; shift
	_t0=$(date +%s)
	_o=$("$@" 2>&1)
	_rc=$?
	_t=$(($(date +%s) - _t0))
	diag "$_o"
	diag "$* took $_t s"
	diag "rel: fuzzed=$N"
	if [ $_rc -eq 0 ]; then ok "$_d"; else not_ok "$_d" "exit $_rc"; fi
}

fuzz "root: $N requests, no rejected one changed anything" nlfuzz $N $ROOT_SEED
check "kernel log clean after the root run" kernel_clean
check "sbridge answers after the root run" nltest status

sb_state > /tmp/s1
fuzz "uid 1000: $N requests, every change refused" as_user nlfuzz $N $USER_SEED 1
sb_state > /tmp/s2
check "the user's run changed nothing root sees" cmp /tmp/s1 /tmp/s2
check "kernel log clean after the user run" kernel_clean

check "sbridge_core unloads" rmmod sbridge_core
