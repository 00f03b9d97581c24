#!/bin/sh
# scenario: sbridgectl record: with sbridge placing a spinner and a chaser, a 4 s recording has the header, one meta cpu per CPU, samples of every CPU at about the rate counting the two busy tasks runnable, the workload's switches, sbridge events when the kernel has them and a matching end line; SIGINT, SIGTERM and a tiny size limit end it cleanly, the next recorder removes a SIGKILLed one's instance; non-root and an existing file are refused with nothing written; without the module the file says sbridge absent (--sbridge-events accepted, nothing of sbridge recorded); with sbridge_fakesrc's counters --sbridge-events=decide enables only sbridge_decide in the recorder's instance and the file has decisions and no window, the default has windows, none has no event, an unknown name is refused with nothing left; no tracefs instance is ever left behind and the global buffer is untouched
# arch: arm64
# suite: bookworm
# trixie: no
# topology: 1b1s
# smp: 2
# timeout: 420
# icount: no
. "${SBRIDGE_LIB:-/sbridge/lib.sh}"

T=/sys/kernel/tracing
D=/tmp/rec
rm -rf $D
mkdir -p $D
chmod 777 $D
RATE=20
ncpu=$(ls -d /sys/devices/system/cpu/cpu[0-9]* | wc -l)
ncap=$(cat /sys/devices/system/cpu/cpu*/cpu_capacity 2>/dev/null | sort -u | wc -l)

# Run a command, keep its exit code in $crc and its output in $cout.
run() {
	cout=$("$@" 2>&1)
	crc=$?
}
expect_rc() {
	if [ "$crc" = "$1" ]; then ok "$2"; else not_ok "$2" "exit $crc, want $1: $cout"; fi
}
# no_instance WHEN: 1 TAP point: no sbridge-record instance in tracefs
no_instance() {
	_l=$(ls $T/instances 2>/dev/null | grep sbridge-record)
	if [ -z "$_l" ]; then ok "no sbridge-record instance left ($1)"; else not_ok "no sbridge-record instance left ($1)" "$_l"; fi
}
# end_of FILE: its last line's reason ("" if it has no end line)
end_of() { tail -n 1 "$1" | awk '$1 == "end" { print $3 }'; }
# kv FILE KEY: a count of FILE's end line
kv() { tail -n 1 "$1" | tr ' ' '\n' | sed -n "s/^$2=//p"; }
# shape FILE: every line is a known record with its field count, meta
# lines come first, events only of those meta sbridge_events names, times
# lie between the start and the end (all mono)
shape() {
	awk 'NR == 1 { if ($0 != "sbridge-record 4") { print "line 1: " $0; bad = 1 }; next }
	$1 == "meta" { if (body) { print NR ": meta after records"; bad = 1 }
		if ($2 == "sbridge_events") { evs = 1; n = split($3, a, ","); for (i = 1; i <= n; i++) ev["sbridge_" a[i]] = 1 }
		if ($2 == "start") t0 = $4; next }
	$1 == "end" { if (NF != 10) { print NR ": end has " NF " fields"; bad = 1 }; te = $2; ended = NR; next }
	{ body = 1
	  if (ended) { print NR ": after the end line"; bad = 1 }
	  if ($1 == "sample" && NF != 6) { print NR ": " $0; bad = 1 }
	  else if ($1 == "switch" && NF != 8) { print NR ": " $0; bad = 1 }
	  else if ($1 == "wakeup" && (NF != 8 || ($6 != "wake" && $6 != "new"))) { print NR ": " $0; bad = 1 }
	  else if ($1 == "migrate" && NF != 6) { print NR ": " $0; bad = 1 }
	  else if ($1 == "event" && (NF < 4 || $4 !~ /^sbridge_/)) { print NR ": " $0; bad = 1 }
	  else if ($1 == "event" && !ev[$4]) { print NR ": " $4 " is not in meta sbridge_events"; bad = 1 }
	  else if ($1 != "sample" && $1 != "switch" && $1 != "event" && $1 != "wakeup" && $1 != "migrate") { print NR ": unknown " $0; bad = 1 }
	  if ($2 + 0 < min || !min) min = $2 + 0
	  if ($2 + 0 > max) max = $2 + 0 }
	END { if (!ended) { print "no end line"; bad = 1 }
	  if (!evs) { print "no meta sbridge_events"; bad = 1 }
	  # a trace event may predate the header by the setup time, not more
	  if (min && min + 1e9 < t0) { print "earliest record " min " long before start " t0; bad = 1 }
	  if (max > te) { print "record at " max " after the end " te; bad = 1 }
	  exit bad }' "$1"
}
# counts FILE: the end line's counts are the records in the file
counts() {
	awk '$1 == "event" { e++ } $1 == "sample" { s++ } $1 == "switch" { w++ }
	$1 == "wakeup" { k++ } $1 == "migrate" { m++ }
	$1 == "end" { want = "events=" e + 0 " samples=" s + 0 " switches=" w + 0 " wakeups=" k + 0 " migrations=" m + 0
		got = $4 " " $5 " " $6 " " $8 " " $9
		if (got != want) { print "end says " got ", file has " want; exit 1 } }' "$1"
}

