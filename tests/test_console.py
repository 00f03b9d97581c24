"""The harness's reading of a guest console (tools/testbed/vm.py parse):
TAP and KTAP, saved files, kmemleak, taint and fault warnings."""
import os
from pathlib import Path

TOP = Path(__file__).resolve().parents[1]


def test_tap_parser_keeps_failure_diagnostics():
    """A failed point carries the diagnostics that follow it, and nothing else's."""
    from sbridge_testbed import vm
    console = ("@@SB-BEGIN 6.1 2cpu\n1..4\nok 1 - loads\n# before\n"
               "not ok 2 - counts\n# counts: cpu0 reads 0\n# more\n"
               "ok 3 - x # SKIP no pmu\n# after skip\nok 4 - y\n# after ok\n"
               "@@SB-RC 0\n@@SB-DMESG\n@@SB-END\n")
    r = vm.parse(console, timed_out=False)
    assert r.passed == ["loads", "y"]
    assert r.skipped == ["x (no pmu)"]
    assert r.failed == ["counts | counts: cpu0 reads 0 | more"]
    assert r.problems == ["not ok: counts | counts: cpu0 reads 0 | more"]


def test_ktap_totals_bail_out():
    """lib.sh's KTAP: totals that agree pass, a disagreement and Bail out! fail."""
    from sbridge_testbed import vm
    head = "@@SB-BEGIN 6.1 2cpu\nTAP version 13\n1..3\nok 1 - a\nok 2 - b # SKIP no\n"
    tail = "@@SB-RC 0\n@@SB-DMESG\n@@SB-END\n"
    good = "not ok 3 - c\n# Totals: pass:1 fail:1 xfail:0 xpass:0 skip:1 error:0\n"
    r = vm.parse(head + good + tail, timed_out=False)
    assert (r.passed, r.skipped, r.failed, r.tap_problems) == (["a"], ["b (no)"], ["c"], [])
    lost = "# Totals: pass:2 fail:0 xfail:0 xpass:0 skip:1 error:0\n"
    r = vm.parse(head + lost + tail, timed_out=False)
    assert any("KTAP totals pass:2 fail:0 skip:1 disagree" in p for p in r.problems)
    bail = "Bail out! no cgroup v2\n# Totals: pass:1 fail:0 xfail:0 xpass:0 skip:1 error:0\n"
    r = vm.parse(head + bail + tail, timed_out=False)
    assert r.failed == ["Bail out! no cgroup v2"] and not r.tap_problems
    assert "not ok: Bail out! no cgroup v2" in r.problems


def _file_block(name, data, cut=0):
    """A save_file block as lib.sh prints it (busybox base64 wraps at 76)."""
    import base64
    import gzip
    b64 = base64.b64encode(gzip.compress(data)).decode()
    lines = [b64[i:i + 76] for i in range(0, len(b64), 76)]
    if cut:
        return f"@@SB-FILE {name} {len(data)}\n" + "\n".join(lines[:cut]) + "\n"
    return (f"@@SB-FILE {name} {len(data)}\n" + "\n".join(lines)
            + f"\n@@SB-FILE-END {name}\n")


def _console(middle, plan=2):
    return (f"@@SB-BEGIN 6.1 2cpu\n1..{plan}\nok 1 - before\n{middle}ok 2 - after\n"
            "@@SB-RC 0\n@@SB-DMESG\n@@SB-END\n")


def test_saved_files_round_trip():
    """save_file blocks come back byte for byte, out of the TAP stream."""
    import random

    from sbridge_testbed import vm
    rnd = random.Random(16)
    blobs = {f"blob{i}.bin": bytes(rnd.randrange(256) for _ in range(n))
             for i, n in enumerate((0, 1, 77, 4096, 100000))}
    r = vm.parse(_console("".join(_file_block(n, d) for n, d in blobs.items())), False)
    assert r.files == blobs
    assert r.passed == ["before", "after"]
    assert r.problems == []


def test_saved_file_cut_short_is_a_problem():
    """A block without its end marker (the guest died mid-file) fails the run."""
    from sbridge_testbed import vm
    data = os.urandom(5000)
    console = ("@@SB-BEGIN 6.1 2cpu\n1..1\nok 1 - before\n" + _file_block("rec", data, cut=3))
    r = vm.parse(console, True)
    assert "rec" not in r.files
    assert any("file rec: cut short" in p for p in r.problems), r.problems
    # a block whose size does not match is a problem too
    block = _file_block("rec", data).replace(f"rec {len(data)}", f"rec {len(data) + 1}", 1)
    r = vm.parse(_console(block), False)
    assert "rec" not in r.files
    assert any("announced" in p for p in r.problems), r.problems


