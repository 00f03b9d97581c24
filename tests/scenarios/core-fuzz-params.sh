#!/bin/sh
# scenario: module parameters and sysfs files under bad input: every malformed or out-of-range write to a parameter of either module is refused and changes nothing, a good one changes exactly that parameter, a user can write nothing, sbridge's read-only sysfs files refuse writes, and loads with bad parameters fail cleanly with nothing left behind
# arch: any
# stock: x86_64
# suite: bookworm
# debug: all
# timeout: 240
. "${SBRIDGE_LIB:-/sbridge/lib.sh}"

S=/sys/kernel/sbridge
plan 8

# state: every parameter of both modules, sbridge's own view of them, the
# CPUs and the rules (not the matrix, which learns from whatever runs, nor
# sbridge_pmu's live "counts")
state() {
	for _sf in /sys/module/sbridge_core/parameters/* /sys/module/sbridge_pmu/parameters/*; do
		[ "${_sf##*/}" = counts ] && continue
		[ -r "$_sf" ] || continue
		# read, not $(cat): state runs around each of ~275 writes, and a
		# fork per file made this scenario the suite's slowest on x86_64
		printf '%s=' "${_sf##*/}"
		while IFS= read -r _l; do echo "$_l"; done < "$_sf"
	done
	cat $S/params $S/cpus $S/rules
	nltest rules
}
# bad values: not numbers, negative, overflowing, trailing junk, empty,
# very long, control bytes; "R" stands for one above the range's top
long=$(head -c 5000 /dev/zero | tr '\0' 7)
BAD="x|-1|18446744073709551616|99999999999999999999999|5x|1 2|0x|1e3| |$long|4294967296"

check "sbridge loads" load_sbridge
n=0 refused=0 taken=0 bad=""
ro=""
for f in /sys/module/sbridge_core/parameters/* /sys/module/sbridge_pmu/parameters/*; do
	p=${f##*/}
	# read-only ones (0444; root passes test -w): one write, refused
	case $(stat -c %A "$f") in
	?rw*) ;;
	*)	printf '1\n' > "$f" 2>/dev/null && bad="$bad read-only $p took a write;"
		ro="$ro $p"
		continue ;;
	esac
	orig=$(cat "$f")
	state > /tmp/before
	IFS='|'
	for v in $BAD; do
		unset IFS
		n=$((n + 1))
		if printf '%s' "$v" > "$f" 2>/dev/null; then
			bad="$bad $p='$(echo "$v" | head -c 24)' accepted;"
			echo "$orig" > "$f"
			state > /tmp/before
		else
			refused=$((refused + 1))
			state > /tmp/after
			cmp -s /tmp/before /tmp/after ||
				bad="$bad $p='$(echo "$v" | head -c 24)' refused but moved: $(diff /tmp/before /tmp/after | grep '^[-+][^-+]' | head -n 2 | tr '\n' ' ');"
		fi
		IFS='|'
	done
	unset IFS
	# control bytes, straight from printf
	if printf '1\001\n' > "$f" 2>/dev/null; then bad="$bad $p control byte accepted;"; echo "$orig" > "$f"; fi
	# the value it holds, written back: taken, nothing moves
	state > /tmp/before
	if echo "$orig" > "$f"; then
		taken=$((taken + 1))
		state > /tmp/after
		cmp -s /tmp/before /tmp/after || bad="$bad $p rewriting $orig moved the state;"
	else
		bad="$bad $p refused its own value $orig;"
	fi
done
diag "$n bad writes, $refused refused; $taken parameters took their own value back; read-only:$ro"
diag "rel: fuzzed=$n"
check "every bad parameter write refused, nothing moved" test -z "$bad" -a "$n" -gt 50
[ -n "$bad" ] && diag "$bad"

# One good write changes that parameter and nothing else.
P=/sys/module/sbridge_core/parameters/phase_windows
old=$(cat $P)
state | grep -v '^phase_windows' | grep -v '^phase_windows ' > /tmp/before
echo $((old + 1)) > $P
state | grep -v '^phase_windows' | grep -v '^phase_windows ' > /tmp/after
check "a good write changes that parameter only" sh -c \
	"test \"\$(cat $P)\" = $((old + 1)) && diff /tmp/before /tmp/after"
echo "$old" > $P

# A user may write none of them (0644; sbridge checks CAP_SYS_ADMIN too).
state > /tmp/before
ub=""
for f in /sys/module/sbridge_core/parameters/* /sys/module/sbridge_pmu/parameters/*; do
	as_user sh -c "echo 1 > $f" 2>/dev/null && ub="$ub ${f##*/}"
done
state > /tmp/after
check "a user writes no parameter${ub:+ (took:$ub)}" sh -c "test -z '$ub' && diff /tmp/before /tmp/after"

# sbridge's own sysfs files are read-only, for root too.
rw=""
for f in $S/*; do
	[ -f "$f" ] || continue
	printf '0\n' > "$f" 2>/dev/null && rw="$rw ${f##*/}"
done
check "every file in $S refuses writes${rw:+ (took:$rw)}" test -z "$rw"
check "sbridge unloads" unload_sbridge

# Loads with bad parameters: each fails, says so, leaves nothing.
lb=""
# (an unknown parameter is the kernel's business: it loads and logs it)
for a in "act_period_ms=5" "act_period_ms=x" "act_up_util=2000" "act_down_util=900 act_up_util=100" \
	 "matrix_max=-1" "c=99999999999999999999" "cpu_types=zz" "learning=2"; do
	l0=$(dmesg | wc -l)
	# shellcheck disable=SC2086
	if insmod $MODDIR/sbridge_core.ko $a 2>/dev/null; then
		lb="$lb '$a' loaded;"
		rmmod sbridge_core
	elif grep -q '^sbridge_core ' /proc/modules || [ -e $S ]; then
		lb="$lb '$a' left something behind;"
	elif ! dmesg | tail -n +$((l0 + 1)) | grep -q 'sbridge_core'; then
		lb="$lb '$a' refused without a word;"
	fi
done
check "every load with a bad parameter failed, said why, left nothing" test -z "$lb"
[ -n "$lb" ] && diag "$lb"
check "sbridge still loads with good parameters" sh -c \
	"insmod $MODDIR/sbridge_core.ko act_period_ms=100 learning=1 && rmmod sbridge_core"
