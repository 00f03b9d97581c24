# Guest side of `make eval` (bench/eval/run.py prepends the scenario
# header and the variables below). One boot of one board. Everything
# measured lands in text files handed to the host (save_file); the host
# (bench/eval/report.py) computes ratios, intervals, bounds and pictures.
#
# Timing never forks under load: tests/progs/evalrun forks and execs the
# programs itself and records CLOCK_MONOTONIC times, the rig's counters
# (instructions, modelled cycles, host lag) and /proc/stat around each run.
#
# From the host:
#   BOARD BIG LITTLE   board name, big and little CPU lists (space-separated)
#   BOOTKIND           cap (the board's capacities: stock is capacity-aware)
#                      or sym (# capacities: no: the kernel sees one capacity;
#                      sbridge gets cpu_types=)
#   BOOT               index of this boot (rotates the configuration order)
#   CONFIGS            the main configurations, rotated every round (scx,
#                      scx_sbridge under sbridge cold, only where the kernel
#                      has sched_ext: elsewhere it is dropped, the reason in
#                      evidence.txt as "not_run scx REASON")
#   MIXES              "ROUND:MIX:prog,prog,..." ... fresh mixes per round
#   PHASES             of: alone warm est sweep freq mt lat ovh
#   ALONE_REPS         repetitions of each program alone on each core type
#   ALONE_PROGS        the programs run alone (default: every one)
#   CAL_SECS           warm-up (calibration inputs) seconds per group
#   EST_GROUPS EST_SECS EST_AT   estimation groups "G:prog,...", loop
#                      seconds, checkpoints (s)
#   SWEEP              "ROUND:MIX:prog,..." mixes of the period sweep
#   PERIODS            act.period_ms values of the sweep (the default too)
#   MT_ROUNDS LAT_ROUNDS LAT_LOOPS OVH_ROUNDS OVH_N OVH_SPIN PP_TRIPS
#   CPU_TYPES          cpu_types= where the kernel sees one capacity
#   EXTRA_CORE_ARGS    more sbridge_core parameters (run.py --core-args)
#   PMU_ARGS           sbridge_pmu parameters (run.py --pmu-args)
#   RECORD             1: `sbridgectl record` around every main-phase mix
#                      (rec-CONFIG-ROUND-MIX.rec: switches, wakeups, sbridge's
#                      decisions only, the one event of sbridge's that
#                      bench/eval/conserve.py reads)
#   EST_RECORD         1: `sbridgectl record` of sbridge_window around every
#                      estimation group (est-GROUP-VARIANT.rec, read by
#                      bench/eval/estwin.py): where a measured speedup came
#                      from, window by window (a diagnosis: the recorder
#                      takes a little CPU's time)
. /sbridge/lib.sh
WL=/sbridge/eval/workloads.sh
. $WL
D=/tmp/eval/mix		# the mixes' inputs (and the truth: alone times)
DC=/tmp/eval/cal	# calibration inputs: what the warm matrix learns from
O=/tmp/eval-out
S=/tmp/eval-spec
mkdir -p $D $DC $O $S
NCPU=$(nproc)
ALL=0-$((NCPU - 1))
BIGL=$(echo $BIG | tr ' ' ',')
LITL=$(echo $LITTLE | tr ' ' ',')
b1=$(echo $BIG | cut -d' ' -f1)
l1=$(echo $LITTLE | cut -d' ' -f1)
SWF=/proc/sbridge_schedwatch
RUNS=$O/runs.txt
: > $RUNS
: > $O/evidence.txt
: > /tmp/failed
switch_fail=0
log() { echo "eval: $*"; }

plan 4
# inputs first: the rig paces the guest once its PMU driver loads
_cal=:
case " $PHASES " in *" warm "*) _cal="wl_prepare $DC cal" ;; esac
if wl_prepare $D mix && $_cal; then
	ok "workload inputs prepared (mix and calibration variants)"
else
	not_ok "workload inputs prepared"; exit 0
fi
# every program's command line, once (wl_cmd forks; the runs must not)
for p in $WL_NAMES $WL_CALIB $WL_MT; do
	wl_cmd $p $D > $S/cmd-$p || echo "$p" >> /tmp/failed
	[ -f $DC/params ] && wl_cmd $p $DC > $S/cal-$p
done
gov_all() {
	for _g in /sys/devices/system/cpu/cpufreq/policy*/scaling_governor; do
		[ -e "$_g" ] && echo $1 > $_g
	done
	return 0
}

