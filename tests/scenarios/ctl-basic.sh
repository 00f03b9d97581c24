#!/bin/sh
# scenario: sbridgectl drives every subcommand against the live module; set/rules need root; bad rules keep the old set
# arch: any
# stock: x86_64
# board: yes
# trixie: no
# topology: smp
# smp: 2
# timeout: 240
# icount: no
. "${SBRIDGE_LIB:-/sbridge/lib.sh}"

plan 44

T=/tmp/ctl-basic
rm -rf $T
mkdir -p $T

# Run a command, keep its exit code in $crc and its output in $cout.
run() {
	cout=$("$@" 2>&1)
	crc=$?
}

# ok if $crc is $1, else not ok with the output.
expect_rc() {
	if [ "$crc" = "$1" ]; then ok "$2"; else not_ok "$2" "exit $crc, want $1: $cout"; fi
}

load_sbridge

# --- status / get --------------------------------------------------------
run sbridgectl status
expect_rc 0 "status exits 0"
diag "$cout"
run sbridgectl status --json
case "$cout" in
'{"version":'*'"cpus":['*) ok "status --json is one JSON object with version and cpus" ;;
*) not_ok "status --json is one JSON object with version and cpus" "$cout" ;;
esac
# the sched_ext line: kfuncs where the kernel has sched_ext, else why not
scx=$(sbridgectl status | sed -n 's/^sched_ext: *//p')
if [ -d /sys/kernel/sched_ext ]; then want="kfuncs registered"; else want="not available: kernel without sched_ext"; fi
case "$scx" in
"$want"*) ok "status: sched_ext: $scx" ;;
*) not_ok "status: sched_ext: $want" "got '$scx'" ;;
esac
run sbridgectl get
expect_rc 0 "get exits 0"
echo "$cout" | grep -q '^ *0 ' && ok "get lists CPU 0" || not_ok "get lists CPU 0" "$cout"

# --- set cpu-factor ---------------------------------------------------------
run sbridgectl set cpu-factor 0 1.5
expect_rc 0 "set cpu-factor 0 1.5"
run sbridgectl --json get 0
case "$cout" in
*'"override":1.5,'*) ok "get shows the 1.5 override on CPU 0" ;;
*) not_ok "get shows the 1.5 override on CPU 0" "$cout" ;;
esac
run sbridgectl status --json
case "$cout" in
*'"cpu":0,'*'"override":1.5,'*) ok "status shows the 1.5 override on CPU 0" ;;
*) not_ok "status shows the 1.5 override on CPU 0" "$cout" ;;
esac
run sbridgectl set cpu-factor 0 0.75
run sbridgectl --json get 0
case "$cout" in
*'"override":0.75,'*) ok "a second set replaces the override (0.75)" ;;
*) not_ok "a second set replaces the override (0.75)" "$cout" ;;
esac

# Unprivileged: refused with a clear message and exit 4, nothing changes.
run as_user sbridgectl set cpu-factor 0 2
expect_rc 4 "unprivileged set cpu-factor exits 4"
case "$cout" in
*"permission denied"*CAP_SYS_ADMIN*) ok "unprivileged set says permission denied, needs CAP_SYS_ADMIN" ;;
*) not_ok "unprivileged set says permission denied, needs CAP_SYS_ADMIN" "$cout" ;;
esac
run sbridgectl --json get 0
case "$cout" in
*'"override":0.75,'*) ok "override unchanged after the refused set" ;;
*) not_ok "override unchanged after the refused set" "$cout" ;;
esac
run as_user sbridgectl status
expect_rc 0 "unprivileged status is allowed"

run sbridgectl set cpu-factor 0 0
run sbridgectl --json get 0
case "$cout" in
*'"override":null,'*) ok "set cpu-factor 0 0 clears the override" ;;
*) not_ok "set cpu-factor 0 0 clears the override" "$cout" ;;
esac
run sbridgectl set cpu-factor 0-x 1
expect_rc 2 "bad CPU list exits 2"
run sbridgectl set cpu-factor 4095 1
expect_rc 2 "a CPU the module does not know exits 2"

# --- rules ---------------------------------------------------------------
cat > $T/good.rules <<'EOF'
# ctl-basic test rules
comm=ctl-compute class=compute prefer=big
comm=ctl-memory  class=memory prefer=little
exe=/sbridge/bin/sbridgectl exclude
cgroup=/ctl-test factor little=0.5 big=1.0
EOF
cat > $T/bad.rules <<'EOF'
comm=ctl-other class=compute
comm=ctl-broken class=sideways
EOF
run sbridgectl rules check $T/good.rules
expect_rc 0 "rules check of a good file"
run sbridgectl rules load $T/good.rules
expect_rc 0 "rules load of 4 rules"
run sbridgectl rules list
cnt=$(echo "$cout" | grep -c '^comm=ctl-\|^exe=\|^cgroup=')
[ "$cnt" = 4 ] && ok "rules list shows the 4 rules" || not_ok "rules list shows the 4 rules" "$cout"
run sbridgectl status --json
case "$cout" in
*'"rules":4,'*) ok "status counts 4 rules" ;;
*) not_ok "status counts 4 rules" "$cout" ;;
esac
run sbridgectl rules load $T/bad.rules
expect_rc 2 "invalid rule file exits 2"
case "$cout" in
*"bad.rules:2:23: unknown class 'sideways'"*) ok "error names file:line:column" ;;
*) not_ok "error names file:line:column" "$cout" ;;
esac
run sbridgectl rules list
cnt=$(echo "$cout" | grep -c '^comm=ctl-\|^exe=\|^cgroup=')
if [ "$cnt" = 4 ] && ! echo "$cout" | grep -q ctl-other; then
	ok "previous rules still in force after the invalid file"
