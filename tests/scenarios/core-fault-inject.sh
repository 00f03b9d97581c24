#!/bin/sh
# scenario: allocation failures aimed at sbridge: each allocation of both module loads fails in turn, sbridge's atomic allocations fail at random under a fork and exec storm, each allocation of a rules and a matrix load fails in turn; every failure is a clean ENOMEM that leaves nothing behind or half-applied, entries balance at unload, no oops, no leak
# arch: any
# suite: bookworm
# debug: only
# injects: yes
# timeout: 450
. "${SBRIDGE_LIB:-/sbridge/lib.sh}"

D=/sys/kernel/debug
S=/sys/kernel/sbridge
NTH_MAX=${NTH_MAX:-4000}
# every NTH_STEP-th point of a module load fails (1: each, make test-debug),
# from NTH_FIRST on: a random start, so that runs between them cover every
# point (--set NTH_FIRST=K repeats one); a load has about 1500 points, most
# of them kmemleak's and the loader's
NTH_STEP=${NTH_STEP:-20}
NTH_FIRST=${NTH_FIRST:-$(( $(od -An -N2 -tu2 /dev/urandom) % NTH_STEP + 1 ))}
plan 14
if [ ! -w /proc/self/fail-nth ] || [ ! -d $D/failslab ]; then
	i=0
	while [ $i -lt 14 ]; do
		skip "fault injection" "kernel without CONFIG_FAULT_INJECTION/FAILSLAB"
		i=$((i + 1))
	done
	exit 0
fi
# Injected failures stay silent: the harness fails a run on a stack dump.
# Sleeping allocations count too (the loads use GFP_KERNEL); pages only from
# order 1 up, so the page allocator's own warning for an order-0 failure
# (not sbridge's doing) stays out.
for f in failslab fail_page_alloc; do
	echo 0 > $D/$f/verbose
	echo N > $D/$f/ignore-gfp-wait
done

# residue MODULE: what a failed load of MODULE left behind, if anything
residue() {
	grep -q "^$1 " /proc/modules && echo "still listed"
	[ "$1" = sbridge_core ] && [ -e $S ] && echo "$S exists"
	[ "$1" = sbridge_core ] && [ -e /sys/kernel/tracing/events/sbridge ] && echo "trace events left"
	[ "$1" = sbridge_pmu ] && [ "$(cat $S/source 2>/dev/null | head -n1)" != "$src0" ] &&
		echo "counter source left registered"
}

# each_point MODULE: load MODULE with its NTH_FIRST-th, (NTH_FIRST +
# NTH_STEP)th, ... fault point failing until a load makes fewer points than asked. Prints "POINTS
# FAILED TOLERATED ERRNOS" and every problem after a '|'.
each_point() {
	_m=$1 _k=$NTH_FIRST _f=0 _t=0 _bad="" _errs=""
	while [ $_k -le $NTH_MAX ]; do
		failnth $_k $MODDIR/$_m.ko > /tmp/fn 2>&1
		_rc=$?
		case $_rc in
		1)	_f=$((_f + 1))
			_e=$(sed -n 's/.*load failed: //p' /tmp/fn)
			case " $_errs " in *" $_e,"*) ;; *) _errs="$_errs $_e," ;; esac
			_r=$(residue $_m | tr '\n' ' ')
			[ -n "$_r" ] && _bad="$_bad n=$_k: $_r;" ;;
		0)	_t=$((_t + 1))
			rmmod $_m || _bad="$_bad n=$_k: loaded with a tolerated failure, rmmod failed;" ;;
		3)	rmmod $_m || _bad="$_bad n=$_k: rmmod failed;"
			break ;;
		*)	_bad="$_bad n=$_k: $(cat /tmp/fn);"
			break ;;
		esac
		_k=$((_k + NTH_STEP))
	done
	[ $_k -gt $NTH_MAX ] && _bad="$_bad more than $NTH_MAX points;"
	echo "$_k $_f $_t$_errs|$_bad"
}

# sweep MODULE: each_point MODULE as two TAP points (nothing left behind;
# every failed load said ENOMEM); sets $nfail to the failed loads.
sweep() {
	_sw=$(each_point $1)
	diag "$1: points failed tolerated errnos: ${_sw%%|*} (from point $NTH_FIRST)"
	set -- $1 ${_sw%%|*}
	nfail=$3
	check "$1: every ${NTH_STEP}th of its $2 load points failed in turn, nothing left behind" \
		test -z "${_sw#*|}"
	[ -n "${_sw#*|}" ] && diag "${_sw#*|}"
	_e=$(echo "${_sw%%|*}" | cut -d' ' -f4- | tr -d ', ')
	# a sample may hit only failures the load survives (the loader's own,
	# kmemleak's): then no errno was seen, which is no pass either
	if [ "$nfail" -gt 0 ]; then
		check "every failed $1 load says ENOMEM" test "$_e" = "Cannotallocatememory"
	else
		skip "every failed $1 load says ENOMEM" "no load of this sample failed"
	fi
	diag "rel: faults=$nfail"
}

# --- 1: sbridge_core, each allocation of its load failing in turn ---------
sweep sbridge_core
check "sbridge_core loads and works after $nfail failed loads" sh -c \
	"insmod $MODDIR/sbridge_core.ko && forkstorm 200 4 && test -r $S/tasks"

# --- 2: sbridge_pmu on a live sbridge_core -----------------------------------
src0=$(head -n1 $S/source 2>/dev/null)
sweep sbridge_pmu
check "sbridge_pmu loads after $nfail failed loads" insmod $MODDIR/sbridge_pmu.ko

