"""Reader for `sbridgectl record` files, format versions 1 to 4 (docs/record-format.md).

Strict: anything the format does not allow is a RecordError naming the line,
so a plot never silently shows half a file. Derived views (running intervals,
task classes, decisions) live here too, so the tests check them without
matplotlib.
"""
import bisect
import os
import re
import select
import stat
import statistics
from collections import Counter, defaultdict
from typing import NamedTuple

VERSION = "4"
# version 2 added wakeup/migrate, prev_state and meta wakeups; 3 meta
# sbridge_events; 4 lost= on the end line (events the kernel could not keep)
VERSIONS = ("1", "2", "3", "4")
EVENT_NAME = re.compile(r"[a-z0-9_]+\Z")
NUM = re.compile(r"-?[0-9]+\Z")
BAD_ESCAPE = re.compile(r"%(?![0-9A-Fa-f]{2})")
CONTROL = re.compile(r"[\x00-\x1f\x7f]")

# Known trace events: their fields in the kernel's order; comm is last.
# Fields not in WORDS are numbers. "|" separates the layouts of module
# versions that differ (sbridge_window gained kind and tpi).
EVENTS = {
    "sbridge_window": "pid cpu type cpi stall share khz phase kind tpi comm"
                      "|pid cpu type cpi stall share khz phase comm",
    "sbridge_phase": "pid from to share comm",
    "sbridge_period": "n want_fast on_fast nfast nslow load_fast load_slow",
    "sbridge_decide": "pid from to hint prev speedup err lf_fast lf_slow load target got why comm"
                      "|pid from to hint prev speedup lf_fast lf_slow load why comm",
    "sbridge_act": "act op pid cpu val comm",
    "sbridge_report": "idle busy waited_ms culprit action comm",
}
WORDS = {"hint", "prev", "why", "act", "op", "val", "action", "comm", "kind"}
END_COUNTS = ("events", "samples", "switches", "dropped")
END_COUNTS_2 = END_COUNTS + ("wakeups", "migrations")
END_COUNTS_4 = END_COUNTS_2 + ("lost",)
END_REASONS = ("duration", "signal", "size")
META_ONCE = ("kernel", "start", "rate_hz", "sbridge")

# Task classes from the median CPI_B share (thousandths) of a task's windows.
COMPUTE_MIN = 600
MEMORY_MAX = 400
CLASSES = ("compute", "memory", "mixed", "unknown")


class RecordError(Exception):
    def __init__(self, path, line, msg):
        super().__init__(f"{path}:{line}: {msg}" if line else f"{path}: {msg}")


class Cpu(NamedTuple):
    cpu: int
    type: int
    capacity: int
    max_khz: int


class Sample(NamedTuple):
    ts: int
    cpu: int
    nr: int
    busy: int
    khz: int


class Switch(NamedTuple):
    ts: int
    cpu: int
    prev_pid: int
    prev_comm: str
    next_pid: int
    next_comm: str
    prev_state: str = ""  # version 2: the state prev left in ("R"/"R+": preempted)


class Wakeup(NamedTuple):
    ts: int
    cpu: int
    pid: int
    target: int
    new: bool  # sched_wakeup_new: the task's first wakeup
    waker: int  # the task the event was traced in (for new: the forking thread)
    comm: str


class Migrate(NamedTuple):
    ts: int
    cpu: int
    pid: int
    orig: int
    dest: int


class Event(NamedTuple):
    ts: int
    cpu: int
    name: str
    f: dict
    line: int


class End(NamedTuple):
    ts: int
    reason: str
    counts: dict


class Interval(NamedTuple):
    start: int
    stop: int
    cpu: int
    pid: int
    comm: str


def unescape(path, n, s):
    """%XX-decoded bytes made into printable text (any bytes a task name may hold)."""
    m = BAD_ESCAPE.search(s)
    if m:
        raise RecordError(path, n, f"bad %-escape {s[m.start():m.start() + 3]!r} in {s!r}")
    raw = bytearray()
    i = 0
    while i < len(s):
        if s[i] == "%":
            raw.append(int(s[i + 1:i + 3], 16))
            i += 3
        else:
            j = s.find("%", i)
            j = len(s) if j < 0 else j
            raw += s[i:j].encode()
            i = j
    text = raw.decode("utf-8", "backslashreplace")
    return CONTROL.sub(lambda c: f"\\x{ord(c.group()):02x}", text)