def test_saved_file_text_is_not_scanned():
    """Base64 spelling 'Oops' or a TAP line inside a block neither fails nor
    counts; a kernel message that lands inside one still fails the run."""
    import base64
    import gzip

    from sbridge_testbed import vm
    # stored gzip (level 0): the data sits at byte 15 of the stream, a
    # multiple of 3, so chosen bytes come out as chosen base64 text; the
    # second line of 76 characters starts at byte 57 = data byte 42
    raw = bytearray(range(120))
    raw[0:3] = base64.b64decode("Oops")
    raw[42:45] = base64.b64decode("ok+/")
    data = bytes(raw)
    b64 = base64.b64encode(gzip.compress(data, compresslevel=0, mtime=0)).decode()
    assert "Oops" in b64
    lines = [b64[i:i + 76] for i in range(0, len(b64), 76)]
    assert lines[1].startswith("ok+/") and vm.TAP.match(lines[1])
    block = f"@@SB-FILE f.bin {len(data)}\n" + "\n".join(lines) + "\n@@SB-FILE-END f.bin\n"
    r = vm.parse(_console(block), False)
    assert r.files == {"f.bin": data}
    assert r.passed == ["before", "after"]
    assert r.problems == []
    # a kernel line on the shared console, inside a block: scanned, not data
    oops = "[   12.345] Oops: 0000 [#1] SMP"
    block = (f"@@SB-FILE f.bin {len(data)}\n{lines[0]}\n{oops}\n" + "\n".join(lines[1:])
             + "\n@@SB-FILE-END f.bin\n")
    r = vm.parse(_console(block), False)
    assert r.files == {"f.bin": data}
    assert r.kernel_errors == [oops]


def _leak(addr, comm, jiffies, frames):
    bt = "".join(f"    [<(____ptrval____)>] {f}\n" for f in frames)
    return (f"unreferenced object {addr} (size 16):\n  comm \"{comm}\", pid 9, "
            f"jiffies {jiffies}\n  hex dump (first 16 bytes):\n    00 00  ..\n"
            f"  backtrace:\n{bt}")


def test_kmemleak_report_counts_only_the_scenarios_objects():
    """Objects from before the scenario are left out, the kernel's known
    leaks are counted apart, anything else is a problem; no report (a stock
    kernel) means no kmemleak at all."""
    from sbridge_testbed import vm
    report = (_leak("0xa", "swapper", 100, ["kmalloc+0x1", "boot_thing+0x2"])
              + _leak("0xb", "failnth", 600, ["kstrdup_const+0x4", "sysfs_slab_add+0x18a/0x200",
                                              "kmem_cache_create+0xd"])
              + _leak("0xc", "insmod", 700, ["kmalloc_trace+0x1", "0xffffffffa000c54f"]))
    console = ("@@SB-BEGIN 6.1 2cpu\n1..1\nok 1 - x\n@@SB-RC 0\n"
               f"@@SB-KMEMLEAK 500\n{report}@@SB-KMEMLEAK-END\n@@SB-TAINT 4096\n"
               "@@SB-DMESG\n@@SB-END\n")
    r = vm.parse(console, timed_out=False)
    assert r.kernel_leaks == {"sysfs_slab_add+": 1}
    assert len(r.leaks) == 1 and "by insmod" in r.leaks[0] and "0xffffffffa000c54f" in r.leaks[0]
    assert r.taint == []
    assert any(p.startswith("kmemleak: 0xc (size 16) by insmod") for p in r.problems)
    stock = vm.parse(console.split("@@SB-KMEMLEAK")[0] + "@@SB-DMESG\n@@SB-END\n", False)
    assert stock.leaks is None and not stock.problems
    off = vm.parse(console.split("@@SB-KMEMLEAK")[0]
                   + "@@SB-KMEMLEAK-OFF kmemleak refused a scan\n@@SB-DMESG\n@@SB-END\n", False)
    assert off.problems == ["kmemleak: kmemleak refused a scan"]


def test_bad_taint_without_a_logged_report_is_a_problem():
    """A warning whose report fell out of the kernel log still fails the run."""
    from sbridge_testbed import vm
    console = ("@@SB-BEGIN 6.1 2cpu\n1..1\nok 1 - x\n@@SB-RC 0\n"
               f"@@SB-TAINT {4096 | 512}\n@@SB-DMESG\n@@SB-END\n")
    r = vm.parse(console, timed_out=False)
    assert r.taint == ["W (warning)"]
    assert r.problems == ["kernel tainted W (warning), its report not in the log"]