plan 81

sw0=$(cat $T/events/sched/sched_switch/enable)
clk0=$(cat $T/trace_clock)

# sbridge with placement on: spin is compute-bound by rule (no PMU here)
if [ "$ncap" -gt 1 ]; then
	check "sbridge loads (capacities from the device tree)" load_sbridge
else
	check "sbridge loads with cpu_types=0:1024;1-$((ncpu - 1)):446" \
		load_sbridge "cpu_types=0:1024;1-$((ncpu - 1)):446"
fi
printf 'comm=spin class=compute\ncomm=chase class=memory\n' > /tmp/rec.rules
check "rules: spin compute, chase memory" sbridgectl rules load /tmp/rec.rules
check "placement on, 100 ms periods" sh -c 'sbridgectl set param act.placement 1 && sbridgectl set param act.period_ms 100'

# 1. 4 s with a spinner and a chaser running.
spin 20 >/dev/null &
sp=$!
chase 16 20 >/dev/null &
cp=$!
nap 1
run sbridgectl record -d 4 -o $D/a.rec
expect_rc 0 "record -d 4 exits 0"
diag "$cout"
A=$D/a.rec
check "first line is 'sbridge-record 4'" test "$(head -n 1 $A)" = "sbridge-record 4"
_o=$(shape $A) && ok "every line is a known record, meta first, times within start..end" || not_ok "every line is a known record, meta first, times within start..end" "$_o"
check "meta kernel is $(uname -r)" grep -qx "meta kernel $(uname -r)" $A
check "meta rate_hz $RATE" grep -qx "meta rate_hz $RATE" $A
check "meta sbridge loaded" grep -qx "meta sbridge loaded" $A
# the default: every event the module has (all six: trace-events.sh)
ALL=window,phase,period,decide,act,report
if [ -d $T/events/sbridge ]; then
	check "meta sbridge_events $ALL (the default)" grep -qx "meta sbridge_events $ALL" $A
else
	check "meta sbridge_events none (a module without trace events)" grep -qx "meta sbridge_events none" $A
