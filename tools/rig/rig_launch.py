"""QEMU command for the testbed's "rig" cells (tools/testbed/harness.py).

    import rig_launch
    cmd = rig_launch.command(k, initrd, smp, topology)
    cmd = rig_launch.command(k, initrd, smp, topology, capacities=False)
                                            # QEMU's own tree: symmetric view
    cmd = rig_launch.command(k, initrd, smp, topology, eas=True)
                                            # + OPPs and an energy model (EAS)

Returns the argv of tools/rig/run-rig.sh for kernel cell @k (needs k.arch
and k.vmlinuz), ending in "--" so the harness can append QEMU options
(-qmp ..., -S). run-rig.sh builds the plugin if needed, writes the device
tree with capacities from rig.conf, and exec's QEMU (same PID, so killing
the process group kills QEMU). The guest console is on stdout, the plugin's
per-vCPU report on stderr at exit.

    python3 rig_launch.py energy-dtb [--config F] --topology T --smp N [--mem MB]

prints the path of the energy-model device tree (run-rig.sh --energy).
"""
import configparser
import sys
from pathlib import Path

RIG = Path(__file__).resolve().parent
RUN = RIG / "run-rig.sh"
CONFIG = RIG / "rig.conf"
# QEMU's -cpu of run-rig.sh: the dumped tree must match the machine
QEMU_CPU = "cortex-a57,pmu=off"

# The energy model of '# eas: yes' boards comes from rig.conf, per
# core type: opp_mhz (ascending, up to freq_mhz), opp_mv (the voltage at each)
# and dyn_power (the dynamic-power-coefficient, uW/MHz/V^2), the same
# numbers the rig's plugin accounts energy with and its cpufreq driver
# (guest/rig_cpufreq.c) offers as OPPs.


def energy_model(config, topology, smp):
    """Per-CPU capacity-dmips-mhz, {dmips: OPPs (MHz, uV)}, {dmips: coefficient}.

    With a clock per CPU the kernel scales capacity-dmips-mhz by each CPU's
    maximum frequency, so the property is written per MHz: capacity x the
    biggest type's freq_mhz / this type's. cpu_capacity then comes out as
    rig.conf's capacity (little: 683 x 1200 / (1024 x 1600) -> 512), and
    683/1024 is the rig's per-clock compute ratio (1/1.5) too.
    """
    ini = configparser.ConfigParser(comment_prefixes=("#", ";"))
    ini.read(config)
    types = ini["topology"][topology].replace(",", " ").split()[:smp]
    if len(types) != smp:
        raise ValueError(f"topology {topology} has {len(types)} cores, smp is {smp}")
    spec = {t: (int(ini[f"type.{t}"]["capacity"]), int(ini[f"type.{t}"]["freq_mhz"]))
            for t in set(types)}
    ref = max(spec.values())[1]  # freq_mhz of the biggest capacity
    caps, opps, power = [], {}, {}
    for t in types:
        sec = ini[f"type.{t}"]
        if not all(k in sec for k in ("opp_mhz", "opp_mv", "dyn_power")):
            raise ValueError(f"core type {t}: no energy model (opp_mhz, opp_mv, "
                             "dyn_power) in the configuration")
        cap, mhz = spec[t]
        dmips = round(cap * ref / mhz)
        f = [int(x) for x in sec["opp_mhz"].split()]
        mv = [int(x) for x in sec["opp_mv"].split()]
        if len(f) != len(mv) or f[-1] != mhz:
            raise ValueError(f"core type {t}: opp_mhz and opp_mv must pair up, "
                             "the last clock being freq_mhz")
        opps[dmips] = tuple((a, v * 1000) for a, v in zip(f, mv))
        power[dmips] = int(sec["dyn_power"])
        caps.append(dmips)
    return caps, opps, power


def energy_dtb(config, topology, smp, mem=1024):
    """The rig's device tree with OPPs and an energy model (testbed guest.dtb)."""
    if "sbridge_testbed" not in sys.modules:  # run by run-rig.sh as a script
        sys.path.insert(0, str(RIG.parent))  # tools/, the package's import root
    from sbridge_testbed import guest
    caps, opps, power = energy_model(config, topology, smp)
    if len(set(caps)) < 2:
        raise ValueError(f"topology {topology}: EAS needs two core types")
    return guest.dtb(topology, smp, QEMU_CPU, mem, caps=caps, opps=opps, power=power)


def command(k, initrd, smp, topology, config=None, pace=None, stats=None,
            capacities=True, eas=False):
    """argv for booting @k with @initrd on the rig, @smp vCPUs of @topology.

    @capacities False boots QEMU's own device tree (no capacity-dmips-mhz,
    one cluster): the guest sees symmetric CPUs while the rig still runs
    each vCPU as its core type. @eas (arm64) boots the tree of energy_dtb()
    with sched_verbose, so the kernel says when EAS starts and stops.
    """
    arch = "arm64" if k.arch in ("arm64", "aarch64") else "x86_64"
    cmd = [str(RUN), "--arch", arch, "--kernel", str(k.vmlinuz),
           "--initrd", str(initrd), "--smp", str(smp),
           "--topology", topology, "--config", str(config or CONFIG)]
    if pace:
        cmd += ["--pace", pace]
    if stats:
        cmd += ["--stats", str(stats)]
    if not capacities and arch == "arm64":
        cmd += ["--dtb", "none"]
    if eas:
        if arch != "arm64" or not capacities:
            raise ValueError("eas: arm64 boards with capacities only")
        cmd += ["--energy"]
    return cmd + ["--"]


if __name__ == "__main__":
    import argparse
    ap = argparse.ArgumentParser(description="print the rig's energy-model device tree")
    ap.add_argument("what", choices=["energy-dtb"])
    ap.add_argument("--config", default=str(CONFIG))
    ap.add_argument("--topology", required=True)
    ap.add_argument("--smp", type=int, required=True)
    ap.add_argument("--mem", type=int, default=1024)
    a = ap.parse_args()
    try:
        print(energy_dtb(a.config, a.topology, a.smp, a.mem))
    except (ValueError, KeyError) as e:
        sys.exit(f"rig_launch: {e}")