# The rig's clocks (tools/rig/guest/rig_cpufreq.c): the kernel, its
# governors and sbridge see the clocks the rig runs. Every configuration
# but eas runs the performance governor (each type at its top clock); on
# EAS boards the kernel scales the capacities by the clocks once the driver
# registers, so before sbridge reads them, and schedutil then really sets
# the clocks (and the energy) of the eas configuration.
rig_clocks performance || { not_ok "the rig's cpufreq driver loads"; exit 0; }
HAS_EAS=0
case " $CONFIGS " in
*" eas "* | *" sbeas "*)
	if eas_setup; then gov_all performance 2>/dev/null; eas_set 0 && HAS_EAS=1; fi ;;
esac
CTR=$(rig_dev)/counters
ENERGY=$(rig_dev)/energy	# modelled energy of every CPU (uJ)
insmod $MODDIR/sbridge_schedwatch.ko big=$BIGL || diag "sbridge_schedwatch did not load: no overutilized or migration counts"
grep -qs ' /sys/kernel/debug ' /proc/mounts || mount -t debugfs none /sys/kernel/debug
[ -w /sys/kernel/debug/sched/verbose ] && echo Y > /sys/kernel/debug/sched/verbose
# scx runs only where the kernel has sched_ext and the cell built the loader
case " $CONFIGS " in
*" scx "*)
	_why=
	if [ -z "$(scx_state)" ]; then
		_why="kernel $(uname -r) has no sched_ext (CONFIG_SCHED_CLASS_EXT)"
	elif ! command -v scx_sbridge > /dev/null; then
		_why="scx_sbridge was not built for this cell"
	fi
	if [ -n "$_why" ]; then
		echo "not_run scx $_why" >> $O/evidence.txt
		log "scx not run: $_why"
		CONFIGS=$(echo $CONFIGS | tr ' ' '\n' | grep -vx scx | tr '\n' ' ')
	fi ;;
esac
CORE_ARGS=
[ "$BOOTKIND" = sym ] && CORE_ARGS="cpu_types=$(rig_cpu_types)"
[ -n "$CPU_TYPES" ] && CORE_ARGS="cpu_types=$CPU_TYPES"
# run.py --core-args: a diagnosis with other module parameters
[ -n "$EXTRA_CORE_ARGS" ] && CORE_ARGS="${CORE_ARGS:+$CORE_ARGS }$EXTRA_CORE_ARGS"
log "board $BOARD boot $BOOT kind $BOOTKIND kernel $(uname -r) big [$BIG] little [$LITTLE] configs [$CONFIGS] core args [$CORE_ARGS] pmu args [$PMU_ARGS]"

# evidence CONFIG ROUND: what the kernel is running now, one line each
evidence() {
	{
		echo "evidence $1 $2 caps $(cat /sys/devices/system/cpu/cpu*/cpu_capacity 2>/dev/null | tr '\n' ',')"
		for _c in /sys/kernel/debug/sched/domains/cpu0/domain*; do
			[ -d "$_c" ] && echo "evidence $1 $2 domain ${_c##*/} $(cat $_c/name 2>/dev/null) $(cat $_c/flags 2>/dev/null | tr ' ' ',')"
		done
		if eas_active 2>/dev/null; then _e=1; else _e=0; fi
		echo "evidence $1 $2 eas_active $_e energy_aware $(cat /proc/sys/kernel/sched_energy_aware 2>/dev/null || echo -)"
		echo "evidence $1 $2 governor $(cat /sys/devices/system/cpu/cpufreq/policy*/scaling_governor 2>/dev/null | tr '\n' ',')"
		if grep -q '^sbridge_core ' /proc/modules; then
			echo "evidence $1 $2 sbridge loaded matrix $(cat /sys/kernel/sbridge/matrix) $(sbridgectl status | grep -e 'in force' -e 'core types' | tr -s ' ' | tr '\n' ';')"
			echo "evidence $1 $2 params $(cat /sys/kernel/sbridge/params | tr '\n' ' ')"
		else
			echo "evidence $1 $2 sbridge unloaded"
		fi
		pgrep -x hmpd > /dev/null && echo "evidence $1 $2 hmpd running"
		[ -n "$(scx_state)" ] && echo "evidence $1 $2 sched_ext $(scx_state) $(cat /sys/kernel/sched_ext/root/ops 2>/dev/null)"
	} >> $O/evidence.txt
}

