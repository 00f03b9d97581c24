# KTAP helpers for scenarios (sourced by tests/scenarios/*.sh), as
# tools/testing/selftests/kselftest/ktap_helpers.sh writes it: a version
# line and plan, one line per check, "Bail out!" when the scenario cannot
# go on, "# Totals" at exit. The harness counts ok / not ok / skip apart
# and never turns a skip into a pass.
#
# In the QEMU guests this file is /sbridge/lib.sh and the modules are in
# /sbridge/modules; on a board tests/board/run points SBRIDGE_LIB and
# SBRIDGE_MODDIR at the clone and at the modules installed there.
_n=0
_failed=0
# One letter per result, so checks made in a subshell (a pipeline, $(...))
# count in the totals too.
_SB_RESULTS=${TMPDIR:-/tmp}/.sb-results.$$
: > "$_SB_RESULTS"

_sb_totals() {
	_p=$(grep -c p "$_SB_RESULTS") _f=$(grep -c f "$_SB_RESULTS") _s=$(grep -c s "$_SB_RESULTS")
	echo "# Totals: pass:$_p fail:$_f xfail:0 xpass:0 skip:$_s error:0"
	rm -f "$_SB_RESULTS"
}
plan() { echo "TAP version 13"; echo "1..$1"; trap _sb_totals EXIT; }
diag() { echo "$*" | sed 's/^/# /'; }
ok() { _n=$((_n + 1)); echo p >> "$_SB_RESULTS"; echo "ok $_n - $1"; }
not_ok() {
	_n=$((_n + 1)); _failed=$((_failed + 1))
	echo f >> "$_SB_RESULTS"
	echo "not ok $_n - $1"
	[ -n "$2" ] && diag "$2"
	return 0
}
skip() {
	_n=$((_n + 1))
	echo s >> "$_SB_RESULTS"
	echo "ok $_n - $1 # SKIP ${2:-no reason given}"
}
# bail_out REASON: the scenario cannot go on (its setup failed).
bail_out() { echo "Bail out! $*"; exit 1; }

# check DESC CMD...: ok if CMD exits 0; otherwise not ok with its output.
check() {
	_d=$1; shift
	if _o=$("$@" 2>&1); then ok "$_d"; else not_ok "$_d" "$(echo "$_o" | tail -n 20)"; fi
}

# check_fail DESC CMD...: ok if CMD exits non-zero (something refused).
check_fail() {
	_d=$1; shift
	if _o=$("$@" 2>&1); then not_ok "$_d" "expected failure, got: $_o"; else ok "$_d"; fi
}

