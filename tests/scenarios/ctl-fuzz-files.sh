#!/bin/sh
# scenario: rule and matrix files mutated (tests/progs/mutate.c: bit flips, hostile tokens, cut and doubled spans, swapped lines) and loaded through sbridgectl: a file refused (exit 2 by sbridgectl, 1 by the module) says why and changes nothing, an accepted one is taken and the base goes back in, sbridgectl never dies of a signal, a user's load changes nothing; /dev/zero, /dev/urandom, a 2 GB file, a FIFO that never closes and a memory limit get a clear error and leave rules, matrix and parameters as they were
# arch: any
# stock: x86_64
# suite: backports
# topology: smp
# timeout: 400
# icount: no
. "${SBRIDGE_LIB:-/sbridge/lib.sh}"

N=${FILES_N:-150}
S=/sys/kernel/sbridge
plan 11

# base files: every rule form the shipped sets use, and a matrix of three
# workloads (one type: this board has one)
cat $RULESDIR/*.rules > /tmp/base.rules 2>/dev/null
cat > /tmp/base.matrix <<'M'
key=gcc type=0 phase=0 factor=1.25 cpib=0.7 samples=120
key=make type=0 phase=1 factor=0.95 cpib=0.2 samples=40 exe=0x1234abcd speedup=1.4 uid=1000
key=xz type=0 phase=0 factor=1.10 cpib=0.5 samples=7
M
rules_state() { cat $S/rules; nltest rules; }
matrix_state() { cat $S/matrix; nltest matrix; }

check "sbridge loads" load_sbridge
check "the base rules load" sbridgectl rules load /tmp/base.rules
check "the base matrix loads" sbridgectl matrix load /tmp/base.matrix
rules_state > /tmp/rules0
matrix_state > /tmp/matrix0

# fuzz KIND: N mutants of /tmp/base.KIND through "sbridgectl KIND load";
# after a refusal the state must be the base one, after an acceptance the
# base goes back in. Prints "accepted refused" and the findings.
fuzz() {
	_acc=0 _ref=0 _bad=""
	_i=0
	while [ $_i -lt $N ]; do
		_i=$((_i + 1))
		mutate /tmp/base.$1 "$_i$1" > /tmp/m.$1
		sbridgectl $1 load /tmp/m.$1 >/dev/null 2>/tmp/err
		_rc=$?
		case $_rc in
		0)	_acc=$((_acc + 1))
			sbridgectl $1 load /tmp/base.$1 >/dev/null 2>&1 || _bad="$_bad $_i:base-reload" ;;
		1|2)	_ref=$((_ref + 1))
			[ -s /tmp/err ] || _bad="$_bad $_i:silent"
			${1}_state | cmp -s - /tmp/${1}0 || _bad="$_bad $_i:changed" ;;
		*)	_bad="$_bad $_i:rc$_rc" ;;
		esac
	done
	echo "$_acc $_ref$_bad" > /tmp/fuzz.$1
}
fuzz rules
fuzz matrix
for k in rules matrix; do
	read -r acc ref bad < /tmp/fuzz.$k
	diag "$k: $acc mutants accepted, $ref refused${bad:+; findings:$bad}"
	check "$N mutated $k files: refusals say why and change nothing, no crash" test -z "$bad"
done
diag "rel: fuzzed=$((N * 2))"
rules_state | cmp -s - /tmp/rules0 && matrix_state | cmp -s - /tmp/matrix0
check "the base state is in force at the end" test $? = 0
# endless, huge and silent inputs (sbridgectl's bounded reader): each is a
# clear error before anything is sent, and nothing changes
cat $S/params > /tmp/params0
mkfifo /tmp/never
sleep 60 > /tmp/never &	# a writer that holds it open and sends nothing
writer=$!
sbridgectl matrix load /tmp/never > /dev/null 2> /tmp/err.fifo &
fifo=$!
truncate -s 2G /tmp/huge
hostile=""
for src in /dev/zero /dev/urandom /tmp/huge; do
	for k in "rules load" "matrix load" "config apply"; do
		sbridgectl $k $src > /dev/null 2> /tmp/err
		rc=$?
		grep -q "cannot read '$src': larger than 16 MiB" /tmp/err ||
			hostile="$hostile [$k $src: exit $rc: $(head -c 120 /tmp/err)]"
		[ $rc = 2 ] || hostile="$hostile [$k $src: exit $rc]"
	done
done
check "/dev/zero, /dev/urandom, a 2 GB file: exit 2, 'larger than 16 MiB', for rules, matrix and config" \
	test -z "$hostile"
(ulimit -v 12000; exec sbridgectl matrix load /dev/zero) > /dev/null 2> /tmp/err.mem
rc=$?
check "under ulimit -v 12000: exit 1, out of memory, not the end of the file (exit $rc: $(cat /tmp/err.mem))" \
	sh -c "test $rc = 1 && grep -q 'out of memory' /tmp/err.mem"
wait $fifo
rc=$?
kill $writer 2>/dev/null
check "a FIFO that never closes: exit 2 after 10 s silent (exit $rc: $(cat /tmp/err.fifo))" \
	sh -c "test $rc = 2 && grep -q 'nothing came through it for 10 s' /tmp/err.fifo"
rules_state | cmp -s - /tmp/rules0 && matrix_state | cmp -s - /tmp/matrix0 &&
	cat $S/params | cmp -s - /tmp/params0
check "after all of them the rules, the matrix and the parameters are unchanged" test $? = 0
rm -f /tmp/huge /tmp/never

# a user's load of any file changes nothing
chmod 644 /tmp/base.rules /tmp/base.matrix
as_user sbridgectl rules load /tmp/base.rules >/dev/null 2>&1
r1=$?
as_user sbridgectl matrix load /tmp/base.matrix >/dev/null 2>&1
r2=$?
rules_state | cmp -s - /tmp/rules0 && matrix_state | cmp -s - /tmp/matrix0
check "a user's loads are refused (exit $r1, $r2) and change nothing" \
	test $? = 0 -a $r1 = 4 -a $r2 = 4