sb_load() {	# load sbridge cold: a new module instance has an empty matrix
	unload_sbridge
	insmod $MODDIR/sbridge_core.ko $CORE_ARGS && insmod $MODDIR/sbridge_pmu.ko $PMU_ARGS || return 1
	sbridgectl matrix load /tmp/empty-matrix > /dev/null || return 1
	[ "$(cat /sys/kernel/sbridge/matrix)" = 0 ]
}

HMPD= HMPD_TAG= SCX= SCX_TAG=
cfg_off() {	# back to stock: no sbridge, no EAS, no HMP daemon, no scx_sbridge
	if [ -n "$HMPD" ]; then
		kill -TERM $HMPD; wait $HMPD
		echo "hmpd $HMPD_TAG $(cat /tmp/hmpd.stats 2>/dev/null)" >> $O/evidence.txt
		HMPD=
	fi
	if [ -n "$SCX" ]; then
		kill -INT $SCX; wait $SCX
		_rc=$?
		echo "scx $SCX_TAG exit $_rc $(grep -e '^stats:' -e '^scx_sbridge: exited:' /tmp/scx.out | tail -n 2 | tr '\n' ' ')" >> $O/evidence.txt
		SCX=
		scx_wait disabled || echo "scx $SCX_TAG still $(scx_state)" >> $O/evidence.txt
		# its programs hold sbridge_core until RCU frees them
		scx_unload
	fi
	unload_sbridge
	if [ $HAS_EAS = 1 ] && eas_active; then eas_set 0 > /dev/null; gov_all performance; fi
	return 0
}

# cfg NAME ROUND: make NAME the scheduler in force; non-zero if it is not
cfg() {
	cfg_off "$@"
	case $1 in
	cap | sym)
		[ $HAS_EAS = 1 ] && eas_active && return 1
		;;
	eas | sbeas) [ $HAS_EAS = 1 ] || return 1
		gov_all schedutil
		eas_set 1 || return 1
		eas_active || return 1
		# sbeas: sbridge's defaults over EAS (its slow pins and overutilized)
		[ $1 = eas ] || sb_load || return 1 ;;
	hmp)	/sbridge/bin/hmpd -b $BIGL -l $LITL -s /tmp/hmpd.stats &
		HMPD=$! HMPD_TAG="$1 $2"
		nap 0.5
		kill -0 $HMPD || return 1 ;;
	sbridge) sb_load || return 1 ;;
	nomodel) sb_load || return 1
		sbridgectl set param act.model 0 > /dev/null || return 1 ;;
	nosample) sb_load || return 1	# no visits to measure the other type
		sbridgectl set param act.sample_pct 0 > /dev/null || return 1 ;;
	nofair) sb_load || return 1	# no fairness floors: no turns owed
		sbridgectl set param act.fair 0 > /dev/null || return 1 ;;
	truths) [ -s $O/alone.txt ] || { diag "truths: no alone phase in this boot"; return 1; }
		sb_load || return 1 ;;	# each mix's truths as rules: truths_rules
	nomargin) sb_load || return 1	# choose on any difference, errors or not
		sbridgectl set param act.margin 0 > /dev/null || return 1 ;;
	observe) sb_load || return 1	# hooks and counters, no lever: their cost
		sbridgectl set param act.observe 1 > /dev/null || return 1 ;;
	warm)	sb_load || return 1
		sbridgectl matrix load $O/warm-matrix.txt > /dev/null || return 1 ;;
	scx)	sb_load || return 1	# sbridge cold, scx_sbridge places every wakeup
		scx_sbridge > /tmp/scx.out 2>&1 &
		SCX=$! SCX_TAG="$1 $2"
		# the rig runs the guest 50x slower than a board: the verifier
		# and the switch of every task took over 10 s there
		scx_wait enabled 60 || { diag "scx: $(scx_state): $(cat /tmp/scx.out)"; return 1; }
		sbridgectl status | grep -q '^in force: *sched_ext: scx_sbridge' || {
			diag "scx: $(sbridgectl status | grep -e 'in force' -e '^sched_ext')"
			return 1; } ;;
	p[0-9]*) sb_load || return 1
		sbridgectl set param act.period_ms ${1#p} > /dev/null || return 1 ;;
	*)	return 1 ;;
	esac
	# the kernel's view must be what the name says
	_caps=$(cat /sys/devices/system/cpu/cpu*/cpu_capacity 2>/dev/null | sort -u | wc -l)
	if [ "$BOOTKIND" = sym ]; then
		[ "$_caps" -le 1 ] || return 1
		cat /sys/kernel/debug/sched/domains/cpu0/domain*/flags 2>/dev/null | grep -q SD_ASYM_CPUCAPACITY && return 1
	else
		[ "$_caps" -gt 1 ] || return 1
	fi
	case $1 in
	sbridge | sbeas | nomargin | nomodel | nosample | nofair | truths | warm | p[0-9]*)
		sbridgectl status | grep -q '^in force:.*placement.* on' || {
			diag "$1: sbridge's placement not in force: $(sbridgectl status | grep -e 'in force' -e note)"
			return 1; } ;;
	esac
	nap 0.5
	return 0
}