# save_file PATH [NAME]: hand PATH to the host, which keeps it as
# build/cells/<cell>/<scenario>.files/NAME (default: PATH's basename).
# gzip then base64 between markers keeps the console ASCII; the harness
# checks the size and keeps these lines out of the TAP and error scans.
save_file() {
	_sf=$1 _sn=${2:-${1##*/}}
	case $_sn in
	*[!A-Za-z0-9._-]* | "") echo "# save_file: bad name '$_sn'"; return 1 ;;
	esac
	[ -f "$_sf" ] || { echo "# save_file: no file $_sf"; return 1; }
	echo "@@SB-FILE $_sn $(wc -c < "$_sf" | tr -d ' ')"
	gzip -c "$_sf" | base64
	echo "@@SB-FILE-END $_sn"
}

# Run as an unprivileged user (uid/gid 1000, no capabilities).
as_user() { asuser 1000 "$@"; }

kver() { uname -r; }
# kver_ge 6.12: true if the running kernel is at least that version.
kver_ge() {
	_k=$(uname -r | sed 's/[^0-9.].*//')
	[ "$(printf '%s\n%s\n' "$1" "$_k" | sort -t. -k1,1n -k2,2n -k3,3n | head -n1)" = "$1" ]
}

MODDIR=${SBRIDGE_MODDIR:-/sbridge/modules}
# the shipped rules/ directory
RULESDIR=${SBRIDGE_RULESDIR:-/sbridge/rules}
# Under the emulation rig (tools/rig) an ivshmem device carries the emulated
# PMU: its driver must be there before sbridge_pmu probes the counters.
on_rig() { grep -qs 0x1110 /sys/bus/pci/devices/*/device; }
load_sbridge() {
	if on_rig && ! grep -q '^rig_pmu ' /proc/modules; then
		insmod $MODDIR/rig_pmu.ko || return 1
	fi
	insmod $MODDIR/sbridge_core.ko "$@" && insmod $MODDIR/sbridge_pmu.ko
}
# sb_state: what root can see of sbridge's control state (rule and matrix
# counts, CPUs, parameters, the rules, the matrix), for "nothing changed"
# checks: compare its output before and after.
sb_state() {
	echo "rules=$(cat /sys/kernel/sbridge/rules) matrix=$(cat /sys/kernel/sbridge/matrix)"
	cat /sys/kernel/sbridge/cpus /sys/kernel/sbridge/params
	nltest rules
	nltest matrix
}
# core_with DESC MODULE [ARGS]: 2 TAP points: sbridge_core loads, then the
# test module MODULE (tests/modules) with ARGS, described as DESC. Without
# it the scenario cannot go on: the plan comes up short and the run fails.
core_with() {
	_d=$1 _m=$2; shift 2
	check "sbridge_core loads" insmod $MODDIR/sbridge_core.ko
	if ! insmod $MODDIR/$_m.ko "$@"; then
		not_ok "$_d" "tests/modules/${_m#sbridge_} not built?"
		rmmod sbridge_core
		exit 0
	fi
	ok "$_d"
}
# task_gone PID: wait until sbridge no longer tracks PID (freed, learned at
# exit), at most 10 s, then 1.5 s more for the work that follows a free.
task_gone() {
	_g=0
	while [ $_g -lt 20 ] && sbridgectl tasks --pid="$1" | grep -q "^ *$1 "; do
		sleep 0.5; _g=$((_g + 1))
	done
	sleep 1.5
}
# nap SECONDS: sleep without forking (read timing out on a private fifo):
# on busy, throttled vCPUs a fork costs more than the sleep itself.
nap() {
	[ -p /tmp/.sb-nap ] || mkfifo /tmp/.sb-nap
	exec 9<>/tmp/.sb-nap
	read -t "$1" _ <&9
	exec 9<&-
	return 0
}
# masks_of PID...: "PID MASK" for each live task, one read for all (a
# taskset per task costs seconds when hundreds are audited under TCG).
masks_of() {
	for _p; do cat /proc/$_p/status; done 2>/dev/null |
		awk '/^Pid:/ { p = $2 } /^Cpus_allowed:/ { print p, $2 }'
}
# clamps_visible: /proc/PID/sched shows uclamp requests (the kernel has
# CONFIG_UCLAMP_TASK and CONFIG_SCHED_DEBUG, or 7.x's unconditional file).
clamps_visible() {
	grep -q '^uclamp\.min' /proc/self/sched 2>/dev/null
}
# user_tasks_snapshot: every thread outside the kernel (kthreadd and its
# children excluded), in one pass, one line each: "TID:START COMM MASK
# MIN/MAX" (START is its start time: a reused TID is another thread;
# MIN/MAX its uclamp requests, "-" where /proc/PID/sched shows none).
user_tasks_snapshot() {
	{ cat /proc/[0-9]*/task/[0-9]*/stat; cat /proc/[0-9]*/task/[0-9]*/status
	  cat /proc/[0-9]*/task/[0-9]*/sched; } 2>/dev/null |
		awk '
		/^[0-9]+ \(.*\) [A-Za-z] / { s = $0; sub(/^.*\) /, "", s); split(s, f, " "); st[$1] = f[20]; next }
		/^Name:/ { c = $2 }
		/^Pid:/ { p = $2 }
		/^PPid:/ { k = (p == 2 || $2 == 2); if (!k) { comm[p] = c; seen[p] = 1 } }
		/^Cpus_allowed:/ { if (!k) mask[p] = $2 }
		/, #threads: / { s = $0; sub(/.*\(/, "", s); sub(/,.*/, "", s); cur = s }
		/^uclamp\.min/ { lo[cur] = $NF }
		/^uclamp\.max/ { hi[cur] = $NF }
		END { for (p in seen) print p ":" st[p], comm[p], mask[p], ((p in lo) ? lo[p] "/" hi[p] : "-") }'
}
# user_tasks_audit ALLMASK [BASE [EXPECT]]: every thread outside the kernel
# now, each against what it had in BASE (a user_tasks_snapshot taken before
# sbridge loaded), a thread not in BASE against ALLMASK and no clamp
# (0/1024), and a thread the test itself changed against that change
# (EXPECT: lines "TID MASK MIN/MAX", "-" for "as before"). Nothing is left
# out. Prints "n COUNT", then "mask TID:COMM:MASK (want W)" and "clamp
# TID:COMM:MIN/MAX (want W)" for each difference. An audit that cannot see
# must not pass: a kernel with uclamp whose /proc/PID/sched shows no clamps
# gets a "clamp" line, an audit that found no user task a "mask" line.
user_tasks_audit() {
	[ -e /proc/sys/kernel/sched_util_clamp_min ] && ! clamps_visible &&
		echo "clamp -:-:unreadable (uclamp is on, /proc/PID/sched shows no clamps)"
	_ab=${2:-/dev/null} _ae=${3:-/dev/null}
	user_tasks_snapshot > /tmp/.sb-now
	# (not "exp": awk has a function of that name)
	awk -v all="$1" -v basef="$_ab" -v wantf="$_ae" '
		FILENAME == basef { bm[$1] = $3; bc[$1] = $4; next }
		FILENAME == wantf { em[$1] = $2; ec[$1] = $3; next }
		{
			n++; split($1, k, ":"); t = k[1]
			wm = ($1 in bm) ? bm[$1] : all
			wc = ($1 in bc) ? bc[$1] : "0/1024"
			if ((t in em) && em[t] != "-") wm = em[t]
			if ((t in ec) && ec[t] != "-") wc = ec[t]
			if ($3 != wm) print "mask " t ":" $2 ":" $3 " (want " wm ")"
			if ($4 != "-" && wc != "-" && $4 != wc) print "clamp " t ":" $2 ":" $4 " (want " wc ")"
		}
		END { print "n " n + 0; if (!n) print "mask -:-:blind (no user task seen)" }' \
		"$_ab" "$_ae" /tmp/.sb-now ||
		echo "mask -:-:blind (the audit itself failed)"
}
unload_sbridge() {
	_r=0
	grep -q '^sbridge_pmu ' /proc/modules && { rmmod sbridge_pmu || _r=1; }
	grep -q '^sbridge_core ' /proc/modules && { rmmod sbridge_core || _r=1; }
	return $_r
}

