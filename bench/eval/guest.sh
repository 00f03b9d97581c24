# Guest side of `make eval` (bench/eval/run.py prepends the scenario
# header and the variables below). One boot of one
# board: calibration (every program alone on each core type), then mixes
# under every configuration, alternated round by round, then the sweeps
# and the overhead test. Everything measured lands in CSV files handed to
# the host (save_file); the host computes oracle, ratios and pictures.
#
# From the host: BOARD, BIG, LITTLE (CPU lists), CONFIGS (of sym cap eas
# hmp sbridge), ROUNDS, MIXES ("name:prog,prog,..." ...), SWEEP_MIX,
# FACTORS, FREQS (little MHz for the frequency sweep, OPPs of the little
# type in rig.conf, "" = none),
# SHORT_N (short processes per overhead run, 0 = none), OVH_ROUNDS,
# RECORD_MIX, CPU_TYPES (cpu_types= for boards the kernel sees as one
# capacity), PERIOD_MS.
. /sbridge/lib.sh
WL=/sbridge/eval/workloads.sh	# bench/eval/workloads.sh, in every guest
. $WL
D=/tmp/eval
O=/tmp/eval-out
mkdir -p $D $O
ALL=$(echo $BIG $LITTLE | tr ' ' '\n' | sort -n | tr '\n' ',' | sed 's/,$//')
LITTLE_LIST=$(echo $LITTLE | tr ' ' ',')
fails=0

now_cs() { awk '{ printf "%d\n", $1 * 100 }' /proc/uptime; }
# busy and total jiffies of the CPUs in $1 (space-separated list)
jiffies() {
	awk -v l=" $1 " '$1 ~ /^cpu[0-9]/ { c = substr($1, 4); if (index(l, " " c " ")) {
		b += $2 + $3 + $4 + $7 + $8; t += $2 + $3 + $4 + $5 + $6 + $7 + $8 } }
		END { print b + 0, t + 0 }' /proc/stat
}
log() { echo "eval: $*"; }

# cpufreq governor of every policy (eas boards: cpufreq-dt is loaded)
gov() {
	for _g in /sys/devices/system/cpu/cpufreq/policy*/scaling_governor; do
		[ -e "$_g" ] && echo $1 > $_g
	done
	return 0
}
caps_now() { cat /sys/devices/system/cpu/cpu*/cpu_capacity 2>/dev/null | tr '\n' ' '; }
cur=none

# Leave whatever the last configuration changed, back to stock.
cfg_reset() {
	sbridgectl set param act.observe 1 > /dev/null
	sbridgectl set param act.model 1 > /dev/null
	if [ "$cur" = eas ]; then eas_set 0; gov performance; fi
	if [ "$cur" = sym ] && [ $HAS_CAPS = 1 ]; then
		sbridgectl set param act.capacity 0 > /dev/null
		sbridgectl set cpu-factor $ALL 0 > /dev/null
	fi
}
# cfg NAME: make NAME the scheduler in force
cfg() {
	[ "$cur" = "$1" ] && return 0
	cfg_reset
	case $1 in
	cap) ;;
	sym)	# The board without capacities: every CPU 1024 through the
		# capacity actuator. SD_ASYM_CPUCAPACITY stays: Linux rescans
		# it only when the arch reports a new topology, which no
		# hotplug or cpuset change does; with equal capacities its
		# paths (select_idle_capacity, misfit) find no bigger CPU.
		# x86: the kernel sees one capacity already, sym is stock.
		[ $HAS_CAPS = 1 ] || { cur=sym; return 0; }
		sbridgectl set cpu-factor $ALL 1.0 > /dev/null
		sbridgectl set param act.placement 0 > /dev/null
		sbridgectl set param act.capacity 1 > /dev/null
		sbridgectl set param act.observe 0 > /dev/null
		nap 1
		diag "sym: capacities now [$(caps_now)]" ;;
	eas)	gov schedutil; eas_set 1 ;;
	hmp)	sbridgectl set param act.model 0 > /dev/null
		sbridgectl set param act.placement 1 > /dev/null
		sbridgectl set param act.observe 0 > /dev/null ;;
	sbridge) sbridgectl set param act.placement 1 > /dev/null
		sbridgectl set param act.observe 0 > /dev/null ;;
	esac
	cur=$1
	nap 1
}