# spec FILE VARIANT CPUS PROG...: evalrun's spec of PROG... (cmd or cal)
spec() {
	_f=$1 _v=$2 _cpus=$3
	shift 3
	: > $_f
	for _p; do printf '%s\t%s\t%s\n' $_p "$_cpus" "$(cat $S/$_v-$_p)" >> $_f; done
}

# rec_start NAME / rec_stop: sbridgectl record into $O/NAME.rec around a
# main-phase mix (RECORD=1), at 5 samples a second (the wakeups and
# switches are what is analysed); the file is handed to the host at once.
# A third argument names the events (default: decide) and drops the
# switches (est_record).
# Of sbridge's events only sbridge_decide (a few a period, read by
# conserve.py): the others, sbridge_window above all (one per counter
# window of every task), would be a recorder cost that the configurations
# without sbridge never pay (issue 28). The recorder is pinned to the
# last slow CPU in every configuration: left to the scheduler it took
# 10-20 % of the fast CPU's time (the contested resource) in every
# configuration under TCG, where formatting trace_pipe text is dear
# (2026-11-29, slowdown 100: 1.2-4.5 s of the big CPU per mix); a
# pinned task is left alone by sbridge's placement. Pinned and reading
# live it still took 8-15 % of the board (half of its CPU), more the
# more the configuration switched (2026-11-30: cap 13 %, sbridge 15 % of
# an n8 mix): --defer leaves the events in the kernel's buffer until the
# mix is over and the recorder only wakes to sample meanwhile.
_recpid= _recf=
rec_start() {
	[ "$RECORD" = 1 ] || [ -n "$2" ] || return 0
	_recf=$O/$1.rec
	rm -f $_recf
	taskset -c "${LITTLE##* }" \
		sbridgectl record -r 5 -s 256M -d 3600 --sbridge-events=${2:-decide} \
		${2:+--no-switches} ${2:---defer -b 4M} -o $_recf > /tmp/rec.out 2>&1 &
	_recpid=$!
	# tracing is on once the header is out (record writes it, then traces)
	_w=0
	while [ ! -s $_recf ] && [ $_w -lt 50 ] && kill -0 $_recpid 2>/dev/null; do
		nap 0.1; _w=$((_w + 1))
	done
	nap 0.2
}
rec_stop() {
	[ -n "$_recpid" ] || return 0
	kill -INT $_recpid
	wait $_recpid || diag "record: $(cat /tmp/rec.out)"
	_recpid=
	save_file $_recf
	rm -f $_recf
}

# run KIND CONFIG ROUND MIX ARGS...: evalrun ARGS, its output and the
# stock scheduler's counters appended to $RUNS
run() {
	_k=$1 _c=$2 _r=$3 _m=$4
	shift 4
	[ "$_k" = main ] && rec_start "rec-$_c-$_r-$_m"
	echo "run $_k $_c $_r $_m" >> $RUNS
	[ -r $SWF ] && echo "sw0 $(cat $SWF)" >> $RUNS
	[ -r $ENERGY ] && echo "en0 $(sed -n 's/^total energy_uj //p' $ENERGY)" >> $RUNS
	/sbridge/bin/evalrun -d $D -r $CTR -o /tmp/evalrun.out "$@" || echo "$_k $_c $_r $_m" >> /tmp/failed
	cat /tmp/evalrun.out >> $RUNS
	[ -r $SWF ] && echo "sw1 $(cat $SWF)" >> $RUNS
	[ -r $ENERGY ] && echo "en1 $(sed -n 's/^total energy_uj //p' $ENERGY)" >> $RUNS
	echo "end" >> $RUNS
	rec_stop
	log "$_k $_c round $_r $_m: $(awk '$1 == "mix" { printf "makespan %.2f s, %d processes, %d failed", $3 / 1e9, $4, $5 }' /tmp/evalrun.out)"
}

