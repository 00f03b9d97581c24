"""tools/sbridge-plot on record files made here (docs/record-format.md):
the parsed content, the errors for bad files, and that each picture is a PNG."""
import json
import os
import random
import subprocess
import sys
from pathlib import Path

import pytest

from sbridgeplot import cli, perfetto, record

TOP = Path(__file__).resolve().parents[1]
PLOT = TOP / "tools" / "sbridge-plot"

MS = 1_000_000
KW = "kw\\xff\\x0a%x$\\frac{$"  # a name that is not text, and math to matplotlib
T0 = 1000 * MS  # the recorder's start, mono ns

HEAD = """sbridge-record 1
meta kernel 7.3.0-1-arm64
meta start 1764000000000000000 1000000000
meta rate_hz 20
meta sbridge loaded
meta cpu 0 1 1024 2000000
meta cpu 1 0 446 1200000
"""
# cpu0 (big):    idle, spin 100-500 ms, mem walk 500-700, idle, spin 800-1000
# cpu1 (little): the kworker since the start until 100, mem walk 100-500, spin 500-800
SWITCHES = [
    (100, 0, 0, "swapper/0", 101, "spin"),
    (100, 1, 103, "kw%FF%0A%25x$%5Cfrac{$", 102, "mem%20walk"),
    (500, 1, 102, "mem%20walk", 101, "spin"),
    (500, 0, 101, "spin", 102, "mem%20walk"),
    (700, 0, 102, "mem%20walk", 0, "swapper/0"),
    (800, 1, 101, "spin", 0, "swapper/1"),
    (800, 0, 0, "swapper/0", 101, "spin"),
]
EVENTS = [
    (150, 0, "sbridge_window pid=101 cpu=0 type=1 cpi=800 stall=100 share=875 khz=2000000 "
     "phase=0 kind=warm tpi=6400 comm=spin"),
    (160, 1, "sbridge_window pid=102 cpu=1 type=0 cpi=3000 stall=2400 share=200 khz=1200000 "
     "phase=0 comm=mem%20walk"),
    (200, 0, "sbridge_decide pid=101 from=1 to=1 hint=none prev=none speedup=1900 "
     "lf_fast=1000 lf_slow=1900 load=1000 why=gain comm=spin"),
    (300, 0, "sbridge_decide pid=101 from=1 to=1 hint=fast prev=fast speedup=1850 "
     "lf_fast=1000 lf_slow=1850 load=1000 why=hold comm=spin"),
    (300, 0, "sbridge_decide pid=102 from=0 to=0 hint=none prev=none speedup=1100 "
     "lf_fast=1000 lf_slow=1100 load=990 why=low comm=mem%20walk"),
    (300, 0, "sbridge_period n=3 want_fast=1 on_fast=1 nfast=1 nslow=1 load_fast=1000 "
     "load_slow=990"),
    (310, 0, "sbridge_act act=placement op=apply pid=101 cpu=-1 val=0x1 comm=spin"),
    (550, 1, "sbridge_window pid=101 cpu=1 type=0 cpi=1500 stall=200 share=900 khz=1200000 "
     "phase=0 comm=spin"),
    (600, 0, "sbridge_phase pid=102 from=0 to=1 share=300 comm=mem%20walk"),
    (600, 0, "sbridge_window pid=102 cpu=0 type=1 cpi=2600 stall=2000 share=300 khz=2000000 "
     "phase=1 comm=mem%20walk"),
    (600, 1, "sbridge_decide pid=101 from=0 to=1 hint=fast prev=fast speedup=1900 "
     "lf_fast=1000 lf_slow=1900 load=1000 why=hold comm=spin"),
    (650, 0, "sbridge_decide pid=102 from=1 to=-1 hint=slow prev=slow speedup=1050 "
     "lf_fast=1000 lf_slow=1050 load=500 why=idle comm=mem%20walk"),
    (750, 0, "sbridge_report idle=0 busy=1 waited_ms=12 culprit=101 action=report comm=spin"),
]


def busy(cpu, ms):
    """What the samples say: busy when the intervals above say so."""
    runs = {0: [(100, 700), (800, 1000)], 1: [(0, 500), (500, 800)]}[cpu]
    return any(a < ms <= b for a, b in runs)


