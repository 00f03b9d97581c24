"""The emulation rig off QEMU (tools/rig): its guest programs, its plugin's
timing model, and the mix predictor's fit (tools/mixfit.py)."""
import re
import subprocess
from pathlib import Path

import pytest

TOP = Path(__file__).resolve().parents[1]


@pytest.mark.parametrize("arch,machine", [("x86_64", "X86-64"), ("arm64", "AArch64")])
def test_rig_programs_build(tmp_path, arch, machine):
    """tools/rig's calibration programs: `make progs` builds them static and
    warning-free for the guest's arch (tools/rig/README.md)."""
    r = subprocess.run(["make", "-C", str(TOP / "tools/rig"), "progs", f"PROG_ARCH={arch}",
                        f"BUILD={tmp_path}"], text=True, capture_output=True)
    out = r.stdout + r.stderr
    assert r.returncode == 0, out
    assert "warning:" not in out, out
    for prog in ("rigbench", "rigstat"):
        path = tmp_path / "progs" / arch / prog
        hdr = subprocess.run(["readelf", "-h", "-l", str(path)], text=True,
                             capture_output=True).stdout
        assert re.search(rf"Machine:.*{machine}", hdr), hdr
        assert "INTERP" not in hdr, f"{prog} is not static"


def _rigtest(tmp_path):
    """tests/host/rig/rigtest.c linked with the rig's plugin (its QEMU API stubbed)."""
    subprocess.run(["make", "-s", "-C", str(TOP / "tools/rig")], check=True,
                   capture_output=True)  # fetches qemu-plugin.h if needed
    glib = subprocess.run(["pkg-config", "--cflags", "--libs", "glib-2.0"], text=True,
                          capture_output=True, check=True).stdout.split()
    exe = tmp_path / "rigtest"
    r = subprocess.run(["gcc", "-O2", "-Wall", "-Wextra", "-Wno-unused-parameter",
                        f"-I{TOP / 'build/rig'}", f"-I{TOP / 'tools/rig/guest'}",
                        str(TOP / "tools/rig/plugin/rig.c"),
                        str(TOP / "tests/host/rig/rigtest.c"), "-o", str(exe), "-lm", *glib],
                       text=True, capture_output=True)
    assert r.returncode == 0 and "warning:" not in r.stderr, r.stderr
    return exe


def _rig_conf(tmp_path, name, edit=lambda s: s):
    p = tmp_path / name
    p.write_text(edit((TOP / "tools/rig/rig.conf").read_text()))
    return p


def test_rig_plugin_model(tmp_path):
    """The rig's timing model off QEMU: class counts, reference cycles,
    dynamic and idle energy from the energy model, the DVFS latency and
    ramp (wall time = model x slowdown), low clocks after a wakeup
    (tools/rig/README.md, "The model")."""
    exe = _rigtest(tmp_path)
    conf = _rig_conf(tmp_path, "t.conf", lambda s: s.replace("slowdown = 50", "slowdown = 10")
                     .replace("dvfs_latency_us = 100", "dvfs_latency_us = 1000")
                     .replace("dvfs_ramp_mhz_per_us = 10", "dvfs_ramp_mhz_per_us = 1"))
    r = subprocess.run([str(exe), str(conf), str(tmp_path / "shm")], text=True,
                       capture_output=True)
    assert r.returncode == 0 and "not ok" not in r.stdout, r.stdout + r.stderr
    assert r.stdout.count("\nok - ") >= 18, r.stdout


@pytest.mark.parametrize("what,edit,topology", [
    ("an OPP voltage missing", lambda s: s.replace("opp_mv = 900 950 1000 1050 1100",
                                                    "opp_mv = 900 950 1000 1050"), "1b1s"),
    ("the top OPP not freq_mhz", lambda s: s.replace("opp_mhz = 800 1000 1200 1400 1600",
                                                      "opp_mhz = 800 1000 1200 1400 1500"), "1b1s"),
    ("OPPs not ascending", lambda s: s.replace("opp_mhz = 800 1000 1200 1400 1600",
                                                "opp_mhz = 800 1200 1000 1400 1600"), "1b1s"),
    ("a domain spanning two types", lambda s: s + "\n[domains]\n1b1s = 0 0\n", "1b1s"),
    ("a negative DVFS latency", lambda s: s.replace("dvfs_latency_us = 100",
                                                     "dvfs_latency_us = -5"), "1b1s"),
    ("low_clock_pct above 100", lambda s: s.replace("low_clock_pct = 75",
                                                     "low_clock_pct = 150"), "1b1s"),
])
def test_rig_plugin_refuses_bad_clocks(tmp_path, what, edit, topology):
    """A configuration with bad clocks, OPPs or domains is refused at load."""
    exe = _rigtest(tmp_path)
    r = subprocess.run([str(exe), str(_rig_conf(tmp_path, "bad.conf", edit)),
                        str(tmp_path / "shm"), topology], text=True, capture_output=True)
    assert r.returncode == 1, f"{what}: accepted\n{r.stderr}"
    assert r.stderr.startswith("rig: "), r.stderr