def classify(share):
    if share is None:
        return "unknown"
    if share >= COMPUTE_MIN:
        return "compute"
    if share <= MEMORY_MAX:
        return "memory"
    return "mixed"


class Record:
    """One parsed record file. Times stay in nanoseconds of CLOCK_MONOTONIC."""

    def __init__(self, path):
        self.path = str(path)
        self.version = VERSION  # the file's format version
        self.meta = {}
        self.cpus = {}
        self.samples = []
        self.switches = []
        self.wakeups = []
        self.migrations = []
        self.events = []
        self.other_events: Counter[str] = Counter()  # event names this reader does not know
        self.end = None
        self.last_line = 0
        self._intervals = None
        self._runs = None
        self._t = None

    # --- derived views ---------------------------------------------------

    def _span(self):
        # the recorder merges per-CPU buffers and samples: not in time order
        if self._t is None:
            ts = [r.ts for recs in (self.samples, self.switches, self.events) for r in recs]
            t0 = min([self.meta["start"][1]] + ts)
            self._t = (t0, self.end.ts if self.end else max([t0] + ts))
        return self._t

    @property
    def t0(self):
        """Start of the picture: the recorder's start, or an earlier record."""
        return self._span()[0]

    @property
    def t1(self):
        """End of the picture: the end record's time, else the last record."""
        return self._span()[1]

    @property
    def types(self):
        """Core types, fastest first: by capacity, then by index (sbridge
        numbers its types by capacity ascending)."""
        cap: dict[int, int] = {}
        for c in self.cpus.values():
            if c.type >= 0:
                cap[c.type] = max(cap.get(c.type, 0), c.capacity)
        return sorted(cap, key=lambda t: (cap[t], t), reverse=True)

    def type_name(self, t):
        """The fastest type is 'big', the slowest 'little' (one type: neither)."""
        types = self.types
        if len(types) < 2 or t not in types:
            return f"type {t}"
        if t == types[0]:
            return "big"
        if t == types[-1]:
            return "little"
        return f"mid {t}"

    def cpu_label(self, cpu):
        c = self.cpus[cpu]
        return f"cpu{cpu}" + (f" {self.type_name(c.type)}" if len(self.types) > 1 else "")

    def comms(self):
        """pid -> its latest name (a task renames itself at exec)."""
        names = {}
        rows = [(s.ts, s.prev_pid, s.prev_comm) for s in self.switches]
        rows += [(s.ts, s.next_pid, s.next_comm) for s in self.switches]
        rows += [(e.ts, e.f["pid"], e.f["comm"]) for e in self.events
                 if "pid" in e.f and "comm" in e.f and e.f["pid"] > 0]
        for _, pid, comm in sorted(rows, key=lambda r: r[0]):
            if pid > 0:
                names[pid] = comm
        return names

    def intervals(self):
        """Per-CPU running intervals from `switch` records (idle left out).

        A task seen leaving a CPU at its first switch ran there since the
        start; the one running at the end runs to the end. A switch whose
        prev is not the task we thought ran (events lost) trusts the switch.
        """
        if self._intervals is not None:
            return self._intervals
        out = []
        by_cpu = defaultdict(list)
        for s in self.switches:
            by_cpu[s.cpu].append(s)
        t0, t1 = self.t0, self.t1
        for cpu, sws in sorted(by_cpu.items()):
            sws.sort(key=lambda s: s.ts)  # stable: equal stamps keep file order
            cur = (t0, sws[0].prev_pid, sws[0].prev_comm)
            for s in sws:
                start, pid, comm = cur
                if pid > 0 and s.ts > start:
                    out.append(Interval(start, s.ts, cpu, pid, comm))
                cur = (s.ts, s.next_pid, s.next_comm)
            start, pid, comm = cur
            if pid > 0 and t1 > start:
                out.append(Interval(start, t1, cpu, pid, comm))
        self._intervals = out
        return out

    def cpu_of(self, pid, ts, default):
        """The CPU pid ran on at ts, or last ran on before it."""
        if self._runs is None:
            self._runs = defaultdict(list)
            for iv in sorted(self.intervals(), key=lambda iv: iv.start):
                self._runs[iv.pid].append(iv)
            self._starts = {p: [iv.start for iv in r] for p, r in self._runs.items()}
        i = bisect.bisect_right(self._starts.get(pid, []), ts) - 1
        return self._runs[pid][i].cpu if i >= 0 else default

    def named(self, name):
        return [e for e in self.events if e.name == name]

    def recorded(self, name):
        """Whether the recorder enabled trace event @name (sbridge_...): the
        header's sbridge_events from version 3; before it, whether sbridge
        was loaded (the recorder then enabled all of its events)."""
        evs = self.meta.get("sbridge_events")
        if evs is None:
            return self.meta.get("sbridge") == "loaded"
        return name in evs

    def not_recorded(self, *names):
        """' (not recorded: sbridge_events X)' if none of @names was
        recorded, else '': why a file has none of them."""
        if any(self.recorded(n) for n in names):
            return ""
        evs = self.meta.get("sbridge_events")
        if evs is None:
            return " (not recorded: sbridge absent)"
        return (" (not recorded: sbridge_events "
                + (",".join(e[8:] for e in evs) or "none") + ")")

    def windows(self):
        """pid -> its sbridge_window events, in time order."""
        w = defaultdict(list)
        for e in sorted(self.named("sbridge_window"), key=lambda e: e.ts):
            w[e.f["pid"]].append(e)
        return w

    def decisions(self):
        """sbridge_decide events that change a task's target type, as (event, cpu).

        A task starts as -1 (left to the stock scheduler), so its first
        decision counts only if it names a type. cpu is where the task ran.
        """
        last: dict = {}
        out = []
        for e in sorted(self.named("sbridge_decide"), key=lambda e: e.ts):
            pid, to = e.f["pid"], e.f["to"]
            if to != last.get(pid, -1):
                out.append((e, self.cpu_of(pid, e.ts, e.cpu)))
            last[pid] = to
        return out


