"""`make demo`: boot an emulated big.LITTLE board (arm64, 1 big + 3 little on
the rig: code-dependent core speeds and an emulated PMU, tools/rig), run a
mixed workload without and with sbridge, show the console, and draw where
every task ran in both runs (sbridgectl record -> tools/sbridge-plot)."""
import argparse
import subprocess
import sys

if not __package__:  # a script, or imported flat: see standalone.py
    import standalone  # type: ignore[import-not-found]  # noqa: F401
from sbridge_testbed import harness

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


class Echo:
    """The guest's own lines only: skip the markers, the files handed to
    the host (base64) and the final dmesg dump."""

    def __init__(self):
        self.part = ""      # console chunks end anywhere: whole lines only
        self.dmesg = False  # past @@SB-DMESG
        self.file = False   # inside a save_file block

    def __call__(self, text):
        self.part += text
        *lines, self.part = self.part.split("\n")
        for line in (ln.rstrip("\r") for ln in lines):
            self.dmesg |= line.startswith("@@SB-DMESG")
            if line.startswith("@@SB-FILE "):
                self.file = True
            elif line.startswith("@@SB-FILE-END"):
                self.file = False
            elif not self.dmesg and not self.file and not line.startswith("@@SB-"):
                sys.stdout.write(line + "\n")
        sys.stdout.flush()


def pictures(files):
    """The stock run's timeline above sbridge's; returns the PNG or None."""
    recs = [files / f"{n}.rec" for n in ("stock", "sbridge")]
    missing = [p.name for p in recs if not p.exists()]
    if missing:
        print(f"[demo] no picture: the guest handed back no {', '.join(missing)}")
        return None
    out = harness.TOP / "build" / "demo"
    out.mkdir(parents=True, exist_ok=True)
    plot = str(harness.TOP / "tools" / "sbridge-plot")
    png = out / "timeline.png"
    cmds = [[plot, "compare", *map(str, recs), "-o", str(png)],
            [plot, "heatmap", str(recs[1]), "-o", str(out / "heatmap.png")],
            [plot, "perfetto", str(recs[1]), "-o", str(out / "sbridge.json")]]
    for cmd in cmds:
        p = subprocess.run(cmd, capture_output=True, text=True)
        if p.returncode:
            print(f"[demo] {' '.join(cmd[1:2])} failed: {p.stderr.strip()}")
            return None
    return png


r = harness.run(k, s, base, echo=Echo())
png = pictures(harness.files_dir(k, s)) if not r.problems else None
print(f"\n[demo] {'OK' if not r.problems else 'PROBLEMS: ' + '; '.join(r.problems)}"
      f" ({r.wall:.0f}s)")
if png:
    print(f"[demo] where each task ran, stock scheduler above sbridge: {png}")
    print(f"[demo] records: {harness.files_dir(k, s)}/{{stock,sbridge}}.rec; "
          f"runqueues: {png.parent / 'heatmap.png'}; "
          f"Perfetto trace: {png.parent / 'sbridge.json'}")
sys.exit(1 if r.problems or not png else 0)
