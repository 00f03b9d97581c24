#!/bin/sh
# run-rig.sh - boot a kernel + initrd on the emulated big.LITTLE rig.
#
# Usage: run-rig.sh --kernel FILE --initrd FILE [options] [-- QEMU-ARGS...]
#   --kernel FILE      guest kernel image (required)
#   --initrd FILE      initramfs (required)
#   --arch A           arm64 (default) or x86_64
#   --smp N            vCPUs (default: number of cores in the topology)
#   --topology NAME    a key of [topology] in the config (default: its
#                      "default" key)
#   --config FILE      rig configuration (default: rig.conf next to this script)
#   --dtb FILE         arm64: use this device tree as is; without it one is
#                      generated from QEMU's own with capacity-dmips-mhz taken
#                      from each vCPU's core type ("--dtb none": QEMU's own,
#                      i.e. a symmetric-looking guest)
#   --energy           arm64: generated tree with a clock, OPPs (with voltages)
#                      and a dynamic-power-coefficient per cluster, so
#                      cpufreq-dt registers an energy model (EAS); adds
#                      sched_verbose to the default command line
#   --append STR       kernel command line (default: console=... loglevel=5 panic=-1)
#   --mem MB           guest memory (default 1024)
#   --pace MODE        always | guest | off (overrides the config's pace=)
#   --stats FILE       also write the plugin's exit report to FILE
#   --timeout SECS     kill QEMU after SECS (default: none)
# Guest console on stdout; the plugin's per-vCPU report on stderr at exit.
# Exit status: QEMU's (124 on timeout); 2 on bad arguments or setup errors.
# QEMU is exec'd: the PID of this script becomes QEMU's (or timeout's).
set -eu

RIG=$(cd "$(dirname "$0")" && pwd)
BUILD=${RIG_BUILD:-$(cd "$RIG/../.." && pwd)/build/rig}
arch=arm64 smp= topo= config=$RIG/rig.conf dtb= append= mem=1024 pace=
stats= timeout= kernel= initrd= energy=

die() { echo "run-rig: $*" >&2; exit 2; }
need() { [ $# -ge 2 ] || die "$1 needs a value"; }

while [ $# -gt 0 ]; do
	case $1 in
	--kernel) need "$@"; kernel=$2; shift 2 ;;
	--initrd) need "$@"; initrd=$2; shift 2 ;;
	--arch) need "$@"; arch=$2; shift 2 ;;
	--smp) need "$@"; smp=$2; shift 2 ;;
	--topology) need "$@"; topo=$2; shift 2 ;;
	--config) need "$@"; config=$2; shift 2 ;;
	--dtb) need "$@"; dtb=$2; shift 2 ;;
	--energy) energy=1; shift ;;
	--append) need "$@"; append=$2; shift 2 ;;
	--mem) need "$@"; mem=$2; shift 2 ;;
	--pace) need "$@"; pace=$2; shift 2 ;;
	--stats) need "$@"; stats=$2; shift 2 ;;
	--timeout) need "$@"; timeout=$2; shift 2 ;;
	--) shift; break ;;
	-h|--help) sed -n '2,29p' "$0"; exit 0 ;;
	*) die "unknown option '$1' (see --help)" ;;
	esac
done

[ -n "$kernel" ] && [ -r "$kernel" ] || die "--kernel FILE is required and readable"
[ -n "$initrd" ] && [ -r "$initrd" ] || die "--initrd FILE is required and readable"
[ -r "$config" ] || die "config '$config' not readable"
case $mem in ''|*[!0-9]*) die "--mem must be a number" ;; esac
case $pace in ''|always|guest|off) ;; *) die "--pace must be always|guest|off" ;; esac
case $timeout in *[!0-9]*) die "--timeout must be a number" ;; esac

# ini KEY SECTION: value of KEY in [SECTION] (comments on their own lines).
ini() {
	awk -v sec="$2" -v key="$1" '
		/^[ \t]*[#;]/ { next }
		/^[ \t]*\[/ { s = $0; gsub(/^[ \t]*\[|\][ \t]*$/, "", s); next }
		s == sec {
			line = $0; k = line; sub(/=.*/, "", k); gsub(/[ \t]/, "", k)
			if (k == key && index(line, "=")) {
				v = substr(line, index(line, "=") + 1)
				gsub(/^[ \t]+|[ \t]+$/, "", v); print v; exit
			}
		}' "$config"
}

[ -n "$topo" ] || topo=$(ini default topology)
[ -n "$topo" ] || die "no --topology and no [topology] default in $config"
types=$(ini "$topo" topology | tr ',' ' ')
[ -n "$types" ] || die "topology '$topo' not found in [topology] of $config"
ncores=$(echo $types | wc -w)
[ -n "$smp" ] || smp=$ncores
case $smp in ''|*[!0-9]*|0) die "--smp must be a positive number" ;; esac
[ "$smp" -le "$ncores" ] || die "topology '$topo' has $ncores cores, --smp is $smp"

case $arch in
arm64|aarch64)
	qemu=qemu-system-aarch64
	mach=virt cpu=cortex-a57,pmu=off
	# sched_verbose: the kernel logs when EAS starts and stops
	[ -n "$append" ] || append="console=ttyAMA0 loglevel=5 panic=-1 log_buf_len=4M${energy:+ sched_verbose}" ;;
