"""Guest images: initramfs per cell and device trees per topology."""
import hashlib
import re
import shutil
import subprocess
import tempfile
from pathlib import Path

if not __package__:  # a script, or imported flat: see standalone.py
    import standalone  # type: ignore[import-not-found]  # noqa: F401
from sbridge_testbed import build
from sbridge_testbed.common import BUILD, TOP, run

# Topologies: per-CPU capacity-dmips-mhz (None: property left out, i.e. the
# symmetric-looking baseline). Big first, like most boards boot.
BIG, LITTLE = 1024, 446
TOPOLOGIES = {
    "smp": None,
    "sym": None,
    "1b1s": [BIG, LITTLE],
    "1b3s": [BIG, LITTLE, LITTLE, LITTLE],
    "3b1s": [BIG, BIG, BIG, LITTLE],
}


# cpufreq: operating points (MHz) per capacity, one policy per cluster, as
# cpufreq-dt drives them on real boards. The clock behind them is fixed
# (QEMU's virt board has none that changes rate): cpufreq, schedutil,
# freq_qos and the frequency-invariance scale all run for real, the
# emulated CPU just keeps its speed.
OPP_MHZ = {BIG: (500, 1000, 1500, 2000), LITTLE: (400, 800, 1200, 1400)}


def little_cpus(topology, smp):
    caps = TOPOLOGIES[topology]
    if not caps:
        return []
    return [i for i, c in enumerate(caps[:smp]) if c < max(caps)]


def _cpio(src_dir, dest):
    """newc cpio of @src_dir, gzipped, to @dest."""
    files = subprocess.run(["find", "."], cwd=src_dir, text=True, capture_output=True,
                           check=True).stdout
    with open(dest, "wb") as f:
        cp = subprocess.Popen(["cpio", "-o", "-H", "newc", "--quiet", "-R", "0:0"],
                              cwd=src_dir, stdin=subprocess.PIPE, stdout=subprocess.PIPE)
        gz = subprocess.Popen(["gzip", "-1"], stdin=cp.stdout, stdout=f)
        assert cp.stdout is not None
        cp.stdout.close()
        cp.communicate(files.encode())
        if gz.wait() or cp.returncode:
            raise RuntimeError(f"cpio of {src_dir} failed")


def base_initramfs(k, kos, progs, dest=None):
    """The part of a guest image shared by all scenarios of cell @k."""
    dest = dest or BUILD / "cells" / k.cell / "base.cpio.gz"
    with tempfile.TemporaryDirectory() as tmp:
        d = Path(tmp)
        d.chmod(0o755)  # becomes the guest's /: mkdtemp made it 0700
        for sub in ("bin", "sbin", "etc", "proc", "sys", "dev", "tmp", "root",
                    "sbridge/modules", "sbridge/bin", "sbridge/rules", "home/user"):
            (d / sub).mkdir(parents=True, exist_ok=True)
        shutil.copy(build.busybox(k.arch), d / "bin/busybox")
        # applet links come from the host's busybox list (same Debian source)
        for applet in subprocess.run(["busybox", "--list"], text=True, capture_output=True,
                                     check=True).stdout.split():
            if applet != "busybox":
                (d / "bin" / applet).symlink_to("busybox")
        shutil.copy(TOP / "tests/guest/init", d / "init")
        (d / "init").chmod(0o755)
        # init runs before any link exists: it needs busybox's shell by path
        text = (d / "init").read_text().replace("#!/bin/sh", "#!/bin/busybox sh", 1)
        (d / "init").write_text(text)
        shutil.copy(TOP / "tests/guest/lib.sh", d / "sbridge/lib.sh")
        # the evaluation's workloads (bench/eval), for make eval and its check
        (d / "sbridge/eval").mkdir()
        shutil.copy(TOP / "bench/eval/workloads.sh", d / "sbridge/eval/workloads.sh")
        for ko in kos:
            shutil.copy(ko, d / "sbridge/modules" / ko.name)
        for p in progs:
            shutil.copy(p, d / "sbridge/bin" / p.name)
        # the cell's own Debian modules a scenario may load (kernels.DISTRO_MODULES)
        if (k.dir / "kmod").is_dir():
            shutil.copytree(k.dir / "kmod", d / "sbridge/kmod")
        # the rig's fitted coefficients of the mix predictor (lib.sh rig_predictor)
        (d / "sbridge/rig").mkdir()
        for c in (TOP / "tools/rig").glob("*.coef"):
            shutil.copy(c, d / "sbridge/rig" / c.name)
        # and its configuration, the truth rig-calibrate compares with
        shutil.copy(TOP / "tools/rig/rig.conf", d / "sbridge/rig/rig.conf")
        for r in (TOP / "rules").glob("*"):
            if r.is_file():
                shutil.copy(r, d / "sbridge/rules" / r.name)
        (d / "etc/passwd").write_text("root:x:0:0:root:/root:/bin/sh\n"
                                      "user:x:1000:1000:user:/home/user:/bin/sh\n")
        (d / "etc/group").write_text("root:x:0:\nuser:x:1000:\n")
        (d / "home/user").chmod(0o777)
        (d / "tmp").chmod(0o1777)
        (d / "sbridge/release").write_text(k.release + "\n")
        _cpio(d, dest)
    return dest


