"""Work conservation and fast-core shares from `sbridgectl record` files.

Issue 29 asks the decision layer to be work-conserving: a fast CPU never
idles while a task that wants it is runnable on a slower type. The
evaluation records every main-phase mix (bench/eval/guest.sh, RECORD=1);
this module replays a record file (format version 2 or 3, docs/record-format.md)
and measures, over the mix:

- fast-CPU idle time while any task of the mix waited on a slower CPU,
  and while one ran or waited there (runnable: a task running on a slow
  CPU beside an idle fast one loses what the fast one would do);
- the same while a *wanter* waited: a task whose latest `sbridge_decide`
  gives it fast time (`hint=fast`, or a target above 0);
- each task's running time on the fast CPUs (for the simulator's fast
  shares beside the rig's).

A task is runnable and waiting on CPU c from a `wakeup` onto c, or a
`switch` on c that takes it off in state R/R+ (preempted), until a `switch`
brings it in; a `migrate` moves it while it waits. A CPU is idle while its
last switch brought in pid 0 (one without any switch in the record: while
its samples are mostly idle). At each instant the lost fast capacity is
min(idle fast CPUs, tasks waiting on slower CPUs): two idle fast CPUs and
one waiting task lose one CPU, not two. Shares are of the fast CPUs' time
over the window (number of fast CPUs x window).

The tasks of the mix are the processes the mix's runner started (their
pids, from evalrun) and every task they forked (followed through the
`wakeup new` records' waker), so kernel threads pinned to one CPU and the
recorder itself do not count. Host code, no dependency beyond
tools/sbridgeplot's reader.
"""
from __future__ import annotations

import sys
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path

TOOLS = Path(__file__).resolve().parents[2] / "tools"
if str(TOOLS) not in sys.path:  # the reader: tools/sbridgeplot
    sys.path.insert(0, str(TOOLS))

from sbridgeplot import record  # noqa: E402


@dataclass
class Conservation:
    """What one record says about one mix. Times in ns of CLOCK_MONOTONIC."""

    start: int  # the window analysed
    stop: int
    nfast: int  # CPUs of the fastest type
    fast_idle: int = 0  # fast-CPU ns idle
    idle_any: int = 0  # fast-CPU ns idle while a mix task waited on a slower CPU
    idle_wanter: int = 0  # ... while a wanter (latest decision: fast) did
    # ... while a mix task ran or waited on a slower CPU (a task running
    # slow beside an idle fast CPU is runnable there too: its loss)
    idle_runnable: int = 0
    waited_slow: int = 0  # task ns waiting on slower CPUs (mix tasks)
    fast_run: dict[int, int] = field(default_factory=dict)  # pid: ns running on fast CPUs
    run: dict[int, int] = field(default_factory=dict)  # pid: ns running anywhere
    owner: dict[int, int] = field(default_factory=dict)  # the mix's tasks: pid: its root
    decisions: int = 0  # sbridge_decide events seen
    # root: [(speedup, err)] in thousandths, each sbridge_decide of its
    # tasks in time order (err 0: a rule's or the user's exact factor)
    estimates: dict[int, list[tuple[int, int]]] = field(default_factory=dict)
    ncpu: int = 0
    recorder: int = 0  # ns the recorder (comm sbridgectl) ran, all CPUs
    recorder_fast: int = 0  # ... on fast CPUs
    kworker: int = 0  # ns kernel workers ran, all CPUs (sbridge's works among them)
    kworker_fast: int = 0  # ... on fast CPUs
    # the sbridge events the record holds: "decide", "none", ...; "all" in
    # files before --sbridge-events (version 2) where sbridge was loaded
    sbridge_events: str = ""

    @property
    def span(self) -> int:
        return max(self.stop - self.start, 0)

    def share(self, ns: int) -> float:
        """@ns of fast-CPU time as a share of the fast CPUs' time in the window."""
        cap = self.nfast * self.span
        return ns / cap if cap else float("nan")

    @property
    def share_any(self) -> float:
        return self.share(self.idle_any)

    @property
    def share_runnable(self) -> float:
        return self.share(self.idle_runnable)

    @property
    def share_wanter(self) -> float:
        return self.share(self.idle_wanter)

    @property
    def share_idle(self) -> float:
        return self.share(self.fast_idle)

    def share_all(self, ns: int) -> float:
        """@ns of CPU time as a share of all the CPUs' time in the window."""
        cap = self.ncpu * self.span
        return ns / cap if cap else float("nan")

    @property
    def recorder_share(self) -> float:
        """The recorder's CPU time as a share of all the CPUs' in the window."""
        return self.share_all(self.recorder)

    def root_fast(self, root: int) -> int:
        """ns the process @root and its forks ran on fast CPUs."""
        return sum(self.fast_run.get(p, 0) for p, r in self.owner.items() if r == root)

    def root_run(self, root: int) -> int:
        """ns the process @root and its forks ran on any CPU."""
        return sum(self.run.get(p, 0) for p, r in self.owner.items() if r == root)