# wl_short DIR N: N short processes, one real program each (gzip of a
# few KB), one after another: what process creation and exit cost.
wl_short() {
	_k=0
	while [ $_k -lt $2 ]; do
		/usr/bin/gzip -1 -c /sbridge/lib.sh > /dev/null
		_k=$((_k + 1))
	done
}

# run_one IDX NAME OUT: one program, its completion time appended to OUT
run_one() {
	_t0=$(now_cs)
	( wl_exec $2 $D )
	_rc=$?
	echo "$1 $2 $(( $(now_cs) - _t0 )) $_rc" >> $3
}

# energy_uj: the rig's modelled energy of every CPU so far (uJ)
energy_uj() { sed -n 's/^total energy_uj //p' "$(rig_dev)/energy"; }

# mix KIND CONFIG MIX ROUND: run every program of MIX at once
mix() {
	_progs=$(echo "$MIXES" | tr ' ' '\n' | sed -n "s/^$3://p" | tr ',' ' ')
	rm -f /tmp/mixres
	set -- "$1" "$2" "$3" "$4" $(jiffies "$BIG") $(jiffies "$BIG $LITTLE")
	_e0=$(energy_uj)
	_t0=$(now_cs)
	_i=0 _pids=
	for _p in $_progs; do
		run_one $_i $_p /tmp/mixres &
		_pids="$_pids $!"
		_i=$((_i + 1))
	done
	wait $_pids	# not a bare wait: a recorder may run in the background
	_mk=$(( $(now_cs) - _t0 ))
	_ej=$(awk -v a="$_e0" -v b="$(energy_uj)" 'BEGIN { printf "%.3f", (b - a) / 1e6 }')
	set -- "$@" $(jiffies "$BIG") $(jiffies "$BIG $LITTLE")
	# big share: busy on big / busy on all; big busy: of the big CPUs' time
	_share=$(awk -v a=$9 -v b=$5 -v c=${11} -v d=$7 'BEGIN { printf "%.3f", (c - d) ? (a - b) / (c - d) : 0 }')
	_bbusy=$(awk -v a=$9 -v b=$5 -v c=${10} -v d=$6 'BEGIN { printf "%.3f", (c - d) ? (a - b) / (c - d) : 0 }')
	sort -n /tmp/mixres | while read -r _i _p _cs _rc; do
		echo "$BOARD,$1,$2,$3,$4,$_i,$_p,$(awk -v c=$_cs 'BEGIN { printf "%.2f", c / 100 }'),$_rc" >> $O/$RUNS
		[ "$_rc" = 0 ] || echo "$_p" >> /tmp/failed
	done
	echo "$BOARD,$1,$2,$3,$4,$(awk -v c=$_mk 'BEGIN { printf "%.2f", c / 100 }'),$_share,$_bbusy,$_ej" >> $O/$MIXCSV
	log "$1 $2 $3 round $4: makespan $(awk -v c=$_mk 'BEGIN { printf "%.2f", c / 100 }') s, big share $_share, big busy $_bbusy, energy $_ej J"
}

