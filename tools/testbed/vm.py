"""Boot a test guest under QEMU TCG, optionally throttle its little vCPUs,
and turn its console into a verdict.

Never KVM: /dev/kvm exists on the build machines but hangs.
"""
import base64
import binascii
import contextlib
import fcntl
import gzip
import json
import os
import re
import select
import signal
import socket
import subprocess
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path

if not __package__:  # a script, or imported flat: see standalone.py
    import standalone  # type: ignore[import-not-found]  # noqa: F401
from sbridge_testbed import guest

# Anything like this in the console or the guest's kernel log fails a run.
KERNEL_BAD = re.compile(
    r"Oops|BUG:|WARNING:|Kernel panic|general protection fault|Unable to handle kernel"
    r"|scheduling while atomic|possible circular locking|possible recursive locking"
    r"|inconsistent lock state|lockdep is turned off|DEBUG_LOCKS_WARN_ON"
    r"|INFO: task .* blocked for more than"
    r"|soft lockup|hard LOCKUP|rcu_sched self-detected|rcu: INFO:|detected stall"
    r"|UBSAN:|KASAN:|refcount_t:|list_add corruption|list_del corruption|Call Trace:")
TAP = re.compile(r"^(not ok|ok)\b\s*(\d+)?\s*-?\s*(.*?)(?:\s+#\s*(SKIP|TODO)\b\s*(.*))?$",
                 re.I)
# lib.sh's KTAP totals at exit, counted apart from the result lines
TOTALS = re.compile(r"^# Totals: pass:(\d+) fail:(\d+) xfail:\d+ xpass:\d+ skip:(\d+) error:\d+$")
BOOT_ALLOWANCE = 30  # seconds for the kernel to boot before the scenario starts
# lib.sh's save_file: a file between these lines, gzip then base64
FILE_BEGIN = re.compile(r"^@@SB-FILE ([A-Za-z0-9._-]+) (\d+)$")
FILE_END = "@@SB-FILE-END "
BASE64_LINE = re.compile(r"^[A-Za-z0-9+/=]*$")
# An oops's where: the faulting CPU and task, the PC (x86 RIP, arm64 pc/lr)
# and, after "Call Trace:", the frames (symbol+0xoff/0xlen).
CRASH_WHERE = re.compile(r"\bCPU: \d+ .*PID: |\bRIP: |\] pc : |\] lr : |Modules linked in:")
CRASH_FRAME = re.compile(r"\+0x[0-9a-f]+/0x[0-9a-f]+")
# x86 oops bytes: "Code: ... XX <YY> ..."; for an int3 trap the PC is past it
TRAP_CODE = re.compile(r"Code: (?:[0-9a-f]{2} )*([0-9a-f]{2}) <[0-9a-f]{2}>")