def recorded_events(rec: record.Record) -> str:
    """Which of sbridge's events @rec holds, as its header says (version 3)."""
    evs = rec.meta.get("sbridge_events")
    if evs is None:
        return "all" if rec.meta.get("sbridge") == "loaded" else "none"
    return ",".join(e.removeprefix("sbridge_") for e in evs) or "none"


def fast_cpus(rec: record.Record) -> set[int]:
    """CPUs of the fastest type (largest capacity); empty with one type."""
    types = rec.types
    if len(types) < 2:
        return set()
    return {c for c, v in rec.cpus.items() if v.type == types[0]}


def family(rec: record.Record, roots: Iterable[int]) -> dict[int, int]:
    """{pid: root} for @roots and every task forked from them (transitively),
    from the `wakeup new` records' wakers (the forking thread)."""
    owner = {p: p for p in roots}
    for w in sorted(rec.wakeups, key=lambda w: w.ts):
        if w.new and w.waker in owner and w.pid not in owner:
            owner[w.pid] = owner[w.waker]
    return owner


def _wants_fast(e: record.Event) -> bool:
    """A decision that gives the task fast time: its hint or its plan's target."""
    return e.f.get("hint") == "fast" or int(e.f.get("target", 0)) > 0


# the recorder's name: its own CPU time is in the file (what it costs)
RECORDER = "sbridgectl"
# kernel workers: every configuration has some; sbridge's periodic works
# (decision, checker, matrix, clocks) run in them, so the difference
# between configurations is what those cost and where they ran
KWORKER = "kworker/"

# the order of records with one time stamp: decisions and migrations
# before the wakeups and switches they explain
_ORDER = {"decide": 0, "migrate": 1, "wakeup": 2, "switch": 3}