class Classes:
    """Task class by pid from its own windows, else by comm from any file given."""

    def __init__(self, records):
        by_comm: defaultdict[str, list] = defaultdict(list)
        self.own = {}
        for rec in records:
            names = rec.comms()
            for pid, ws in rec.windows().items():
                shares = [w.f["share"] for w in ws]
                self.own[(id(rec), pid)] = statistics.median(shares)
                by_comm[names.get(pid, ws[-1].f["comm"])] += shares
        self.comm = {c: statistics.median(s) for c, s in by_comm.items()}

    def share(self, rec, pid, comm):
        s = self.own.get((id(rec), pid))
        return self.comm.get(comm) if s is None else s

    def of(self, rec, pid, comm):
        return classify(self.share(rec, pid, comm))


# --- parsing ---------------------------------------------------------------

def _num(path, n, what, s, lo=None, hi=None):
    if not NUM.match(s):
        raise RecordError(path, n, f"{what}: expected a number, got {s!r}")
    v = int(s)
    if (lo is not None and v < lo) or (hi is not None and v > hi):
        rng = f"{lo}..{hi}" if hi is not None else f">= {lo}"
        raise RecordError(path, n, f"{what}: {v} out of range ({rng})")
    return v


def _need(path, n, kind, f, count, shape):
    if len(f) != count:
        raise RecordError(path, n, f"{kind}: expected {count} fields ({shape}), got {len(f)}")


