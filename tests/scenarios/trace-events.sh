#!/bin/sh
# scenario: trace events: events/sbridge/ holds the six documented events and fields; on a 1 big + 1 little board (declared with cpu_types= where the kernel sees one capacity) with sbridge_fakesrc's counters a spinner yields window, phase, period, decide and placement apply/restore events with sane fields; the checker selftest yields a report; perf and trace-cmd see the events; rmmod removes them
# arch: arm64
# trixie: no
# suite: backports
# topology: 1b1s
# smp: 2
# timeout: 420
# icount: no
# debs: perf trace-cmd
. "${SBRIDGE_LIB:-/sbridge/lib.sh}"

# Counters come from tests/modules/fakesrc (x86 TCG has no PMU, arm64 TCG
# no instructions without -icount): spin looks compute-bound (1M cycles,
# 500k instructions a read: CPI 2.0, no stall), force=2 makes every task
# look memory-bound, which gives the running spinner a new phase.
T=/sys/kernel/tracing
I=$T/instances/sbridge-test
S=/sys/kernel/sbridge
OUT=/tmp/sb.trace
EVENTS="sbridge_window sbridge_phase sbridge_period sbridge_decide sbridge_act sbridge_report"
# the fields of each event, in print order (docs/record-format.md)
fields_of() {
	case $1 in
	sbridge_window) echo pid cpu type cpi stall share khz phase kind tpi comm ;;
	sbridge_phase) echo pid from to share comm ;;
	sbridge_period) echo n want_fast on_fast nfast nslow load_fast load_slow ;;
	sbridge_decide) echo pid from to hint prev speedup err lf_fast lf_slow load target got why comm ;;
	sbridge_act) echo act op pid cpu val comm ;;
	sbridge_report) echo idle busy waited_ms culprit action comm ;;
	esac
}
mask_of() { taskset -p $1 2>/dev/null | sed 's/.*: //'; }
# wait_mask PID MASK: up to 20 s for PID's affinity to become MASK
wait_mask() {
	_i=0
	while [ $_i -lt 40 ] && [ "$(mask_of $1)" != "$2" ]; do nap 0.5; _i=$((_i + 1)); done
	[ "$(mask_of $1)" = "$2" ]
}
# evs NAME: the payloads of event NAME in $OUT, one a line, led by a space
evs() { sed -n "s/.* $1: / /p" $OUT; }
# kv KEY: the value of KEY in the payload on stdin (comm runs to the end)
kv() { if [ "$1" = comm ]; then sed -n 's/.* comm=//p'; else sed -n "s/.* $1=\([^ ]*\).*/\1/p"; fi; }
# fmt_ok EVENT: its format file names each field, and its print format
# prints them as key=value in the documented order
fmt_ok() {
	_f=$T/events/sbridge/$1/format
	[ -r $_f ] || { echo "no $_f"; return 1; }
	for _k in $(fields_of $1); do
		grep -Eq "field:[^;]* $_k(\[[0-9]+\])?;" $_f || { echo "no field $_k in $_f"; cat $_f; return 1; }
	done
	_p=$(sed -n 's/^print fmt: "\([^"]*\)".*/\1/p' $_f | grep -o '[a-z_]*=%' | tr -d '=%' | tr '\n' ' ' | sed 's/ $//')
	[ "$_p" = "$(fields_of $1)" ] || { echo "print order '$_p', want '$(fields_of $1)'"; return 1; }
}
ncpu=$(ls -d /sys/devices/system/cpu/cpu[0-9]* | wc -l)
allmask=$(printf '%x' $(( (1 << ncpu) - 1 )))
ncap=$(cat /sys/devices/system/cpu/cpu*/cpu_capacity 2>/dev/null | sort -u | wc -l)
plan 37

# 1. Load: big.LITTLE from the device tree (arm64 1b1s), else declared.
big=0
[ "$ncap" -gt 1 ] && big=$(big_cpus | cut -d' ' -f1)
core_with_fakesrc "sbridge_core loads"
ntypes=$(sbridgectl status | sed -n 's/^core types: *\([0-9]*\).*/\1/p')
fast=$((ntypes - 1))
bigmask=$(printf '%x' $((1 << big)))
diag "core types $ntypes, big cpu$big (type $fast), mask $bigmask; $(uname -r)"
check "two core types" test "$ntypes" = 2