def small_lines():
    rows = [(t, f"switch {T0 + t * MS} {cpu} {a} {ac} {b} {bc}")
            for t, cpu, a, ac, b, bc in SWITCHES]
    rows += [(t, f"event {T0 + t * MS} {cpu} {text}") for t, cpu, text in EVENTS]
    for t in range(50, 1001, 50):
        for cpu in (0, 1):
            b = busy(cpu, t)
            rows.append((t, f"sample {T0 + t * MS} {cpu} {int(b) + (cpu == 1 and t == 750)} "
                            f"{1000 if b else 0} {2000000 if cpu == 0 else 1200000}"))
    rows.sort(key=lambda r: r[0])
    body = [r[1] for r in rows]
    end = (f"end {T0 + 1000 * MS} duration events={len(EVENTS)} samples=40 "
           f"switches={len(SWITCHES)} dropped=0")
    return HEAD.splitlines() + body + [end]


@pytest.fixture
def small(tmp_path):
    p = tmp_path / "small.rec"
    p.write_text("\n".join(small_lines()) + "\n")
    return p


def synth(path, sbridge, seed=1, ncpu=4, ms=2000):
    """A realistic run: 1 big + 3 little, two compute and two memory-bound tasks
    plus a kworker; under sbridge the compute tasks end up on the big CPU."""
    rnd = random.Random(seed)
    tasks = {201: ("spin", 900), 202: ("crc32 -j", 820), 203: ("memwalk", 150),
             204: ("stream", 300)}
    lines = ["sbridge-record 1", "meta kernel 7.3.0-1-arm64",
             f"meta start 1764000000000000000 {T0}", "meta rate_hz 20",
             f"meta sbridge {'loaded' if sbridge else 'absent'}"]
    lines += [f"meta cpu {c} {int(c == 0)} {1024 if c == 0 else 446} "
              f"{2000000 if c == 0 else 1200000}" for c in range(ncpu)]
    cur = {c: (0, f"swapper/{c}") for c in range(ncpu)}
    target = {}
    rows = []
    for slot in range(0, ms, 10):
        ts = T0 + slot * MS
        order = list(tasks)
        rnd.shuffle(order)
        if sbridge and slot >= 300:  # decided: the most compute-bound on the big CPU
            order.remove(201)
            order.insert(0, 201)
        for c in range(ncpu):
            pid = order[c] if rnd.random() > 0.15 else 0
            if slot % 200 == 0 and c == 2:
                pid = 205
            name = {0: f"swapper/{c}", 205: "kworker/2:1"}.get(pid) or tasks.get(pid, ("?",))[0]
            if pid != cur[c][0]:
                rows.append(f"switch {ts} {c} {cur[c][0]} {cur[c][1].replace(' ', '%20')} "
                            f"{pid} {name.replace(' ', '%20')}")
                cur[c] = (pid, name)
            if slot % 50 == 40:
                busy = 1000 if pid else rnd.randint(0, 300)
                rows.append(f"sample {ts + 10 * MS} {c} {int(pid > 0) + rnd.randint(0, 1)} "
                            f"{busy} {2000000 if c == 0 else 1200000}")
            if sbridge and pid in tasks and slot % 50 == 30:
                share = tasks[pid][1] + rnd.randint(-60, 60)
                cpi = (700 if c == 0 else 1300) + (1000 - share) * 4
                stall = (1000 - share) * 4
                rows.append(f"event {ts + 5 * MS} {c} sbridge_window pid={pid} cpu={c} "
                            f"type={int(c == 0)} cpi={cpi} stall={stall} share={share} "
                            f"khz={2000000 if c == 0 else 1200000} phase=0 "
                            f"comm={tasks[pid][0].replace(' ', '%20')}")
        if sbridge and slot % 100 == 0 and slot:
            for pid, (name, share) in tasks.items():
                to = 1 if share > 800 and slot >= 300 else 0
                sp = 1000 + share
                why = "gain" if to == 0 else "low"
                target[pid] = to
                rows.append(f"event {ts} 0 sbridge_decide pid={pid} from=0 to={to} "
                            f"hint=none prev=none speedup={sp} lf_fast=1000 lf_slow={sp} "
                            f"load=1000 why={why} comm={name.replace(' ', '%20')}")
        if sbridge and slot in (900, 1500):
            rows.append(f"event {ts} 0 sbridge_report idle=3 busy=0 waited_ms=8 culprit=201 "
                        "action=yield comm=spin")
    end = T0 + ms * MS
    nev = sum(r.startswith("event") for r in rows)
    lines += rows + [f"end {end} duration events={nev} "
                     f"samples={sum(r.startswith('sample') for r in rows)} "
                     f"switches={sum(r.startswith('switch') for r in rows)} dropped=0"]
    path.write_text("\n".join(lines) + "\n")
    return path