# Emulation rig (tools/rig): sysfs directory of the bound rig_pmu device.
rig_dev() {
	for _d in /sys/bus/pci/drivers/rig_pmu/0000:*; do
		[ -r "$_d/freq" ] && { echo "$_d"; return 0; }
	done
	echo "rig_dev: no rig_pmu device bound (insmod rig_pmu.ko?)" >&2
	return 1
}
# rig_freq CPU MHZ: the rig runs CPU at MHZ from now on (0: its core type's
# configured clock). Returns once the rig applied it; a bad CPU or MHZ is
# refused (EINVAL) and changes nothing.
rig_freq() {
	_rd=$(rig_dev) || return 1
	[ $# -eq 2 ] || { echo "usage: rig_freq CPU MHZ" >&2; return 1; }
	echo "$1 $2" > "$_rd/freq"
}
# rig_cpu_types: sbridge_core's cpu_types= for the running rig board, from
# the rig's own per-CPU records: one entry per configured capacity (what
# rig.conf's capacity= gives, the arm64 device tree's capacity-dmips-mhz),
# e.g. 0-1:1024;2-3:512 on 2f2s. For x86 rig boards, where the kernel sees
# one capacity.
rig_cpu_types() {
	_rd=$(rig_dev) || return 1
	awk 'NR > 1 {
		if (!($3 in cpus)) order[++n] = $3
		cpus[$3] = cpus[$3] " " $1
	}
	END {
		for (i = 1; i <= n; i++) {
			k = split(cpus[order[i]], a, " "); s = ""; j = 1
			while (j <= k) {
				e = j
				while (e < k && a[e + 1] == a[e] + 1) e++
				s = s (s == "" ? "" : ",") (e > j ? a[j] "-" a[e] : a[j])
				j = e + 1
			}
			out = out (out == "" ? "" : ";") s ":" order[i]
		}
		if (out == "") exit 1
		print out
	}' "$_rd/freq"
}