def scenario_initramfs(base, scenario, dest, extra=()):
    """@base with /scenario.sh appended (the kernel unpacks every archive of
    the concatenation), then the archives @extra (debpkgs)."""
    with tempfile.TemporaryDirectory() as d:
        Path(d).chmod(0o755)  # the archive's "." entry would reset / to 0700
        shutil.copy(scenario, Path(d) / "scenario.sh")
        _cpio(Path(d), Path(d).with_suffix(".tail"))
        with open(dest, "wb") as f:
            f.write(Path(base).read_bytes())
            f.write(Path(d).with_suffix(".tail").read_bytes())
            for x in extra:
                f.write(Path(x).read_bytes())
        Path(d).with_suffix(".tail").unlink()
    return dest


def dtb(topology, smp, cpu="cortex-a57", mem=1024, machine="virt", cpufreq=False,
        caps=None, opps=None, power=None):
    """Device tree for arm64 virt with big.LITTLE capacities and clusters.

    QEMU's own tree is dumped (so it matches -M/-cpu/-smp/-m exactly), each
    cpu node gets capacity-dmips-mhz, and cpu-map is rewritten so that big
    and little CPUs sit in separate clusters, as on real boards. With
    @cpufreq each cluster also gets a clock and a shared OPP table, which
    the kernel's cpufreq-dt driver turns into one policy per cluster;
    @cpufreq "boot-low" starts each clock at its lowest OPP instead of its
    highest (the kernel scales the boot capacities by the clock's rate and
    again by the highest OPP once cpufreq-dt registers).

    The emulation rig (tools/rig/rig_launch.py) passes its own per-CPU
    capacity-dmips-mhz in @caps and, per capacity, OPPs as (MHz, uV) in
    @opps (implies @cpufreq) and a dynamic-power-coefficient in @power:
    with voltages and coefficients cpufreq-dt also registers an energy
    model per cluster, which Energy Aware Scheduling needs.
    """
    caps = list(caps) if caps else TOPOLOGIES[topology]
    if caps and len(caps) != smp:
        raise ValueError(f"topology {topology} has {len(caps)} CPUs, smp is {smp}")
    cpufreq = cpufreq or bool(opps)
    freq = "-cpufreq" if cpufreq else ""
    if cpufreq == "boot-low":
        freq += "-bootlow"
    if opps or power or caps != TOPOLOGIES.get(topology):
        # same name for the same tree, another one for another model
        key = repr((caps, sorted((opps or {}).items()), sorted((power or {}).items())))
        freq += "-" + hashlib.sha1(key.encode()).hexdigest()[:10]
    # no comma in the name: it ends up in -M virt,dumpdtb=
    out = BUILD / "dtb" / f"{machine}-{cpu.replace(',', '_')}-{topology}-{smp}-{mem}{freq}.dtb"
    if out.exists():
        return out
    out.parent.mkdir(parents=True, exist_ok=True)
    raw = out.with_suffix(".raw.dtb")
    run(["qemu-system-aarch64", "-M", f"{machine},dumpdtb={raw}", "-cpu", cpu,
         "-smp", str(smp), "-m", str(mem), "-nographic"],
        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    dts = subprocess.run(["dtc", "-q", "-I", "dtb", "-O", "dts", str(raw)], text=True,
                         capture_output=True, check=True).stdout
    if caps:
        phandles = {}
        for i in range(smp):
            dts, phandles[i] = _add_to_cpu(dts, i, f"capacity-dmips-mhz = <{caps[i]}>;")
        clusters: dict[int, list[int]] = {}
        for i, c in enumerate(caps):
            clusters.setdefault(c, []).append(i)
        cmap = "cpu-map {\n\t\t\tsocket0 {\n"
        for n, cpus in enumerate(sorted(clusters.values(), key=lambda v: v[0])):
            cmap += f"\t\t\t\tcluster{n} {{\n"
            for j, cpu_i in enumerate(cpus):
                cmap += f"\t\t\t\t\tcore{j} {{\n\t\t\t\t\t\tcpu = <{phandles[cpu_i]}>;\n\t\t\t\t\t}};\n"
            cmap += "\t\t\t\t};\n"
        cmap += "\t\t\t};\n\t\t};"
        dts, n = re.subn(r"cpu-map \{.*?\n\t\t\};", cmap, dts, count=1, flags=re.S)
        if n != 1:
            raise RuntimeError("cpu-map not found in QEMU's device tree")
    if cpufreq:
        dts = _add_opps(dts, list(caps or [BIG] * smp), opps, power,
                        boot_low=cpufreq == "boot-low")
    subprocess.run(["dtc", "-q", "-I", "dts", "-O", "dtb", "-o", str(out)], input=dts,
                   text=True, check=True)
    raw.unlink()
    return out


def _add_to_cpu(dts, i, *props):
    """@props appended to node cpu@i, after its phandle: (new dts, phandle)."""
    m = re.search(rf"cpu@{i:x} \{{.*?phandle = <(0x[0-9a-f]+)>;", dts, re.S)
    if not m:
        raise RuntimeError(f"cpu@{i} not found in QEMU's device tree")
    text = m.group(0) + "".join(f"\n\t\t\t{p}" for p in props)
    return dts.replace(m.group(0), text, 1), m.group(1)


def _add_opps(dts, caps, opps=None, power=None, boot_low=False):
    """Clock and shared OPP table per capacity class; cpu@i points at its own.

    @opps {capacity: ((MHz, uV or None), ...)} replaces OPP_MHZ; @power
    {capacity: dynamic-power-coefficient} adds that to the cpu nodes.
    """
    nodes = ""
    for n, cap in enumerate(sorted(set(caps), reverse=True)):
        pts = opps[cap] if opps else [(f, None) for f in OPP_MHZ[cap]]
        nodes += (f"\n\tsbridge_clk{n}: sbridge-clk{n} {{\n\t\tcompatible = \"fixed-clock\";\n"
                  f"\t\t#clock-cells = <0>;\n"
                  f"\t\tclock-frequency = <{pts[0 if boot_low else -1][0] * 1000000}>;\n\t}};\n"
                  f"\n\tsbridge_opp{n}: opp-table-{n} {{\n\t\tcompatible = \"operating-points-v2\";\n"
                  f"\t\topp-shared;\n")
        for f, uv in pts:
            volt = f"\t\t\topp-microvolt = <{uv}>;\n" if uv else ""
            nodes += (f"\t\topp-{f * 1000000} {{\n\t\t\topp-hz = /bits/ 64 <{f * 1000000}>;\n"
                      f"{volt}\t\t\tclock-latency-ns = <100000>;\n\t\t}};\n")
        nodes += "\t};\n"
        props = [f"clocks = <&sbridge_clk{n}>;", f"operating-points-v2 = <&sbridge_opp{n}>;"]
        if power:
            props.append(f"dynamic-power-coefficient = <{power[cap]}>;")
        for i, c in enumerate(caps):
            if c != cap:
                continue
            dts, _ = _add_to_cpu(dts, i, *props)
    end = dts.rstrip().rfind("};")
    return dts[:end] + nodes + dts[end:]
