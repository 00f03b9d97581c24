"""`make demo`: boot an emulated big.LITTLE board (arm64, 1 big + 3 little on
the rig: code-dependent core speeds and an emulated PMU, tools/rig), run a
mixed workload without and with sbridge, show the console."""
import argparse
import sys

import harness

ap = argparse.ArgumentParser(description=__doc__)
ap.add_argument("--cell", default="arm64-backports",
                help="arm64-bookworm, arm64-trixie or arm64-backports (default)")
a = ap.parse_args()
s = harness.load_scenario(harness.TOP / "bench" / "board-demo.sh")
k, base, _ = harness.prepared(a.cell)
how = ("on the emulation rig (tools/rig)" if s.rig else
       f"little vCPUs throttled to {s.throttle} of a host CPU")
print(f"[demo] booting {k.cell} ({k.release}), topology {s.topology}, {how}",
      flush=True)


def echo(text):
    # the guest's own lines only: skip the markers and the final dmesg dump.
    # Console chunks end anywhere: judge whole lines only.
    echo.part += text
    *lines, echo.part = echo.part.split("\n")
    for line in (ln.rstrip("\r") for ln in lines):
        echo.dmesg |= line.startswith("@@SB-DMESG")
        if not echo.dmesg and not line.startswith("@@SB-"):
            sys.stdout.write(line + "\n")
    sys.stdout.flush()


echo.dmesg = False
echo.part = ""
r = harness.run(k, s, base, echo=echo)
print(f"\n[demo] {'OK' if not r.problems else 'PROBLEMS: ' + '; '.join(r.problems)}"
      f" ({r.wall:.0f}s)")
sys.exit(1 if r.problems else 0)