# --- parsed content -------------------------------------------------------

def test_parses_the_small_file(small):
    rec = record.parse(small)
    assert sorted(rec.cpus) == [0, 1]
    assert [rec.cpu_label(c) for c in (0, 1)] == ["cpu0 big", "cpu1 little"]
    assert (rec.t0, rec.t1) == (T0, T0 + 1000 * MS)
    assert rec.meta["kernel"] == "7.3.0-1-arm64" and rec.meta["sbridge"] == "loaded"
    assert len(rec.samples) == 40 and len(rec.switches) == 7 and len(rec.events) == 13
    assert rec.end.reason == "duration" and rec.end.counts["dropped"] == 0
    # names decoded; bytes that are not text come out as \x escapes
    assert rec.comms() == {101: "spin", 102: "mem walk", 103: KW}


def test_fastest_type_is_the_largest_capacity(small, tmp_path):
    assert record.parse(small).types == [1, 0]  # sbridge: types by capacity, ascending
    text = small.read_text()
    for cpu0, cpu1, labels in (("0 1024", "1 446", ["cpu0 big", "cpu1 little"]),
                               ("1 1024", "0 1024", ["cpu0 big", "cpu1 little"]),
                               ("0 1024", "1 1024", ["cpu0 little", "cpu1 big"]),
                               ("0 1024", "0 1024", ["cpu0", "cpu1"])):
        p = tmp_path / "t.rec"
        p.write_text(text.replace("meta cpu 0 1 1024", f"meta cpu 0 {cpu0}")
                     .replace("meta cpu 1 0 446", f"meta cpu 1 {cpu1}"))
        rec = record.parse(p)
        assert [rec.cpu_label(c) for c in (0, 1)] == labels, (cpu0, cpu1)