else
	not_ok "previous rules still in force after the invalid file" "$cout"
fi
run as_user sbridgectl rules load $T/good.rules
expect_rc 4 "unprivileged rules load exits 4"
run as_user sbridgectl rules clear
expect_rc 4 "unprivileged rules clear exits 4"
if [ -d $RULESDIR ]; then
	run sbridgectl rules load $RULESDIR
	expect_rc 0 "shipped rules/ load"
	cwant=$(sbridgectl rules check --print $RULESDIR | wc -l)
	cgot=$(sbridgectl rules list | wc -l)
	[ "$cwant" = "$cgot" ] && ok "all $cwant shipped rules in force" ||
		not_ok "all $cwant shipped rules in force" "list has $cgot"
else
	skip "shipped rules/ load" "$RULESDIR not in the image"
	skip "all shipped rules in force" "$RULESDIR not in the image"
fi
# the layered set: a shipped file masked by name, the admin's rule wins
L=$T/layers
mkdir -p $L/usr/lib/sbridge/rules.d $L/etc/sbridge/rules.d
printf 'comm=cc1 class=compute\ncomm=ld class=memory\n' > $L/usr/lib/sbridge/rules.d/compilers.rules
printf 'comm=ffmpeg class=compute\n' > $L/usr/lib/sbridge/rules.d/video.rules
ln -s /dev/null $L/etc/sbridge/rules.d/video.rules
printf 'comm=cc1 class=memory\n' > $L/etc/sbridge/rules.d/local.rules
run sbridgectl rules load --system --root=$L
expect_rc 0 "rules load --system (layers under a root)"
# --json names the layers it read (there are no PATHs to name)
run sbridgectl --json rules load --system --root=$L
case "$crc $cout" in
"0 "*'"loaded":'*"\"$L/etc/sbridge/rules.d\"]"*) ok "rules load --system --json names the layers" ;;
*) not_ok "rules load --system --json names the layers" "rc $crc: $cout" ;;
esac
cout=$(sbridgectl rules list)
case "$cout" in
*ffmpeg*) not_ok "layers: video.rules masked, the admin's cc1 in the shipped place" "$cout" ;;
"comm=cc1 class=memory"*) ok "layers: video.rules masked, the admin's cc1 in the shipped place" ;;
*) not_ok "layers: video.rules masked, the admin's cc1 in the shipped place" "$cout" ;;
esac
run sbridgectl rules clear
expect_rc 0 "rules clear"
run sbridgectl rules list
[ -z "$cout" ] && ok "no rules after clear" || not_ok "no rules after clear" "$cout"

# --- matrix ---------------------------------------------------------------
run sbridgectl matrix save $T/saved.matrix
expect_rc 0 "matrix save"
printf 'key=ctl-mx type=0 phase=0 factor=1.25 cpib=0.5 samples=7\n' > $T/one.matrix
run sbridgectl matrix load $T/one.matrix
expect_rc 0 "matrix load of one entry"
run sbridgectl matrix save -
case "$cout" in
*'key=ctl-mx type=0 phase=0 factor=1.25 '*) ok "matrix save shows the loaded entry" ;;
*) not_ok "matrix save shows the loaded entry" "$cout" ;;
esac
# Valid syntax the kernel refuses (core type 3 does not exist on these
# topologies): exit 1 with the kernel's reason, matrix unchanged.
printf 'key=ctl-bad type=3 phase=0 factor=2 cpib=0.5\n' > $T/bad.matrix
run sbridgectl matrix load $T/bad.matrix
expect_rc 1 "kernel-refused matrix load exits 1"
c_before=$cout
run sbridgectl matrix save -
case "$cout" in
*ctl-bad*) not_ok "refused matrix load changed nothing" "$c_before / $cout" ;;
*'key=ctl-mx '*) ok "refused matrix load changed nothing" ;;
*) not_ok "refused matrix load changed nothing" "$c_before / $cout" ;;
esac
run sbridgectl matrix load $T/saved.matrix
expect_rc 0 "matrix load of the saved matrix"

# --- check / tasks / top / events -------------------------------------------
run sbridgectl check
expect_rc 0 "check"
run sbridgectl tasks
clines=$(echo "$cout" | wc -l)
[ "$crc" = 0 ] && [ "$clines" -gt 1 ] && ok "tasks lists tracked tasks ($((clines - 1)))" ||
	not_ok "tasks lists tracked tasks" "exit $crc: $cout"
run sbridgectl tasks --sort=runtime --reverse --limit=3 --json
case "$crc:$cout" in
'0:{"tasks":['*) ok "tasks --sort --limit --json" ;;
*) not_ok "tasks --sort --limit --json" "exit $crc: $cout" ;;
esac
run sbridgectl top --iterations=1 --interval=0.5
expect_rc 0 "top runs one refresh"

# Phase events may arrive too: collect a few seconds' worth, then look.
sbridgectl events --count=200 --timeout=4 > $T/events 2>&1 &
evpid=$!
sleep 2
sbridgectl set cpu-factor 0 1.25 > /dev/null 2>&1
sbridgectl set cpu-factor 0 0 > /dev/null 2>&1
i=0
while kill -0 $evpid 2>/dev/null && [ $i -lt 15 ]; do
	sleep 1
	i=$((i + 1))
done
kill $evpid 2>/dev/null
wait $evpid
if grep -q ' factors ' $T/events; then
	ok "events shows the factors change"
else
	not_ok "events shows the factors change" "$(head -5 $T/events)"
fi

# --- without the module ----------------------------------------------------
unload_sbridge
run sbridgectl status
expect_rc 3 "status without the module exits 3"
rm -rf $T