# rig_big, rig_little: the first CPU of the rig's highest and lowest
# configured capacity (its freq table), on either arch.
rig_big() { awk 'NR > 1 && (c == "" || $3 > c) { c = $3; x = $1 } END { print x }' "$(rig_dev)/freq"; }
rig_little() { awk 'NR > 1 && (c == "" || $3 < c) { c = $3; x = $1 } END { print x }' "$(rig_dev)/freq"; }
# rig_predictor: apply the mix predictor's coefficients fitted on the rig
# (tools/rig/mixpred-*.coef, for this guest's architecture; make mixcal).
# Without one for this architecture, another's (the rig's costs are the
# same; only how the guest's instructions fall into classes differs).
rig_predictor_file() {
	_pf=/sbridge/rig/mixpred-1b1s-$(uname -m).coef
	[ -f "$_pf" ] || _pf=$(ls /sbridge/rig/mixpred-1b1s-*.coef 2>/dev/null | head -n 1)
	echo "$_pf"
}
rig_predictor() {
	_pf=$(rig_predictor_file)
	[ -f "$_pf" ] || { echo "rig_predictor: no /sbridge/rig/mixpred-1b1s-*.coef" >&2; return 1; }
	sbridgectl set predictor "$_pf" >/dev/null
}

# CPUs by capacity (arm64 device-tree topologies): "big" and "little" lists.
cpus_with_capacity() {
	for c in /sys/devices/system/cpu/cpu[0-9]*; do
		[ "$(cat $c/cpu_capacity 2>/dev/null)" = "$1" ] && echo "${c##*cpu}"
	done | sort -n | tr '\n' ' '
}
big_cpus() { cpus_with_capacity "$(cat /sys/devices/system/cpu/cpu*/cpu_capacity 2>/dev/null | sort -n | tail -n1)"; }
little_cpus() { cpus_with_capacity "$(cat /sys/devices/system/cpu/cpu*/cpu_capacity 2>/dev/null | sort -n | head -n1)"; }