@dataclass
class Result:
    console: str
    timed_out: bool
    rc: int | None = None
    plan: int | None = None
    passed: list = field(default_factory=list)
    failed: list = field(default_factory=list)
    skipped: list = field(default_factory=list)
    kernel_errors: list = field(default_factory=list)
    crash: list = field(default_factory=list)  # crash_context() of the first report
    dmesg: str = ""
    wall: float = 0.0
    throttle: str = ""  # how little vCPUs were slowed: "cgroup v1", "cgroup v2"
    files: dict = field(default_factory=dict)        # save_file: name -> bytes
    file_problems: list = field(default_factory=list)
    tap_problems: list = field(default_factory=list)  # KTAP totals that disagree
    leaks: list | None = None  # kmemleak objects made during the scenario (debug kernels)
    kernel_leaks: dict = field(default_factory=dict)  # vm.KERNEL_LEAKS frame -> count
    kmemleak_off: str = ""  # why a debug kernel made no kmemleak report
    taint: list = field(default_factory=list)  # TAINT_BAD flags set at the end
    fault_warnings: dict = field(default_factory=dict)  # FAULT_WARNINGS site -> count
    stuck: str = ""  # where the vCPUs were when a boot that never reached init was killed
    boot_retry: str = ""  # harness.run: why the first boot was thrown away

    @property
    def problems(self):
        """Every reason this run is not a pass, in words."""
        p = []
        if self.timed_out:
            p.append(f"timed out before init ({self.stuck})" if self.stuck else "timed out")
        if self.rc is None and not self.timed_out:
            p.append("guest never reported the scenario's exit status")
        elif self.rc not in (None, 0):
            p.append(f"scenario exited {self.rc}")
        if self.plan is None:
            p.append("no TAP plan")
        elif self.plan != len(self.passed) + len(self.failed) + len(self.skipped):
            p.append(f"plan says {self.plan}, ran "
                     f"{len(self.passed) + len(self.failed) + len(self.skipped)}")
        p += [f"not ok: {d}" for d in self.failed]
        p += self.file_problems
        p += self.tap_problems
        p += [f"kernel: {line}" for line in self.kernel_errors[:10]]
        p += [f"kernel:   {line}" for line in self.crash]
        if self.taint and not self.kernel_errors:
            p.append(f"kernel tainted {', '.join(self.taint)}, its report not in the log")
        if self.kmemleak_off:
            p.append(f"kmemleak: {self.kmemleak_off}")
        p += [f"kmemleak: {leak}" for leak in (self.leaks or [])[:5]]
        if self.leaks and len(self.leaks) > 5:
            p.append(f"kmemleak: {len(self.leaks) - 5} more unreferenced objects")
        return p


def crash_context(text, frames=12):
    """Where the first kernel report happened: the lines of @text after its
    first "Oops"/"BUG:"/"WARNING:"/panic line that name the CPU and task,
    the PC and the modules, and up to @frames call-trace frames, so that a
    run that failed on a machine nobody can log into still says where.
    """
    lines = text.splitlines()
    start = next((i for i, line in enumerate(lines) if KERNEL_BAD.search(line)
                  and "Call Trace:" not in line and "@@SB-" not in line), None)
    if start is None:
        return []
    out: list[str] = []
    n = 0
    for line in lines[start + 1:start + 80]:
        if CRASH_WHERE.search(line) and len(out) - n < 5:
            out.append(line.strip()[:200])
        elif CRASH_FRAME.search(line) and n < frames:
            out.append(line.strip()[:200])
            n += 1
        if "Kernel panic" in line or "end trace" in line:
            break
    return list(dict.fromkeys(out))


def stale_int3(r):
    """The emulator's stale int3, if that is what ended run @r.

    x86 patches live kernel text (static keys, static calls) with
    text_poke_bp(): an int3 on the first byte, the rest, the first byte,
    syncing every CPU in between, and an int3 handler that steps over the
    site while a patch is in flight. With one host thread per vCPU (the
    rig's guests, which pace each vCPU thread) QEMU 7.2 lets a vCPU run a
    stale translation of the int3 after the patch finished: "Oops: int3"
    in kernel text whose Code line shows the byte before the PC back to
    what it was patched to, not 0xcc (tests/scenarios/tcg-textpoke.sh;
    seen at 2.9 s of a boot, no module loaded). A call into freed module
    text (x86 fills it with int3) or a genuine int3 shows 0xcc there, and
    so does not qualify.
    Returns the reason in words, or "".
    """
    if not r.kernel_errors or "Oops: int3" not in r.kernel_errors[0]:
        return ""
    text = r.console + "\n" + r.dmesg
    m = TRAP_CODE.search(text, text.find("Oops: int3"))
    # r.crash: crash_context() of this report, its own RIP line first
    rip = next((line for line in r.crash if "RIP: " in line), "").partition("RIP: 0010:")[2]
    if not m or m.group(1) == "cc" or not rip or "[" in rip:  # "[module]": not kernel text
        return ""
    return (f"the emulator ran a stale int3 at {rip} (byte before it now {m.group(1)}, "
            "a finished text patch)")