# truths_rules PROG...: sbridge told each program's alone speedup (its
# mean little time over its mean big time in the alone phase) as a rule,
# which wins over anything learned: what the decision layer does with
# exact speedups, apart from the estimates. Matched by name: a program's
# comm is its executable's (stress-ng's workers name themselves
# stress-ng-STRESSOR); two programs of one name share the first's.
truths_rules() {
	_of=$S/truths.rules
	: > $_of
	for _p; do
		case $_p in
		stress-*) _n=stress-ng-${_p#stress-} ;;
		*) _n=$(basename "$(cut -f3 $S/cmd-$_p)") ;;
		esac
		_n=$(printf %.15s "$_n")
		grep -q "^comm=$_n " $_of && { diag "truths: $_p shares the name $_n"; continue; }
		_s=$(awk -v p=$_p '
			$1 == "alone" { cur = ($2 == p) ? $3 : ""; next }
			cur != "" && $1 == "proc" && $7 == 1 { t[cur] += $6 - $5; n[cur]++ }
			END { if (n["big"] && n["little"])
				printf "%.3f", (t["little"] / n["little"]) / (t["big"] / n["big"]) }' $O/alone.txt)
		[ -n "$_s" ] || { diag "truths: no alone times of $_p"; return 1; }
		echo "comm=$_n factor little=$_s big=1.0" >> $_of
	done
	sbridgectl rules load $_of > /dev/null || { diag "truths: rules: $(sbridgectl rules load $_of 2>&1)"; return 1; }
	echo "truths $(tr '\n' ';' < $_of)" >> $O/evidence.txt
}

mix_progs() { echo "$1" | tr ' ' '\n' | awk -F: -v r="$2" -v m="$3" '$1 == r && $2 == m { print $3 }' | tr ',' ' '; }
mix_names() { echo "$1" | tr ' ' '\n' | awk -F: -v r="$2" '$1 == r { print $2 }'; }
rotate() { echo $1 | tr ' ' '\n' | awk -v r=$2 '{ c[NR] = $0 } END { for (i = 0; i < NR; i++) print c[(i + r) % NR + 1] }'; }

# 0. Does loading an empty matrix empty it? (#28: the cold start's means)
: > /tmp/empty-matrix
if sb_load; then
	printf 'spin\t-\t0\t/dev/null\t/sbridge/bin/spin\t600\t40\n' > $S/check.spec
	/sbridge/bin/evalrun -d $D -o /dev/null $S/check.spec
	nap 2
	_n0=$(cat /sys/kernel/sbridge/matrix)
	sbridgectl matrix load /tmp/empty-matrix > /dev/null
	_n1=$(cat /sys/kernel/sbridge/matrix)
	echo "matrix_check before $_n0 after_empty_load $_n1" >> $O/evidence.txt
	if [ "$_n0" = 0 ] && case " $CORE_ARGS " in *" tick_ms=0 "*) true ;; *) false ;; esac; then
		# a spin alone is seldom switched: without reads between
		# switches its windows never close, and nothing was learnt
		skip "sbridgectl matrix load of an empty file empties the matrix" \
			"tick_ms=0: the spin alone filled no window"
	elif [ "$_n0" -gt 0 ] && [ "$_n1" = 0 ]; then
		ok "sbridgectl matrix load of an empty file empties the matrix ($_n0 -> 0 entries)"
	else
		not_ok "sbridgectl matrix load of an empty file empties the matrix" "$_n0 -> $_n1 entries"
	fi
else
	not_ok "sbridge loads" "$CORE_ARGS"
fi
cfg_off