# topo_check "CAP0 CAP1 ...": 3 TAP points: the scheduler sees the device-tree
# capacities, clusters and SD_ASYM_CPUCAPACITY exactly as the board describes
topo_check() {
	expect=$1
	got=$(cat /sys/devices/system/cpu/cpu*/cpu_capacity 2>/dev/null | tr '\n' ' ' | sed 's/ $//')
	check "cpu_capacity is $expect" test "$got" = "$expect"
	# big and little CPUs sit in different clusters (cpu-map), like on a board
	if [ "$(echo $expect | tr ' ' '\n' | sort -u | wc -l)" -gt 1 ]; then
		b=$(big_cpus | cut -d' ' -f1); l=$(little_cpus | cut -d' ' -f1)
		cb=$(cat /sys/devices/system/cpu/cpu$b/topology/cluster_cpus_list 2>/dev/null)
		cl=$(cat /sys/devices/system/cpu/cpu$l/topology/cluster_cpus_list 2>/dev/null)
		check "big cpu$b and little cpu$l in different clusters ($cb / $cl)" test -n "$cb" -a "$cb" != "$cl"
	else
		check "one cluster" test "$(cat /sys/devices/system/cpu/cpu0/topology/cluster_cpus_list)" = "0-$(($(nproc) - 1))"
	fi
	# speed per CPU, for the record only (host timing is never asserted)
	for c in $(seq 0 $(($(nproc) - 1))); do
		diag "cpu$c capacity $(cat /sys/devices/system/cpu/cpu$c/cpu_capacity): $(taskset -c $c spin 0.5)"
	done
	d=/sys/kernel/debug/sched/domains/cpu0
	if [ ! -d $d ]; then
		skip "SD_ASYM_CPUCAPACITY in cpu0's sched domains" "no $d (sched_verbose off)"
	elif [ "$(echo $expect | tr ' ' '\n' | sort -u | wc -l)" -gt 1 ]; then
		check "SD_ASYM_CPUCAPACITY in cpu0's sched domains" sh -c "cat $d/domain*/flags | grep -q SD_ASYM_CPUCAPACITY"
	else
		check "no SD_ASYM_CPUCAPACITY on a symmetric board" sh -c "! cat $d/domain*/flags | grep -q SD_ASYM_CPUCAPACITY"
	fi
}

# Energy Aware Scheduling on a '# eas: yes' rig board, whose device tree has
# per-cluster OPPs with voltages and dynamic-power-coefficient
# (tools/rig/rig_launch.py): cpufreq-dt registers an energy model per
# cluster from them. EAS then needs schedutil on every policy, asymmetric
# capacities and (6.1) frequency-invariant load tracking, which cpufreq-dt
# provides. The emulated speed does not follow the OPP schedutil picks.
CPUFREQ=/sys/devices/system/cpu/cpufreq
# eas_setup: sched_verbose on (the kernel then logs when EAS starts and
# stops, which eas_active reads), cpufreq-dt loaded unless a cpufreq driver
# is there already (the rig's, rig_clocks: then EAS's clocks are the ones
# the rig runs, and it registered the energy model), schedutil on every
# policy. Non-zero with a message when any of it is impossible.
eas_setup() {
	grep -qs ' /sys/kernel/debug ' /proc/mounts || mount -t debugfs none /sys/kernel/debug
	[ -w /sys/kernel/debug/sched/verbose ] && echo Y > /sys/kernel/debug/sched/verbose
	if ! grep -q '^cpufreq_dt ' /proc/modules && ! ls -d $CPUFREQ/policy* > /dev/null 2>&1; then
		insmod /sbridge/kmod/cpufreq-dt.ko || { echo "eas_setup: cpufreq-dt.ko does not load"; return 1; }
	fi
	_i=0
	while [ $_i -lt 20 ] && [ "$(cat $CPUFREQ/policy*/related_cpus 2>/dev/null | wc -w)" -lt "$(nproc)" ]; do
		nap 0.25; _i=$((_i + 1))
	done
	_c=$(cat $CPUFREQ/policy*/related_cpus 2>/dev/null | wc -w)
	[ "$_c" -ge "$(nproc)" ] || { echo "eas_setup: cpufreq policies cover $_c of $(nproc) CPUs (no OPPs in the device tree?)"; return 1; }
	for _p in $CPUFREQ/policy*; do
		[ "$(cat $_p/scaling_governor)" = schedutil ] && continue
		grep -qw schedutil $_p/scaling_available_governors ||
			{ echo "eas_setup: ${_p##*/}: no schedutil governor"; return 1; }
		echo schedutil > $_p/scaling_governor || { echo "eas_setup: ${_p##*/}: schedutil refused"; return 1; }
	done
}
# eas_active: 0 only when EAS is in force, as the kernel says it: the last
# "sched_energy_set: starting|stopping EAS" line (6.1, 6.12, 7.x, logged
# under sched_verbose) is a start and sched_energy_aware reads 1.
eas_active() {
	case $(dmesg | grep -E 'sched_energy_set: (starting|stopping) EAS' | tail -n 1) in
	*"starting EAS") [ "$(cat /proc/sys/kernel/sched_energy_aware 2>/dev/null)" = 1 ] ;;
	*) return 1 ;;
	esac
}
# eas_set 0|1: write sched_energy_aware, then wait (up to 10 s) until
# eas_active agrees; non-zero with the kernel's last EAS lines if it never does.
eas_set() {
	echo "$1" > /proc/sys/kernel/sched_energy_aware ||
		{ echo "eas_set: cannot write /proc/sys/kernel/sched_energy_aware"; return 1; }
	_i=0
	while [ $_i -lt 40 ]; do
		if eas_active; then _a=1; else _a=0; fi
		[ "$_a" = "$1" ] && return 0
		nap 0.25; _i=$((_i + 1))
	done
	echo "eas_set $1: EAS did not follow: $(dmesg | grep EAS | tail -n 3 | tr '\n' ';')"
	return 1
}

