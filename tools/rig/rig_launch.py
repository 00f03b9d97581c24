"""QEMU command for the testbed's "rig" cells (tools/testbed/harness.py).

    import rig_launch
    cmd = rig_launch.command(k, initrd, smp, topology)
    cmd = rig_launch.command(k, initrd, smp, topology, capacities=False)
                                            # QEMU's own tree: symmetric view

Returns the argv of tools/rig/run-rig.sh for kernel cell @k (needs k.arch
and k.vmlinuz), ending in "--" so the harness can append QEMU options
(-qmp ..., -S). run-rig.sh builds the plugin if needed, writes the device
tree with capacities from rig.conf, and exec's QEMU (same PID, so killing
the process group kills QEMU). The guest console is on stdout, the plugin's
per-vCPU report on stderr at exit.
"""
from pathlib import Path

RIG = Path(__file__).resolve().parent
RUN = RIG / "run-rig.sh"
CONFIG = RIG / "rig.conf"


def command(k, initrd, smp, topology, config=None, pace=None, stats=None,
            capacities=True):
    """argv for booting @k with @initrd on the rig, @smp vCPUs of @topology.

    @capacities False boots QEMU's own device tree (no capacity-dmips-mhz,
    one cluster): the guest sees symmetric CPUs while the rig still runs
    each vCPU as its core type.
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
    return cmd + ["--"]
