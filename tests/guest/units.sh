#!/bin/sh
# The package test's guest (tests/test_deb.py, tools/testbed/sysguest.py):
# a Debian root that boots systemd, with sbridgectl installed by dpkg and
# sbridge-dkms's files and modules laid out as the package and DKMS do.
# Run by sbridge-pkgtest.service once the system is up; TAP and the kernel
# log go to the serial console between the markers the harness reads,
# then the guest powers off.
#
# What it proves: loading sbridge_core applies /etc/sbridge/sbridge.conf
# and the layered rules every time (at boot through modules-load.d, by hand
# after modprobe -r, with sbridge_core alone), the units are inactive while
# the module is out, and `systemctl status` and `sbridgectl doctor` say so;
# the package's prerm stops them and its postinst applies both at once when
# the module is in already.
# /etc/sbridge/sbridge.conf sets act.gain 154 and act.hold_ms 700 (the
# defaults are 102 and 1000); /etc/sbridge/rules.d/90-pkgtest.rules adds
# one rule to the shipped ones.
exec > /dev/ttyS0 2>&1
# Kernel messages would interleave with TAP on the one console (the guest
# boots with loglevel=5): only emergencies there, as tests/guest/init
# does; the whole log follows the TAP anyway.
echo 1 > /proc/sys/kernel/printk
echo "@@SB-BEGIN $(uname -r) $(nproc)cpu"
(
. /sbridge/lib.sh
units="sbridge-config.service sbridge-rules.service"
plan 30

# wait_units STATE: both units in STATE ("active" or "inactive"), at most 60 s
wait_units() {
	_w=0
	while [ $_w -lt 120 ]; do
		[ "$(systemctl is-active $units | sort -u)" = "$1" ] && return 0
		sleep 0.5
		_w=$((_w + 1))
	done
	systemctl --no-pager status $units 2>&1 | head -n 30
	return 1
}
# in_force WHEN: the file's parameters and the layered rules are in force
in_force() {
	check "$1: act.gain 154 from sbridge.conf ($(sbridgectl get param act.gain))" \
		test "$(sbridgectl get param act.gain)" = "act.gain 154"
	check "$1: act.hold_ms 700 from sbridge.conf" \
		test "$(sbridgectl get param act.hold_ms)" = "act.hold_ms 700"
	check "$1: the layered rules in force, $want of them ($(sbridgectl rules list | wc -l))" \
		sh -c "sbridgectl rules list | grep -q '^comm=sbtest prefer=big' &&
		       test \$(sbridgectl rules list | wc -l) = $want"
}

state=$(systemctl is-system-running --wait 2>&1)
diag "system: $state; $(systemctl --failed --no-legend --plain | head -n 5 | tr '\n' ';')"
check "PID 1 is systemd" test "$(cat /proc/1/comm)" = systemd
want=$(sbridgectl rules check --system | sed -n 's/^\([0-9]*\) rules OK.*/\1/p')
diag "sbridgectl $(sbridgectl --version); $want rules in the layered set"
check "boot: modules-load.d loaded both modules" \
	test -d /sys/module/sbridge_core -a -d /sys/module/sbridge_pmu
check "boot: sys-module-sbridge_core.device is a systemd device" \
	systemctl is-active sys-module-sbridge_core.device
check "boot: both units active" wait_units active
in_force boot
check "doctor: the configuration and the rules as the files say" \
	sh -c "sbridgectl --json doctor > /tmp/doctor.json;
	       grep -q '\"area\":\"config\",\"status\":\"ok\"' /tmp/doctor.json &&
	       grep -q '\"area\":\"rules\",\"status\":\"ok\"' /tmp/doctor.json ||
	       { cat /tmp/doctor.json; exit 1; }"

# calibrate at boot (the unit's ExecStartPre=-sbridgectl calibrate --auto):
# this guest has one core type, so it measures the memory latency only;
# a boot busy enough to be refused says so in the journal instead
cal=/var/lib/sbridge/calibration.conf
journalctl -b -u sbridge-config.service --no-pager -o cat > /tmp/cal-boot.txt 2>&1
diag "boot calibrate: $(grep -i 'calibrat\|busy\|core type' /tmp/cal-boot.txt | head -n 3 | tr '\n' ';')"
check "boot: calibrate --auto ran in the unit (stored, or refused as busy)" \
	sh -c "test -s $cal || grep -q 'busy' /tmp/cal-boot.txt || { cat /tmp/cal-boot.txt; exit 1; }"
rm -f $cal
cal_by_hand() {
	sbridgectl calibrate --budget 2 --wait 30 > /tmp/cal.txt 2>&1 || { cat /tmp/cal.txt; return 1; }
	grep -q 'one core type' /tmp/cal.txt && grep -q '^param model.mem_latency_ns [1-9]' $cal ||
		{ cat /tmp/cal.txt $cal; return 1; }
}
check "calibrate by hand, one core type: the memory latency alone, stored" cal_by_hand
lat=$(sed -n 's/^param model.mem_latency_ns //p' $cal 2>/dev/null)
check "its latency is in force ($lat ns)" \
	test "$(sbridgectl get param model.mem_latency_ns)" = "model.mem_latency_ns $lat"

check "modprobe -r sbridge_pmu sbridge_core" modprobe -r sbridge_pmu sbridge_core
check "unloaded: systemctl says both units inactive" wait_units inactive
check "unloaded: doctor says sbridge_core is not loaded (exit 3)" \
	sh -c "sbridgectl doctor > /tmp/doctor.txt; test \$? = 3 &&
	       grep -q 'sbridge_core is not loaded' /tmp/doctor.txt"

check "modprobe sbridge_pmu (pulls in sbridge_core)" modprobe sbridge_pmu
check "reload: both units active again" wait_units active
in_force reload
check "reload: the unit applied the stored calibration ($lat ns)" \
	test "$(sbridgectl get param model.mem_latency_ns)" = "model.mem_latency_ns $lat"

# by hand again, sbridge_core named (its softdep brings sbridge_pmu): a
# setting changed at run time is the file's again after the load
sbridgectl set param act.gain 300 > /dev/null
modprobe -r sbridge_pmu sbridge_core && wait_units inactive > /dev/null
core_alone() { modprobe sbridge_core && wait_units active; }
check "modprobe sbridge_core: units active" core_alone
in_force "modprobe sbridge_core"
modprobe sbridge_pmu

# the package's own scripts with the module in: removing sbridgectl stops
# both units (the rules' stop clears them); installing it again replays the
# module's uevent and (re)starts them, so the file and the rules apply at
# once, without a reload (the tool is gone in between: sysfs is read)
echo 300 > /sys/module/sbridge_core/parameters/act_gain
remove() {
	dpkg -r sbridgectl > /tmp/dpkg.log 2>&1 || { cat /tmp/dpkg.log; return 1; }
	test "$(cat /sys/kernel/sbridge/rules)" = 0 && wait_units inactive
}
check "dpkg -r sbridgectl: both units stop, the rules are cleared" remove
reinstall() {
	dpkg -i /sbridge/sbridgectl.deb > /tmp/dpkg.log 2>&1 || { cat /tmp/dpkg.log; return 1; }
	wait_units active
}
check "dpkg -i sbridgectl with the module in: both units active" reinstall
in_force "dpkg -i"
check "no unit failed" test -z "$(systemctl --failed --no-legend --plain)"
)
echo "@@SB-RC $?"
echo "@@SB-TAINT $(cat /proc/sys/kernel/tainted)"
echo "@@SB-DMESG"
dmesg
echo "@@SB-END"
sync
systemctl poweroff --force --force