def extract_files(console):
    """Take lib.sh's save_file blocks out of @console.

    Returns (console without them, {name: bytes}, [problems]). A block's
    base64 never reaches the TAP parser or the kernel-error scan (it can
    spell "ok" or "Oops"); a line inside one that is not base64 (a kernel
    message on the shared console) stays in the console for the scan. A
    block cut short, undecodable or of the wrong size is a problem, never
    silently dropped.
    """
    keep: list[str] = []
    files: dict[str, bytes] = {}
    problems: list[str] = []
    cur = None  # (name, size, base64 lines)
    for line in console.split("\n"):
        if cur is None:
            m = FILE_BEGIN.match(line.strip())
            if m:
                cur = (m.group(1), int(m.group(2)), [])
            else:
                keep.append(line)
            continue
        s = line.strip()
        if s == FILE_END + cur[0]:
            name, size, lines = cur
            cur = None
            try:
                data = gzip.decompress(base64.b64decode("".join(lines), validate=True))
            except (binascii.Error, OSError, EOFError) as e:
                problems.append(f"file {name}: does not decode ({e})")
                continue
            if len(data) != size:
                problems.append(f"file {name}: {len(data)} bytes, announced {size}")
            elif name in files:
                problems.append(f"file {name}: saved twice")
            else:
                files[name] = data
        elif BASE64_LINE.match(s):
            cur[2].append(s)
        else:
            keep.append(line)
    if cur is not None:
        problems.append(f"file {cur[0]}: cut short (no {FILE_END}{cur[0]})")
    return "\n".join(keep), files, problems


KMEMLEAK = re.compile(r"@@SB-KMEMLEAK (\d+)\n(.*?)@@SB-KMEMLEAK-END", re.S)
LEAK_COMM = re.compile(r'comm "([^"]*)", pid \d+, jiffies (\d+)')
# Leaks that are the kernel's, with the reason; a report whose backtrace has
# the frame is counted apart, never as sbridge's.
KERNEL_LEAKS = {
    "sysfs_slab_add+": "6.1 mm/slub.c leaks a new cache's kobject name when "
                       "kobject_init_and_add() fails (kmem_cache_create's error path, "
                       "reached by an injected failure)",
}


def leaks(console):
    """kmemleak's report from the init, objects allocated after the
    scenario started: (sbridge's candidates, {kernel leak frame: count}),
    one line each (size, comm, first backtrace frames); (None, {}) if the
    guest made no report (not a debug kernel)."""
    m = KMEMLEAK.search(console)
    if not m:
        return None, {}
    start = int(m.group(1))
    found: list[str] = []
    kernel: dict[str, int] = {}
    for obj in re.split(r"^unreferenced object ", m.group(2), flags=re.M)[1:]:
        a = LEAK_COMM.search(obj)
        if not a:
            found.append(f"unparsed report: {obj.strip()[:200]}")
            continue
        if int(a.group(2)) < start:
            continue
        frames = re.findall(r"\]\s+(\S+)", obj.partition("backtrace:")[2])
        known = next((f for f in KERNEL_LEAKS if any(x.startswith(f) for x in frames)), None)
        if known:
            kernel[known] = kernel.get(known, 0) + 1
            continue
        size = obj.split("\n", 1)[0].strip().rstrip(":")
        found.append(f"{size} by {a.group(1)}: {' < '.join(frames[:8])}")
    return found, kernel


# Kernel warnings an injected allocation failure provokes in the kernel's
# own code, with the reason: tolerated only in "# injects: yes" scenarios,
# counted apart (Result.fault_warnings), never as sbridge's. Keyed by the
# WARNING line's "at FILE:LINE FUNCTION" with the line number left out.
FAULT_WARNINGS = {
    ("kernel/trace/trace_events.c", "event_define_fields"):
        "6.1 WARN_ON_ONCE()s when a module's trace event field cannot be "
        "allocated (trace_module_notify at load)",
    ("kernel/jump_label.c", "jump_label_module_notify"):
        "6.1 WARN()s when the memory to link a module's static keys to the "
        "kernel's cannot be allocated (jump_label_add_module at load; the "
        "load then fails with ENOMEM)",
    ("kernel/jump_label.c", "jump_label_del_module"):
        "6.1 WARN_ON()s for each key left unlinked while it undoes that "
        "failed jump_label_add_module",
    ("allocation-failure", "report"):
        "the allocator's report of a failed allocation or slab cache creation "
        "(warn_alloc, kmem_cache_create: a stack dump, no warning, no taint)",
}
WARN_AT = re.compile(r"WARNING: CPU: \d+ PID: \d+ at (\S+):\d+ (\w+)")
ALLOC_FAIL = re.compile(r": (vmalloc error: size \d+|page allocation failure: order:\d+)"
                        r"|kmem_cache_create(_usercopy)?\(\S+\) failed with error")