# 2. The events and their formats.
check "events/sbridge exists" test -d $T/events/sbridge
missing=""
for e in $EVENTS; do [ -d $T/events/sbridge/$e ] || missing="$missing $e"; done
check "the six events are there:${missing:- yes}" test -z "$missing"
for e in $EVENTS; do check "$e format names its fields in order" fmt_ok $e; done

# 3. Record into an instance of our own while a spinner is steered.
mkdir $I 2>/dev/null
echo 2048 > $I/buffer_size_kb
check "enable events/sbridge in a tracefs instance" sh -c "echo 1 > $I/events/sbridge/enable"
sbridgectl set param act.period_ms 100 >/dev/null
# fakesrc gives a task one CPI on every type: decide on the prediction
sbridgectl set param learn.measured 0 >/dev/null
sbridgectl set param checker.on 0 >/dev/null
spin 60 >/dev/null &
p=$!
check "spinner steered to big cpu$big ($(mask_of $p))" wait_mask $p $bigmask
sbridgectl set param act.placement 0 >/dev/null
check "placement off gives its own mask back" wait_mask $p $allmask
# uclamp (kernels with CONFIG_UCLAMP_TASK): on for a few periods, then off
umin() { awk '$1 == "uclamp.min" { print $NF }' /proc/$p/sched; }
uclamp=no
if ! grep -q '^uclamp: unavailable' $S/actuators; then
	uclamp=yes
	sbridgectl set param act.uclamp 1 >/dev/null
	n=0
	while [ $n -lt 20 ] && [ "$(umin)" = 0 ]; do nap 0.5; n=$((n + 1)); done
	diag "uclamp.min of the spinner with uclamp on: $(umin)"
	sbridgectl set param act.uclamp 0 >/dev/null
	n=0
	while [ $n -lt 20 ] && [ "$(umin)" != 0 ]; do nap 0.5; n=$((n + 1)); done
fi
# a phase: memory-bound for a while, then compute-bound again
echo 2 > /sys/module/sbridge_fakesrc/parameters/force
nap 2
echo 0 > /sys/module/sbridge_fakesrc/parameters/force
nap 2
echo 0 > $I/tracing_on
cat $I/trace > $OUT
diag "$(grep -c ': sbridge_' $OUT) events recorded; by name: $(sed -n 's/.* \(sbridge_[a-z]*\): .*/\1/p' $OUT | sort | uniq -c | tr -s ' \n' ' ')"

# sbridge_window: the spinner's, on a real CPU of the right type, CPI 2.0
w=$(evs sbridge_window | grep " pid=$p " | tail -n 1)
diag "window:$w"
check "window event for the spinner (comm $(echo "$w" | kv comm))" test "$(echo "$w" | kv comm)" = spin
bad=$(evs sbridge_window | awk -v n=$ncpu -v big=$big -v fast=$fast '{
	for (i = 1; i <= NF; i++) { split($i, a, "="); v[a[1]] = a[2] }
	t = v["cpu"] + 0 == big ? fast : 0
	if (v["cpu"] !~ /^[0-9]+$/ || v["cpu"] + 0 >= n || v["type"] + 0 != t ||
	    v["share"] + 0 > 1000 || v["stall"] + 0 > v["cpi"] + 0 || v["phase"] + 0 >= 4 ||
	    v["pid"] + 0 <= 0)
		{ print; exit } }')
check "every window: cpu < $ncpu, type of its cpu, stall <= cpi, share <= 1000, phase < 4${bad:+:$bad}" test -z "$bad"
has() { evs $1 | grep " pid=$2 " | grep -q -- "$3"; }
check "fakesrc's CPI 2.0 reads cpi=2000 stall=0 share=1000" has sbridge_window $p ' cpi=2000 stall=0 share=1000 '

# sbridge_phase: to memory-bound (share ~0.2) and back
diag "phase:$(evs sbridge_phase | grep " pid=$p " | tr '\n' ';')"
# phase_to_mem: a phase change of the spinner to a share below 0.5
phase_to_mem() {
	evs sbridge_phase | grep " pid=$p " | awk '{
		for (i = 1; i <= NF; i++) { split($i, a, "="); v[a[1]] = a[2] }
		if (v["from"] != v["to"] && v["share"] + 0 < 500 && v["comm"] == "spin") f = 1
	} END { exit !f }'
}
check "phase event: the spinner's new phase is memory-bound (share < 500)" phase_to_mem
check "and it returns to a compute-bound phase (share 1000)" has sbridge_phase $p ' share=1000 comm=spin$'