class _Parser:
    def __init__(self, path):
        self.path = path
        self.rec = Record(path)
        self.data_seen = False
        self.version = VERSION

    def cpu(self, n, s):
        cpu = _num(self.path, n, "cpu", s, 0)
        if cpu not in self.rec.cpus:
            raise RecordError(self.path, n, f"cpu {cpu} has no 'meta cpu' line")
        return cpu

    def line(self, n, ln):
        path, rec = self.path, self.rec
        f = ln.split(" ")
        if "" in f:
            raise RecordError(path, n, "empty field (fields are separated by one space)")
        kind = f[0]
        if rec.end:
            raise RecordError(path, n, f"'{kind}' record after the end record")
        if kind == "meta":
            return self.meta(n, f)
        if not self.data_seen:
            missing = [k for k in META_ONCE if k not in rec.meta]
            missing += [] if rec.cpus else ["cpu"]
            if missing:
                raise RecordError(path, n, f"'{kind}' before the meta lines: no meta "
                                  + ", ".join(missing))
            self.data_seen = True
        if kind == "sample":
            _need(path, n, kind, f, 6, "ts cpu nr_running busy_permille khz")
            rec.samples.append(Sample(_num(path, n, "ts", f[1], 0), self.cpu(n, f[2]),
                                      _num(path, n, "nr_running", f[3], 0),
                                      _num(path, n, "busy_permille", f[4], 0, 1000),
                                      _num(path, n, "khz", f[5], 0)))
        elif kind == "switch":
            if self.version == "1":
                _need(path, n, kind, f, 7, "ts cpu prev_pid prev_comm next_pid next_comm")
            else:
                _need(path, n, kind, f, 8,
                      "ts cpu prev_pid prev_comm next_pid next_comm prev_state")
            rec.switches.append(Switch(_num(path, n, "ts", f[1], 0), self.cpu(n, f[2]),
                                       _num(path, n, "prev_pid", f[3], 0),
                                       unescape(path, n, f[4]),
                                       _num(path, n, "next_pid", f[5], 0),
                                       unescape(path, n, f[6]),
                                       unescape(path, n, f[7]) if len(f) > 7 else ""))
        elif kind == "wakeup" and self.version != "1":
            _need(path, n, kind, f, 8, "ts cpu pid target_cpu wake|new waker comm")
            if f[5] not in ("wake", "new"):
                raise RecordError(path, n, f"wakeup: expected wake or new, got {f[5]!r}")
            rec.wakeups.append(Wakeup(_num(path, n, "ts", f[1], 0), self.cpu(n, f[2]),
                                      _num(path, n, "pid", f[3], 0), self.cpu(n, f[4]),
                                      f[5] == "new", _num(path, n, "waker", f[6], 0),
                                      unescape(path, n, f[7])))
        elif kind == "migrate" and self.version != "1":
            _need(path, n, kind, f, 6, "ts cpu pid orig_cpu dest_cpu")
            rec.migrations.append(Migrate(_num(path, n, "ts", f[1], 0), self.cpu(n, f[2]),
                                          _num(path, n, "pid", f[3], 0),
                                          _num(path, n, "orig_cpu", f[4], 0),
                                          self.cpu(n, f[5])))
        elif kind == "event":
            self.event(n, f)
        elif kind == "end":
            self.endrec(n, f)
        else:
            raise RecordError(path, n, f"unknown record kind {kind!r}")

    def meta(self, n, f):
        path, rec = self.path, self.rec
        if self.data_seen:
            raise RecordError(path, n, "meta line after the first data record")
        if len(f) < 2:
            raise RecordError(path, n, "meta: no key")
        key = f[1]
        if key in rec.meta:
            raise RecordError(path, n, f"meta {key}: given twice")
        if key == "kernel":
            _need(path, n, "meta kernel", f, 3, "release")
            rec.meta[key] = unescape(path, n, f[2])
        elif key == "start":
            _need(path, n, "meta start", f, 4, "unix_ns mono_ns")
            rec.meta[key] = (_num(path, n, "unix_ns", f[2], 0), _num(path, n, "mono_ns", f[3], 0))
        elif key == "rate_hz":
            _need(path, n, "meta rate_hz", f, 3, "hz")
            rec.meta[key] = _num(path, n, "rate_hz", f[2], 1)
        elif key == "sbridge":
            _need(path, n, "meta sbridge", f, 3, "loaded|absent")
            if f[2] not in ("loaded", "absent"):
                raise RecordError(path, n, f"meta sbridge: expected loaded or absent, got {f[2]!r}")
            rec.meta[key] = f[2]
        elif key == "wakeups" and self.version != "1":
            _need(path, n, "meta wakeups", f, 3, "yes|no")
            if f[2] not in ("yes", "no"):
                raise RecordError(path, n, f"meta wakeups: expected yes or no, got {f[2]!r}")
            rec.meta[key] = f[2] == "yes"
        elif key == "sbridge_events" and self.version not in ("1", "2"):
            _need(path, n, "meta sbridge_events", f, 3, "none|name,name,...")
            names = () if f[2] == "none" else tuple(f[2].split(","))
            bad = [x for x in names if not EVENT_NAME.match(x) or x == "none"]
            if bad or len(set(names)) != len(names):
                raise RecordError(path, n, "meta sbridge_events: expected none or a comma "
                                  f"list of distinct event names, got {f[2]!r}")
            rec.meta[key] = tuple("sbridge_" + x for x in names)
        elif key == "cpu":
            _need(path, n, "meta cpu", f, 6, "cpu type capacity max_khz")
            c = Cpu(_num(path, n, "cpu", f[2], 0), _num(path, n, "type", f[3], -1),
                    _num(path, n, "capacity", f[4], 0), _num(path, n, "max_khz", f[5], 0))
            if c.cpu in rec.cpus:
                raise RecordError(path, n, f"meta cpu {c.cpu}: given twice")
            rec.cpus[c.cpu] = c
        else:
            raise RecordError(path, n, f"unknown meta key {key!r}")

    def event(self, n, f):
        path = self.path
        if len(f) < 4:
            raise RecordError(path, n, "event: expected ts cpu name key=value ...")
        ts, cpu, name = _num(path, n, "ts", f[1], 0), self.cpu(n, f[2]), f[3]
        evs = self.rec.meta.get("sbridge_events")
        if evs is not None and name not in evs:
            raise RecordError(path, n, f"{name}: not among the events the header says were "
                              f"recorded (meta sbridge_events "
                              f"{','.join(e[8:] for e in evs) or 'none'})")
        fields = {}
        for i, kv in enumerate(f[4:]):
            k, eq, v = kv.partition("=")
            if not eq or not k:
                raise RecordError(path, n, f"{name}: {kv!r} is not key=value")
            if k in fields:
                raise RecordError(path, n, f"{name}: field {k} given twice")
            if k == "comm" and i != len(f) - 5:
                raise RecordError(path, n, f"{name}: comm= must be the last field")
            fields[k] = v
        spec = EVENTS.get(name)
        if spec is None:
            for v in fields.values():  # still check what the format says of all
                unescape(path, n, v)
            self.rec.other_events[name] += 1
            return
        layouts = [x.split() for x in spec.split("|")]
        keys = next((k for k in layouts if list(fields) == k), None)
        if keys is None:
            raise RecordError(path, n, f"{name}: expected fields "
                              f"{' or '.join(' '.join(k) for k in layouts)}, "
                              f"got {' '.join(fields) or 'none'}")
        for k in keys:
            if k not in WORDS:
                fields[k] = _num(path, n, f"{name} {k}", fields[k])
                continue
            fields[k] = unescape(path, n, fields[k])  # the recorder escapes every word
            if not fields[k] and k != "comm":
                raise RecordError(path, n, f"{name}: {k} is empty")
        self.rec.events.append(Event(ts, cpu, name, fields, n))

    def endrec(self, n, f):
        path = self.path
        names = (END_COUNTS if self.version == "1" else
                 END_COUNTS_4 if self.version == "4" else END_COUNTS_2)
        _need(path, n, "end", f, 3 + len(names),
              "ts reason " + " ".join(f"{k}=" for k in names))
        ts = _num(path, n, "ts", f[1], 0)
        if f[2] not in END_REASONS:
            raise RecordError(path, n, f"end: reason must be one of {', '.join(END_REASONS)}, "
                              f"got {f[2]!r}")
        counts = {}
        for want, kv in zip(names, f[3:]):
            k, eq, v = kv.partition("=")
            if k != want or not eq:
                raise RecordError(path, n, f"end: expected {want}=<n>, got {kv!r}")
            counts[k] = _num(path, n, f"end {k}", v, 0)
        self.rec.end = End(ts, f[2], counts)