def strip_fault_warnings(text):
    """@text without the FAULT_WARNINGS reports (from the WARNING line to
    its "---[ end trace" line); returns (text, {site: count})."""
    out: list[str] = []
    hits: dict[str, int] = {}
    skip, alloc = False, 0
    for line in text.split("\n"):
        if ALLOC_FAIL.search(line):
            hits["allocation-failure report"] = hits.get("allocation-failure report", 0) + 1
            alloc = 6  # its stack dump's "Call Trace:" follows within a few lines
        elif alloc:
            alloc -= 1
            if "Call Trace:" in line:
                alloc = 0
                continue
        m = WARN_AT.search(line)
        if m and (m.group(1), m.group(2)) in FAULT_WARNINGS:
            site = f"{m.group(1)} {m.group(2)}"
            hits[site] = hits.get(site, 0) + 1
            skip = True
            if out and "cut here" in out[-1]:
                out.pop()
            continue
        if skip:
            skip = "---[ end trace" not in line
            continue
        out.append(line)
    return "\n".join(out), hits


def parse(console, timed_out, wall=0.0, injects=False):
    """The verdict of one boot's @console. @injects: the scenario injects
    faults, FAULT_WARNINGS are the kernel's and not failures."""
    r = Result(console=console, timed_out=timed_out, wall=wall)
    if injects:
        console, r.fault_warnings = strip_fault_warnings(console)
    console, r.files, r.file_problems = extract_files(console)
    body = console.split("@@SB-BEGIN", 1)[1] if "@@SB-BEGIN" in console else ""
    tap, _, rest = body.partition("@@SB-RC")
    last_failed = False
    if _:
        m = re.match(r"\s*(\d+)", rest)
        r.rc = int(m.group(1)) if m else None
        r.dmesg = rest.partition("@@SB-DMESG")[2].partition("@@SB-END")[0]
    totals = None
    for line in tap.splitlines()[1:]:
        line = line.strip()
        m = re.match(r"^1\.\.(\d+)", line)
        if m:
            r.plan = int(m.group(1))
            continue
        if line.startswith("Bail out!"):
            r.failed.append(line)
            continue
        m = TOTALS.match(line)
        if m:
            totals = tuple(int(g) for g in m.groups())
            continue
        m = TAP.match(line)
        if not m:
            # a failure's diagnostics follow it: keep them with it, so a
            # report shows why without the whole console
            if line.startswith("#") and r.failed and last_failed:
                d = r.failed[-1]
                if len(d) < 400:
                    r.failed[-1] = f"{d} | {line[1:].strip()}"[:400]
            continue
        last_failed = m.group(1).lower() == "not ok" and not m.group(4)
        desc = m.group(3) or ""
        if m.group(4) and m.group(4).upper() == "SKIP":
            r.skipped.append(f"{desc} ({m.group(5) or 'skipped'})")
        elif m.group(1).lower() == "ok":
            r.passed.append(desc)
        else:
            r.failed.append(desc)
    # A result line lost on the console, or one printed that lib.sh did not
    # count, shows as a disagreement. Bail out is a failure lib.sh never
    # counted.
    bails = sum(d.startswith("Bail out!") for d in r.failed)
    if totals and totals != (len(r.passed), len(r.failed) - bails, len(r.skipped)):
        r.tap_problems.append(
            f"KTAP totals pass:{totals[0]} fail:{totals[1]} skip:{totals[2]} disagree with "
            f"the lines read ({len(r.passed)} ok, {len(r.failed) - bails} not ok, "
            f"{len(r.skipped)} skip)")
    # the console and the dmesg dump overlap: keep each line once
    r.leaks, r.kernel_leaks = leaks(rest)
    m = re.search(r"@@SB-KMEMLEAK-OFF (.*)", rest)
    if m:
        r.kmemleak_off = m.group(1).strip()
    m = re.search(r"@@SB-TAINT (\d+)", rest)
    if m:
        r.taint = [name for bit, name in TAINT_BAD.items() if int(m.group(1)) >> bit & 1
                   and not (bit == 9 and r.fault_warnings)]
    r.kernel_errors = list(dict.fromkeys(
        line.strip() for line in (console + "\n" + r.dmesg).splitlines()
        if KERNEL_BAD.search(line) and "@@SB-" not in line))
    if r.kernel_errors:
        r.crash = crash_context(console + "\n" + r.dmesg)
    return r