def analyse(rec: record.Record, roots: Iterable[int] | None = None,
            window: tuple[int, int] | None = None) -> Conservation:
    """Replays @rec. @roots: the mix's processes (their forks join them);
    None counts every task but the idle one. @window: (start, stop) ns to
    measure; default from the first to the last record of a mix task."""
    if not rec.meta.get("wakeups"):
        raise ValueError(f"{rec.path}: no wakeup records (format version 1 or "
                         "--no-switches): the waiting tasks are not known")
    if rec.meta.get("sbridge") == "loaded" and not rec.recorded("sbridge_decide"):
        raise ValueError(f"{rec.path}: sbridge was loaded but its decisions were not "
                         f"recorded{rec.not_recorded('sbridge_decide')}: the wanters are "
                         "not known")
    lost = rec.end.counts.get("lost", 0) if rec.end else 0
    if lost:
        raise ValueError(f"{rec.path}: the kernel's trace buffer lost {lost} events: "
                         "the waiting tasks are not known")
    fast = fast_cpus(rec)
    owner = family(rec, roots) if roots is not None else None

    def mine(pid: int) -> bool:
        return pid > 0 and (owner is None or pid in owner)

    evs: list[tuple[int, int, object]] = []
    for s in rec.switches:
        evs.append((s.ts, _ORDER["switch"], s))
    for w in rec.wakeups:
        evs.append((w.ts, _ORDER["wakeup"], w))
    for m in rec.migrations:
        evs.append((m.ts, _ORDER["migrate"], m))
    for e in rec.named("sbridge_decide"):
        evs.append((e.ts, _ORDER["decide"], e))
    evs.sort(key=lambda x: (x[0], x[1]))
    if window is None:
        ts = [t for t, _, r in evs if isinstance(r, record.Switch | record.Wakeup)
              and any(mine(p) for p in _pids(r))]
        window = (min(ts), max(ts)) if ts else (rec.t0, rec.t0)
    start, stop = window
    res = Conservation(start, stop, len(fast), owner=dict(owner) if owner else {},
                       ncpu=len(rec.cpus), sbridge_events=recorded_events(rec))
    names = rec.comms()
    recorder = {p for p, n in names.items() if n == RECORDER}
    kworker = {p for p, n in names.items() if n.startswith(KWORKER)}
    # a CPU runs the prev of its first switch until then; a CPU without
    # any switch ran one task throughout or nothing: its samples say which
    running: dict[int, int] = {}
    for s in sorted(rec.switches, key=lambda s: s.ts):
        running.setdefault(s.cpu, s.prev_pid)
    for c in fast - set(running):
        busy = [x.busy for x in rec.samples if x.cpu == c]
        if busy and sum(busy) < 500 * len(busy):
            running[c] = 0
    waiting: dict[int, int] = {}  # pid: cpu it waits on
    wanter: set[int] = set()
    t_prev = start

    def account(t: int) -> None:
        nonlocal t_prev
        t0, t1 = max(t_prev, start), min(t, stop)
        t_prev = max(t_prev, t)
        if t1 <= t0:
            return
        dt = t1 - t0
        idle = sum(1 for c in fast if running.get(c, -1) == 0)
        slow_wait = [p for p, c in waiting.items() if c not in fast and mine(p)]
        res.fast_idle += idle * dt
        res.idle_any += min(idle, len(slow_wait)) * dt
        slow_run = sum(1 for c, p in running.items() if c not in fast and mine(p))
        res.idle_runnable += min(idle, len(slow_wait) + slow_run) * dt
        res.idle_wanter += min(idle, sum(1 for p in slow_wait if p in wanter)) * dt
        res.waited_slow += len(slow_wait) * dt
        for c, p in running.items():
            if p in recorder:
                res.recorder += dt
                res.recorder_fast += dt if c in fast else 0
            elif p in kworker:
                res.kworker += dt
                res.kworker_fast += dt if c in fast else 0
            if mine(p):
                res.run[p] = res.run.get(p, 0) + dt
                if c in fast:
                    res.fast_run[p] = res.fast_run.get(p, 0) + dt

    for t, _, r in evs:
        account(t)
        if isinstance(r, record.Switch):
            if r.prev_state.startswith("R") and r.prev_pid > 0:
                waiting[r.prev_pid] = r.cpu
            else:
                waiting.pop(r.prev_pid, None)
            waiting.pop(r.next_pid, None)
            running[r.cpu] = r.next_pid
        elif isinstance(r, record.Wakeup):
            if r.pid > 0 and r.pid not in running.values():
                waiting[r.pid] = r.target
        elif isinstance(r, record.Migrate):
            if r.pid in waiting:
                waiting[r.pid] = r.dest
        elif isinstance(r, record.Event):
            res.decisions += 1
            pid = r.f["pid"]
            if mine(pid) and "err" in r.f:
                res.estimates.setdefault(owner[pid] if owner else pid, []).append(
                    (int(r.f["speedup"]), int(r.f["err"])))
            if _wants_fast(r):
                wanter.add(pid)
            else:
                wanter.discard(pid)
    account(stop)
    return res


def _pids(r: object) -> tuple[int, ...]:
    if isinstance(r, record.Switch):
        return (r.prev_pid, r.next_pid)
    if isinstance(r, record.Wakeup):
        return (r.pid,)
    return ()