fi
ncpus=$(awk '$1 == "meta" && $2 == "cpu" { print $3 }' $A | sort -un | wc -l)
nmeta=$(grep -c '^meta cpu ' $A)
check "one meta cpu per CPU ($nmeta lines, $ncpus CPUs, want $ncpu)" test "$nmeta" = "$ncpu" -a "$ncpus" = "$ncpu"
# types as sbridge numbers them: status shows the same count
nt=$(sbridgectl status | sed -n 's/^core types: *\([0-9]*\).*/\1/p')
mt=$(awk '$1 == "meta" && $2 == "cpu" { print $4 }' $A | sort -u | wc -l)
check "meta cpu types are sbridge's ($mt types, status $nt)" test "$mt" = "$nt"
diag "$(grep '^meta' $A | tr '\n' ';')"
# samples: per CPU about RATE a second over 4 s; under TCG a sample that
# comes late is skipped, so at least 40% of them
per=$(awk '$1 == "sample" { n[$3]++ } END { for (c in n) printf "%s:%d ", c, n[c] }' $A)
diag "samples per CPU: $per"
lo=$((RATE * 4 * 2 / 5)) hi=$((RATE * 4 + 2))
odd=$(awk -v lo=$lo -v hi=$hi -v n=$ncpu '$1 == "sample" { c[$3]++ }
	END { for (i = 0; i < n; i++) if (c[i] < lo || c[i] > hi) printf " cpu%d:%d", i, c[i] }' $A)
check "samples of every CPU, $lo..$hi in 4 s:${odd:- yes}" test -z "$odd"
check "samples' busy share 0..1000, a busy CPU among them" \
	awk '$1 == "sample" { if ($5 < 0 || $5 > 1000) exit 1; if ($5 > 500) b = 1 } END { exit !b }' $A
# the runnable count (kept from sched events): spin and chase are always
# runnable, little else is; a count that leaks or loses tasks fails this
# runnable FILE [WHAT]: 1 TAP point
runnable() {
	nrs=$(awk '$1 == "sample" { n[$2] += $4 } END { for (t in n) { k++; if (n[t] >= 2 && n[t] <= 4) g++ }
		printf "%d %d", g, k }' $1)
	diag "sample times counting 2..4 runnable tasks: ${nrs% *} of ${nrs#* }"
	check "${2}runnable count: spin and chase in 3/4 of the samples (${nrs% *} of ${nrs#* } count 2..4)" \
		test "${nrs#* }" -gt 0 -a "$(( ${nrs% *} * 4 ))" -ge "$(( ${nrs#* } * 3 ))"
}
runnable $A
check "switch records name the spinner (pid $sp)" \
	awk -v p=$sp '$1 == "switch" && (($4 == p && $5 == "spin") || ($6 == p && $7 == "spin")) { f = 1 } END { exit !f }' $A
check "switch records name the chaser (pid $cp)" \
	awk -v p=$cp '$1 == "switch" && (($4 == p && $5 == "chase") || ($6 == p && $7 == "chase")) { f = 1 } END { exit !f }' $A
# the runnable tasks a reader rebuilds: wakeups onto a CPU, a preempted
# spinner or chaser (prev_state R) stays runnable
check "meta wakeups yes, wakeup records and a preempted workload task (prev_state R)" \
	awk -v s=$sp -v c=$cp '$0 == "meta wakeups yes" { m = 1 } $1 == "wakeup" { w++ }
	$1 == "switch" && ($4 == s || $4 == c) && $8 ~ /^R/ { r = 1 } END { exit !(m && w && r) }' $A
if [ -d $T/events/sbridge ]; then
	ne=$(grep -c '^event ' $A)
	diag "events: $(awk '$1 == "event" { n[$4]++ } END { for (e in n) printf "%s:%d ", e, n[e] }' $A)"
	check "sbridge events recorded ($ne)" test "$ne" -gt 0
	check "a decision about the spinner (pid=$sp ... comm=spin)" \
		grep -q "^event [0-9]* [0-9]* sbridge_decide pid=$sp .* comm=spin\$" $A
else
	skip "sbridge events recorded" "no $T/events/sbridge: the module has no tracepoints yet"
	skip "a decision about the spinner" "no $T/events/sbridge"
fi
check "end line: reason duration, dropped=0" test "$(end_of $A)" = duration -a "$(kv $A dropped)" = 0
_o=$(counts $A) && ok "end line's counts match the file" || not_ok "end line's counts match the file" "$_o"
no_instance "after -d"
check "global sched_switch enable untouched ($sw0)" test "$(cat $T/events/sched/sched_switch/enable)" = "$sw0"
check "global trace_clock untouched" test "$(cat $T/trace_clock)" = "$clk0"

# 1b. --defer: nothing is read while recording (the events wait in the
# instance's buffer, the samples in memory), everything at the end, in
# time order, with the runnable count replayed as the live recorder has it.
sbridgectl record --defer -b 1M -d 3 -o $D/d.rec > $D/d.out 2>&1 &
rp=$!
nap 1.5
I=$T/instances/sbridge-record-$rp
held=$(cat $I/per_cpu/cpu*/stats 2>/dev/null | awk '$1 == "entries:" { n += $2 } END { print n + 0 }')
nsw=$(grep -c '^switch ' $D/d.rec)
check "--defer: events wait in the kernel's buffer ($held), none in the file yet ($nsw)" \
	test "$held" -gt 0 -a "$nsw" = 0
check "--defer -b 1M: the instance's buffer is 1 MiB a CPU, to pages ($(cat $I/buffer_size_kb 2>&1) KiB)" \
	test "$(cat $I/buffer_size_kb 2>/dev/null)" -ge 1024 -a "$(cat $I/buffer_size_kb 2>/dev/null)" -lt 1100
check "--defer: the instance's buffer does not overwrite" test "$(cat $I/options/overwrite 2>/dev/null)" = 0
wait $rp
crc=$? cout=$(cat $D/d.out)
expect_rc 0 "record --defer -d 3 exits 0"
_o=$(shape $D/d.rec) && ok "--defer: every line a known record" || not_ok "--defer: every line a known record" "$_o"
_o=$(counts $D/d.rec) && ok "--defer: end line's counts match the file" || not_ok "--defer: end line's counts match the file" "$_o"
check "--defer: nothing lost or dropped (end: lost=$(kv $D/d.rec lost) dropped=$(kv $D/d.rec dropped))" \
	test "$(kv $D/d.rec lost)" = 0 -a "$(kv $D/d.rec dropped)" = 0
_o=$(awk '$1 != "meta" && $1 != "end" && NR > 1 { if ($2 + 0 < t) { print NR ": " $0 " before " t; exit 1 }; t = $2 + 0 }' $D/d.rec) &&
	ok "--defer: samples and events in time order" || not_ok "--defer: samples and events in time order" "$_o"
check "--defer: samples of every CPU and the workload's switches" \
	awk -v n=$ncpu -v p=$sp '$1 == "sample" { c[$3] = 1 } $1 == "switch" && ($4 == p || $6 == p) { w = 1 }
	END { for (i = 0; i < n; i++) if (!c[i]) exit 1; exit !w }' $D/d.rec
runnable $D/d.rec "--defer: "
no_instance "after --defer"

# 1c. --defer with a buffer too small for a pipe storm: the kernel drops
# the newest events, the end line and the warning count them.
sbridgectl record --defer -b 64K -o $D/l.rec > $D/l.out 2>&1 &
rp=$!
nap 1
dd if=/dev/zero bs=1 count=20000 2>/dev/null | cat > /dev/null
kill -INT $rp
wait $rp
crc=$? cout=$(cat $D/l.out)
expect_rc 0 "--defer -b 64K, a pipe storm: exits 0"
case "$cout" in
*"buffer filled"*": "*" events lost"*) _w=1 ;;
*) _w= ;;
esac
check "--defer -b 64K: end line lost=$(kv $D/l.rec lost) > 0, and says so (${cout##*record: })" \
	test "$(kv $D/l.rec lost)" -gt 0 -a -n "$_w"