class QMP:
    def __init__(self, path, deadline=30):
        self.s = socket.socket(socket.AF_UNIX)
        end = time.time() + deadline
        while True:
            try:
                self.s.connect(str(path))
                break
            except OSError:
                if time.time() > end:
                    raise
                time.sleep(0.05)
        # no QMP answer is waited for longer than a connection is
        self.s.settimeout(max(deadline, 1))
        self.f = self.s.makefile("rw")
        json.loads(self.f.readline())  # greeting
        self.cmd("qmp_capabilities")

    def cmd(self, name, **args):
        self.f.write(json.dumps({"execute": name, "arguments": args}) + "\n")
        self.f.flush()
        while True:
            msg = json.loads(self.f.readline())
            if "return" in msg:
                return msg["return"]
            if "error" in msg:
                raise RuntimeError(f"QMP {name}: {msg['error']}")

    def close(self):
        # the file holds the connection open too: QEMU takes the next
        # client (vcpu_pcs()) only once both are closed
        self.f.close()
        self.s.close()


class Throttle:
    """Host-side cpu quota on some vCPU threads: a slower "little" core.

    cgroup v1 (`cpu` controller mounted on its own) is used where it exists,
    else cgroup v2 with a threaded subtree, which v2 requires for putting
    single threads of one process in different groups.
    """
    PERIOD_US = 10000

    def __init__(self, qemu_pid, tids, share):
        self.dirs = []
        quota = max(1000, int(self.PERIOD_US * share))
        name = f"sbridge-testbed-{qemu_pid}"
        v1, root = self.mounts()
        if v1:
            g = v1 / name
            g.mkdir()
            self.dirs.append(g)
            (g / "cpu.cfs_period_us").write_text(str(self.PERIOD_US))
            (g / "cpu.cfs_quota_us").write_text(str(quota))
            for t in tids:
                (g / "tasks").write_text(str(t))
            self.parking = v1 / "tasks"
            self.mode = "cgroup v1"
            return
        if not root or "cpu" not in (root / "cgroup.controllers").read_text().split():
            raise RuntimeError("no cgroup cpu controller (v1 or v2) to throttle with")
        parent = root / name
        parent.mkdir()
        self.dirs.append(parent)
        (root / "cgroup.subtree_control").write_text("+cpu")
        (parent / "cgroup.procs").write_text(str(qemu_pid))
        (parent / "cgroup.subtree_control").write_text("+cpu")
        for sub in ("rest", "little"):
            (parent / sub).mkdir()
            self.dirs.insert(0, parent / sub)
            (parent / sub / "cgroup.type").write_text("threaded")
        for t in Path(f"/proc/{qemu_pid}/task").iterdir():
            if int(t.name) not in tids:
                (parent / "rest/cgroup.threads").write_text(t.name)
        for t in tids:
            (parent / "little/cgroup.threads").write_text(str(t))
        (parent / "little/cpu.max").write_text(f"{quota} {self.PERIOD_US}")
        self.parking = root / "cgroup.procs"
        self.mode = "cgroup v2"

    @staticmethod
    def mounts(table="/proc/self/mounts"):
        """(v1 hierarchy holding the cpu controller, cgroup2 mount), either None.

        From the mount table, not fixed paths: hybrid hosts mount v2 at
        /sys/fs/cgroup/unified, and v1 may co-mount cpu with cpuacct.
        """
        v1 = v2 = None
        for line in Path(table).read_text().splitlines():
            f = line.split()
            if len(f) < 4:
                continue
            if f[2] == "cgroup" and "cpu" in f[3].split(",") and v1 is None:
                v1 = Path(f[1])
            elif f[2] == "cgroup2" and v2 is None:
                v2 = Path(f[1])
        if v1 and not (v1 / "cpu.cfs_quota_us").exists():
            v1 = None
        return v1, v2

    def remove(self):
        for d in self.dirs:
            for _ in range(50):
                try:
                    d.rmdir()
                    break
                except OSError:
                    time.sleep(0.1)


