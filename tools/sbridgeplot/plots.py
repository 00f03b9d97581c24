"""The pictures. matplotlib with the Agg backend: no display needed."""
import math
import os
import statistics
from collections import defaultdict

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402  (matplotlib's own dependency)
from matplotlib.collections import PolyCollection  # noqa: E402
from matplotlib.lines import Line2D  # noqa: E402
from matplotlib.patches import Patch  # noqa: E402

COLOURS = {"compute": "#e6550d", "memory": "#3182bd", "mixed": "#9e9ac8",
           "unknown": "#bdbdbd", "busy": "#969696"}
LABELS = {"compute": "compute (CPI_B share >= 60%)", "memory": "memory (share <= 40%)",
          "mixed": "mixed (between)", "unknown": "unknown (no windows)",
          "busy": "busy share (samples; no switch records)"}
REPORT = "#d62728"


def _txt(s):
    """Text from the file drawn as is: matplotlib reads $...$ as math."""
    return s.replace("$", r"\$")


def _sec(rec):
    t0 = rec.t0
    return lambda ts: (ts - t0) / 1e9


def _rows(ax, rec):
    cpus = sorted(rec.cpus)
    ax.set_yticks(range(len(cpus)), [rec.cpu_label(c) for c in cpus])
    ax.set_ylim(len(cpus) - 0.5, -0.5)  # cpu0 on top
    return {cpu: i for i, cpu in enumerate(cpus)}


def _decision_marks(rec):
    """(marker, label) per decision, by where it sends the task."""
    fast = rec.types[0] if rec.types else None
    out = []
    for e, cpu in rec.decisions():
        to = e.f["to"]
        if to < 0:
            out.append((e, cpu, "x", "decision: left to stock"))
        elif to == fast:
            out.append((e, cpu, "^", f"decision: to {rec.type_name(to)}"))
        else:
            out.append((e, cpu, "v", "decision: to a slower type"))
    return out


def timeline(ax, rec, classes, title):
    """Per-CPU bars of the running task, coloured by class; returns legend handles."""
    sec = _sec(rec)
    span = max(sec(rec.t1), 1e-9)
    row = _rows(ax, rec)
    used = set()
    ivs = rec.intervals()
    if ivs:
        bars = defaultdict(list)
        for iv in ivs:
            cls = classes.of(rec, iv.pid, iv.comm)
            used.add(cls)
            bars[(iv.cpu, cls)].append((sec(iv.start), (iv.stop - iv.start) / 1e9))
        for (cpu, cls), xr in bars.items():
            ax.broken_barh(xr, (row[cpu] - 0.4, 0.8), facecolors=COLOURS[cls], linewidth=0)
        # names on the bars wide enough to hold them
        for iv in sorted(ivs, key=lambda iv: iv.start - iv.stop)[:200]:
            w = (iv.stop - iv.start) / 1e9
            if w < span * 0.05:
                break
            ax.text(sec(iv.start) + w / 2, row[iv.cpu], _txt(iv.comm), ha="center",
                    va="center", fontsize=7, clip_on=True)
    else:
        # no switch records: show how busy each CPU was instead
        period = 1e9 / rec.meta["rate_hz"]
        last: dict = {}
        bars = defaultdict(list)
        for s in sorted(rec.samples, key=lambda s: s.ts):
            start = last.get(s.cpu, s.ts - period)
            last[s.cpu] = s.ts
            if s.busy:
                h = 0.8 * s.busy / 1000
                ax.broken_barh([(sec(start), (s.ts - start) / 1e9)], (row[s.cpu] + 0.4 - h, h),
                               facecolors=COLOURS["busy"], linewidth=0)
                used.add("busy")
    marks = defaultdict(list)
    for e, cpu, m, label in _decision_marks(rec):
        marks[(m, label)].append((sec(e.ts), row[cpu] - 0.4))
    for (m, _label), pts in marks.items():
        ax.scatter([p[0] for p in pts], [p[1] for p in pts], marker=m, s=30, c="black",
                   linewidths=1, zorder=3, clip_on=False)
    if not used:
        ax.text(0.5, 0.5, "nothing ran (no switch records, no busy samples)",
                transform=ax.transAxes, ha="center", va="center")
    ax.set_xlim(0, span)
    ax.set_xlabel("seconds since the recording started")
    ax.set_title(title, fontsize=10, loc="left")
    ax.grid(axis="x", alpha=0.3)
    handles = {LABELS[c]: Patch(color=COLOURS[c]) for c in COLOURS if c in used}
    for m, label in marks:
        handles[label] = Line2D([], [], marker=m, color="black", linestyle="none")
    return handles


def _title(rec, what):
    kernel = rec.meta.get("kernel", "?")
    state = "" if rec.end else ", TRUNCATED"
    return _txt(f"{what}: {os.path.basename(rec.path)} (kernel {kernel}, sbridge "
                f"{rec.meta.get('sbridge', '?')}{state})")


def _save(fig, out):
    tmp = f"{out}.tmp{os.getpid()}"
    try:
        fig.savefig(tmp, format="png", dpi=110, bbox_inches="tight")
        os.replace(tmp, out)
    finally:
        plt.close(fig)
        if os.path.exists(tmp):
            os.unlink(tmp)


def _legend(fig, handles):
    if not handles:
        return
    # below the axes; savefig's tight bbox grows the picture to hold it
    fig.legend(list(handles.values()), list(handles), loc="upper center",
               ncol=min(len(handles), 4), fontsize=8, frameon=False,
               bbox_to_anchor=(0.5, 0))


def draw_timeline(rec, classes, out):
    fig, ax = plt.subplots(figsize=(12, 1.6 + 0.45 * len(rec.cpus)))
    handles = timeline(ax, rec, classes, _title(rec, "running task per CPU"))
    fig.tight_layout()
    _legend(fig, handles)
    _save(fig, out)


def draw_compare(stock, sb, classes, out):
    n1, n2 = len(stock.cpus), len(sb.cpus)
    fig, (a1, a2) = plt.subplots(2, 1, sharex=True, figsize=(12, 2.6 + 0.45 * (n1 + n2)),
                                 gridspec_kw={"height_ratios": [n1 + 1, n2 + 1]})
    handles = timeline(a1, stock, classes, _title(stock, "stock scheduler"))
    handles.update(timeline(a2, sb, classes, _title(sb, "sbridge")))
    a1.set_xlabel("")
    a1.set_xlim(0, max([1e-9] + [(r.t1 - r.t0) / 1e9 for r in (stock, sb)]))
    fig.suptitle("Which task ran where: the stock scheduler above, sbridge below",
                 fontsize=11)
    fig.tight_layout()
    _legend(fig, handles)
    _save(fig, out)


def _grid(rec):
    """Per-CPU mean runqueue length and idle % in time bins of at least one sample period."""
    cpus = sorted(rec.cpus)
    idx = {c: i for i, c in enumerate(cpus)}
    span = max(rec.t1 - rec.t0, 1)
    width = max(1e9 / rec.meta["rate_hz"], span / 600)
    nb = max(1, math.ceil(span / width))
    tot = np.zeros((2, len(cpus), nb))
    cnt = np.zeros((len(cpus), nb))
    period = 1e9 / rec.meta["rate_hz"]
    last: dict = {}

    def binof(ts):
        return min(nb - 1, max(0, int((ts - rec.t0 - 1) // width)))

    # A sample closes the interval since its CPU's previous one: a slow
    # sampler (a loaded board) still fills every bin it speaks for.
    for s in sorted(rec.samples, key=lambda s: s.ts):
        i = idx[s.cpu]
        first = binof(last.get(s.cpu, s.ts - period) + 1)
        last[s.cpu] = s.ts
        for b in range(first, binof(s.ts) + 1):
            tot[0, i, b] += s.nr
            tot[1, i, b] += (1000 - s.busy) / 10
            cnt[i, b] += 1
    with np.errstate(invalid="ignore", divide="ignore"):
        mean = tot / cnt
    edges = np.arange(nb + 1) * width / 1e9
    return edges, np.ma.masked_invalid(mean[0]), np.ma.masked_invalid(mean[1])


def draw_heatmap(rec, out):
    edges, rq, idle = _grid(rec)
    sec = _sec(rec)
    fig, axes = plt.subplots(2, 1, sharex=True, figsize=(12, 2.8 + 0.7 * len(rec.cpus)))
    y = np.arange(len(rec.cpus) + 1) - 0.5
    panels = ((rq, "runqueue length (tasks runnable, mean)", "YlOrRd", 0, max(1, rq.max() or 1)),
              (idle, "idle share of the CPU (%)", "Blues", 0, 100))
    for ax, (data, name, cmap, lo, hi) in zip(axes, panels):
        row = _rows(ax, rec)
        mesh = ax.pcolormesh(edges, y, data, cmap=cmap, vmin=lo, vmax=hi, shading="flat")
        fig.colorbar(mesh, ax=ax, pad=0.01, label=name.split(" (")[0])
        ax.set_title(name, fontsize=10, loc="left")
        for e in rec.named("sbridge_report"):
            idle_cpu, busy_cpu = e.f["idle"], e.f["busy"]
            if idle_cpu not in row:
                continue
            x = sec(e.ts)
            if busy_cpu in row:
                ax.plot([x, x], [row[idle_cpu], row[busy_cpu]], color=REPORT, lw=1, zorder=3)
                ax.scatter([x], [row[busy_cpu]], marker="o", s=30, facecolors="none",
                           edgecolors=REPORT, zorder=4)
            ax.scatter([x], [row[idle_cpu]], marker="x", s=40, c=REPORT, zorder=4)
    axes[-1].set_xlabel("seconds since the recording started")
    axes[-1].set_xlim(0, edges[-1])
    fig.suptitle(_title(rec, "runqueues and idle time per CPU"), fontsize=11)
    nrep = len(rec.named("sbridge_report"))
    handles = {f"checker report ({nrep}): CPU that idled":
               Line2D([], [], marker="x", color=REPORT, linestyle="none"),
               "CPU that had waiting tasks": Line2D([], [], marker="o", color=REPORT,
                                                    markerfacecolor="none", linestyle="none")}
    fig.tight_layout()
    _legend(fig, handles)
    _save(fig, out)


def _bars(ax, x, width, bottom, height, colour):
    """Many bars as one collection: one patch per bar is slow for thousands."""
    rects = [[(a, b), (a + width, b), (a + width, b + h), (a, b + h)]
             for a, b, h in zip(x, bottom, height)]
    ax.add_collection(PolyCollection(rects, facecolors=colour, linewidths=0))


def draw_tasks(rec, pid, out):
    sec = _sec(rec)
    ws = rec.windows().get(pid, [])
    ds = sorted((e for e in rec.named("sbridge_decide") if e.f["pid"] == pid),
                key=lambda e: e.ts)
    comm = rec.comms().get(pid, "?")
    rank = rec.types
    types = sorted({w.f["type"] for w in ws},
                   key=lambda t: rank.index(t) if t in rank else len(rank))  # big on top
    fig, axes = plt.subplots(len(types) + 1, 1, sharex=True, squeeze=False,
                             figsize=(12, 1.2 + 2.2 * (len(types) + 1)))
    axes = axes[:, 0]
    gaps = [b.ts - a.ts for a, b in zip(ws, ws[1:]) if b.ts > a.ts]
    width = (statistics.median(gaps) if gaps else (rec.t1 - rec.t0) / 100) / 1e9
    for ax, t in zip(axes, types):
        sel = [w for w in ws if w.f["type"] == t]
        x = [sec(w.ts) - width for w in sel]  # a window ends at its event
        base = [max(0, w.f["cpi"] - w.f["stall"]) / 1000 for w in sel]
        stall = [max(0, w.f["stall"]) / 1000 for w in sel]
        _bars(ax, x, width * 0.9, [0] * len(base), base, COLOURS["compute"])
        _bars(ax, x, width * 0.9, base, stall, COLOURS["memory"])
        ax.set_ylim(0, max(b + s for b, s in zip(base, stall)) * 1.05 or 1)
        ax.legend([Patch(color=COLOURS["compute"]), Patch(color=COLOURS["memory"])],
                  ["base (CPI - stall)", "memory stall"],
                  loc="upper left", bbox_to_anchor=(1.005, 1), fontsize=8)
        ax.set_ylabel(f"CPI on {rec.type_name(t)}")
        ax.grid(axis="y", alpha=0.3)
    ax = axes[-1]
    for key, style in (("speedup", "-"), ("lf_fast", "--"), ("lf_slow", ":")):
        if ds:
            ax.step([sec(e.ts) for e in ds], [e.f[key] / 1000 for e in ds], where="post",
                    linestyle=style, marker=".", label=key)
    changes = [e for e, _ in rec.decisions() if e.f["pid"] == pid]
    for i, e in enumerate(changes):
        where = rec.type_name(e.f["to"]) if e.f["to"] >= 0 else "stock"
        ax.axvline(sec(e.ts), color="black", lw=0.7, ls="--",
                   label="decision changes target" if i == 0 else None)
        ax.annotate(f"→ {where}", (sec(e.ts), 0), xycoords=("data", "axes fraction"),
                    fontsize=7, va="bottom", xytext=(2, 2), textcoords="offset points")
    ax.axhline(1.0, color="grey", lw=0.6)
    ax.set_ylabel("decision factors")
    if not ds:
        ax.text(0.5, 0.5, "no sbridge_decide events for this task", transform=ax.transAxes,
                ha="center", va="center")
    else:
        ax.legend(loc="upper left", bbox_to_anchor=(1.005, 1), fontsize=8)
    ax.grid(axis="y", alpha=0.3)
    ax.set_xlabel("seconds since the recording started")
    ax.set_xlim(0, sec(rec.t1))
    fig.suptitle(_title(rec, f"{comm} (pid {pid}): CPI stack per core type, decision factors"),
                 fontsize=11)
    fig.tight_layout()
    _save(fig, out)