_o=$(shape $D/l.rec) && ok "--defer -b 64K: still a whole file" || not_ok "--defer -b 64K: still a whole file" "$_o"
no_instance "after --defer -b 64K"

# 2. Stopped with SIGINT, stdout as the file.
sbridgectl record -o - > $D/b.rec 2>$D/b.err &
rp=$!
nap 2
kill -INT $rp
wait $rp
crc=$? cout=$(cat $D/b.err)
expect_rc 0 "record to stdout, SIGINT: exits 0"
check "SIGINT: end reason signal" test "$(end_of $D/b.rec)" = signal
_o=$(shape $D/b.rec) && ok "SIGINT: a whole file" || not_ok "SIGINT: a whole file" "$_o"
no_instance "after SIGINT"
# SIGTERM too
sbridgectl record -o $D/t.rec >/dev/null 2>&1 &
rp=$!
nap 1.5
kill -TERM $rp
wait $rp
crc=$?
check "SIGTERM: exit 0 ($crc), end reason signal" test "$crc" = 0 -a "$(end_of $D/t.rec)" = signal
no_instance "after SIGTERM"

# 3. A tiny size limit: stops at it, counts what it left out.
run sbridgectl record -s 4096 -d 10 -o $D/c.rec
expect_rc 0 "record -s 4096 exits 0"
sz=$(wc -c < $D/c.rec)
check "size limit: reason size, dropped $(kv $D/c.rec dropped) > 0" \
	test "$(end_of $D/c.rec)" = size -a "$(kv $D/c.rec dropped)" -gt 0
