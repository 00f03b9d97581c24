#!/bin/sh
# scenario: matrix cells are scoped by uid: a user cannot train root's program nor evict root's cells; one name's cells are capped
# arch: x86_64
# topology: smp
# smp: 2
# timeout: 300
# icount: no
# suite: bookworm
. "${SBRIDGE_LIB:-/sbridge/lib.sh}"

# The safety review's finding 8: cells keyed by comm alone let any user
# train what seeds root's program of the same name, push root's and loaded
# cells out through the LRU, and grow one name's hash chain (walked with
# IRQs off) up to the matrix size. sbridge_fakesrc makes "chase*" tasks
# memory-bound (share 204), everything else compute-bound (1024). The
# matrix code has no kernel-version paths: the oldest kernels only (it
# passed on 7.3 too when it was written), to keep the default suite short.
plan 17

core_with "sbridge_fakesrc loads" sbridge_fakesrc
S=/sys/kernel/sbridge
U=1000
mkdir -p /tmp/u /tmp/r
chmod 755 /tmp/u /tmp/r

# wait_cell REGEX: until a matrix line matches (cells are folded when a
# task is freed: after reaping and an RCU grace period)
wait_cell() {
	_i=0
	while [ $_i -lt 20 ] && ! nltest matrix | grep -q "$1"; do
		sleep 0.5; _i=$((_i + 1))
	done
}

# 1. Root's cell for "chasex" (share 512, any executable, scope 0); the
# user runs his own chasex (a copy of chase: 204) into his own scope. A
# name nothing else runs, so only these cells exist for it.
check "root loads a cell for chasex (share 512)" nltest matrix-load chasex 0 0 512
cp "$(command -v chase)" /tmp/u/chasex
cp "$(command -v chase)" /tmp/r/chasex
asuser $U /tmp/u/chasex 4 1 > /dev/null
wait_cell "^chasex .* 204 .* $U\$"
nltest matrix > /tmp/mx
diag "$(grep '^chasex ' /tmp/mx)"
check "the user's run learned into his own scope (uid $U)" \
	grep -q "^chasex 0 [0-9] [0-9]* 204 [0-9]* 0x[0-9a-f]* $U\$" /tmp/mx
check "root's cell is untouched (512, scope 0)" \
	sh -c "[ \"\$(grep ' 0\$' /tmp/mx | grep '^chasex ')\" = 'chasex 0 0 512 512 1 0x0 0' ]"

# Seeded at exec, before a sample of their own (learning off).
nltest param learning 0
/tmp/r/chasex 4 2 > /dev/null & r=$!
asuser $U /tmp/u/chasex 4 2 > /dev/null & u=$!
sleep 1
nltest tasks > /tmp/t
wait $r $u
nltest param learning 1
diag "$(grep ' chasex ' /tmp/t)"
check "root's chasex is seeded from scope 0 (512), not from the user's 204" \
	grep -q "^$r chasex 0 [01] 512 " /tmp/t
check "the user's chasex is seeded from his own scope (204, the phase of most samples)" \
	grep -q "^$u chasex $U [01] 204 " /tmp/t

# 2. A user's dump holds his own cells only.
as_user nltest matrix > /tmp/umx
check "a user's MATRIX_GET holds only his scope" \
	sh -c "grep -q ' $U\$' /tmp/umx && ! grep -qv ' $U\$' /tmp/umx"

# 2b. What root's tasks learned seeds root's programs only: a user's task
# would show in its seed how root's program of that name ran (review 2,
# N13). A cell root loaded seeds every user's program with none of its own.
check "root loads a cell for chasez (share 512)" nltest matrix-load chasez 0 0 512
cp "$(command -v chase)" /tmp/r/chasey
cp "$(command -v chase)" /tmp/u/chasey
cp "$(command -v chase)" /tmp/u/chasez
/tmp/r/chasey 4 1 > /dev/null
wait_cell "^chasey .* 204 .* 0\$"
diag "$(nltest matrix | grep '^chase[yz] ' | tr '\n' ';')"
nltest param learning 0
/tmp/r/chasey 4 2 > /dev/null & r=$!
asuser $U /tmp/u/chasey 4 2 > /dev/null & u=$!
asuser $U /tmp/u/chasez 4 2 > /dev/null & z=$!
sleep 1
nltest tasks > /tmp/t
wait $r $u $z
nltest param learning 1
diag "$(grep ' chase[yz] ' /tmp/t | tr '\n' ';')"
check "root's chasey is seeded from what root's chasey learned (204)" \
	grep -q "^$r chasey 0 [01] 204 " /tmp/t
check "the user's chasey is not seeded from root's learned cell" \
	sh -c "grep -q '^$u chasey $U ' /tmp/t && ! grep -q '^$u chasey $U [01] 204 ' /tmp/t"
check "the user's chasez is seeded from root's loaded cell (512)" \
	grep -q "^$z chasez $U [01] 512 " /tmp/t

# 3. With 32 cells at most, a user filling the matrix with 40 new names
# evicts user cells only (half the matrix at most), never root's. Root's
# own background learning (this shell) may take some room too, evicting
# user cells first.
i=1
while [ $i -le 40 ]; do cp "$(command -v spin)" /tmp/u/u$i; i=$((i + 1)); done
nltest param matrix_max 32
printf 'r1 0 0 1024 512 1\nr2 0 0 1024 512 1\nr3 0 0 1024 512 1\nr4 0 0 1024 512 1\n' > /tmp/root.mx
check "root loads 4 cells" nltest matrix-load-file /tmp/root.mx
i=1
while [ $i -le 40 ]; do
	asuser $U /tmp/u/u$i 0.2 > /dev/null
	i=$((i + 1))
done
wait_cell "^u40 "
nltest matrix > /tmp/mx
nuser=$(grep -c " $U\$" /tmp/mx)
diag "matrix after 40 user programs: $(wc -l < /tmp/mx) cells, $nuser the user's"
check "root's 4 cells survive the user's 40 programs" \
	test "$(grep -c '^r[1-4] .* 0$' /tmp/mx)" -eq 4
check "the user holds at most half the matrix, and learned" \
	sh -c "[ $nuser -ge 1 ] && [ $nuser -le 16 ]"

# 4. One name from 100 executables: at most 80 cells of it (4 x types x
# phases with start-up, sbridge-core/matrix.c SBRIDGE_MX_PER_KEY), the
# least recently used of the name giving way.
nltest param matrix_max 4096
i=1
while [ $i -le 100 ]; do
	mkdir -p /tmp/m/$i
	cp "$(command -v spin)" /tmp/m/$i/many
	i=$((i + 1))
done
chmod -R 755 /tmp/m
i=1
while [ $i -le 100 ]; do
	asuser $U /tmp/m/$i/many 0.2 > /dev/null
	i=$((i + 1))
done
sleep 2
# by scope: an exec's own windows (renamed, not yet keyed anew) must not
# land in the scope of the program that ran it (root's asuser)
nltest matrix | awk '$1 == "many" { print $NF }' | sort | uniq -c > /tmp/many
n=$(awk -v u=$U '$2 == u { print $1 }' /tmp/many)
diag "cells of 'many' after 100 executables, count and scope: $(tr -s ' \n' ' ' < /tmp/many)"
check "one name's cells are capped at 80, all in the user's scope, and it still learns" \
	sh -c "[ ${n:-0} -ge 60 ] && [ ${n:-0} -le 80 ] && [ $(wc -l < /tmp/many) -eq 1 ]"

check "sbridge_core unloads" sh -c "rmmod sbridge_fakesrc && rmmod sbridge_core"