def test_debug_fragments_are_settings_the_check_can_read():
    """Every fragment line is a CONFIG_X=value the build's check compares
    (a typo would otherwise be dropped by Kconfig without a word)."""
    from sbridge_testbed import debugkernel
    for arch in ("x86_64", "arm64"):
        text = debugkernel.fragment(arch)
        lines = [ln for ln in text.splitlines() if ln and not ln.startswith("#")]
        assert len(debugkernel.wanted(text)) == len(lines), arch
        assert debugkernel.wanted(text)["CONFIG_KASAN"] == "y"
        assert debugkernel.wanted(text)["CONFIG_FAILSLAB"] == "y"


def test_fault_warnings_tolerated_only_where_faults_are_injected():
    """A listed kernel warning is counted apart in an injecting scenario,
    a failure anywhere else; an unlisted warning fails both."""
    from sbridge_testbed import vm
    warn = ("------------[ cut here ]------------\n"
            "WARNING: CPU: 0 PID: 111 at kernel/trace/trace_events.c:2556 "
            "event_define_fields+0x2d0/0x4a0\nCall Trace:\n x+0x1\n"
            "---[ end trace 0000000000000000 ]---\n")
    other = "WARNING: CPU: 1 PID: 5 at mm/slub.c:10 kfree+0x1\n---[ end trace 1 ]---\n"
    base = "@@SB-BEGIN 6.1 2cpu\n1..1\nok 1 - x\n@@SB-RC 0\n@@SB-TAINT 4608\n@@SB-DMESG\n"
    r = vm.parse(base + warn + "@@SB-END\n", False, injects=True)
    assert r.fault_warnings == {"kernel/trace/trace_events.c event_define_fields": 1}
    assert not r.problems
    assert vm.parse(base + warn + "@@SB-END\n", False).problems
    r = vm.parse(base + warn + other + "@@SB-END\n", False, injects=True)
    assert any("mm/slub.c" in p for p in r.problems)
    alloc = ("failnth: vmalloc error: size 706184, vm_struct allocation failed, "
             "mode:0xcc0(GFP_KERNEL)\nCPU: 1 PID: 43 Comm: failnth\nHardware name: QEMU\n"
             "Call Trace:\n <TASK>\n dump_stack_lvl+0x4c/0x5f\n</TASK>\n")
    r = vm.parse(base.replace("4608", "4096") + alloc + "@@SB-END\n", False, injects=True)
    assert r.fault_warnings == {"allocation-failure report": 1} and not r.problems
    assert vm.parse(base.replace("4608", "4096") + alloc + "@@SB-END\n", False).problems


def test_a_kernel_oops_says_where():
    """An oops fails the run and its problems name the CPU, the PC and the
    first frames: a run on a machine nobody can log into still says where."""
    from sbridge_testbed import vm
    oops = ("[ 58.574984] Oops: int3: 0000 [#1] SMP NOPTI\n"
            "[ 58.575100] CPU: 1 UID: 0 PID: 0 Comm: swapper/1 Tainted: G O 7.3.4+deb13-amd64 #1\n"
            "[ 58.575200] Hardware name: QEMU Standard PC\n"
            "[ 58.575300] RIP: 0010:0xffffffffc0a01234\n"
            "[ 58.575400] Code: cc cc cc cc <cc> cc cc\n"
            "[ 58.575500] RSP: 0018:ffffc90000003f08 EFLAGS: 00000246\n"
            "[ 58.577448] Call Trace:\n"
            "[ 58.577449]  <IRQ>\n"
            "[ 58.577450]  ? die+0x36/0x90\n"
            "[ 58.577451]  __hrtimer_run_queues+0x112/0x2a0\n"
            "[ 58.577452]  hrtimer_interrupt+0xf8/0x230\n"
            "[ 58.577453] Modules linked in: rig_pmu(O) [last unloaded: sbridge_core(O)]\n"
            "[ 58.577448] Kernel panic - not syncing: Fatal exception in interrupt\n")
    r = vm.parse("@@SB-BEGIN 7.3 4cpu\n1..1\nok 1 - a\n" + oops, timed_out=False)
    where = [p for p in r.problems if p.startswith("kernel:   ")]
    assert [w.split("] ", 1)[1].strip() for w in where] == [
        "CPU: 1 UID: 0 PID: 0 Comm: swapper/1 Tainted: G O 7.3.4+deb13-amd64 #1",
        "RIP: 0010:0xffffffffc0a01234", "? die+0x36/0x90",
        "__hrtimer_run_queues+0x112/0x2a0", "hrtimer_interrupt+0xf8/0x230",
        "Modules linked in: rig_pmu(O) [last unloaded: sbridge_core(O)]"]
    assert vm.parse("@@SB-BEGIN 7.3 4cpu\n1..1\nok 1 - a\n@@SB-RC 0\n@@SB-DMESG\n@@SB-END\n",
                    timed_out=False).crash == []