def test_rig_plugin_takes_every_topology(tmp_path):
    """rig.conf's own topologies all load (two vCPUs of each)."""
    import configparser
    exe = _rigtest(tmp_path)
    ini = configparser.ConfigParser()
    ini.read(TOP / "tools/rig/rig.conf")
    for topo in ini["topology"]:
        if topo == "default":
            continue
        r = subprocess.run([str(exe), str(TOP / "tools/rig/rig.conf"), str(tmp_path / "shm"),
                            topo], text=True, capture_output=True)
        assert r.returncode == 0, f"{topo}: {r.stderr}"


def _mixcal(tmp_path, progs, fast, slow, clock, noise=0.0):
    """A calibration file as rig-mixcal.sh saves it, from CPI tables."""
    import json
    import random
    rnd = random.Random(27)
    lines = []
    for name, (shares, stall_ns) in progs.items():
        cf = sum(a * b for a, b in zip(fast, shares))
        cs = sum(a * b for a, b in zip(slow, shares))
        # the big clock is `clock` GHz, the little one 1 GHz; stalls in ns
        t_big, t_little = cf / clock + stall_ns, cs + stall_ns
        for side, cpi, st, t in (("big", cf + stall_ns * clock, stall_ns * clock, t_big),
                                 ("little", cs + stall_ns, stall_ns, t_little)):
            task = {"tasks": [{"cpi": cpi, "cpi_stall": st, "mix": dict(
                zip(("ldst", "int", "fp", "branch"), shares[1:]))}]}
            rate = 1000 / t * (1 + rnd.uniform(-noise, noise))
            lines.append(f"run {name} {side} {rate} {json.dumps(task)}")
    f = tmp_path / "mixcal.txt"
    f.write_text("\n".join(lines) + "\n")
    return f


def _pair(text):
    m = re.search(r"^pair 1/0 clock=([\d.]+) err=([\d.]+) fast=([\d.,]+) slow=([\d.,]+)$",
                  text, re.M)
    assert m, text
    return (float(m[1]), float(m[2]), [float(x) for x in m[3].split(",")],
            [float(x) for x in m[4].split(",")])


# other, ldst, int, fp, branch: shares of each calibration program
MIX_PROGS = {
    "alu": ([0.05, 0.05, 0.8, 0.0, 0.1], 0.0), "ldst": ([0.0, 0.6, 0.3, 0.0, 0.1], 0.0),
    "branch": ([0.0, 0.0, 0.5, 0.0, 0.5], 0.0), "fp": ([0.0, 0.0, 0.05, 0.9, 0.05], 0.0),
    "blend": ([0.1, 0.2, 0.4, 0.1, 0.2], 0.0), "chase": ([0.0, 0.4, 0.4, 0.0, 0.2], 90.0),
    "mix2": ([0.12, 0.3, 0.3, 0.2, 0.08], 0.0), "fp2": ([0.0, 0.3, 0.1, 0.5, 0.1], 0.0),
    "br2": ([0.15, 0.1, 0.3, 0.1, 0.35], 0.0),
}


def test_mixfit_recovers_a_board(tmp_path):
    """tools/mixfit.py finds the CPI tables and clock that made the runs."""
    fast, slow, clock = [0.5, 0.6, 0.45, 0.8, 0.6], [0.7, 1.0, 0.65, 1.6, 0.9], 1.6
    f = _mixcal(tmp_path, MIX_PROGS, fast, slow, clock)
    r = subprocess.run(["/usr/bin/python3", str(TOP / "tools/mixfit.py"), str(f)],
                       text=True, capture_output=True)
    assert r.returncode == 0, r.stderr
    c, err, cf, cs = _pair(r.stdout)
    assert abs(c - clock) < 0.01 and err == 0.03, r.stdout
    assert all(abs(a - b) < 0.01 for a, b in zip(cf + cs, fast + slow)), r.stdout


def test_mixfit_error_follows_the_noise(tmp_path):
    """Noisy rates give a larger leave-one-out error, and too few programs no fit."""
    fast, slow = [0.5, 0.6, 0.45, 0.8, 0.6], [0.7, 1.0, 0.65, 1.6, 0.9]
    f = _mixcal(tmp_path, MIX_PROGS, fast, slow, 1.6, noise=0.15)
    r = subprocess.run(["/usr/bin/python3", str(TOP / "tools/mixfit.py"), str(f)],
                       text=True, capture_output=True)
    assert r.returncode == 0, r.stderr
    assert _pair(r.stdout)[1] > 0.05, r.stdout
    two = dict(list(MIX_PROGS.items())[:2])
    f = _mixcal(tmp_path, two, fast, slow, 1.6)
    r = subprocess.run(["/usr/bin/python3", str(TOP / "tools/mixfit.py"), str(f)],
                       text=True, capture_output=True)
    assert r.returncode != 0 and "need 3" in r.stderr
