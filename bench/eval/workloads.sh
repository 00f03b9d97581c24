# debs: xz zstd bzip2 gzip lz4 brotli sqlite3 openssl stress-ng bc gawk sort
# Workloads of the evaluation: real Debian programs (tools/testbed/debpkgs.py),
# each doing one FIXED unit of work, so completion time is the metric.
# POSIX sh (busybox ash), sourced by the guest's eval script:
#
#   WL_DEBS            debpkgs programs needed (the '# debs:' line above too)
#   WL_NAMES           the workloads; WL_CALIB: tests/progs spin and chase
#   wl_prepare DIR     writes every input under DIR (deterministic per arch)
#   wl_exec NAME DIR   execs the program: its comm is the program's own
#                      (xz, gzip, sqlite3...; stress-ng forks one worker
#                      that does the work, comm stress-ng-cpu,
#                      stress-ng-matri, stress-ng-strea, stress-ng-vm,
#                      stress-ng-randl), output to
#                      /dev/null, exit status kept
#   wl_kind NAME       compute | memory | mixed: an EXPECTATION, which the
#                      eval measures rather than trusts
#
# Programs are run by full path: busybox has applets named gzip, bzip2, xz,
# bc, sort..., and one standing in for a missing deb would go unnoticed.

WL_DEBS="xz zstd bzip2 gzip lz4 brotli sqlite3 openssl stress-ng bc gawk sort"
WL_NAMES="xz zstd bzip2 gzip lz4 brotli sqlite openssl-sha stress-cpu stress-matrix stress-stream bc gawk sort stress-vm stress-randlist sqlite-lookup"
WL_CALIB="spin chase"

# Work per workload, the one place to size them. Target: 2-3 s alone on the
# rig's big core (arm64 1b1s, slowdown 50: a ~32 MHz core in wall time),
# measured with tests/scenarios/eval-workloads.sh on arm64 6.1: [big s /
# little s] after each line (wall = modelled time within 2 %). x86_64 plain
# TCG (no rig, 2-core host): 0.06-0.45 s each.
WL_XZ_BYTES=65536        # xz -6 of this much corpus [2.13/4.38]
WL_ZSTD_BYTES=40960      # zstd -19 [2.52/4.98]
WL_BZIP2_BYTES=262144    # bzip2 -9 [2.17/4.75]
WL_GZIP_BYTES=245760     # gzip -9 [2.75/5.08]
WL_LZ4_BYTES=348160      # lz4 -9 (HC) [2.49/4.60]
WL_BROTLI_BYTES=12288    # brotli -q 11 (large fixed set-up cost) [2.30/4.43]
WL_SQLITE_ROWS=7000      # sqlite3 :memory: rows inserted, indexed, grouped, joined [2.34/4.36]
WL_SHA_BYTES=262144      # openssl dgst -sha256 over a file this big...
WL_SHA_TIMES=64          # ...named this many times [1.89/3.76]
WL_CPU_OPS=24            # stress-ng --cpu-method int64 bogo ops [2.75/5.39]
WL_MATRIX_OPS=30         # stress-ng --matrix-method prod, 64x64 doubles [2.13/3.96]
WL_STREAM_L3=256K        # stress-ng --stream: its arrays (~12x this) > both LLCs
WL_STREAM_OPS=2          # [2.65/3.65]
WL_BC_DIGITS=330         # bc -l: pi to this many digits [2.33/4.54]
WL_GAWK_BYTES=143360     # gawk word counts over this much text, read twice [2.37/4.66]
WL_SORT_BYTES=262144     # coreutils sort (C locale) of this much text...
WL_SORT_TIMES=10         # ...named this many times (in memory: -S 16M) [2.51/5.22]
# Memory-bound ones: working sets of 8-16 MiB, far over both LLCs (the rig
# has no prefetcher: sequential misses cost like random ones).
WL_VM_BYTES=16M          # stress-ng --vm read64 over a populated 16 MiB mapping...
WL_VM_OPS=14             # ...of 1 MiB each (bogo op = 4096 x 256 bytes) [2.41/3.22]
WL_RANDLIST_ITEMS=65536  # stress-ng --randlist: items linked in random order,
WL_RANDLIST_SIZE=120     # 8+120 bytes each, in one 8 MiB block (compact)...
WL_RANDLIST_OPS=1        # ...walked twice (memset, bytewise sum) per op [3.32/4.92]
WL_LOOKUP_ROWS=16000     # sqlite3 file db (tmpfs) of this many 1000-byte rows: 16 MiB,
WL_LOOKUP_KEYS=3600      # rowid lookups at LCG-random keys, default 2 MiB page cache [2.65/3.34]
WL_SPIN_ITERS=350        # spin: 100k-step iterations (~150/s on big) [2.43/4.66]
WL_CHASE_LOADS=300000    # chase 16 MiB: dependent loads (~180 k/s on big) [3.03/4.46]
                         #   after building its 16 MiB list (~1.7 s)

