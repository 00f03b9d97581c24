#!/bin/sh
# scenario: sbridgectl top on a terminal (a pseudo-terminal from tests/progs/ptyrun.c): keys sort, reverse, filter, pause and quit; the header says what is in force in colour, NO_COLOR turns colour off, the terminal is given back as it was, and without a terminal top prints plain refreshes
# arch: x86_64
# suite: backports
# topology: smp
# timeout: 180
# icount: no
. "${SBRIDGE_LIB:-/sbridge/lib.sh}"

plan 11
# pseudo-terminals: the guest's /dev has no devpts of its own
if [ ! -e /dev/pts/ptmx ]; then
	mkdir -p /dev/pts
	mount -t devpts -o ptmxmode=0666 devpts /dev/pts
fi
[ -e /dev/ptmx ] || ln -s pts/ptmx /dev/ptmx
check "sbridge loads" load_sbridge
spin 60 >/dev/null & s1=$!
spin 60 >/dev/null & s2=$!
sleep 1

# s twice (pid, comm), r, a name filter, pause, resume, quit
ptyrun '2:s|1:s|1:r|1:/spin\n|2: |1: |2:q' sbridgectl top --interval=0.5 > /tmp/top.out
rc=$?
# the screen without its escape sequences
sed 's/\x1b\[[0-9;]*[A-Za-z]//g' /tmp/top.out | tr -d '\r' > /tmp/top.txt
check "q quits, exit 0 (exit $rc)" grep -q '^@@ptyrun exit 0$' /tmp/top.txt
check "the terminal is back in line mode with echo" grep -q '^@@ptyrun termios ok$' /tmp/top.txt
check "the first refresh sorts by %cpu and shows the spinners" \
	sh -c "grep -q 'sort %cpu' /tmp/top.txt && grep -q ' spin ' /tmp/top.txt"
check "s steps the sort key: pid, then comm" \
	sh -c "grep -q 'sort pid' /tmp/top.txt && grep -q 'sort comm' /tmp/top.txt"
check "r reverses it" grep -q 'sort -comm' /tmp/top.txt
check "/ filters by name" grep -q 'comm spin' /tmp/top.txt
check "space pauses" grep -q 'PAUSED' /tmp/top.txt
check "the header is in colour on a terminal" grep -q "$(printf '\033')\[1;7m" /tmp/top.out
NO_COLOR=1 ptyrun '2:q' sbridgectl top --interval=0.5 > /tmp/top2.out
check "NO_COLOR: no colour" sh -c "! grep -q \"$(printf '\033')\[1;7m\" /tmp/top2.out && grep -q '^@@ptyrun exit 0' /tmp/top2.out"
sbridgectl top --interval=0.2 --iterations=2 > /tmp/top3.out
check "without a terminal: plain refreshes, no escapes" \
	sh -c "[ \$(grep -c '^sbridgectl top:' /tmp/top3.out) = 2 ] && ! grep -q \"$(printf '\033')\" /tmp/top3.out"
kill $s1 $s2 2>/dev/null