# The most a record file may hold: what `sbridgectl record --max-size`
# allows. A larger file, endless input (/dev/zero) or a pipe silent for
# READ_IDLE_S is an error, as sbridgectl's own reader has it.
MAX_BYTES = 1 << 30
READ_IDLE_S: float = 10


def _read(path):
    """The bytes of @path, at most MAX_BYTES; RecordError past that."""
    fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK)
    try:
        st = os.fstat(fd)
        if stat.S_ISREG(st.st_mode) and st.st_size > MAX_BYTES:
            raise RecordError(path, 0, f"{st.st_size} bytes, larger than the 1 GiB a record "
                              "file may hold (sbridgectl record --max-size)")
        stream = stat.S_ISFIFO(st.st_mode) or stat.S_ISSOCK(st.st_mode)
        if not stream:
            os.set_blocking(fd, True)
        chunks: list[bytes] = []
        n = 0
        while True:
            if stream and not select.select([fd], [], [], READ_IDLE_S)[0]:
                raise RecordError(path, 0, f"nothing came through it for {READ_IDLE_S} s "
                                  "(a pipe or FIFO whose writer never closes it?)")
            try:
                b = os.read(fd, 1 << 20)
            except BlockingIOError:
                continue
            if not b:
                break
            nul = b.find(b"\0")
            if nul >= 0:  # binary: said at once, not after a gigabyte of it
                line = sum(c.count(b"\n") for c in chunks) + b.count(b"\n", 0, nul) + 1
                raise RecordError(path, line,
                                  "binary data (a NUL byte), not an sbridge record file")
            n += len(b)
            if n > MAX_BYTES:
                raise RecordError(path, 0, "larger than the 1 GiB a record file may hold "
                                  "(sbridgectl record --max-size)")
            chunks.append(b)
        return b"".join(chunks)
    finally:
        os.close(fd)


