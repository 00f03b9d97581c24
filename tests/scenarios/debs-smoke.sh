#!/bin/sh
# scenario: Debian's perf and trace-cmd run in the guest with their own libraries and loader ("# debs:"), no ld.so.cache
# arch: any
# stock: x86_64
# suite: backports
# timeout: 120
# Only the newest kernel: trace-events runs the same programs in every cell.
# debs: perf trace-cmd
. "${SBRIDGE_LIB:-/sbridge/lib.sh}"
plan 6
# has PATTERN FILE: grep -E, and on failure the file's head for the report
has() { grep -Eq "$1" "$2" || { head -n 15 "$2"; return 1; }; }
check "no ld.so.cache: the loader finds libraries in its default multiarch dirs" \
	test ! -e /etc/ld.so.cache
perf --version > /tmp/o 2>&1
check "perf --version runs ($(head -n1 /tmp/o))" has '^perf version [0-9]' /tmp/o
# trace-cmd has no exit-0 version option: --version prints it, then usage
trace-cmd --version > /tmp/o 2>&1
check "trace-cmd --version runs ($(grep -m1 version /tmp/o))" has '^trace-cmd version [0-9]' /tmp/o
perf list tracepoint > /tmp/o 2>&1
diag "perf list tracepoint: $(wc -l < /tmp/o) lines, e.g. $(head -n1 /tmp/o)"
check "perf list tracepoint lists sched:sched_switch" has 'sched:sched_switch' /tmp/o
# a software event: counts without any PMU (x86 TCG has none)
perf stat -x, -e task-clock true > /tmp/o 2>&1
check "perf stat -e task-clock true counts ($(tail -n1 /tmp/o))" has '^[0-9.]+,msec,task-clock' /tmp/o
# libtracefs + libtraceevent (and its dlopened plugins) read tracefs
trace-cmd list -e 'sched:sched_switch' > /tmp/o 2>&1
check "trace-cmd list -e finds sched:sched_switch" has '^sched:sched_switch$' /tmp/o
