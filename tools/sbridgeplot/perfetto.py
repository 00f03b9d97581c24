"""Chrome trace event JSON (opens in ui.perfetto.dev and chrome://tracing).

One process "CPUs" with a thread per CPU: complete ("X") slices for the
task running there, instant ("i") events for decisions and checker
reports, counters ("C") for runqueue length and frequency per CPU.
Times are microseconds since the record's start.
"""
import json

CPUS_PID = 1


def trace(rec, classes):
    t0 = rec.t0

    def us(ts):
        return round((ts - t0) / 1000, 3)

    ev = [{"ph": "M", "pid": CPUS_PID, "name": "process_name", "args": {"name": "CPUs"}}]
    for cpu in sorted(rec.cpus):
        ev.append({"ph": "M", "pid": CPUS_PID, "tid": cpu, "name": "thread_name",
                   "args": {"name": rec.cpu_label(cpu)}})
        ev.append({"ph": "M", "pid": CPUS_PID, "tid": cpu, "name": "thread_sort_index",
                   "args": {"sort_index": cpu}})
    for iv in rec.intervals():
        ev.append({"ph": "X", "pid": CPUS_PID, "tid": iv.cpu, "ts": us(iv.start),
                   "dur": round(us(iv.stop) - us(iv.start), 3), "name": iv.comm,
                   "cat": classes.of(rec, iv.pid, iv.comm),
                   "args": {"pid": iv.pid, "class": classes.of(rec, iv.pid, iv.comm)}})
    for e, cpu in rec.decisions():
        to = e.f["to"]
        where = rec.type_name(to) if to >= 0 else "stock"
        ev.append({"ph": "i", "s": "t", "pid": CPUS_PID, "tid": cpu, "ts": us(e.ts),
                   "name": f"decide {e.f['comm']} -> {where}", "cat": "decision",
                   "args": dict(e.f)})
    for e in rec.named("sbridge_report"):
        idle = e.f["idle"] if e.f["idle"] in rec.cpus else e.cpu
        ev.append({"ph": "i", "s": "t", "pid": CPUS_PID, "tid": idle, "ts": us(e.ts),
                   "name": f"report: cpu{e.f['idle']} idle, cpu{e.f['busy']} had waiting tasks",
                   "cat": "report", "args": dict(e.f)})
    for s in rec.samples:
        ev.append({"ph": "C", "pid": CPUS_PID, "ts": us(s.ts), "name": f"cpu{s.cpu} runqueue",
                   "args": {"nr_running": s.nr}})
        ev.append({"ph": "C", "pid": CPUS_PID, "ts": us(s.ts), "name": f"cpu{s.cpu} kHz",
                   "args": {"khz": s.khz}})
    return {"traceEvents": ev, "displayTimeUnit": "ms",
            "otherData": {"kernel": rec.meta.get("kernel", ""),
                          "sbridge": rec.meta.get("sbridge", ""),
                          "complete": bool(rec.end)}}


def dumps(rec, classes):
    # ensure_ascii: task names may hold anything; the JSON stays plain ASCII.
    return json.dumps(trace(rec, classes), ensure_ascii=True, allow_nan=False)