def parse(path, allow_truncated=False):
    """Parse a record file; raises RecordError (or OSError) on bad input."""
    data = _read(path)
    if not data:
        raise RecordError(path, 1, "empty file, not an sbridge record file")
    nul = data.find(b"\0")
    if nul >= 0:
        raise RecordError(path, data.count(b"\n", 0, nul) + 1,
                          "binary data (a NUL byte), not an sbridge record file")
    lines = data.split(b"\n")
    partial = lines.pop()  # b"" when the file ends in a newline
    p = _Parser(path)
    for n, raw in enumerate(lines + ([partial] if partial else []), 1):
        try:
            ln = raw.decode("utf-8")
        except UnicodeDecodeError as e:
            if n == 1:
                raise RecordError(path, n, "not UTF-8 text, not an sbridge record file") from e
            raise RecordError(path, n, f"not UTF-8 text (byte 0x{raw[e.start]:02x} "
                              f"at column {e.start + 1}; such bytes are %XX-escaped)") from e
        if n == 1:
            m = re.match(r"sbridge-record (\S+)\Z", ln)
            if not m:
                raise RecordError(path, n, f"not an sbridge record file (first line "
                                  f"must be 'sbridge-record {VERSION}')")
            if m.group(1) not in VERSIONS:
                raise RecordError(path, n, f"record format version {m.group(1)!r}; "
                                  f"this reader knows versions {', '.join(VERSIONS)}")
            p.version = p.rec.version = m.group(1)
            continue
        m = CONTROL.search(ln)
        if m:
            raise RecordError(path, n, f"raw control byte 0x{ord(m.group()):02x} "
                              "(such bytes are %XX-escaped)")
        if n > len(lines):
            # a last line without its newline: whole only if it is the end record
            if ln.startswith("end "):
                try:
                    p.line(n, ln)
                    p.rec.last_line = n
                except RecordError:
                    pass
            break
        p.line(n, ln)
        p.rec.last_line = n
    if not p.rec.end and not allow_truncated:
        raise RecordError(path, None, f"truncated: no end record after line {p.rec.last_line}")
    if not p.rec.cpus:
        raise RecordError(path, None, f"no meta cpu lines after line {p.rec.last_line}")
    if "start" not in p.rec.meta:
        raise RecordError(path, None, f"no meta start line after line {p.rec.last_line}")
    return p.rec