plan 1
# inputs first: the rig paces the guest once its PMU driver loads
wl_prepare $D || { not_ok "workload inputs prepared"; exit 0; }
# The rig's clocks (rig_cpufreq): the kernel, its governors and sbridge see
# the clocks the rig runs (x86: there is no other way to know them). Every
# configuration but eas runs the performance governor: each type at its
# top clock, as the rig without a driver. On EAS boards the kernel scales
# the capacities by the clocks once the driver registers, so before
# sbridge reads them; EAS starts by itself with schedutil, which then
# really sets the clocks (and the energy) of its configuration.
rig_clocks performance || { not_ok "the rig's cpufreq driver loads"; exit 0; }
case " $CONFIGS " in
*" eas "*)
	if eas_setup; then gov performance; eas_set 0
	else CONFIGS=$(echo $CONFIGS | sed 's/eas//'); fi ;;
esac
HAS_CAPS=0
[ -e /sys/devices/system/cpu/cpu0/cpu_capacity ] && HAS_CAPS=1
# the stock scheduler the timelines and sweeps compare with: capacity-aware
# where the board declares capacities, else the one view the kernel has
STOCK=sym
case " $CONFIGS " in *" cap "*) STOCK=cap ;; esac
BOOT_CAPS=$(caps_now)
# sbridge_core's arguments: the core types where the kernel sees one capacity
CORE_ARGS=${CPU_TYPES:+cpu_types=$CPU_TYPES}
load_sbridge $CORE_ARGS || { not_ok "sbridge loads"; exit 0; }
sbridgectl set param act.period_ms $PERIOD_MS > /dev/null
sbridgectl set param act.observe 1 > /dev/null
log "board $BOARD kernel $(uname -r) big [$BIG] little [$LITTLE] capacities [$BOOT_CAPS] configs [$CONFIGS]"
sbridgectl status | grep -e 'counter source' -e 'core types' -e 'in force' | sed 's/^/# /'
# main rounds in runs.csv/mixes.csv, the rest in runs-extra.csv and
# mixes-extra.csv: each is handed over once, when its phase is done
for f in runs runs-extra; do echo "board,kind,config,mix,round,slot,prog,secs,rc" > $O/$f.csv; done
for f in mixes mixes-extra; do echo "board,kind,config,mix,round,makespan,big_share,big_busy,energy_j" > $O/$f.csv; done
RUNS=runs.csv MIXCSV=mixes.csv
echo "board,prog,type,secs,rc" > $O/alone.csv