# 1. Alone: each program on one CPU of each type, the CPUs in parallel
# (the rig's caches and memory latency are per CPU: no interference in the
# model); the truth of the estimation benchmark and the oracle's input.
case " $PHASES " in *" alone "*)
	_q=0
	for c in $BIG $LITTLE; do : > $S/alone-q$c; done
	_r=1
	while [ $_r -le $ALONE_REPS ]; do
		_j=0
		for p in ${ALONE_PROGS:-$WL_NAMES}; do
			echo "$p big $b1" >> $S/alone-q$b1
			_l=$(echo $LITTLE | tr ' ' '\n' | sed -n "$((_j % $(echo $LITTLE | wc -w) + 1))p")
			echo "$p little $_l" >> $S/alone-q$_l
			_j=$((_j + 1))
		done
		_r=$((_r + 1))
	done
	# a big CPU beyond the first and idle little ones help the big queue
	for c in $BIG; do
		[ $c = $b1 ] && continue
		awk 'NR % 2 == 0' $S/alone-q$b1 | sed "s/ $b1\$/ $c/" > $S/alone-q$c
		awk 'NR % 2 == 1' $S/alone-q$b1 > $S/alone-tmp; mv $S/alone-tmp $S/alone-q$b1
	done
	for c in $BIG $LITTLE; do
		taskset -c $c sh -c '
			while read -r p ty cpu; do
				printf "%s\t%s\t%s\n" $p $cpu "$(cat '$S'/cmd-$p)" > '$S'/alone-spec$cpu
				/sbridge/bin/evalrun -d '$D' -r '$CTR' -o '$S'/alone-out$cpu '$S'/alone-spec$cpu
				{ echo "alone $p $ty $cpu"; cat '$S'/alone-out$cpu; echo end; } >> '$O'/alone-$cpu.txt
			done < '$S'/alone-q'$c &
	done
	wait
	cat $O/alone-*.txt > $O/alone.txt
	grep -c '^alone' $O/alone.txt | sed 's/^/eval: alone runs: /'
	save_file $O/alone.txt
	;;
esac

