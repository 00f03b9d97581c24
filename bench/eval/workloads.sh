# debs: xz zstd bzip2 gzip lz4 brotli sqlite3 openssl stress-ng bc gawk sort gnugo minisat lua5.4 perl lame jq zopfli flac mawk make cyclictest hackbench
# Workloads of the evaluation: real Debian programs (tools/testbed/debpkgs.py),
# each doing one FIXED unit of work, so completion time is the metric.
# POSIX sh (busybox ash), sourced by the guest's eval script:
#
#   WL_DEBS            debpkgs programs needed (the '# debs:' line above too)
#   WL_NAMES           the workloads; WL_CALIB: tests/progs spin and chase
#   WL_HELDOUT         the workloads kept OUT of any tuning of sbridge (its
#                      estimator, its policy, its defaults): added by the
#                      evaluation issue (#28) and never used to develop
#                      anything; results mark them. Do not tune on them.
#   WL_MT              multithreaded / multi-process workloads (item 7)
#   wl_prepare DIR [VARIANT]  writes every input under DIR (deterministic
#                      per arch); VARIANT cal makes the calibration inputs:
#                      other bytes, other sizes, same programs
#   wl_cmd NAME DIR    prints how to run NAME, tab-separated: the exit
#                      statuses that mean success (comma list), the file on
#                      stdin, then argv (bench's runner, tests/progs/evalrun.c,
#                      execs it without a shell: no fork under load)
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

WL_DEBS="xz zstd bzip2 gzip lz4 brotli sqlite3 openssl stress-ng bc gawk sort gnugo minisat lua5.4 perl lame jq zopfli flac mawk make cyclictest hackbench"
WL_TUNED="xz zstd bzip2 gzip lz4 brotli sqlite openssl-sha stress-cpu stress-matrix stress-stream bc gawk sort stress-vm stress-randlist sqlite-lookup"
# Held out (#28): Debian programs nobody here wrote, chosen before any
# result, spanning compute (lame, flac, zopfli), memory (lua binary trees
# over a large heap, mawk hash lookups, minisat's clause database) and
# branch-heavy code (gnugo, perl regexes, jq).
WL_HELDOUT="gnugo minisat lua perl lame jq zopfli flac mawk"
WL_NAMES="$WL_TUNED $WL_HELDOUT"
WL_CALIB="spin chase"
# Multithreaded (threads: xz -T, zstd -T) and multi-process (make -j of a
# small build graph), each NCPU-wide: sized for about 3 s on the board
WL_MT="xz-mt zstd-mt make-j"

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
# Held-out programs (#28): first guesses from their speed on the host, then
# cut to about 2.5 s of modelled time alone on big from the first full
# run's alone.csv (1b3s, seed 235416: flac 24.0 s, zopfli 15.8, jq 6.0,
# lua 5.8, perl 4.4, lame 4.2 at the sizes before; gnugo 1.9, minisat 2.0,
# mawk 2.4 kept):
WL_GNUGO_MOVES=2         # gnugo --level 1 on 9x9: this many genmove, GTP
WL_SAT_VARS=3600         # minisat: random 3-SAT (perl's srand/rand), this many variables...
WL_SAT_RATIO=300         # ...and clauses = vars x this / 100 (far below the threshold:
                         #   near it the work swings by orders of magnitude per seed)