# The corpus: WL_TEXT_BYTES of text from an LCG over a fixed word list (same
# bytes on every arch), interleaved 64 KiB by 64 KiB with ELF bytes of the
# deb programs (same every boot for a given arch: Debian's bookworm builds),
# so compressors see both kinds at any prefix length. busybox awk is slow:
# this takes ~5 s on arm64 TCG unpaced, much longer paced, so the eval
# prepares before the rig's driver starts pacing.
WL_CORPUS_BYTES=524288
WL_TEXT_BYTES=262144
_wl_words="the of and to in is that for it as was with be by on not he this are or
his from at which but have an they you were her she there been one all we
their has would when if so no more will can out up about into them than only
other time new some could these two may first then do any like my now over
such our man me even most made after also did many before must through back
years where much your way well down should because each just those people
kernel task core little big cache memory scheduler load factor cycles stall
miss branch thread process queue wake sleep period decision affinity power
frequency capacity cluster migrate balance runnable window phase model matrix
0 1 2 3 4 5 6 7 8 9 10 16 32 64 100 128 256 512 1024 4096 65536 0x0 0xff"

_wl_text() { # BYTES: deterministic text on stdout
	echo $_wl_words | awk -v n="$1" '{ nw = split($0, w, " ") }
	END { x = 12345; out = 0
		while (out < n) {
			line = ""; len = 40 + (x % 40)
			while (length(line) < len) {
				x = (x * 69069 + 1) % 4294967296   # exact in doubles
				line = line w[1 + int(x / 65536) % nw] " "
			}
			print line; out += length(line) + 1
		} }'
}