# The kernel log is read back whole after the scenario (init's dmesg dump):
# a buffer that wraps in a chatty scenario would drop the first warnings.
LOG_BUF = "log_buf_len=4M"
# Taint flags that mean something went wrong (the kernel's TAINT_* bits):
# B bad page, D died, L soft lockup, W warning. O and E (an out-of-tree,
# unsigned module: sbridge) are expected.
TAINT_BAD = {5: "B (bad page)", 7: "D (oops)", 9: "W (warning)", 14: "L (soft lockup)"}


# loglevel=5, not quiet: a boot that hangs before init (the harness boots
# again, harness.run) leaves its warnings and oopses on the console (they
# print at KERN_DEFAULT, which quiet hides); init turns the console down
# to emergencies before the scenario.
def qemu_cmd(arch, kernel, initrd, smp, topology, mem=None, icount=False, append="",
             extra=(), cpufreq=False):
    if arch == "x86_64":
        cmd = ["qemu-system-x86_64", "-m", str(mem or 512), "-smp", str(smp),
               "-cpu", "max", "-append", f"console=ttyS0 loglevel=5 panic=-1 {LOG_BUF} {append}"]
    else:
        mem = mem or 1024
        cpu = "cortex-a57"
        cmd = ["qemu-system-aarch64", "-M", "virt", "-cpu", cpu, "-smp", str(smp),
               "-m", str(mem),
               "-append",
               f"console=ttyAMA0 loglevel=5 panic=-1 sched_verbose {LOG_BUF} {append}"]
        if topology not in ("smp", "sym") or cpufreq:
            cmd += ["-dtb", str(guest.dtb(topology, smp, cpu, mem, cpufreq=cpufreq))]
        if icount:
            cmd += ["-icount", "shift=0,sleep=off"]
    # x86 guests: single-threaded TCG. With one host thread per vCPU, QEMU
    # 7.2 lets a vCPU run a stale int3 after another one finished
    # text_poke_bp(): the stock 6.12 kernel oopses just from toggling the
    # sched_switch tracepoint under load (tests/scenarios/tcg-textpoke.sh).
    accel = "tcg,thread=single" if arch == "x86_64" else "tcg"
    return cmd + ["-kernel", str(kernel), "-initrd", str(initrd), "-nographic",
                  "-no-reboot", "-accel", accel, *extra]


@contextlib.contextmanager
def vm_lock():
    """Holds $SBRIDGE_VM_LOCK (flock, exclusive) while one guest runs, if
    set: on a shared host, long runs (make test-debug) then take turns with
    other checkouts' guests boot by boot instead of holding the host for
    hours. Never set it under flock(1) on the same file: that would wait
    for itself."""
    path = os.environ.get("SBRIDGE_VM_LOCK")
    if not path:
        yield
        return
    with open(path, "a") as f:  # closing it releases the lock
        fcntl.flock(f, fcntl.LOCK_EX)
        yield


def boot(k, s, initrd, cmd=None, echo=None, slowdown=1):
    """Boot kernel @k (under vm_lock()); see _boot()."""
    with vm_lock():
        return _boot(k, s, initrd, cmd, echo, slowdown)