WL_LUA_DEPTH=14          # lua5.4 binary trees: long-lived tree of this depth...
WL_LUA_ITERS=2           # ...and this many rounds of short-lived trees
WL_PERL_TIMES=1          # perl word counts and a substitution, over the text this often...
WL_PERL_BYTES=147456     # ...of this much of it
WL_LAME_BYTES=163840     # lame: this much corpus as 16-bit mono PCM, -q 2
WL_JQ_ITEMS=640          # jq: group_by and sums over this many objects
WL_ZOPFLI_BYTES=640      # zopfli --i5 of this much corpus
WL_FLAC_BYTES=458752     # flac -8 of this much corpus (repeated) as 16-bit mono PCM
WL_MAWK_KEYS=20000       # mawk: a hash of this many keys...
WL_MAWK_LOOKUPS=30000    # ...looked up at LCG-random keys
# Multithreaded (#28 item 7): NCPU threads or jobs (wl_cmd reads nproc)
WL_XZMT_BYTES=262144     # xz -6 -T NCPU, 64 KiB blocks
WL_ZSTDMT_BYTES=1048576  # zstd -12 -T NCPU, 256 KiB jobs
WL_MAKE_PARTS=8          # make -j NCPU: 8 parts compressed (bzip2), then joined

# The corpus: WL_TEXT_BYTES of text from an LCG over a fixed word list (same
# bytes on every arch), interleaved 64 KiB by 64 KiB with ELF bytes of the
# deb programs (same every boot for a given arch: Debian's bookworm builds),
# so compressors see both kinds at any prefix length. busybox awk is slow:
# this takes ~5 s on arm64 TCG unpaced, much longer paced, so the eval
# prepares before the rig's driver starts pacing.
#
# VARIANT cal (calibration inputs, #28): the text from another LCG seed, the
# ELF bytes from another offset, other table contents, and sizes 3/4 of the
# mix inputs' (stress-ng: ops 3/4): what sbridge may learn from before the
# warm runs is never the input it is judged on.
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

_wl_text() { # BYTES SEED: deterministic text on stdout
	echo $_wl_words | awk -v n="$1" -v seed="${2:-12345}" '{ nw = split($0, w, " ") }
	END { x = seed; out = 0
		while (out < n) {
			line = ""; len = 40 + (x % 40)
			while (length(line) < len) {
				x = (x * 69069 + 1) % 4294967296   # exact in doubles
				line = line w[1 + int(x / 65536) % nw] " "
			}
			print line; out += length(line) + 1
		} }'
}

# _wl_scale N: N, or 3/4 of it for the calibration variant
_wl_scale() { if [ "$_wl_v" = cal ]; then echo $(($1 * 3 / 4)); else echo $1; fi; }