# 2. Warm matrix: sbridge learns every program on its CALIBRATION inputs
# (in groups, each program a loop of fresh processes), then the matrix is
# saved; the warm configuration starts from it, the others start cold.
case " $PHASES " in *" warm "*)
	sb_load || echo "warm: sbridge load" >> /tmp/failed
	for g in $EST_GROUPS; do
		spec $S/warm.spec cal - $(echo ${g#*:} | tr ',' ' ')
		/sbridge/bin/evalrun -d $DC -L $CAL_SECS -o /dev/null $S/warm.spec
	done
	sbridgectl matrix save $O/warm-matrix.txt > /dev/null
	log "warm matrix: $(grep -c key= $O/warm-matrix.txt) entries from calibration inputs"
	save_file $O/warm-matrix.txt
	cfg_off
	;;
esac

# 3. Main rounds: every configuration once per round, in an order rotated
# by round and boot, on fresh mixes per round (paired within the round).
r=1
while [ $r -le $ROUNDS ]; do
	for c in $(rotate "$CONFIGS" $((r + BOOT))); do
		if ! cfg $c $r; then
			not_ok "switch to $c (round $r)"
			switch_fail=$((switch_fail + 1))
			echo "switch_failed $c $r" >> $O/evidence.txt
			evidence $c $r
			continue
		fi
		evidence $c $r
		for m in $(mix_names "$MIXES" $r); do
			spec $S/mix.spec cmd - $(mix_progs "$MIXES" $r $m)
			if [ $c = truths ] && ! truths_rules $(mix_progs "$MIXES" $r $m); then
				echo "main $c $r $m" >> /tmp/failed
				continue
			fi
			run main $c $r $m $S/mix.spec
		done
		[ "$c" = sbridge ] || [ "$c" = warm ] && sbridgectl matrix save $O/matrix-$c-$r.txt > /dev/null
	done
	cfg_off
	r=$((r + 1))
done

# 4. Estimation benchmark (#27 item 4): sbridge cold, each group's programs
# as loops of fresh processes for EST_SECS; at EST_AT seconds every task's
# estimates (sbridgectl tasks --json) and which program each PID is.
# Twice where the rig has a fitted mix predictor (make mixcal): with the
# default (eq3) and with its coefficients applied (mix), the programs here
# being ones it was not fitted on.
EST_VARIANTS=eq3
[ -f "$(rig_predictor_file)" ] && EST_VARIANTS="eq3 mix"
case " $PHASES " in *" est "*)
	: > $O/est.txt
	for v in $EST_VARIANTS; do
	for g in $EST_GROUPS; do
		sb_load || { echo "est: sbridge load" >> /tmp/failed; continue; }
		if [ $v = mix ]; then
			rig_predictor || { echo "est: predictor" >> /tmp/failed; continue; }
		fi
		spec $S/est.spec cmd - $(echo ${g#*:} | tr ',' ' ')
		echo "group ${g%%:*} ${g#*:} $v" >> $O/est.txt
		[ "$EST_RECORD" = 1 ] && rec_start "est-${g%%:*}-$v" window
		/sbridge/bin/evalrun -d $D -L $EST_SECS -t $EST_AT -o /tmp/est.out \
			-x "{ echo \"tasks \$EVALRUN_T\"; sbridgectl tasks --json; echo; echo endtasks; } >> $O/est-tasks.txt" $S/est.spec
		rec_stop
		cat /tmp/est.out >> $O/est.txt
		cat $O/est-tasks.txt >> $O/est.txt 2>/dev/null
		rm -f $O/est-tasks.txt
		echo "endgroup" >> $O/est.txt
		log "estimation group ${g%%:*} ($v): $(grep -c '^proc' /tmp/est.out) processes"
	done
	done
	cfg_off
	save_file $O/est.txt
	;;
esac

# 5. Period sweep: sbridge cold at each act.period_ms (200 is the default),
# against stock, alternated in rotated order like the main rounds.
case " $PHASES " in *" sweep "*)
	_stock=cap
	[ "$BOOTKIND" = sym ] && _stock=sym
	for r in $(echo "$SWEEP" | tr ' ' '\n' | cut -d: -f1 | sort -un); do
		for c in $(rotate "$_stock $(for p in $PERIODS; do printf 'p%s ' $p; done)" $((r + BOOT))); do
			cfg $c $r || { echo "switch_failed $c sweep$r" >> $O/evidence.txt; switch_fail=$((switch_fail + 1)); continue; }
			for m in $(mix_names "$SWEEP" $r); do
				spec $S/mix.spec cmd - $(mix_progs "$SWEEP" $r $m)
				run sweep $c $r $m $S/mix.spec
			done
		done
	done
	cfg_off
	;;
esac

# 5b. Frequency sweep (the rig's clocks): the little cluster's cpufreq
# policy capped at a lower OPP (its lowest, and the one halfway to the top;
# the top is the main phase), so the rig runs it there and the kernel and
# sbridge see it (cpufreq, the rig's cycle counters); stock against sbridge
# cold on the sweep's mixes at each clock, in rotated order.
case " $PHASES " in *" freq "*)
	_stock=cap
	[ "$BOOTKIND" = sym ] && _stock=sym
	_lp=$CPUFREQ/policy$l1
	_opps=$(tr ' ' '\n' < $_lp/scaling_available_frequencies 2>/dev/null | grep . | sort -un)
	_n=$(echo "$_opps" | grep -c .)
	_pts=$(echo "$_opps" | awk -v n=$_n 'NR < n && (NR == 1 || NR == int((n + 1) / 2))')
	[ -n "$_pts" ] || diag "freq sweep: policy$l1 offers no lower OPP ($(echo $_opps))"
	for khz in $_pts; do
		for r in $(echo "$SWEEP" | tr ' ' '\n' | cut -d: -f1 | sort -un); do
			for c in $(rotate "$_stock sbridge" $((r + BOOT))); do
				cfg $c $r || { echo "switch_failed $c freq$r" >> $O/evidence.txt; switch_fail=$((switch_fail + 1)); continue; }
				echo $khz > $_lp/scaling_max_freq
				nap 0.5
				log "freq sweep: little policy at $(cat $_lp/scaling_cur_freq) kHz (asked $khz), rig runs cpu$l1 at $(rig_mhz $l1) MHz"
				for m in $(mix_names "$SWEEP" $r); do
					spec $S/mix.spec cmd - $(mix_progs "$SWEEP" $r $m)
					run freq $c@$((khz / 1000)) $r $m $S/mix.spec
				done
				cat $_lp/cpuinfo_max_freq > $_lp/scaling_max_freq
			done
		done
	done
	cfg_off
	;;
esac

# 6. Multithreaded and multi-process programs, each alone on the board.
case " $PHASES " in *" mt "*)
	r=1
	while [ $r -le $MT_ROUNDS ]; do
		for c in $(rotate "$CONFIGS" $((r + BOOT))); do
			[ $c = warm ] && continue
			cfg $c $r || { echo "switch_failed $c mt$r" >> $O/evidence.txt; switch_fail=$((switch_fail + 1)); continue; }
			for p in $WL_MT; do
				spec $S/mt.spec cmd - $p
				run mt $c $r $p $S/mt.spec
			done
		done
		r=$((r + 1))
	done
	cfg_off
	;;