# sbridge_period: one per decision, both kinds of core counted
pe=$(evs sbridge_period | tail -n 1)
diag "period:$pe"
check "period events ($(evs sbridge_period | wc -l)), nfast=1 nslow=$((ncpu - 1))" \
	test "$(echo "$pe" | kv nfast) $(echo "$pe" | kv nslow)" = "1 $((ncpu - 1))"

# sbridge_decide: the spinner given the fast type because it gains, on
# what was counted of it: after phase_windows (3) warm windows make its
# first phase (before, its estimate is the whole range the prediction
# spans and its factors are neutral)
d=$(awk -v p=" pid=$p " 'index($0, " sbridge_window: ") && index($0, p) && index($0, " kind=warm ") { w++ }
	w >= 3 && index($0, " sbridge_decide: ") && index($0, p) && index($0, " hint=fast ") {
		sub(/.* sbridge_decide: /, " "); print; exit }' $OUT)
diag "decide:$d"
check "decide: spinner to=$fast hint=fast why=gain|hold, speedup > 1100" \
	test "$(echo "$d" | kv to) $(echo "$d" | kv why | sed 's/hold/gain/') $(( $(echo "$d" | kv speedup) > 1100 ))" = "$fast gain 1"
check "decide: lf_slow > lf_fast for a compute-bound task" \
	test "$(echo "$d" | kv lf_slow)" -gt "$(echo "$d" | kv lf_fast)"
bad=$(evs sbridge_decide | awk -v nt=$ntypes '{
	for (i = 1; i <= NF; i++) { split($i, a, "="); v[a[1]] = a[2] }
	if (v["hint"] !~ /^(fast|slow|none)$/ || v["prev"] !~ /^(fast|slow|none)$/ ||
	    v["why"] !~ /^(gain|hold|rule|full|low|pinned|idle|one-type|selftest)$/ ||
	    v["to"] + 0 < -1 || v["to"] + 0 >= nt || v["from"] + 0 < -1 || v["from"] + 0 >= nt ||
	    v["load"] + 0 > 1024 || v["pid"] + 0 <= 0 || (v["hint"] == "none") != (v["to"] + 0 == -1))
		{ print; exit } }')
check "every decide: hint/prev in fast|slow|none, a documented why, types in range${bad:+:$bad}" test -z "$bad"

# sbridge_act: placement applied the big mask, restored the own mask
diag "act:$(evs sbridge_act | grep " pid=$p " | tr '\n' ';')"
check "act=placement op=apply pid=$p cpu=-1 val=0x$bigmask comm=spin" \
	has sbridge_act $p "^ act=placement op=apply pid=$p cpu=-1 val=0x$bigmask comm=spin$"
check "act=placement op=restore val=0x$allmask when placement is switched off" \
	has sbridge_act $p "^ act=placement op=restore pid=$p cpu=-1 val=0x$allmask comm=spin$"
if [ $uclamp = yes ]; then
	check "act=uclamp op=apply pid=$p val=512/1024 (share 1.0)" \
		has sbridge_act $p "^ act=uclamp op=apply pid=$p cpu=-1 val=512/1024 comm=spin$"
	check "act=uclamp op=restore val=0/1024 when uclamp is switched off" \
		has sbridge_act $p "^ act=uclamp op=restore pid=$p cpu=-1 val=0/1024 comm=spin$"
else
	skip "act=uclamp op=apply" "kernel $(kver) has no CONFIG_UCLAMP_TASK"
	skip "act=uclamp op=restore" "kernel $(kver) has no CONFIG_UCLAMP_TASK"
fi
kill $p 2>/dev/null; wait $p 2>/dev/null

# 4. perf and trace-cmd (Debian's, when the guest has them).
# shows FILE [PREFIX]: the tool's text output has a spinner's window, a
# period, and a decide whose hint and why it decoded from the format
shows() {
	grep -q "$2sbridge_window: .* cpi=2000 stall=0 share=1000 .* comm=spin *$" $1 &&
	grep -q "$2sbridge_period: *n=" $1 &&
	grep -Eq "$2sbridge_decide: .* hint=(fast|slow|none) prev=(fast|slow|none) .* why=[a-z-]+ comm=spin *$" $1 ||
	{ grep -m3 -e sbridge_decide -e sbridge_period $1; return 1; }
}
sbridgectl set param act.placement 1 >/dev/null
if command -v perf >/dev/null; then
	if perf record -q --no-buildid -o /tmp/sb.perf -e 'sbridge:*' -a -- spin 3 >/tmp/perf.log 2>&1; then
		ok "perf record -e 'sbridge:*' -a -- spin 3"
		perf script -i /tmp/sb.perf > /tmp/perf.txt 2>>/tmp/perf.log
		diag "perf script: $(grep -c 'sbridge:' /tmp/perf.txt) sbridge events; $(grep -m1 'sbridge:sbridge_window' /tmp/perf.txt)"
		check "perf script shows window, period and a decoded decide" shows /tmp/perf.txt sbridge:
	else
		not_ok "perf record -e 'sbridge:*' -a -- spin 3" "$(tail -n 5 /tmp/perf.log)"
		skip "perf script shows sbridge events" "perf record failed"
	fi
else
	skip "perf record -e 'sbridge:*'" "no perf in this guest"
	skip "perf script shows sbridge events" "no perf in this guest"
fi
if command -v trace-cmd >/dev/null; then
	if trace-cmd record -o /tmp/sb.dat -e sbridge spin 3 >/tmp/tc.log 2>&1; then
		ok "trace-cmd record -e sbridge spin 3"
		trace-cmd report -i /tmp/sb.dat > /tmp/tc.txt 2>>/tmp/tc.log
		diag "trace-cmd report: $(grep -c 'sbridge_' /tmp/tc.txt) sbridge events; $(grep -m1 'sbridge_window' /tmp/tc.txt)"
		check "trace-cmd report shows window, period and a decoded decide" shows /tmp/tc.txt
	else
		not_ok "trace-cmd record -e sbridge spin 3" "$(tail -n 5 /tmp/tc.log)"
		skip "trace-cmd report shows sbridge events" "trace-cmd record failed"
	fi
else
	skip "trace-cmd record -e sbridge" "no trace-cmd in this guest"
	skip "trace-cmd report shows sbridge events" "no trace-cmd in this guest"
fi

# 5. A report: the checker selftest stacks two spinners on one CPU.
echo > $I/trace
echo 1 > $I/tracing_on
sbridgectl set param checker.on 1 >/dev/null
sbridgectl set param checker.period_ms 300 >/dev/null
sbridgectl set param checker.selftest 1 >/dev/null
spin 30 >/dev/null &
p1=$!
spin 30 >/dev/null &
p2=$!
n=0
while [ $n -lt 40 ] && [ "$(awk '$1 == "reports" { print $2 }' $S/checker)" = 0 ]; do nap 0.5; n=$((n + 1)); done
nap 1
echo 0 > $I/tracing_on
cat $I/trace > $OUT
nrep=$(awk '$1 == "reports" { print $2 }' $S/checker)
diag "checker: $(tr '\n' ' ' < $S/checker)"
s=$(evs sbridge_decide | grep ' why=selftest ' | head -n 1)
check "decide: why=selftest under checker.selftest" test -n "$s"
if [ "$nrep" -ge 1 ]; then
	r=$(evs sbridge_report | head -n 1)
	diag "report:$r"
	ri=$(echo "$r" | kv idle) rb=$(echo "$r" | kv busy) rw=$(echo "$r" | kv waited_ms)
	check "report event: idle $ri != busy $rb, both < $ncpu, waited_ms $rw > 0" \
		test -n "$ri" -a -n "$rb" -a "${ri:-0}" != "${rb:-0}" -a "${ri:-9}" -lt $ncpu -a "${rb:-9}" -lt $ncpu -a "${rw:-0}" -gt 0
	c=$(evs sbridge_report | grep ' action=yield ' | head -n 1)
	check "a spinner's steering yielded (culprit $(echo "$c" | kv culprit), comm $(echo "$c" | kv comm))" \
		sh -c "echo '$c' | grep -Eq ' culprit=($p1|$p2) action=yield comm=spin\$'"
else
	skip "report event" "the checker confirmed no violation ($nrep reports)"
	skip "yield in the report event" "the checker confirmed no violation"
fi
kill $p1 $p2 2>/dev/null; wait

# 6. Unload with the events still enabled in the instance.
check "sbridge unloads" sh -c "rmmod sbridge_fakesrc && rmmod sbridge_core"
check "events/sbridge gone after rmmod" test ! -d $T/events/sbridge
check "and gone from the instance" test ! -d $I/events/sbridge
rmdir $I 2>/dev/null