wl_prepare() {
	_wl_d=$1 _wl_v=${2:-mix}
	mkdir -p "$_wl_d" || return 1
	_wl_seed=12345 _wl_skip=0 _wl_k=7919
	[ "$_wl_v" = cal ] && _wl_seed=271828 _wl_skip=3 _wl_k=6007
	# sizes of this variant, read back by wl_cmd
	{
		echo "_WL_CPU_OPS=$(_wl_scale $WL_CPU_OPS)"
		echo "_WL_MATRIX_OPS=$(_wl_scale $WL_MATRIX_OPS)"
		echo "_WL_STREAM_OPS=$WL_STREAM_OPS"
		echo "_WL_VM_OPS=$(_wl_scale $WL_VM_OPS)"
		echo "_WL_RANDLIST_SEED=$([ "$_wl_v" = cal ] && echo 7 || echo 1)"
		echo "_WL_SPIN_ITERS=$(_wl_scale $WL_SPIN_ITERS)"
		echo "_WL_CHASE_LOADS=$(_wl_scale $WL_CHASE_LOADS)"
		echo "_WL_GNUGO_SEED=$([ "$_wl_v" = cal ] && echo 5 || echo 1)"
		echo "_WL_LUA_DEPTH=$WL_LUA_DEPTH"
		echo "_WL_LUA_ITERS=$(_wl_scale $WL_LUA_ITERS)"
	} > "$_wl_d/params"
	_wl_text $(_wl_scale $WL_TEXT_BYTES) $_wl_seed > "$_wl_d/.text" || return 1
	# ELF bytes: the deb programs' own files, in a fixed order
	cat /usr/bin/xz /usr/bin/sqlite3 /usr/bin/gawk /usr/bin/openssl /usr/bin/bc \
		/usr/bin/zstd /usr/bin/bzip2 /usr/bin/stress-ng > "$_wl_d/.bin" || return 1
	_wl_i=0
	while [ $((_wl_i * 131072)) -lt $WL_CORPUS_BYTES ]; do
		dd if="$_wl_d/.text" bs=65536 skip=$_wl_i count=1 2>/dev/null
		dd if="$_wl_d/.bin" bs=65536 skip=$((_wl_i + _wl_skip)) count=1 2>/dev/null
		_wl_i=$((_wl_i + 1))
	done > "$_wl_d/corpus"
	for _wl_n in xz:$WL_XZ_BYTES zstd:$WL_ZSTD_BYTES bzip2:$WL_BZIP2_BYTES \
		gzip:$WL_GZIP_BYTES lz4:$WL_LZ4_BYTES brotli:$WL_BROTLI_BYTES \
		sha:$WL_SHA_BYTES lame:$WL_LAME_BYTES zopfli:$WL_ZOPFLI_BYTES \
		xzmt:$WL_XZMT_BYTES; do
		head -c $(_wl_scale ${_wl_n#*:}) "$_wl_d/corpus" > "$_wl_d/${_wl_n%%:*}.in" || return 1
	done
	# zstd -T and flac: larger inputs than the corpus, the corpus repeated
	for _wl_i in 1 2 3 4 5 6 7 8; do cat "$_wl_d/corpus"; done > "$_wl_d/.rep"
	head -c $(_wl_scale $WL_ZSTDMT_BYTES) "$_wl_d/.rep" > "$_wl_d/zstdmt.in"
	head -c $(_wl_scale $WL_FLAC_BYTES) "$_wl_d/.rep" > "$_wl_d/flac.in"
	rm -f "$_wl_d/.rep"
	head -c $(_wl_scale $WL_GAWK_BYTES) "$_wl_d/.text" > "$_wl_d/gawk.in"
	head -c $(_wl_scale $WL_SORT_BYTES) "$_wl_d/.text" > "$_wl_d/sort.in"
	head -c $(_wl_scale $WL_PERL_BYTES) "$_wl_d/.text" > "$_wl_d/perl.in"
	rm -f "$_wl_d/.text" "$_wl_d/.bin"
	cat > "$_wl_d/sqlite.sql" <<-EOF
	CREATE TABLE t(a INTEGER PRIMARY KEY, b INTEGER, c TEXT);
	WITH RECURSIVE s(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM s WHERE i < $(_wl_scale $WL_SQLITE_ROWS))
	INSERT INTO t SELECT i, (i * $_wl_k) % 1009, hex(i * 2654435761 % 4294967296) FROM s;
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
	INSERT INTO t SELECT i, (i * $_wl_k) % 1009, zeroblob(1000) FROM s;
	CREATE TABLE k(x INTEGER);
	WITH RECURSIVE s(n, x) AS (SELECT 1, $_wl_seed UNION ALL
		SELECT n + 1, (x * 1103515245 + 12345) % 2147483648 FROM s WHERE n < $(_wl_scale $WL_LOOKUP_KEYS))
	INSERT INTO k SELECT 1 + x % $WL_LOOKUP_ROWS FROM s;
	EOF
	echo "SELECT count(*), sum(t.b), sum(length(t.c)) FROM k JOIN t ON t.a = k.x;" > "$_wl_d/lookup.sql"
	echo "scale=$(_wl_scale $WL_BC_DIGITS); 4 * a(1)" > "$_wl_d/bc.in"
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
	# held-out programs' inputs
	{
		echo "boardsize 9"; echo "komi 6.5"; echo "clear_board"
		_wl_i=0
		while [ $_wl_i -lt $(_wl_scale $WL_GNUGO_MOVES) ]; do
			[ $((_wl_i % 2)) = 0 ] && echo "genmove black" || echo "genmove white"
			_wl_i=$((_wl_i + 1))
		done
		echo "quit"
	} > "$_wl_d/gnugo.gtp"
	# random 3-SAT, satisfiable or not: minisat's work is fixed by the
	# instance (perl writes it: busybox awk takes a minute for this)
	/usr/bin/perl -e 'my ($n, $r, $s) = @ARGV; srand($s); my $m = int($n * $r / 100);
		print "p cnf $n $m\n";
		for my $i (1 .. $m) {
			for my $j (1 .. 3) {
				my $v = 1 + int(rand($n));
				$v = -$v if rand() < 0.5;
				print "$v ";
			}
			print "0\n";
		}' $(_wl_scale $WL_SAT_VARS) $WL_SAT_RATIO $_wl_seed > "$_wl_d/sat.cnf"
	cat > "$_wl_d/trees.lua" <<-'EOF'
	local function make(d)
	  if d == 0 then return {} end
	  d = d - 1
	  return { make(d), make(d) }
	end
	local function check(t)
	  if t[1] then return 1 + check(t[1]) + check(t[2]) end
	  return 1
	end
	local depth, iters = tonumber(arg[1]), tonumber(arg[2])
	local long = make(depth)
	local s = 0
	for i = 1, iters do
	  for d = 4, depth - 2, 2 do s = s + check(make(d)) end
	end
	print(s + check(long))
	EOF
	cat > "$_wl_d/words.pl" <<-'EOF'
	my ($file, $times) = @ARGV;
	my (%c, $n);
	for my $k (1 .. $times) {
	  open(my $f, '<', $file) or die "$file: $!";
	  while (my $l = <$f>) {
	    $c{lc $1}++ while $l =~ /\b([a-z]\w*)\b/gi;
	    $l =~ s/(\d+)/<$1>/g;
	    $n += length $l;
	  }
	  close $f;
	}
	my @top = (sort { $c{$b} <=> $c{$a} || $a cmp $b } keys %c)[0 .. 4];
	print "$n @top\n";
	EOF
	/usr/bin/perl -e 'my ($n, $x) = @ARGV; print "[";
		for my $i (0 .. $n - 1) {
			$x = ($x * 69069 + 1) % 4294967296;
			printf "%s{\"k\":\"g%d\",\"v\":%d,\"t\":[%d,%d]}", ($i ? "," : ""),
				int($x / 65536) % 97, $x % 1000, $i, $x % 13;
		}
		print "]\n"' $(_wl_scale $WL_JQ_ITEMS) $_wl_seed > "$_wl_d/jq.json"
	echo 'group_by(.k) | map({k: .[0].k, s: (map(.v) | add), n: length, m: (map(.t[1]) | max)}) | sort_by(-.s) | .[0:5]' > "$_wl_d/q.jq"
	cat > "$_wl_d/mawk.awk" <<-EOF
	BEGIN { n = $(_wl_scale $WL_MAWK_KEYS); x = $_wl_seed
		for (i = 0; i < n; i++) a["k" (i * 7919 % 1000003)] = i
		for (j = 0; j < $(_wl_scale $WL_MAWK_LOOKUPS); j++) {
			x = (x * 69069 + 1) % 4294967296
			s += a["k" (int(x / 256) % n * 7919 % 1000003)]
		}
		print s }
	EOF
	# make -j: a small build graph; the rule runs the deb's bzip2 by path
	{
		printf 'all: out\n'
		_wl_i=0 _wl_a=
		while [ $_wl_i -lt $WL_MAKE_PARTS ]; do
			_wl_a="$_wl_a p$_wl_i.bz2"
			printf 'p%d.bz2:\n\tdd if=corpus bs=32768 skip=%d count=2 2>/dev/null | /usr/bin/bzip2 -9 > $@\n' $_wl_i $((_wl_i * 2 % 16))
			_wl_i=$((_wl_i + 1))
		done
		printf 'out:%s\n\tcat $^ | /usr/bin/bzip2 -1 > $@\n' "$_wl_a"
		printf 'clean:\n\trm -f p*.bz2 out\n'
	} > "$_wl_d/build.mk"
	[ -s "$_wl_d/corpus" ] && [ -s "$_wl_d/lookup.db" ] && [ -s "$_wl_d/sat.cnf" ]
}

# wl_cmd NAME DIR: how to run NAME on DIR's inputs, one line, tab-separated:
# OKSTATUSES STDIN ARGV... (see the top); status 127 if NAME is unknown.
wl_cmd() {
	_wl_d=$2
	. "$_wl_d/params"
	_wl_n=$(nproc)
	_wl_sng="/usr/bin/stress-ng	-q	--temp-path	$_wl_d"
	_wl_o=0 _wl_in=/dev/null
	case $1 in
	xz)	_wl_c="/usr/bin/xz	-6	-T1	-c	$_wl_d/xz.in" ;;
	zstd)	_wl_c="/usr/bin/zstd	-19	-T1	-q	-c	$_wl_d/zstd.in" ;;
	bzip2)	_wl_c="/usr/bin/bzip2	-9	-c	$_wl_d/bzip2.in" ;;
	gzip)	_wl_c="/usr/bin/gzip	-9	-c	$_wl_d/gzip.in" ;;
	lz4)	_wl_c="/usr/bin/lz4	-9	-q	-c	$_wl_d/lz4.in" ;;
	brotli)	_wl_c="/usr/bin/brotli	-q	11	-c	$_wl_d/brotli.in" ;;
	sqlite)	_wl_in=$_wl_d/sqlite.sql _wl_c="/usr/bin/sqlite3	-batch	:memory:" ;;
	openssl-sha) _wl_c="/usr/bin/openssl	dgst	-sha256$(tr ' ' '\t' < "$_wl_d/sha.args")" ;;
	stress-cpu) _wl_c="$_wl_sng	--cpu	1	--cpu-method	int64	--cpu-ops	$_WL_CPU_OPS" ;;
	stress-matrix) _wl_c="$_wl_sng	--matrix	1	--matrix-method	prod	--matrix-size	64	--matrix-ops	$_WL_MATRIX_OPS" ;;
	stress-stream) _wl_c="$_wl_sng	--stream	1	--stream-l3-size	$WL_STREAM_L3	--stream-ops	$_WL_STREAM_OPS" ;;
	stress-vm) _wl_c="$_wl_sng	--vm	1	--vm-bytes	$WL_VM_BYTES	--vm-keep	--vm-populate	--vm-madvise	normal	--vm-method	read64	--vm-ops	$_WL_VM_OPS" ;;
	stress-randlist) _wl_c="$_wl_sng	--seed	$_WL_RANDLIST_SEED	--randlist	1	--randlist-compact	--randlist-items	$WL_RANDLIST_ITEMS	--randlist-size	$WL_RANDLIST_SIZE	--randlist-ops	$WL_RANDLIST_OPS" ;;
	sqlite-lookup) _wl_in=$_wl_d/lookup.sql _wl_c="/usr/bin/sqlite3	-batch	$_wl_d/lookup.db" ;;
	bc)	_wl_c="/usr/bin/bc	-lq	$_wl_d/bc.in" ;;
	gawk)	_wl_c="/usr/bin/gawk	-f	$_wl_d/gawk.awk	$_wl_d/gawk.in	$_wl_d/gawk.in" ;;
	sort)	_wl_c="/usr/bin/sort	--parallel=1	-S	16M$(tr ' ' '\t' < "$_wl_d/sort.args")" ;;
	gnugo)	_wl_in=$_wl_d/gnugo.gtp _wl_c="/usr/bin/gnugo	--mode	gtp	--level	1	--seed	$_WL_GNUGO_SEED" ;;
	minisat) _wl_o=10,20 _wl_c="/usr/bin/minisat	-verb=0	$_wl_d/sat.cnf" ;;
	lua)	_wl_c="/usr/bin/lua5.4	$_wl_d/trees.lua	$_WL_LUA_DEPTH	$_WL_LUA_ITERS" ;;
	perl)	_wl_c="/usr/bin/perl	$_wl_d/words.pl	$_wl_d/perl.in	$WL_PERL_TIMES" ;;
	lame)	_wl_c="/usr/bin/lame	-r	-s	44.1	--bitwidth	16	-m	m	--silent	-q	2	$_wl_d/lame.in	-" ;;
	jq)	_wl_c="/usr/bin/jq	-c	-f	$_wl_d/q.jq	$_wl_d/jq.json" ;;
	zopfli)	_wl_c="/usr/bin/zopfli	--i5	-c	$_wl_d/zopfli.in" ;;
	flac)	_wl_c="/usr/bin/flac	-s	-8	-c	--force-raw-format	--endian=little	--sign=signed	--channels=1	--bps=16	--sample-rate=44100	$_wl_d/flac.in" ;;
	mawk)	_wl_c="/usr/bin/mawk	-f	$_wl_d/mawk.awk" ;;
	xz-mt)	_wl_c="/usr/bin/xz	-6	-T$_wl_n	--block-size=64KiB	-c	$_wl_d/xzmt.in" ;;
	zstd-mt) _wl_c="/usr/bin/zstd	-12	-T$_wl_n	-B262144	-q	-c	$_wl_d/zstdmt.in" ;;
	make-j)	_wl_c="/usr/bin/make	-s	-B	-j$_wl_n	-C	$_wl_d	-f	build.mk" ;;
	spin)	_wl_c="/sbridge/bin/spin	600	$_WL_SPIN_ITERS" ;;
	chase)	_wl_c="/sbridge/bin/chase	16	600	$_WL_CHASE_LOADS" ;;
	*)	echo "wl_cmd: unknown workload $1" >&2; return 127 ;;
	esac
	printf '%s\t%s\t%s\n' "$_wl_o" "$_wl_in" "$_wl_c"
}