# The rig's clocks (tools/rig/guest/rig_cpufreq.c): a cpufreq driver whose
# policies (one per clock domain: a core type, on most boards) set the
# modelled clock, through the OPPs of rig.conf. Governors Debian builds as
# modules are in /sbridge/kmod (kernels.GOVERNORS).
# rig_gov GOVERNOR [POLICY...]: GOVERNOR on POLICY (policy0 ...; default
# every policy), its module loaded first if it is one. Non-zero with a
# message if it cannot be.
rig_gov() {
	_g=$1; shift
	if ! grep -qw "$_g" $CPUFREQ/policy0/scaling_available_governors 2>/dev/null &&
		[ -f /sbridge/kmod/cpufreq_$_g.ko ]; then
		insmod /sbridge/kmod/cpufreq_$_g.ko || { echo "rig_gov: cpufreq_$_g.ko does not load"; return 1; }
	fi
	for _p in ${*:-$(cd $CPUFREQ && echo policy*)}; do
		echo "$_g" > $CPUFREQ/$_p/scaling_governor ||
			{ echo "rig_gov: $_p refuses $_g ($(cat $CPUFREQ/$_p/scaling_available_governors))"; return 1; }
	done
}
# rig_clocks [GOVERNOR]: rig_pmu and rig_cpufreq loaded, GOVERNOR
# (performance by default: every clock at its type's freq_mhz, as without
# the driver) on every policy.
rig_clocks() {
	on_rig || { echo "rig_clocks: no rig device"; return 1; }
	grep -q '^rig_pmu ' /proc/modules || insmod $MODDIR/rig_pmu.ko || return 1
	grep -q '^rig_cpufreq ' /proc/modules || insmod $MODDIR/rig_cpufreq.ko || return 1
	rig_gov "${1:-performance}"
}
# rig_mhz CPU: the clock the rig runs CPU at now (its freq table)
rig_mhz() { awk -v c="$1" '$1 == c { print $6 }' "$(rig_dev)/freq"; }

