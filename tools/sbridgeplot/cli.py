"""Command line of sbridge-plot: argparse, error reporting, `check`."""
import argparse
import os
import sys
from collections import Counter

from . import record

PROG = "sbridge-plot"


class Failure(Exception):
    """Bad input or an output that cannot be written: exit 1 with this message."""


def load(path, args):
    try:
        return record.parse(path, args.allow_truncated)
    except record.RecordError as e:
        raise Failure(str(e)) from None
    except OSError as e:
        raise Failure(f"{path}: cannot read: {e.strerror or e}") from None


def check(args):
    rec = load(args.file, args)
    classes = record.Classes([rec])
    m = rec.meta
    state = f"complete (end: {rec.end.reason})" if rec.end else \
        f"TRUNCATED after line {rec.last_line}"
    print(f"{rec.path}: sbridge-record {rec.version}, {rec.last_line} lines, {state}")
    print(f"kernel {m['kernel']}, sbridge {m['sbridge']}, samples at {m['rate_hz']} Hz")
    if "sbridge_events" in m:
        print("sbridge events recorded: "
              + (", ".join(e[8:] for e in m["sbridge_events"]) or "none"))
    print(f"duration {(rec.t1 - rec.t0) / 1e9:.3f} s (mono {rec.t0 / 1e9:.6f} .. "
          f"{rec.t1 / 1e9:.6f})")
    print(f"cpus {len(rec.cpus)}, types {len(rec.types)}:")
    for cpu in sorted(rec.cpus):
        c = rec.cpus[cpu]
        print(f"  {rec.cpu_label(cpu):12} type {c.type}  capacity {c.capacity}  "
              f"max {c.max_khz} kHz")
    kinds = Counter(e.name for e in rec.events)
    kinds.update(rec.other_events)
    print(f"records: {len(rec.samples)} samples, {len(rec.switches)} switches, "
          f"{len(rec.events) + sum(rec.other_events.values())} events"
          + (f", {len(rec.wakeups)} wakeups, {len(rec.migrations)} migrations"
             if rec.version != "1" else ""))
    for name, n in sorted(kinds.items()):
        note = "" if name in record.EVENTS else "  (not known to this reader: ignored)"
        print(f"  {name:16} {n}{note}")
    if rec.end:
        c = rec.end.counts
        print("end counts: " + " ".join(f"{k}={v}" for k, v in c.items()))
        have = {"events": len(rec.events) + sum(rec.other_events.values()),
                "samples": len(rec.samples), "switches": len(rec.switches),
                "wakeups": len(rec.wakeups), "migrations": len(rec.migrations)}
        for k, v in have.items():
            if k in c and c[k] != v:
                print(f"  note: end says {k}={c[k]}, the file holds {v}")
    names = rec.comms()
    wins = rec.windows()
    print(f"tasks {len(names)}:")
    for pid in sorted(names):
        share = classes.share(rec, pid, names[pid])
        how = f"median share {share:g}, {len(wins[pid])} windows" if pid in wins else \
            "no windows"
        print(f"  {pid:7} {names[pid]:16} {classes.of(rec, pid, names[pid]):8} ({how})")
    dec = rec.decisions()
    print(f"decisions {len(dec)} (target type changes, of "
          f"{len(rec.named('sbridge_decide'))} sbridge_decide events)")
    print(f"reports {len(rec.named('sbridge_report'))}")
    if not rec.switches:
        print("note: no switch records: the timeline shows busy share from samples")


def _output(path):
    d = os.path.dirname(os.path.abspath(path))
    if not os.path.isdir(d):
        raise Failure(f"{path}: cannot write: no directory {d}")


def _plots():
    try:
        from . import plots
    except ImportError as e:
        raise Failure(f"needs matplotlib (Debian: apt install python3-matplotlib): {e}") \
            from None
    return plots


def timeline(args):
    rec = load(args.file, args)
    others = [load(p, args) for p in args.classes_from]
    _output(args.output)
    _plots().draw_timeline(rec, record.Classes([rec] + others), args.output)


def compare(args):
    stock, sb = load(args.stock, args), load(args.sbridge, args)
    _output(args.output)
    _plots().draw_compare(stock, sb, record.Classes([stock, sb]), args.output)


def heatmap(args):
    rec = load(args.file, args)
    if not rec.samples:
        raise Failure(f"{args.file}: no sample records: nothing to draw a heatmap from")
    _output(args.output)
    _plots().draw_heatmap(rec, args.output)