esac

# 7. Wakeup latency: cyclictest (rt-tests, SCHED_OTHER threads, one per
# CPU, every sample printed: -v) beside a CPU-bound mix of NCPU programs looping, per configuration.
case " $PHASES " in *" lat "*)
	: > $O/lat.txt
	_bg=$(mix_progs "$MIXES" 1 $(mix_names "$MIXES" 1 | head -n1))
	r=1
	while [ $r -le $LAT_ROUNDS ]; do
		for c in $(rotate "$CONFIGS" $((r + BOOT))); do
			[ $c = warm ] && continue
			cfg $c $r || { echo "switch_failed $c lat$r" >> $O/evidence.txt; switch_fail=$((switch_fail + 1)); continue; }
			spec $S/bg.spec cmd - $_bg
			/sbridge/bin/evalrun -d $D -L 600 -o /dev/null $S/bg.spec &
			_bgp=$!
			nap 1
			echo "lat $c $r" >> $O/lat.txt
			/usr/bin/cyclictest -q -v -m -t $NCPU -i 5000 -l $LAT_LOOPS >> $O/lat.txt 2>&1 ||
				echo "lat $c $r" >> /tmp/failed
			echo "endlat" >> $O/lat.txt
			kill -TERM $_bgp; wait $_bgp
			log "latency $c round $r: $(awk '/^lat / { n = 0; m = 0 } NF == 3 && $1 ~ /:$/ { n++; if ($3 > m) m = $3 } END { print n " samples, max " m " us" }' $O/lat.txt)"
		done
		r=$((r + 1))
	done
	cfg_off
	save_file $O/lat.txt
	;;
esac

# 8. Overhead from the rig's counters (independent of host load): OVH_N
# short processes over NCPU streams, a pinned ping-pong, NCPU pinned
# spins (periods) and two real programs pinned on each CPU (what watching
# costs work with a working set, switched at every slice), with sbridge
# out (off), sbridge_core alone (core) and with its counter source (on),
# alternated.
case " $PHASES " in *" ovh "*)
	printf '%s\t-\t0\t/dev/null\t/usr/bin/gzip\t-1\t-c\t/sbridge/lib.sh\n' short > $S/short1.spec
	: > $S/short.spec
	for c in $(seq 1 $NCPU); do cat $S/short1.spec >> $S/short.spec; done
	printf 'pingpong\t%s\t0\t/dev/null\t/sbridge/bin/pingpong\t%s\n' $l1 $PP_TRIPS > $S/pp.spec
	: > $S/spins.spec
	for c in $(seq 0 $((NCPU - 1))); do
		printf 'spin\t%s\t0\t/dev/null\t/sbridge/bin/spin\t600\t%s\n' $c $OVH_SPIN >> $S/spins.spec
	done
	: > $S/progs.spec
	_pl=$OVH_PROGS
	for c in $(seq 0 $((NCPU - 1))); do
		for _k in 1 2; do
			_p=${_pl%% *} _pl="${_pl#* } ${_pl%% *}"
			printf '%s\t%s\t%s\n' $_p $c "$(cat $S/cmd-$_p)" >> $S/progs.spec
		done
	done
	r=1
	while [ $r -le $OVH_ROUNDS ]; do
		for c in off core on; do
			unload_sbridge
			case $c in
			core) insmod $MODDIR/sbridge_core.ko $CORE_ARGS ;;
			on) insmod $MODDIR/sbridge_core.ko $CORE_ARGS && insmod $MODDIR/sbridge_pmu.ko $PMU_ARGS ;;
			esac
			nap 1
			run ovh-short $c $r short -n $((OVH_N / NCPU)) $S/short.spec
			run ovh-pp $c $r pingpong $S/pp.spec
			run ovh-spin $c $r spin $S/spins.spec
			run ovh-prog $c $r progs $S/progs.spec
		done
		r=$((r + 1))
	done
	unload_sbridge
	;;
esac

save_file $RUNS
save_file $O/evidence.txt
if [ $switch_fail = 0 ]; then
	ok "every configuration switch took effect"
else
	not_ok "every configuration switch took effect" "$switch_fail failed (their phases have no rows)"
fi
if [ -s /tmp/failed ]; then
	not_ok "every program ran to completion" "failed: $(sort -u /tmp/failed | tr '\n' ' ')"
else
	ok "every program ran to completion (numbers in the files, not pass/fail)"
fi