x86_64|amd64)
	qemu=qemu-system-x86_64
	mach=pc cpu=qemu64
	# tsc=unstable: sched_clock is never marked stable, then unstable
	# (as the tsc's cpufreq notifier does when rig_cpufreq loads): each
	# mark patches kernel text on every CPU, and the rig's multi-threaded
	# TCG can then run a stale int3 (docs/testing.md, "retried, once")
	[ -n "$append" ] || append="console=ttyS0 loglevel=5 panic=-1 log_buf_len=4M tsc=unstable" ;;
*) die "--arch must be arm64 or x86_64" ;;
esac
command -v $qemu >/dev/null || die "$qemu not installed"

make -s -C "$RIG" BUILD="$BUILD" >&2 || die "building the plugin failed"
plugin=$BUILD/librig.so

# QEMU is exec'd (so a harness that kills the process group or the PID
# kills QEMU itself): nothing can clean up after it, so clear stale shared
# pages of earlier runs here and keep generated device trees in a cache.
for f in /dev/shm/rig-pmu.*; do
	[ -e "$f" ] || continue
	kill -0 "${f##*.}" 2>/dev/null || rm -f "$f"
done
shm=/dev/shm/rig-pmu.$$
trap 'rm -f "$shm"' EXIT INT TERM
truncate -s 65536 "$shm"

dtbargs=
if [ -n "$energy" ]; then
	[ -z "$dtb" ] || die "--energy generates the device tree: no --dtb with it"
	[ "$qemu" = qemu-system-aarch64 ] || die "--energy is for arm64"
	# one device-tree editor: the testbed's (tools/testbed/guest.py)
	dtb=$(python3 "$RIG/rig_launch.py" energy-dtb --config "$config" \
		--topology "$topo" --smp "$smp" --mem "$mem") || die "energy-model device tree failed"
fi
if [ "$arch" = arm64 ] || [ "$arch" = aarch64 ]; then
	if [ -z "$dtb" ]; then
		command -v dtc >/dev/null || die "dtc (device-tree-compiler) needed"
		caps=
		for t in $types; do
			c=$(ini capacity "type.$t")
			case $c in ''|*[!0-9]*) die "[type.$t] needs a numeric capacity" ;; esac
			caps="$caps $c"
		done
		out=$BUILD/dtb/virt-$smp-$mem-$(echo $caps | tr ' ' '-').dtb
		if [ ! -s "$out" ]; then
			mkdir -p "$BUILD/dtb"
			tmpd=$out.$$
			$qemu -M "$mach,dumpdtb=$tmpd.raw" -cpu "$cpu" -smp "$smp" \
				-m "$mem" -display none >/dev/null 2>&1 || true
			[ -s "$tmpd.raw" ] || die "could not dump QEMU's device tree"
			dtc -q -I dtb -O dts "$tmpd.raw" |
			awk -v caps="$caps" '
				BEGIN { n = split(caps, cap, " ") }
				{ print }
				/^\t\tcpu@[0-9]+ \{/ {
					id = $1; sub(/cpu@/, "", id); i = id + 1
					if (i <= n)
						printf "\t\t\tcapacity-dmips-mhz = <%d>;\n", cap[i]
				}' > "$tmpd.dts"
			dtc -q -I dts -O dtb -o "$tmpd" "$tmpd.dts" ||
				{ rm -f "$tmpd"*; die "dtc failed"; }
			mv "$tmpd" "$out"
			rm -f "$tmpd.raw" "$tmpd.dts"
		fi
		dtbargs="-dtb $out"
	elif [ "$dtb" != none ]; then
		[ -r "$dtb" ] || die "--dtb '$dtb' not readable"
		dtbargs="-dtb $dtb"
	fi
fi

pargs="config=$config,topology=$topo,shm=$shm"
[ -z "$pace" ] || pargs="$pargs,pace=$pace"
[ -z "$stats" ] || pargs="$pargs,stats=$stats"

set -- $qemu -M "$mach" -cpu "$cpu" -smp "$smp" -m "$mem" -accel tcg,thread=multi \
	-kernel "$kernel" -initrd "$initrd" $dtbargs -append "$append" \
	-nographic -no-reboot \
	-plugin "$plugin,$pargs" \
	-object memory-backend-file,id=rigpmu,share=on,mem-path="$shm",size=64K \
	-device ivshmem-plain,memdev=rigpmu "$@"
trap - EXIT INT TERM	# the page must outlive this shell: QEMU maps it
if [ -n "$timeout" ]; then
	exec timeout --foreground "$timeout" "$@"
fi
exec "$@"
