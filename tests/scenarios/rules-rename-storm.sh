#!/bin/sh
# scenario: 30 000 threads rename themselves, their processes' leaders too, while rule sets of 200 rules load again and again: the kernel's function_graph tracer times every sbridge rename probe that takes over 100 us, and none may take MAX_US (2 ms under TCG; a leader's rename used to re-match its 2 000 threads in the probe)
# arch: arm64
# suite: backports
# topology: 1b3s
# smp: 4
# mem: 3072
# timeout: 900
# icount: no
# runner: own
# debug: no
. "${SBRIDGE_LIB:-/sbridge/lib.sh}"

# Not in the default suite (about 5 minutes with the boot): make
# test-rename. The debug kernels have no function tracer.
N=${N:-30000}
SECS=${SECS:-40}
MAX_US=${MAX_US:-2000}
T=/sys/kernel/tracing
plan 8

# 7.x's sched_mm_cid_exit() serialises the exits of a process's threads on
# one mutex: when the storm ends, 2 000 threads exiting at once under TCG
# wait over 20 s for it (the harness's hung-task bound), with sbridge not
# loaded too (10 reports in a stock run of this storm, 2026-11-29).
echo 300 > /proc/sys/kernel/hung_task_timeout_secs
echo 4194304 > /proc/sys/kernel/pid_max
echo $((N * 2)) > /proc/sys/kernel/threads-max
grep -qs " $T " /proc/mounts || mount -t tracefs none $T
check "sbridge loads" load_sbridge
# two sets of 200 rules: comm rules the renames flip between, and others
i=0
: > /tmp/a.rules
while [ $i -lt 198 ]; do echo "comm=rsx$i class=memory"; i=$((i + 1)); done >> /tmp/a.rules
cp /tmp/a.rules /tmp/b.rules
printf 'comm=rs-a class=compute\ncomm=rs-b class=memory\n' >> /tmp/a.rules
printf 'comm=rs-b class=compute\ncomm=rs-a class=memory\n' >> /tmp/b.rules
check "200 rules load" sbridgectl rules load /tmp/a.rules
# set_ftrace_filter too: set_graph_function alone still hooks every
# kernel function, which under TCG slows the whole guest several times
check "function_graph times the rename probe" sh -c "
	echo sbridge_probe_rename > $T/set_ftrace_filter &&
	echo sbridge_probe_rename > $T/set_graph_function &&
	echo 1 > $T/max_graph_depth && echo 0 > $T/tracing_thresh &&
	echo 8192 > $T/buffer_size_kb && echo function_graph > $T/current_tracer"
# no call over the bound must not be a tracer that records nothing: at a
# threshold of 0, one rename shows
sh -c 'echo rs-probe > /proc/$$/comm'
check "the tracer records a rename probe call" grep -q sbridge_probe_rename $T/trace
echo 100 > $T/tracing_thresh
echo > $T/trace
renamestorm $N $SECS 1000 > /tmp/rs 2>&1 & r=$!
i=0
while ! grep -qs '^alive' /tmp/rs && [ $i -lt 1200 ]; do sleep 0.5; i=$((i + 1)); done
a=$(sed -n 's/^alive //p' /tmp/rs)
check "$N threads renaming themselves ($a)" test "${a%% of *}" = "$N"
loads=0 bad=0
while kill -0 $r 2>/dev/null; do
	sbridgectl rules load /tmp/b.rules >/dev/null || bad=$((bad + 1))
	sbridgectl rules load /tmp/a.rules >/dev/null || bad=$((bad + 1))
	loads=$((loads + 2))
done
wait $r
echo nop > $T/current_tracer
echo 0 > $T/tracing_thresh
echo > $T/set_ftrace_filter
diag "$(cat /tmp/rs | tr '\n' ' '); $loads rule loads; $(dmesg | grep 'tasks re-matched' | tail -n 1)"
check "$loads rule loads while they renamed" test "$bad" = 0 -a "$loads" -gt 0
# each line is one call over the threshold: "... 123.456 us |  } /* ... */"
awk '/us +\|/ { for (i = 1; i <= NF; i++) if ($(i + 1) == "us") { print $i; break } }' \
	$T/trace | tr -d '+!#*@$' > /tmp/lat
slow=$(wc -l < /tmp/lat)
max=$(sort -n /tmp/lat | tail -n 1)
diag "rename probe calls over 100 us: $slow, longest ${max:-none} us (bound $MAX_US us)"
sort -n /tmp/lat | tail -n 3 | while read -r l; do diag "slow call: $l us"; done
check "no rename probe call took $MAX_US us (longest ${max:-under 100} us, $slow over 100 us)" \
	awk -v m="$MAX_US" '$1 + 0 >= m { exit 1 }' /tmp/lat
check "sbridge unloads" unload_sbridge