check "size limit: the file ($sz bytes) is within 4096" test "$sz" -le 4096
no_instance "after the size limit"
kill $sp $cp 2>/dev/null
wait $sp $cp 2>/dev/null

# 4. Refusals: nothing written, nothing left.
run as_user sbridgectl record -d 1 -o $D/u.rec
expect_rc 4 "non-root: exit 4"
case "$cout" in
*"needs root"*) ok "non-root: says it needs root" ;;
*) not_ok "non-root: says it needs root" "$cout" ;;
esac
check "non-root: no file written" test ! -e $D/u.rec
no_instance "after non-root"
run sbridgectl record -d 1 -o $A
expect_rc 2 "an existing file without --force: exit 2"
check "the existing file is untouched" test "$(end_of $A)" = duration
run sbridgectl record -r 500 -o $D/r.rec
expect_rc 2 "rate 500: exit 2, nothing written"
check "rate 500: no file" test ! -e $D/r.rec

# 5. Without the module: switches and samples only. Before it, a recorder
# killed by SIGKILL (which cannot clean up): the next one removes its
# instance.
check "sbridge unloads" unload_sbridge
sbridgectl record -o $D/k.rec >/dev/null 2>&1 &
kp=$!
nap 1.5
kill -KILL $kp
wait $kp 2>/dev/null
test -d $T/instances/sbridge-record-$kp && left=yes || left=no
run sbridgectl record -d 2 --no-switches --sbridge-events=decide -o $D/n.rec
check "a SIGKILLed recorder's instance (left: $left) is removed by the next" \
	test $left = yes -a ! -d $T/instances/sbridge-record-$kp
expect_rc 0 "record without sbridge, --no-switches --sbridge-events=decide: exit 0"
check "meta sbridge absent, meta sbridge_events none" \
	sh -c "grep -qx 'meta sbridge absent' $D/n.rec && grep -qx 'meta sbridge_events none' $D/n.rec"
check "no events, switches or wakeups (meta wakeups no), samples ($(grep -c '^sample' $D/n.rec)), end duration" \
	test "$(grep -c '^event\|^switch\|^wakeup\|^migrate' $D/n.rec)" = 0 -a "$(grep -c '^sample' $D/n.rec)" -gt 0 \
	-a "$(end_of $D/n.rec)" = duration -a "$(grep -c '^meta wakeups no$' $D/n.rec)" = 1
no_instance "without the module"