# --- 3: random failures of sbridge's atomic allocations in a storm ----------
# The task filter limits failures to the storm; ignore-gfp-wait Y leaves the
# kernel's sleeping fork allocations alone, so what fails is mostly what
# sbridge allocates in its fork and exec hooks (GFP_NOWAIT).
echo Y > $D/failslab/ignore-gfp-wait
echo Y > $D/failslab/task-filter
echo 30 > $D/failslab/probability
echo 1 > $D/failslab/interval
echo -1 > $D/failslab/times
af0=$(cat $S/alloc_fail)
(echo 1 > /proc/self/make-it-fail; exec forkstorm 3000 8 retry) > /tmp/storm 2>&1 &
st=$!
(echo 1 > /proc/self/make-it-fail; i=0
 while [ $i -lt 150 ]; do spin 1 1000 >/dev/null || echo "exec $i failed"; i=$((i + 1)); done) > /tmp/execs 2>&1
wait $st; rst=$?
echo 0 > $D/failslab/probability
echo N > $D/failslab/task-filter
diag "$(cat /tmp/storm) $(grep -c failed /tmp/execs) execs failed"
check "the storm completes under injected failures" test $rst = 0
af=$(( $(cat $S/alloc_fail) - af0 ))
diag "rel: faults=$af"
check "sbridge saw injected allocation failures ($af)" test "$af" -gt 0

check "sbridge unloads after the storm" unload_sbridge
bal=$(dmesg | sed -n 's/.*task entries: \([0-9]*\) allocated, \([0-9]*\) freed.*/\1 \2/p' | tail -n1)
diag "task entries allocated freed: $bal"
set -- $bal
check "every task entry allocated was freed ($bal)" test -n "$1" -a "$1" = "${2:-x}"

# --- 4, 5: rules and matrix loads, each point in turn ----------------------
# each_load DESC BASE-CMD TARGET-CMD: with BASE applied, run TARGET with its
# 1st, 2nd, ... point failing (the exec's points count too) until 15 runs in
# a row succeed. A successful run must leave exactly TARGET's state, a
# failed one BASE's, or TARGET's if the tool died after the kernel took the
# request (counted apart); anything else is a half-applied load. The state
# is sysfs's count plus the kernel's dump of the rules, or of the matrix;
# sbridge_core runs without a counter source here, so nothing learns into
# the matrix meanwhile.
# Prints "RUNS FAILED DIED-AFTER|PROBLEMS".
echo N > $D/failslab/ignore-gfp-wait
state_of() {
	if [ "$1" = rules ]; then
		cat $S/rules; nltest rules
	else
		cat $S/matrix; nltest matrix
	fi
}
each_load() {
	$2 >/dev/null || { echo "0 0 0|base command failed"; return; }
	state_of $1 > /tmp/base.st
	$3 >/dev/null || { echo "0 0 0|target command failed"; return; }
	state_of $1 > /tmp/want.st
	cmp -s /tmp/base.st /tmp/want.st && { echo "0 0 0|base and target states are the same"; return; }
	_k=1 _f=0 _d=0 _run=0 _bad=""
	while [ $_k -le 1500 ] && [ $_run -lt 15 ]; do
		$2 >/dev/null || { _bad="$_bad base failed at n=$_k;"; break; }
		failnth $_k -- $3 > /tmp/fl 2>&1
		_rc=$?
		state_of $1 > /tmp/now.st
		if [ $_rc = 0 ]; then
			_run=$((_run + 1))
			cmp -s /tmp/now.st /tmp/want.st ||
				_bad="$_bad n=$_k: succeeded, not the target's state: $(diff /tmp/want.st /tmp/now.st | grep '^[-+][^-+]' | head -n 3 | tr '\n' ' ');"
		else
			_run=0 _f=$((_f + 1))
			if cmp -s /tmp/now.st /tmp/want.st; then
				_d=$((_d + 1))
			elif ! cmp -s /tmp/now.st /tmp/base.st; then
				_bad="$_bad n=$_k: failed (rc $_rc: $(head -c 80 /tmp/fl | tr '\n' ' ')), half applied: $(diff /tmp/base.st /tmp/now.st | grep '^[-+][^-+]' | head -n 3 | tr '\n' ' ');"
			fi
		fi
		_k=$((_k + 1))
	done
	[ $_run -lt 15 ] && _bad="$_bad never 15 successes in a row;"
	echo "$((_k - 1)) $_f $_d|$_bad"
}
# load_sweep WHAT BASE-CMD TARGET-CMD: each_load as one TAP point
load_sweep() {
	_ls=$(each_load "$@")
	diag "$1: runs failed died-after-commit: ${_ls%%|*}"
	set -- $1 ${_ls%%|*}
	diag "rel: faults=$3"
	check "$1 load: every failed run left the old $1, every success the new one" \
		test -z "${_ls#*|}"
	[ -n "${_ls#*|}" ] && diag "${_ls#*|}"
}
check "sbridge_core loads again (no counter source: the matrix holds still)" \
	insmod $MODDIR/sbridge_core.ko
printf 'comm=base-rule class=compute\n' > /tmp/base.rules
load_sweep rules "sbridgectl rules load /tmp/base.rules" "sbridgectl rules load $RULESDIR"

printf 'key=base-mx type=0 phase=0 factor=1.25 cpib=0.5 samples=7\n' > /tmp/base.matrix
: > /tmp/big.matrix
i=0
while [ $i -lt 40 ]; do
	printf 'key=mx%d type=0 phase=%d factor=1.%02d cpib=0.5 samples=9\n' $i $((i % 2)) $i >> /tmp/big.matrix
	i=$((i + 1))
done
load_sweep matrix "sbridgectl matrix load /tmp/base.matrix" "sbridgectl matrix load /tmp/big.matrix"
check "sbridge unloads" unload_sbridge