# 1. Calibration: each program alone on one big and one little CPU (this
# is also where sbridge learns them; the oracle is built from it).
b1=$(echo $BIG | cut -d' ' -f1)
l1=$(echo $LITTLE | cut -d' ' -f1)
for p in $WL_NAMES $WL_CALIB; do
	for where in big:$b1 little:$l1; do
		_t0=$(now_cs)
		taskset -c ${where#*:} sh -c ". $WL; wl_exec $p $D"
		_rc=$?
		_s=$(awk -v c=$(( $(now_cs) - _t0 )) 'BEGIN { printf "%.2f", c / 100 }')
		echo "$BOARD,$p,${where%%:*},$_s,$_rc" >> $O/alone.csv
		[ $_rc = 0 ] || echo "$p" >> /tmp/failed
	done
	log "alone $p: $(grep ",$p," $O/alone.csv | cut -d, -f3,4 | tr '\n' ' ')"
done
sbridgectl matrix save $O/matrix.txt > /dev/null
save_file $O/alone.csv
save_file $O/matrix.txt

# 2. Mixes: every configuration once per round, in a rotated order.
r=1
while [ $r -le $ROUNDS ]; do
	order=$(echo $CONFIGS | tr ' ' '\n' | awk -v r=$r '{ c[NR] = $0 } END { for (i = 0; i < NR; i++) print c[(i + r - 1) % NR + 1] }')
	for c in $order; do
		cfg $c
		for m in $(echo "$MIXES" | tr ' ' '\n' | cut -d: -f1); do
			mix main $c $m $r
		done
	done
	r=$((r + 1))
done
save_file $O/runs.csv
save_file $O/mixes.csv
RUNS=runs-extra.csv MIXCSV=mixes-extra.csv

# 3. Timelines: one mix recorded under stock and under sbridge.
if [ -n "$RECORD_MIX" ]; then
	for c in $STOCK sbridge; do
		cfg $c
		sbridgectl record -o $O/record-$c.txt -r 10 -s 6000000 --force > /dev/null 2>&1 &
		rp=$!
		nap 2
		mix record $c $RECORD_MIX 1
		# TERM: a background job of a non-interactive shell ignores SIGINT
		kill -TERM $rp; wait $rp
		save_file $O/record-$c.txt
	done
fi

# 4. CPU-factor sweep: the little CPUs' factor, deciding on the prediction
# (the measured speedup does not depend on the factor).
if [ -n "$FACTORS" ]; then
	cfg $STOCK
	sbridgectl set param learn.measured 0 > /dev/null
	for f in $FACTORS; do
		sbridgectl set cpu-factor $LITTLE_LIST $f > /dev/null
		cfg $STOCK; mix factor-$f $STOCK $SWEEP_MIX 1
		cfg sbridge; mix factor-$f sbridge $SWEEP_MIX 1
	done
	cfg $STOCK
	sbridgectl set cpu-factor $LITTLE_LIST 0 > /dev/null
	sbridgectl set param learn.measured 1 > /dev/null
fi

# 5. Frequency-ratio sweep: the little cluster's policy is capped at each
# clock (an OPP; the performance governor runs it there), so the rig runs
# it and the kernel and sbridge see it (cpufreq, the rig's counters); the
# kernel's capacities stay what the board declared.
if [ -n "$FREQS" ]; then
	_lp=$CPUFREQ/policy$(echo $LITTLE | cut -d' ' -f1)
	for mhz in $FREQS; do
		echo ${mhz}000 > $_lp/scaling_max_freq
		diag "freq sweep: little policy at $(cat $_lp/scaling_cur_freq) kHz"
		cfg $STOCK; mix freq-$mhz $STOCK $SWEEP_MIX 1
		cfg sbridge; mix freq-$mhz sbridge $SWEEP_MIX 1
	done
	cat $_lp/cpuinfo_max_freq > $_lp/scaling_max_freq
fi
cfg $STOCK
save_file $O/runs-extra.csv
save_file $O/mixes-extra.csv

# 6. Overhead in the paper's form: SHORT_N short processes, and a pinned
# pipe ping-pong, with sbridge's modules out (off), sbridge_core alone
# (core: the hooks, no counters read) and with its counter source (on),
# alternated. On the rig a counter read is an emulated device access, far
# dearer than on hardware: core apart from on tells the two costs apart.
if [ "$SHORT_N" -gt 0 ]; then
	echo "board,round,config,short_secs,pingpong_ns" > $O/overhead.csv
	r=1
	while [ $r -le $OVH_ROUNDS ]; do
		for c in off core on; do
			case $c in
			off) unload_sbridge ;;
			core) insmod $MODDIR/sbridge_core.ko $CORE_ARGS ;;
			on) insmod $MODDIR/sbridge_pmu.ko ;;
			esac
			nap 1
			_t0=$(now_cs)
			wl_short $D $SHORT_N
			_s=$(awk -v c=$(( $(now_cs) - _t0 )) 'BEGIN { printf "%.2f", c / 100 }')
			_pp=$(taskset -c $l1 pingpong 5000 | sed -n 's/.*ns_per_trip=\([0-9]*\).*/\1/p')
			echo "$BOARD,$r,$c,$_s,$_pp" >> $O/overhead.csv
			log "overhead round $r hooks $c: $SHORT_N short processes $_s s, ping-pong $_pp ns/trip"
		done
		r=$((r + 1))
	done
	save_file $O/overhead.csv
fi

if [ -s /tmp/failed ]; then
	not_ok "every program ran to completion" "failed: $(sort -u /tmp/failed | tr '\n' ' ')"
else
	ok "every program ran to completion (numbers in the CSV files, not pass/fail)"
fi