# sched_ext (scx-*.sh, docs/sched-ext.md)
# scx_state: sched_ext's state (enabled, disabled, ...), empty without it
scx_state() { cat /sys/kernel/sched_ext/state 2>/dev/null; }
# scx_wait STATE [SECONDS]: at most SECONDS (10) for sched_ext to reach STATE
scx_wait() {
	_w=0 _n=$(( ${2:-10} * 4 ))
	while [ $_w -lt $_n ] && [ "$(scx_state)" != "$1" ]; do nap 0.25; _w=$((_w + 1)); done
	[ "$(scx_state)" = "$1" ]
}
# scx_mode: status's "in force:" line; scx_line: its "sched_ext:" line
scx_mode() { sbridgectl status | sed -n 's/^in force: *//p'; }
scx_line() { sbridgectl status | sed -n 's/^sched_ext: *//p'; }
# scx_mask PID: PID's affinity mask (hex)
scx_mask() { taskset -p "$1" | sed 's/.*: //'; }
# scx_mask_wait PID MASK [=]: at most 15 s until PID's mask is not MASK
# (with =: until it is)
scx_mask_wait() {
	_w=0 _op='!='
	[ "$3" = = ] && _op='='
	while [ $_w -lt 30 ] && ! test "$(scx_mask $1)" $_op "$2"; do nap 0.5; _w=$((_w + 1)); done
	test "$(scx_mask $1)" $_op "$2"
}
# scx_steering: sbridge loaded steering a compute-bound "spin" (two core
# types declared on x86, which boots one: $scx_types, for later loads),
# act period 100 ms, checker off
scx_steering() {
	scx_types=
	[ "$(uname -m)" = x86_64 ] && scx_types="cpu_types=0:1024;1-$(($(nproc) - 1)):446"
	check "sbridge loads ${scx_types:-(core types from the capacities)}" load_sbridge $scx_types
	printf 'comm=spin class=compute\n' > /tmp/scx.rules
	check "rules: spin compute-bound" sbridgectl rules load /tmp/scx.rules
	check "act period 100 ms" sbridgectl set param act.period_ms 100
	check "checker off (placement alone is checked)" sbridgectl set param checker.on 0
}
# scx_spin_steered DESC: a spinner ($sp) that placement narrows from
# every CPU ($full)
scx_spin_steered() {
	full=$(printf '%x' $(( (1 << $(nproc)) - 1 )))
	spin 60 > /dev/null &
	sp=$!
	scx_mask_wait $sp $full
	_m=$(scx_mask $sp)
	check "$1 (mask $_m)" test "$_m" != "$full"
}
# scx_steers_again PID DESC: once sched_ext is gone, status no longer
# says it, and placement narrows PID from every CPU ($full) again
scx_steers_again() {
	case $(scx_mode) in
	"sched_ext:"*) not_ok "status: steering back" "$(scx_mode)" ;;
	*) ok "status: steering back ($(scx_mode | cut -c1-40))" ;;
	esac
	scx_mask_wait $1 $full
	_m=$(scx_mask $1)
	check "$2 (mask $_m)" test "$_m" != "$full"
}
# scx_unload: unload sbridge once nothing holds sbridge_core (a BPF
# scheduler's programs are freed after RCU), at most 5 s
scx_unload() {
	_w=0
	while [ $_w -lt 20 ] && ! unload_sbridge 2>/dev/null; do nap 0.25; _w=$((_w + 1)); done
	test -z "$(grep '^sbridge_core ' /proc/modules)"
}

# core_with_fakesrc DESC: sbridge_core with two core types (the device
# tree's capacities, else cpu_types= declaring cpu0 big) and
# sbridge_fakesrc as its counter source, each checked (DESC names the
# first load); without fakesrc the scenario ends there, core unloaded
core_with_fakesrc() {
	_n=$(ls -d /sys/devices/system/cpu/cpu[0-9]* | wc -l)
	if [ "$(cat /sys/devices/system/cpu/cpu*/cpu_capacity 2>/dev/null | sort -u | wc -l)" -gt 1 ]; then
		check "$1 (capacities from the device tree)" insmod $MODDIR/sbridge_core.ko
	else
		check "$1 with cpu_types=0:1024;1-$((_n - 1)):446" \
			insmod $MODDIR/sbridge_core.ko "cpu_types=0:1024;1-$((_n - 1)):446"
	fi
	if ! insmod $MODDIR/sbridge_fakesrc.ko; then
		not_ok "sbridge_fakesrc loads" "tests/modules/fakesrc not built?"
		rmmod sbridge_core
		exit 0
	fi
	ok "sbridge_fakesrc loads"
}