def test_running_intervals(small):
    rec = record.parse(small)
    got = sorted((iv.cpu, (iv.start - T0) // MS, (iv.stop - T0) // MS, iv.pid, iv.comm)
                  for iv in rec.intervals())
    assert got == [(0, 100, 500, 101, "spin"), (0, 500, 700, 102, "mem walk"),
                   (0, 800, 1000, 101, "spin"),
                   (1, 0, 100, 103, KW),  # ran since the start
                   (1, 100, 500, 102, "mem walk"), (1, 500, 800, 101, "spin")]


def test_records_out_of_time_order(small, tmp_path):
    # the recorder interleaves per-CPU buffers and samples as they come
    lines = small_lines()
    body = lines[7:-1]
    random.Random(3).shuffle(body)
    p = tmp_path / "shuffled.rec"
    p.write_text("\n".join(lines[:7] + body + lines[-1:]) + "\n")
    a, b = record.parse(small), record.parse(p)
    assert (a.t0, a.t1) == (b.t0, b.t1)
    assert sorted(a.intervals()) == sorted(b.intervals())
    assert [e.line for e, _ in a.decisions()] != [e.line for e, _ in b.decisions()]
    assert [(e.ts, cpu) for e, cpu in a.decisions()] == [(e.ts, cpu) for e, cpu in b.decisions()]


def test_classes_and_decisions(small, tmp_path):
    rec = record.parse(small)
    cl = record.Classes([rec])
    assert cl.of(rec, 101, "spin") == "compute"  # median share 887.5
    assert cl.of(rec, 102, "mem walk") == "memory"  # 250
    assert cl.of(rec, 103, KW) == "unknown"
    # only target changes count; each on the CPU the task ran on
    got = [((e.ts - T0) // MS, e.f["pid"], e.f["to"], cpu) for e, cpu in rec.decisions()]
    assert got == [(200, 101, 1, 0), (300, 102, 0, 1), (650, 102, -1, 0)]
    assert len(rec.named("sbridge_report")) == 1
    # a file without windows borrows classes by comm
    stock = synth(tmp_path / "stock.rec", sbridge=False)
    sb = synth(tmp_path / "sb.rec", sbridge=True)
    a, b = record.parse(stock), record.parse(sb)
    cl = record.Classes([a, b])
    assert not a.windows()
    assert cl.of(a, 201, "spin") == "compute" and cl.of(a, 203, "memwalk") == "memory"
    assert cl.of(a, 205, "kworker/2:1") == "unknown"
    assert record.Classes([a]).of(a, 201, "spin") == "unknown"


def test_check_prints_a_summary(small):
    r = subprocess.run([sys.executable, PLOT, "check", small], capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    out = r.stdout
    assert "complete (end: duration)" in out and "duration 1.000 s" in out
    assert "sbridge-record 1, " in out and "wakeups" not in out  # a version 1 file
    assert "cpu0 big" in out and "cpu1 little" in out
    assert "decisions 3 " in out and "reports 1" in out
    assert "sbridge_window   4" in out
    assert "spin             compute" in out


def test_perfetto_json(small, tmp_path):
    out = tmp_path / "t.json"
    assert cli.main(["perfetto", str(small), "-o", str(out)]) == 0
    text = out.read_text()
    assert text.isascii()
    ev = json.loads(text)["traceEvents"]
    names = {e["args"]["name"] for e in ev if e["ph"] == "M" and e["name"] == "thread_name"}
    assert names == {"cpu0 big", "cpu1 little"}
    x = sorted((e["tid"], e["ts"], e["dur"], e["name"], e["cat"]) for e in ev if e["ph"] == "X")
    assert x == [(0, 100000.0, 400000.0, "spin", "compute"),
                 (0, 500000.0, 200000.0, "mem walk", "memory"),
                 (0, 800000.0, 200000.0, "spin", "compute"),
                 (1, 0.0, 100000.0, KW, "unknown"),
                 (1, 100000.0, 400000.0, "mem walk", "memory"),
                 (1, 500000.0, 300000.0, "spin", "compute")]
    inst = [e for e in ev if e["ph"] == "i"]
    assert sorted(e["cat"] for e in inst) == ["decision"] * 3 + ["report"]
    counters = {e["name"] for e in ev if e["ph"] == "C"}
    assert counters == {"cpu0 runqueue", "cpu1 runqueue", "cpu0 kHz", "cpu1 kHz"}
    assert sum(e["name"] == "cpu1 runqueue" for e in ev) == 20
    assert perfetto.trace(record.parse(small), record.Classes([]))["otherData"]["complete"]


DRIVER = r"""
#include <stdio.h>
#include <string.h>
#include "record_parse.h"
int main(void)
{
	static char line[4096], out[16384];

	while (fgets(line, sizeof(line), stdin)) {
		size_t n = strcspn(line, "\n");

		if (sb_rec_format(line, n, out, sizeof(out)) <= 0)
			return 1;
		puts(out);
	}
	return 0;
}
"""
PIPE = [  # trace_pipe lines as the kernel prints them (sbridge-core/trace.h)
    b"<idle>-0 [001] d..2. 1.100000: sched_switch: prev_comm=swapper/1 prev_pid=0 "
    b"prev_prio=120 prev_state=R ==> next_comm=mem walk$\xff next_pid=102 next_prio=120",
    b"mem walk$\xff-102 [001] d..2. 1.160000: sbridge_window: pid=102 cpu=1 type=0 cpi=3000 "
    b"stall=2400 share=200 khz=1200000 phase=0 comm=mem walk$\xff",
    b"kworker/0:1-9 [000] d..2. 1.300000: sbridge_decide: pid=102 from=0 to=-1 hint=none "
    b"prev=slow speedup=1100 lf_fast=1000 lf_slow=1100 load=990 why=low comm=mem walk$\xff",
    b"kworker/0:1-9 [000] d..2. 1.310000: sbridge_act: act=freq op=apply pid=-1 cpu=1 "
    b"val=1200000 comm=",
    b"kworker/0:1-9 [000] d..2. 1.750000: sbridge_report: idle=0 busy=1 waited_ms=12 "
    b"culprit=-1 action=report comm=",
    b"kworker/0:1-9 [000] d..2. 1.800000: sched_migrate_task: comm=mem walk$\xff pid=102 "
    b"prio=120 orig_cpu=1 dest_cpu=0",
    b"kworker/0:1-9 [000] d..2. 1.800001: sched_wakeup: comm=mem walk$\xff pid=102 prio=120 "
    b"target_cpu=000",
    b"sh-90 [001] d..2. 1.900000: sched_wakeup_new: comm=sh pid=91 prio=120 target_cpu=001",
]


def test_recorder_lines_read_back(tmp_path):
    """sbridgectl record's own formatter (userspace-ctl/lib/record_parse.c) writes
    what this reader reads: the two sides of docs/record-format.md agree."""
    lib = TOP / "userspace-ctl/lib"
    (tmp_path / "drv.c").write_text(DRIVER)
    cc = subprocess.run(["cc", "-O1", f"-I{lib}", f"-I{TOP / 'include/uapi'}", "-o",
                         tmp_path / "drv", tmp_path / "drv.c", lib / "record_parse.c",
                         lib / "lex.c"], capture_output=True, text=True)
    assert cc.returncode == 0, cc.stderr
    r = subprocess.run([tmp_path / "drv"], input=b"\n".join(PIPE) + b"\n", capture_output=True)
    assert r.returncode == 0, r.stdout
    body = r.stdout.decode().splitlines()
    p = tmp_path / "rt.rec"
    head = HEAD.replace("sbridge-record 1", "sbridge-record 2") + "meta wakeups yes\n"
    p.write_text(head + "\n".join(body) + "\nend 2000000000 signal events=4 samples=0 "
                 "switches=1 dropped=0 wakeups=2 migrations=1\n")
    rec = record.parse(p)
    name = "mem walk$\\xff"
    assert rec.meta["wakeups"] is True
    assert rec.switches == [record.Switch(1100 * MS, 1, 0, "swapper/1", 102, name, "R")]
    assert rec.migrations == [record.Migrate(1800 * MS, 0, 102, 1, 0)]
    assert rec.wakeups == [record.Wakeup(1800 * MS + 1000, 0, 102, 0, False, 9, name),
                           record.Wakeup(1900 * MS, 1, 91, 1, True, 90, "sh")]
    assert [(e.ts, e.cpu, e.name) for e in rec.events] == [
        (1160 * MS, 1, "sbridge_window"), (1300 * MS, 0, "sbridge_decide"),
        (1310 * MS, 0, "sbridge_act"), (1750 * MS, 0, "sbridge_report")]
    w, d, a, rep = (e.f for e in rec.events)
    assert w == {"pid": 102, "cpu": 1, "type": 0, "cpi": 3000, "stall": 2400, "share": 200,
                 "khz": 1200000, "phase": 0, "comm": name}
    assert (d["to"], d["prev"], d["why"], d["comm"]) == (-1, "slow", "low", name)
    assert (a["val"], a["pid"], a["comm"]) == ("1200000", -1, "")
    assert (rep["idle"], rep["busy"], rep["culprit"]) == (0, 1, -1)
    assert [iv.comm for iv in rec.intervals()] == [name]


# --- bad input --------------------------------------------------------------

def _variant(lines, n, new):
    """lines with line n (1-based) replaced (None: removed)."""
    out = list(lines)
    if new is None:
        del out[n - 1]
    else:
        out[n - 1] = new
    return out


BAD = {
    # name: (content as function of the good lines, line, message)
    "empty": (lambda ls: "", 1, "empty file"),
    "binary": (lambda ls: "\x7fELF\x02\x01\x01\x00\x00", 1, "binary data"),
    "not a record": (lambda ls: "hello\n", 1, "not an sbridge record file"),
    "wrong version": (lambda ls: "\n".join(["sbridge-record 5"] + ls[1:]) + "\n", 1,
                      "record format version '5'; this reader knows versions 1, 2, 3, 4"),
    "v1 has no sbridge_events": (lambda ls: "\n".join(ls[:5] + ["meta sbridge_events decide"]
                                                      + ls[5:]) + "\n", 6,
                                 "unknown meta key 'sbridge_events'"),
    "v1 has no wakeup": (lambda ls: "\n".join(_variant(ls, 12, "wakeup 1 0 5 0 wake 1 x")) + "\n",
                         12, "unknown record kind 'wakeup'"),
    "bad escape": (lambda ls: "\n".join(_variant(ls, 10, ls[9].replace("spin", "sp%zzin", 1)))
                   + "\n", 10, "bad %-escape '%zz'"),
    "unknown kind": (lambda ls: "\n".join(_variant(ls, 12, "bogus 1 2")) + "\n", 12,
                     "unknown record kind 'bogus'"),
    "field count": (lambda ls: "\n".join(_variant(ls, 8, "sample 1050000000 0 1 1000")) + "\n",
                    8, "sample: expected 6 fields"),
    "not a number": (lambda ls: "\n".join(_variant(ls, 8, "sample 1050000000 0 x 1000 5"))
                     + "\n", 8, "nr_running: expected a number, got 'x'"),
    "unknown cpu": (lambda ls: "\n".join(_variant(ls, 8, "sample 1050000000 7 1 1000 5"))
                    + "\n", 8, "cpu 7 has no 'meta cpu' line"),
    "meta late": (lambda ls: "\n".join(ls[:9] + ["meta rate_hz 10"] + ls[9:]) + "\n", 10,
                  "meta line after the first data record"),
    "event fields": (lambda ls: "\n".join(ls[:9] + ["event 1 0 sbridge_report idle=0 busy=1 "
                                                    "comm=x"] + ls[9:]) + "\n", 10,
                     "sbridge_report: expected fields idle busy waited_ms"),
    "after end": (lambda ls: "\n".join(ls + ["sample 1 0 1 1 1"]) + "\n", 69,
                  "'sample' record after the end record"),
    "raw control byte": (lambda ls: "\n".join(_variant(ls, 9, ls[8] + "\r")) + "\n", 9,
                         "raw control byte 0x0d"),
    "not utf-8": (lambda ls: ("\n".join(ls[:8]) + "\nswitch 1 0 0 a\xff b 1 c\n"), 9,
                  "not UTF-8 text"),
}


@pytest.mark.parametrize("name", BAD)
def test_bad_file_is_refused(small, tmp_path, name):
    make, line, msg = BAD[name]
    lines = small_lines()
    assert len(lines) == 68
    p = tmp_path / "bad.rec"
    text = make(lines)
    p.write_bytes(text.encode("latin-1") if name == "not utf-8" else text.encode())
    r = subprocess.run([sys.executable, PLOT, "check", p], capture_output=True, text=True)
    assert r.returncode == 1, r.stdout
    assert r.stderr.startswith(f"sbridge-plot: {p}:{line}: "), r.stderr
    assert msg in r.stderr and "Traceback" not in r.stderr, r.stderr
    assert r.stdout == ""


def v3_lines(events):
    """small_lines() as a version 3 file with meta sbridge_events @events,
    the events it does not list left out (as the recorder leaves them)."""
    names = () if events == "none" else tuple("sbridge_" + e for e in events.split(","))
    lines = [ln + " S" if ln.startswith("switch ") else ln for ln in small_lines()
             if not ln.startswith("event ") or ln.split(" ")[3] in names]
    n = sum(ln.startswith("event ") for ln in lines)
    lines[0] = "sbridge-record 3"
    lines[-1] = lines[-1].replace(f"events={len(EVENTS)}", f"events={n}") + \
        " wakeups=0 migrations=0"
    return lines[:5] + ["meta wakeups yes", f"meta sbridge_events {events}"] + lines[5:]


def test_v3_sbridge_events(tmp_path):
    """Version 3 (--sbridge-events): the header says which events the file
    holds; an event it does not list, or a bad list, is an error."""
    p = tmp_path / "d.rec"
    p.write_text("\n".join(v3_lines("decide")) + "\n")
    rec = record.parse(p)
    assert rec.version == "3" and rec.meta["sbridge_events"] == ("sbridge_decide",)
    assert len(rec.named("sbridge_decide")) == 5 and not rec.named("sbridge_window")
    assert rec.recorded("sbridge_decide") and not rec.recorded("sbridge_window")
    assert rec.not_recorded("sbridge_window") == " (not recorded: sbridge_events decide)"
    assert rec.not_recorded("sbridge_window", "sbridge_decide") == ""
    r = subprocess.run([sys.executable, PLOT, "check", p], capture_output=True, text=True)
    assert r.returncode == 0 and "sbridge events recorded: decide\n" in r.stdout, r.stderr
    # every event, a newer module's unknown one listed too; none
    p.write_text("\n".join(v3_lines("window,phase,period,decide,act,report,later")) + "\n")
    rec = record.parse(p)
    assert len(rec.events) == len(EVENTS) and rec.recorded("sbridge_later")
    p.write_text("\n".join(v3_lines("none")) + "\n")
    rec = record.parse(p)
    assert rec.meta["sbridge_events"] == () and not rec.events
    assert rec.not_recorded("sbridge_decide") == " (not recorded: sbridge_events none)"
    # versions before 3 recorded every event when sbridge was loaded
    assert record.parse(tmp_path / "d.rec").recorded("sbridge_act") is False
    p.write_text("\n".join(small_lines()) + "\n")
    assert record.parse(p).recorded("sbridge_window") is True
    p.write_text("\n".join(small_lines()).replace("meta sbridge loaded", "meta sbridge absent")
                 + "\n")
    assert record.parse(p).recorded("sbridge_window") is False
    # an event the header does not list
    lines = v3_lines("decide")
    i = next(i for i, ln in enumerate(lines) if ln.startswith("event "))
    lines.insert(i, f"event {T0 + 200 * MS} 0 {EVENTS[0][2]}")
    p.write_text("\n".join(lines) + "\n")
    with pytest.raises(record.RecordError, match=rf":{i + 1}: sbridge_window: not among the "
                       r"events the header says were recorded \(meta sbridge_events decide\)"):
        record.parse(p)
    for bad in ("", "decide,", "decide,decide", "Decide", "none,decide"):
        lines = v3_lines("decide")
        lines[6] = f"meta sbridge_events {bad}".rstrip()
        p.write_text("\n".join(lines) + "\n")
        with pytest.raises(record.RecordError, match=":7: meta sbridge_events"):
            record.parse(p)


def test_tasks_says_what_was_not_recorded(tmp_path):
    p = tmp_path / "n.rec"
    p.write_text("\n".join(v3_lines("period")) + "\n")
    r = subprocess.run([sys.executable, PLOT, "tasks", p, "-o", tmp_path / "t.png"],
                       capture_output=True, text=True)
    assert r.returncode == 1 and r.stderr.endswith(
        "no sbridge_window or sbridge_decide events (not recorded: sbridge_events period)\n"), \
        r.stderr
    assert not (tmp_path / "t.png").exists()


def test_truncated_file(small, tmp_path):
    lines = small_lines()
    p = tmp_path / "cut.rec"
    p.write_text("\n".join(lines[:-1]) + "\n")  # no end record
    r = subprocess.run([sys.executable, PLOT, "check", p], capture_output=True, text=True)
    assert r.returncode == 1
    assert r.stderr == f"sbridge-plot: {p}: truncated: no end record after line 67\n"
    r = subprocess.run([sys.executable, PLOT, "check", "--allow-truncated", p],
                       capture_output=True, text=True)
    assert r.returncode == 0 and "TRUNCATED after line 67" in r.stdout, r.stderr
    # cut inside a line: the partial record is not read
    p.write_text("\n".join(lines[:-1]) + "\nend 2000000000 dura")
    with pytest.raises(record.RecordError, match=r"truncated: no end record after line 67"):
        record.parse(p)
    assert len(record.parse(p, allow_truncated=True).samples) == 40
    # ... but a whole end record without its newline is fine
    p.write_text("\n".join(lines))
    assert record.parse(p).end.reason == "duration"


def test_endless_huge_and_silent_input_is_refused(tmp_path):
    """The record reader is bounded: /dev/zero is binary at once, a file past
    1 GiB is refused from its size, a FIFO that sends nothing gives up."""
    with pytest.raises(record.RecordError, match="binary data"):
        record.parse("/dev/zero")
    with pytest.raises(record.RecordError, match="binary data|larger than the 1 GiB"):
        record.parse("/dev/urandom")
    huge = tmp_path / "huge.rec"
    with open(huge, "wb") as f:
        f.truncate(2 << 30)
    with pytest.raises(record.RecordError, match="larger than the 1 GiB"):
        record.parse(str(huge))
    fifo = tmp_path / "never"
    os.mkfifo(fifo)
    writer = os.open(fifo, os.O_RDWR | os.O_NONBLOCK)  # held open, silent
    old, record.READ_IDLE_S = record.READ_IDLE_S, 0.2
    try:
        with pytest.raises(record.RecordError, match="nothing came through it"):
            record.parse(str(fifo))
    finally:
        record.READ_IDLE_S = old
        os.close(writer)


def test_missing_file_and_bad_arguments(tmp_path):
    r = subprocess.run([sys.executable, PLOT, "check", tmp_path / "nope.rec"],
                       capture_output=True, text=True)
    assert r.returncode == 1 and "nope.rec: cannot read: No such file" in r.stderr
    for argv in ([], ["frobnicate"], ["timeline", "x.rec"], ["tasks", "x", "-o", "y",
                                                              "--pid", "1", "--comm", "z"]):
        r = subprocess.run([sys.executable, str(PLOT), *argv], capture_output=True, text=True)
        assert r.returncode == 2 and "usage:" in r.stderr, argv


# --- pictures ---------------------------------------------------------------

def assert_png(path):
    data = Path(path).read_bytes()
    assert data[:8] == b"\x89PNG\r\n\x1a\n", path
    assert len(data) > 10000, (path, len(data))


def test_pictures(small, tmp_path):
    pytest.importorskip("matplotlib")
    stock = synth(tmp_path / "stock.rec", sbridge=False)
    sb = synth(tmp_path / "sb.rec", sbridge=True, seed=2)
    for argv in (["timeline", sb], ["timeline", small], ["compare", stock, sb],
                 ["heatmap", sb], ["tasks", sb, "--comm", "crc32 -j"],
                 ["tasks", small, "--pid", "102"]):
        out = tmp_path / f"{argv[0]}.png"
        out.unlink(missing_ok=True)
        assert cli.main([str(a) for a in argv] + ["-o", str(out)]) == 0, argv
        assert_png(out)
    # no switch records: the timeline draws busy share from samples
    lines = [ln for ln in small_lines() if not ln.startswith("switch")]
    lines[-1] = lines[-1].replace("switches=7", "switches=0")
    (tmp_path / "noswitch.rec").write_text("\n".join(lines) + "\n")
    assert cli.main(["timeline", str(tmp_path / "noswitch.rec"), "-o",
                     str(tmp_path / "ns.png")]) == 0
    assert_png(tmp_path / "ns.png")


def test_picture_from_bad_input_writes_nothing(small, tmp_path):
    pytest.importorskip("matplotlib")
    p = tmp_path / "cut.rec"
    p.write_text("\n".join(small_lines()[:-1]) + "\n")
    out = tmp_path / "t.png"
    r = subprocess.run([sys.executable, PLOT, "timeline", p, "-o", out],
                       capture_output=True, text=True)
    assert r.returncode == 1 and "truncated" in r.stderr and not out.exists()
    r = subprocess.run([sys.executable, PLOT, "tasks", small, "--pid", "999", "-o", out],
                       capture_output=True, text=True)
    assert r.returncode == 1 and "no sbridge_window or sbridge_decide events for pid 999" \
        in r.stderr and not out.exists()