# 6. Which of sbridge's events (issue 28). sbridge_fakesrc's counters
# close a window per switch and tick of every task (no PMU counts
# instructions under TCG), so the default records sbridge_window lines;
# --sbridge-events=decide enables sbridge_decide alone in the recorder's
# instance, and the file has decisions and no window.
core_with_fakesrc "sbridge_core loads again"
sbridgectl set param act.period_ms 100 >/dev/null
spin 60 >/dev/null &
sp=$!
nap 1
sbridgectl record -d 3 --sbridge-events=decide -o $D/e.rec > $D/e.out 2>&1 &
rp=$!
# tracing is on once the header is out
_w=0
while [ ! -s $D/e.rec ] && [ $_w -lt 100 ] && kill -0 $rp 2>/dev/null; do nap 0.1; _w=$((_w + 1)); done
on=$(for _e in $T/instances/sbridge-record-$rp/events/sbridge/sbridge_*/enable; do
	[ "$(cat $_e 2>/dev/null)" = 1 ] && basename ${_e%/enable}; done | tr '\n' ' ')
gl=$(cat $T/events/sbridge/sbridge_*/enable | sort -u | tr -d '\n')
check "while recording --sbridge-events=decide: the instance enables sbridge_decide alone (${on:-none}), the global ones stay off ($gl)" \
	test "$on" = "sbridge_decide " -a "$gl" = 0
wait $rp
crc=$? cout=$(cat $D/e.out)
expect_rc 0 "record --sbridge-events=decide exits 0"
diag "$cout"
E=$D/e.rec
_o=$(shape $E) && ok "decide: a whole file, its events among meta sbridge_events" || not_ok "decide: a whole file, its events among meta sbridge_events" "$_o"
check "decide: meta sbridge_events decide" grep -qx "meta sbridge_events decide" $E
evs=$(awk '$1 == "event" { n[$4]++ } END { for (e in n) printf "%s:%d ", e, n[e] }' $E)
diag "decide: events $evs"
check "decide: sbridge_decide lines, about the spinner too, and no other event (${evs:-none})" \
	awk -v p=$sp '$1 == "event" { if ($4 != "sbridge_decide") o++; else { d++; if ($5 == "pid=" p) s = 1 } }
	END { exit !(d > 0 && s && !o) }' $E
run sbridgectl record -d 3 -o $D/f.rec
expect_rc 0 "record (all sbridge events, the default) exits 0"
F=$D/f.rec
_o=$(shape $F) && ok "default: a whole file" || not_ok "default: a whole file" "$_o"
evs=$(awk '$1 == "event" { n[$4]++ } END { for (e in n) printf "%s:%d ", e, n[e] }' $F)
diag "default: events $evs"
check "default: meta sbridge_events $ALL, window lines of the spinner and decide lines (${evs:-none})" \
	awk -v p=$sp -v all="$ALL" '$0 == "meta sbridge_events " all { m = 1 }
	$1 == "event" && $4 == "sbridge_window" && $5 == "pid=" p { w = 1 }
	$1 == "event" && $4 == "sbridge_decide" { d = 1 } END { exit !(m && w && d) }' $F
run sbridgectl record -d 1 --sbridge-events=none -o $D/g.rec
check "--sbridge-events=none: exit $crc, meta sbridge_events none, no event, switches" \
	test "$crc" = 0 -a "$(grep -c '^meta sbridge_events none$' $D/g.rec)" = 1 \
	-a "$(grep -c '^event ' $D/g.rec)" = 0 -a "$(grep -c '^switch ' $D/g.rec)" -gt 0
run sbridgectl record -d 1 --sbridge-events=decide,windows -o $D/h.rec
expect_rc 2 "--sbridge-events=decide,windows: exit 2"
case "$cout" in
*"unknown event 'windows'"*) ok "an unknown event is named" ;;
*) not_ok "an unknown event is named" "$cout" ;;
esac
check "an unknown event: no file" test ! -e $D/h.rec
no_instance "after the sbridge event choices"
gl=$(cat $T/events/sbridge/sbridge_*/enable | sort -u | tr -d '\n')
check "the global sbridge events stay off ($gl)" test "$gl" = 0
kill $sp 2>/dev/null
wait $sp 2>/dev/null
check "sbridge unloads" sh -c "rmmod sbridge_fakesrc && rmmod sbridge_core"