wl_prepare() {
	_wl_d=$1
	mkdir -p "$_wl_d" || return 1
	_wl_text $WL_TEXT_BYTES > "$_wl_d/.text" || return 1
	# ELF bytes: the deb programs' own files, in a fixed order
	cat /usr/bin/xz /usr/bin/sqlite3 /usr/bin/gawk /usr/bin/openssl /usr/bin/bc \
		/usr/bin/zstd /usr/bin/bzip2 /usr/bin/stress-ng > "$_wl_d/.bin" || return 1
	_wl_i=0
	while [ $((_wl_i * 131072)) -lt $WL_CORPUS_BYTES ]; do
		dd if="$_wl_d/.text" bs=65536 skip=$_wl_i count=1 2>/dev/null
		dd if="$_wl_d/.bin" bs=65536 skip=$_wl_i count=1 2>/dev/null
		_wl_i=$((_wl_i + 1))
	done > "$_wl_d/corpus"
	for _wl_n in xz:$WL_XZ_BYTES zstd:$WL_ZSTD_BYTES bzip2:$WL_BZIP2_BYTES \
		gzip:$WL_GZIP_BYTES lz4:$WL_LZ4_BYTES brotli:$WL_BROTLI_BYTES \
		sha:$WL_SHA_BYTES; do
		head -c ${_wl_n#*:} "$_wl_d/corpus" > "$_wl_d/${_wl_n%%:*}.in" || return 1
	done
	head -c $WL_GAWK_BYTES "$_wl_d/.text" > "$_wl_d/gawk.in"
	head -c $WL_SORT_BYTES "$_wl_d/.text" > "$_wl_d/sort.in"
	rm -f "$_wl_d/.text" "$_wl_d/.bin"
	cat > "$_wl_d/sqlite.sql" <<-EOF
	CREATE TABLE t(a INTEGER PRIMARY KEY, b INTEGER, c TEXT);
	WITH RECURSIVE s(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM s WHERE i < $WL_SQLITE_ROWS)
	INSERT INTO t SELECT i, (i * 7919) % 1009, hex(i * 2654435761 % 4294967296) FROM s;
	CREATE INDEX tb ON t(b);
	CREATE INDEX tc ON t(c);
	SELECT b, count(*), sum(a) FROM t GROUP BY b ORDER BY 2 DESC, 1 LIMIT 3;
	SELECT count(*) FROM t x JOIN t y ON x.b = y.a % 1009 WHERE y.a % 7 = 0;
	SELECT max(c) FROM t WHERE c LIKE '%A%';
	EOF
	# sqlite-lookup: the table (16 MiB, 4 rows a page) and the keys: ~1.5 s
	# of wl_prepare's ~5.8 s on arm64
	rm -f "$_wl_d/lookup.db"
	/usr/bin/sqlite3 -batch "$_wl_d/lookup.db" > /dev/null <<-EOF || return 1
	PRAGMA journal_mode = OFF;
	PRAGMA synchronous = OFF;
	CREATE TABLE t(a INTEGER PRIMARY KEY, b INTEGER, c BLOB);
	WITH RECURSIVE s(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM s WHERE i < $WL_LOOKUP_ROWS)
	INSERT INTO t SELECT i, (i * 7919) % 1009, zeroblob(1000) FROM s;
	CREATE TABLE k(x INTEGER);
	WITH RECURSIVE s(n, x) AS (SELECT 1, 1 UNION ALL
		SELECT n + 1, (x * 1103515245 + 12345) % 2147483648 FROM s WHERE n < $WL_LOOKUP_KEYS)
	INSERT INTO k SELECT 1 + x % $WL_LOOKUP_ROWS FROM s;
	EOF
	echo "SELECT count(*), sum(t.b), sum(length(t.c)) FROM k JOIN t ON t.a = k.x;" > "$_wl_d/lookup.sql"
	echo "scale=$WL_BC_DIGITS; 4 * a(1)" > "$_wl_d/bc.in"
	cat > "$_wl_d/gawk.awk" <<-'EOF'
	{ for (i = 1; i <= NF; i++) { c[$i]++; s += length($i) * i } }
	END { for (w in c) n++; print n, s }
	EOF
	_wl_i=0 _wl_a=
	while [ $_wl_i -lt $WL_SHA_TIMES ]; do _wl_a="$_wl_a $_wl_d/sha.in"; _wl_i=$((_wl_i + 1)); done
	echo "$_wl_a" > "$_wl_d/sha.args"
	_wl_i=0 _wl_a=
	while [ $_wl_i -lt $WL_SORT_TIMES ]; do _wl_a="$_wl_a $_wl_d/sort.in"; _wl_i=$((_wl_i + 1)); done
	echo "$_wl_a" > "$_wl_d/sort.args"
	[ -s "$_wl_d/corpus" ] && [ -s "$_wl_d/lookup.db" ]
}

# wl_exec NAME DIR: exec NAME's program on its fixed work; never returns
# unless NAME is unknown (status 127).
wl_exec() {
	_wl_d=$2
	export LC_ALL=C
	cd "$_wl_d" || exit 1
	_wl_sng="/usr/bin/stress-ng -q --temp-path $_wl_d"
	case $1 in
	xz)	exec /usr/bin/xz -6 -T1 -c "$_wl_d/xz.in" > /dev/null ;;
	zstd)	exec /usr/bin/zstd -19 -T1 -q -c "$_wl_d/zstd.in" > /dev/null ;;
	bzip2)	exec /usr/bin/bzip2 -9 -c "$_wl_d/bzip2.in" > /dev/null ;;
	gzip)	exec /usr/bin/gzip -9 -c "$_wl_d/gzip.in" > /dev/null ;;
	lz4)	exec /usr/bin/lz4 -9 -q -c "$_wl_d/lz4.in" > /dev/null ;;
	brotli)	exec /usr/bin/brotli -q 11 -c "$_wl_d/brotli.in" > /dev/null ;;
	sqlite)	exec /usr/bin/sqlite3 -batch :memory: < "$_wl_d/sqlite.sql" > /dev/null ;;
	openssl-sha) exec /usr/bin/openssl dgst -sha256 $(cat "$_wl_d/sha.args") > /dev/null ;;
	stress-cpu) exec $_wl_sng --cpu 1 --cpu-method int64 --cpu-ops $WL_CPU_OPS > /dev/null ;;
	stress-matrix) exec $_wl_sng --matrix 1 --matrix-method prod --matrix-size 64 \
		--matrix-ops $WL_MATRIX_OPS > /dev/null ;;
	stress-stream) exec $_wl_sng --stream 1 --stream-l3-size $WL_STREAM_L3 \
		--stream-ops $WL_STREAM_OPS > /dev/null ;;
	stress-vm) exec $_wl_sng --vm 1 --vm-bytes $WL_VM_BYTES --vm-keep --vm-populate \
		--vm-madvise normal --vm-method read64 --vm-ops $WL_VM_OPS > /dev/null ;;
	stress-randlist) exec $_wl_sng --seed 1 --randlist 1 --randlist-compact \
		--randlist-items $WL_RANDLIST_ITEMS --randlist-size $WL_RANDLIST_SIZE \
		--randlist-ops $WL_RANDLIST_OPS > /dev/null ;;
	sqlite-lookup) exec /usr/bin/sqlite3 -batch "$_wl_d/lookup.db" < "$_wl_d/lookup.sql" > /dev/null ;;
	bc)	exec /usr/bin/bc -lq "$_wl_d/bc.in" < /dev/null > /dev/null ;;
	gawk)	exec /usr/bin/gawk -f "$_wl_d/gawk.awk" "$_wl_d/gawk.in" "$_wl_d/gawk.in" > /dev/null ;;
	sort)	exec /usr/bin/sort --parallel=1 -S 16M $(cat "$_wl_d/sort.args") > /dev/null ;;
	spin)	exec spin 600 $WL_SPIN_ITERS > /dev/null ;;
	chase)	exec chase 16 600 $WL_CHASE_LOADS > /dev/null ;;
	esac
	echo "wl_exec: unknown workload $1" >&2
	return 127
}

# Expectations from what each does; on the rig (1b1s) the compressors, sqlite
# and sort measured big/little 1.7-2.2 like spin (their inputs fit the big
# LLC), stress-stream and chase 1.4-1.5, stress-vm, stress-randlist and
# sqlite-lookup (8-16 MiB working sets) 1.34, 1.48, 1.26.
wl_kind() {
	case $1 in
	spin | stress-cpu | stress-matrix | bc | gzip | lz4 | openssl-sha | gawk) echo compute ;;
	chase | stress-stream | stress-vm | stress-randlist | sqlite-lookup) echo memory ;;
	*) echo mixed ;;	# xz zstd bzip2 brotli: big windows; sqlite; sort
	esac
}