# wl_exec NAME DIR: exec NAME's program on its fixed work; never returns
# unless NAME is unknown (status 127). Exit statuses of success other than
# 0 (minisat's 10 and 20) become 0.
wl_exec() {
	_wl_l=$(wl_cmd "$1" "$2") || return 127
	export LC_ALL=C
	cd "$2" || exit 1
	set -f
	_wl_ifs=$IFS
	IFS='	'
	set -- $_wl_l
	IFS=$_wl_ifs
	_wl_o=$1 _wl_in=$2
	shift 2
	[ "$_wl_o" = 0 ] && exec "$@" < "$_wl_in" > /dev/null
	"$@" < "$_wl_in" > /dev/null
	_wl_s=$?
	case ",$_wl_o," in *",$_wl_s,"*) exit 0 ;; esac
	exit $_wl_s
}

# Expectations from what each does; on the rig (1b1s) the compressors, sqlite
# and sort measured big/little 1.7-2.2 like spin (their inputs fit the big
# LLC), stress-stream and chase 1.4-1.5, stress-vm, stress-randlist and
# sqlite-lookup (8-16 MiB working sets) 1.34, 1.48, 1.26. The held-out ones
# are expectations only (they are measured, never tuned on).
wl_kind() {
	case $1 in
	spin | stress-cpu | stress-matrix | bc | gzip | lz4 | openssl-sha | gawk) echo compute ;;
	lame | flac | zopfli) echo compute ;;
	chase | stress-stream | stress-vm | stress-randlist | sqlite-lookup) echo memory ;;
	lua | mawk | minisat) echo memory ;;
	gnugo | perl | jq) echo branch ;;
	*) echo mixed ;;	# xz zstd bzip2 brotli: big windows; sqlite; sort
	esac
}

# wl_heldout NAME: true for a program kept out of any tuning
wl_heldout() { case " $WL_HELDOUT " in *" $1 "*) return 0 ;; esac; return 1; }