def _boot(k, s, initrd, cmd=None, echo=None, slowdown=1):
    """Boot kernel @k with the machine scenario @s asks for and @initrd,
    and wait for the guest to power off; returns a parsed Result.

    @k: a kernels.Kernel (arch, vmlinuz). @s: a harness.Scenario: smp,
    topology (s.topology_for(k)), timeout, throttle (the share of a host
    CPU each little vCPU gets, arm64 only), icount, mem, cpufreq (arm64
    device tree with per-cluster OPP tables), injects. @cmd: a complete QEMU
    command (e.g. from the rig) instead of ours. @slowdown: the timeout's
    multiplier (debug kernels).
    """
    arch, smp, topology = k.arch, s.smp, s.topology_for(k)
    timeout = s.timeout * slowdown
    throttle = s.throttle if arch == "arm64" else None
    with tempfile.TemporaryDirectory() as tmp:
        qmp_path = Path(tmp) / "qmp.sock"
        cmd = list(cmd or qemu_cmd(arch, k.vmlinuz, initrd, smp, topology, mem=s.mem,
                                   icount=s.icount, cpufreq=s.cpufreq))
        # -S: start paused so throttling is in place before the guest runs
        cmd += ["-qmp", f"unix:{qmp_path},server=on,wait=off", "-S"]
        t0 = time.time()
        p = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                             stdin=subprocess.DEVNULL, start_new_session=True)
        thr = None
        chunks = []
        timed_out = False
        stuck = ""
        try:
            try:
                q = QMP(qmp_path)
            except (OSError, ValueError) as e:
                # QEMU quit before the guest started (bad kernel path, bad
                # option): its own message is the useful part
                try:
                    p.wait(timeout=5)
                except subprocess.TimeoutExpired:
                    raise e from None
                assert p.stdout is not None
                out = p.stdout.read().decode(errors="replace").strip()
                raise RuntimeError(f"QEMU exited ({p.returncode}) before the guest "
                                   f"started: {out or e}") from None
            littles = guest.little_cpus(topology, smp) if throttle else []
            if littles:
                cpus = q.cmd("query-cpus-fast")
                tids = [c["thread-id"] for c in cpus if c["cpu-index"] in littles]
                thr = Throttle(p.pid, tids, throttle)
            q.cmd("cont")
            q.close()
            deadline = t0 + timeout + BOOT_ALLOWANCE
            while True:
                left = deadline - time.time()
                if left <= 0:
                    timed_out = True
                    break
                ready, _, _ = select.select([p.stdout], [], [], min(left, 1.0))
                if ready:
                    data = os.read(ready[0].fileno(), 65536)
                    if not data:
                        break
                    chunks.append(data)
                    if echo:
                        echo(data.decode(errors="replace"))
            if timed_out and b"@@SB-BEGIN" not in b"".join(chunks):
                stuck = vcpu_pcs(qmp_path)
        finally:
            if p.poll() is None:
                os.killpg(p.pid, signal.SIGKILL)
            p.wait()
            if thr:
                thr.remove()
        console = b"".join(chunks).decode(errors="replace").replace("\r", "")
        r = parse(console, timed_out, time.time() - t0, s.injects)
        r.throttle = thr.mode if thr else ""
        r.stuck = stuck
        return r


def vcpu_pcs(qmp_path):
    """Where each vCPU of the guest at @qmp_path is (its program counter,
    from the monitor), in words: a boot that hangs before init without a
    warning or oops on the console leaves nothing else to go on."""
    try:
        q = QMP(qmp_path, deadline=2)
        try:
            regs = q.cmd("human-monitor-command", **{"command-line": "info registers -a"})
        finally:
            q.close()
    except (OSError, ValueError, RuntimeError) as e:
        return f"vCPUs not readable: {e}"
    # x86: RIP (EIP in real mode) and whether the vCPU is halted; arm64: PC
    pcs = [pc + (" (halted)" if hlt == "1" else "")
           for pc, hlt in re.findall(r"\b(?:RIP|EIP|PC)=([0-9a-f]+)(?:.*HLT=(\d))?", regs)]
    return "vCPU program counters " + ", ".join(pcs) if pcs else "no vCPU program counters"