def tasks(args):
    rec = load(args.file, args)
    wins = rec.windows()
    decided = Counter(e.f["pid"] for e in rec.named("sbridge_decide"))
    names = rec.comms()
    if args.pid is not None:
        pid = args.pid
        if pid not in wins and pid not in decided:
            raise Failure(f"{args.file}: no sbridge_window or sbridge_decide events "
                          f"for pid {pid}"
                          + rec.not_recorded("sbridge_window", "sbridge_decide"))
    else:
        cands = [p for p in set(wins) | set(decided)
                 if args.comm is None or names.get(p) == args.comm]
        if not cands:
            which = f" for comm {args.comm!r}" if args.comm is not None else ""
            raise Failure(f"{args.file}: no sbridge_window or sbridge_decide events{which}"
                          + rec.not_recorded("sbridge_window", "sbridge_decide"))
        # the task sbridge saw most
        pid = max(cands, key=lambda p: (len(wins.get(p, [])), decided[p], -p))
        if len(cands) > 1:
            which = f"named {args.comm!r}" if args.comm is not None else "with events"
            print(f"{PROG}: {len(cands)} tasks {which}; drawing pid {pid} "
                  f"({names.get(pid, '?')}, {len(wins.get(pid, []))} windows); "
                  "--pid picks another", file=sys.stderr)
    _output(args.output)
    _plots().draw_tasks(rec, pid, args.output)


def perfetto(args):
    from . import perfetto as pf
    rec = load(args.file, args)
    _output(args.output)
    text = pf.dumps(rec, record.Classes([rec] + [load(p, args) for p in args.classes_from]))
    tmp = f"{args.output}.tmp{os.getpid()}"
    try:
        with open(tmp, "w", encoding="ascii") as fh:
            fh.write(text + "\n")
        os.replace(tmp, args.output)
    except OSError as e:
        raise Failure(f"{args.output}: cannot write: {e.strerror or e}") from None
    finally:
        if os.path.exists(tmp):
            os.unlink(tmp)


def parser():
    ap = argparse.ArgumentParser(
        prog=PROG, description="Pictures and a Perfetto trace from a record file written "
        "by `sbridgectl record` (docs/record-format.md).")
    sub = ap.add_subparsers(dest="cmd", metavar="COMMAND", required=True)
    common = argparse.ArgumentParser(add_help=False)
    common.add_argument("--allow-truncated", action="store_true",
                        help="read a file without its end record (cut short) anyway")

    def cmd(name, fn, help, out=None):
        p = sub.add_parser(name, parents=[common], help=help, description=help)
        p.set_defaults(fn=fn)
        if out:
            p.add_argument("-o", "--output", required=True, metavar=out,
                           help=f"the {out} file to write")
        return p

    p = cmd("check", check, "parse a record file and print a summary")
    p.add_argument("file", metavar="FILE")
    p = cmd("timeline", timeline, "per-CPU timeline of running tasks by class, "
            "decisions marked", "PNG")
    p.add_argument("file", metavar="FILE")
    p.add_argument("--classes-from", metavar="FILE", action="append", default=[],
                   help="classify tasks without windows by their comm's class in FILE "
                   "(repeatable)")
    p = cmd("compare", compare, "the stock scheduler's timeline above sbridge's", "PNG")
    p.add_argument("stock", metavar="STOCK")
    p.add_argument("sbridge", metavar="SBRIDGE")
    p = cmd("heatmap", heatmap, "per-CPU runqueue length and idle share, checker "
            "reports marked", "PNG")
    p.add_argument("file", metavar="FILE")
    p = cmd("tasks", tasks, "a task's CPI stack per core type and its decision factors",
            "PNG")
    p.add_argument("file", metavar="FILE")
    g = p.add_mutually_exclusive_group()
    g.add_argument("--comm", metavar="NAME", help="the task named NAME (decoded, as "
                   "`check` prints it)")
    g.add_argument("--pid", metavar="PID", type=int, help="the task with this pid")
    p = cmd("perfetto", perfetto, "Chrome/Perfetto trace event JSON", "JSON")
    p.add_argument("file", metavar="FILE")
    p.add_argument("--classes-from", metavar="FILE", action="append", default=[],
                   help="as for timeline")
    return ap


def main(argv=None):
    args = parser().parse_args(argv)
    try:
        args.fn(args)
    except Failure as e:
        print(f"{PROG}: {e}", file=sys.stderr)
        return 1
    except BrokenPipeError:
        return 1
    except OSError as e:  # writing the picture
        print(f"{PROG}: {args.output}: cannot write: "
              f"{e.strerror or e}", file=sys.stderr)
        return 1
    return 0
