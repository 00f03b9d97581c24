"""sbridge-core's layers, read from the built objects.

docs/architecture.md's layer table gives each file of sbridge-core a layer
and the files it calls into. These tests build the module (W=1, against the
x86_64 6.1 cell's headers on the host, as test_sparse_clean does) and read
what each object defines and uses with `nm`, and which of the tree's headers
it was compiled from in its `.o.cmd` dependency list. So a per-CPU variable,
an inline helper in a header, a macro, a name without the prefix and a
header pulled in through another header are all seen: the compiler already
resolved them. The mutation tests show that each of those is caught.
"""
import os
import re
import shutil
import subprocess
from pathlib import Path

import pytest

TOP = Path(__file__).resolve().parents[1]
CORE = "sbridge-core"
# nm's symbol types of a definition that other objects can use
DEFINED = set("TDBRVWG")
# names the kernel's macros make from sbridge_ names (TRACE_EVENT, module_init)
GENERATED = re.compile(r"^(__tracepoint_|__traceiter_|__SCK__tp_func_|__SCT__tp_func_)sbridge_\w+$"
                       r"|^(init_module|cleanup_module)$")
# headers of types and declarations shared by several files, and their layer
# (topo.h: the core-type seam, one interface that each topo_<arch>.c implements)
SHARED_HEADERS = {"internal.h": 0, "trace_fp.h": 0, "act_ops.h": 4, "topo.h": 1}
# headers not named after the file that defines what they declare
HEADER_FILE = {"trace_act.h": "policy.c"}
# files that use less when a kernel option is off (the table lists the most)
CONFIG_DEPENDENT = {"act_uclamp.c": "CONFIG_UCLAMP_TASK",
                    "kfuncs.c": "CONFIG_SCHED_CLASS_EXT"}
# the wire: generic netlink messages are built and parsed in the interface
# layer only, so only its objects may be built from this kernel header
WIRE_HEADER = re.compile(r"/include/net/genetlink\.h\b")
WIRE_LAYER = 6


def _table(top):
    """docs/architecture.md's layer table: {file: (layer, {files it calls into})}."""
    doc = (top / "docs/architecture.md").read_text()
    rows = re.finditer(r"^\| (\d) \| ([a-z0-9_]+\.c) \| .*? \| (.*?) \|$", doc, re.M)
    return {m.group(2): (int(m.group(1)),
                         {f"{c.strip()}.c" for c in m.group(3).split(",") if c.strip() != "—"})
            for m in rows}


def _kbuild_config(top):
    """{file.c: None, or the CONFIG_ option it is built under} of every
    object Kbuild can link into sbridge_core.ko (sbridge_core-y and the
    per-architecture sbridge_core-$(CONFIG_X86) lines)."""
    text = (top / CORE / "Kbuild").read_text().replace("\\\n", " ")
    objs = {}
    for m in re.finditer(r"^sbridge_core-(y|\$\((CONFIG_\w+)\))\s*[:+]?=(.*)$", text, re.M):
        for o in m.group(3).split():
            if o.endswith(".o"):
                objs[o[:-2] + ".c"] = m.group(2)
    return objs


def _kbuild_objects(top, every=False):
    """The objects Kbuild links into sbridge_core.ko for the host's headers
    (the x86_64 cell), as .c names; @every: under any configuration."""
    objs = _kbuild_config(top)
    if every:
        return list(objs)
    conf = "\n" + (_headers() / "include/config/auto.conf").read_text()
    return [f for f, opt in objs.items() if opt is None or f"\n{opt}=y" in conf]


def _headers():
    """The x86_64 6.1 cell's kernel headers, installed on the host."""
    try:
        from sbridge_testbed import harness
    except ImportError:  # before the testbed became a package
        import harness  # type: ignore[no-redef]
    k = next((k for k in harness.cells() if k.cell == "x86_64-bookworm"), None)
    if k is None:
        pytest.skip("x86_64-bookworm not in SBRIDGE_CELLS")
    kdir = Path(f"/lib/modules/{k.release}/build")
    if not (kdir / "Makefile").exists():
        pytest.fail(f"host headers for {k.release} not installed (tools/testbed/setup-host.sh)")
    return kdir


def build(top, out):
    """Copy sbridge-core (and what its Kbuild needs) from @top to @out and
    build it with W=1; return the object directory. Rebuilding the same
    @out only compiles what changed."""
    if not (out / CORE).exists():
        for name in ("Kbuild", CORE, "include", "scripts"):
            src = top / name
            if src.is_dir():
                shutil.copytree(src, out / name, ignore=shutil.ignore_patterns(
                    "*.o", "*.ko", "*.mod*", ".*.cmd", "Module.symvers", "modules.order"))
            else:
                shutil.copy(src, out / name)
        (out / "VERSION").write_text("layers\n")
    r = subprocess.run(["make", "-s", "-j2", "-C", str(_headers()), f"M={out / CORE}",
                        "W=1", "modules"], text=True, capture_output=True)
    assert r.returncode == 0, f"{r.stdout[-4000:]}\n{r.stderr[-4000:]}"
    return out / CORE


def read_objects(objdir, files):
    """{file.c: (defined symbols, undefined symbols, local headers it was built from)}."""
    res = {}
    root = objdir.resolve()
    for f in files:
        obj = objdir / (f[:-2] + ".o")
        nm = subprocess.run(["nm", str(obj)], text=True, capture_output=True, check=True).stdout
        defined, undefined = set(), set()
        for line in nm.splitlines():
            parts = line.split()
            if len(parts) == 2 and parts[0] == "U":
                undefined.add(parts[1])
            elif len(parts) == 3 and parts[1] in DEFINED:
                defined.add(parts[2])
        cmd = (objdir / f".{obj.name}.cmd").read_text()
        hdrs = set()
        for dep in re.findall(r"(\S+\.h)\b", cmd):
            p = Path(dep)
            if not p.is_absolute():
                continue
            p = p.resolve()
            if p.parent == root:
                hdrs.add(p.name)
        res[f] = (defined, undefined, hdrs)
    return res


def wire_users(objdir, files):
    """The files whose object was built from <net/genetlink.h>, directly
    or through any other header (its `.o.cmd` dependency list)."""
    return {f for f in files
            if WIRE_HEADER.search((objdir / f".{f[:-2]}.o.cmd").read_text())}


def header_layer(h, table):
    """A header has the layer of the .c file it is named after (or
    HEADER_FILE names); shared ones have their own."""
    if h in SHARED_HEADERS:
        return SHARED_HEADERS[h]
    f = header_file(h)
    return table[f][0] if f in table else None


def header_file(h):
    """The .c file that defines what header @h declares."""
    return HEADER_FILE.get(h, h[:-2] + ".c")


def _cycles(edges):
    """Strongly connected components of more than one node (Tarjan)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on: set[str] = set()
    out: list[list[str]] = []

    def visit(v):
        index[v] = low[v] = len(index)
        stack.append(v)
        on.add(v)
        for w in sorted(edges.get(v, ())):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on.discard(w)
                comp.append(w)
                if w == v:
                    break
            if len(comp) > 1:
                out.append(sorted(comp))
    for v in sorted(edges):
        if v not in index:
            visit(v)
    return out


def check_layers(top, objdir):
    """Every finding against docs/architecture.md's layer rules, one line each."""
    table = _table(top)
    every = _kbuild_objects(top, every=True)
    bad = []
    if set(every) != set(table):
        bad.append(f"not in the table: {sorted(set(every) - set(table))}; "
                   f"gone: {sorted(set(table) - set(every))}")
        return bad
    files = _kbuild_objects(top)
    # another architecture's files: not built here, so not called either
    unbuilt = set(every) - set(files)
    objs = read_objects(objdir, files)
    conf = (_headers() / "include/config/auto.conf").read_text()
    off = {f for f, opt in CONFIG_DEPENDENT.items() if f"\n{opt}=y" not in "\n" + conf}
    owner: dict[str, str] = {}
    for f, (defined, _, _) in objs.items():
        for sym in defined:
            if sym in owner:
                bad.append(f"{sym} is defined in both {owner[sym]} and {f}")
            owner[sym] = f
            if not sym.startswith("sbridge_") and not GENERATED.match(sym):
                bad.append(f"{f} defines {sym} without the sbridge_ prefix (make it static?)")
    edges = {}
    for f, (_, undefined, hdrs) in objs.items():
        layer = table[f][0]
        calls = {owner[s] for s in undefined if s in owner and owner[s] != f}
        for s in sorted(undefined):
            if s in owner and table[owner[s]][0] > layer:
                bad.append(f"{f} (layer {layer}) uses {s} of {owner[s]} "
                           f"(layer {table[owner[s]][0]})")
        listed = table[f][1] - unbuilt
        if calls != listed and not (calls < listed and f in off):
            bad.append(f"{f}: the table says it calls into {sorted(table[f][1])}, "
                       f"the object uses {sorted(calls)}")
        deps = set(calls)
        for h in sorted(hdrs):
            hl = header_layer(h, table)
            if hl is None:
                bad.append(f"{f} includes {h}, which is neither shared nor named after a file")
            elif hl > layer:
                bad.append(f"{f} (layer {layer}) includes {h} (layer {hl})")
            elif h not in SHARED_HEADERS and header_file(h) != f:
                deps.add(header_file(h))
        edges[f] = deps
    for comp in _cycles(edges):
        bad.append("cycle (calls and headers): " + " <-> ".join(comp))
    for f in sorted(wire_users(objdir, files)):
        if table[f][0] != WIRE_LAYER:
            bad.append(f"{f} (layer {table[f][0]}) is built from <net/genetlink.h>: "
                       f"netlink messages belong to layer {WIRE_LAYER} (netlink.c)")
    return bad


@pytest.fixture(scope="module")
def built(tmp_path_factory):
    """sbridge-core built once for this module (the mutation test, last,
    changes it)."""
    out = tmp_path_factory.mktemp("layers")
    shutil.copytree(TOP / "docs", out / "docs")
    return build(TOP, out)


def test_core_layers(built):
    """No object of sbridge-core uses a higher layer's symbol or header, the
    table's "calls into" is exactly what each object uses, every non-static
    name has the prefix, no two files depend on each other, and only layer
    6 is built from <net/genetlink.h>."""
    bad = check_layers(TOP, built)
    assert not bad, "\n".join(bad)


def test_actuator_table_is_complete(built):
    """Every act_*.c that Kbuild builds (but the ledger they share) is an
    actuator: it defines its ops table, sbridge_act_<name>, with its switch
    (kept and declared as a module parameter in the same file), trace id and
    status, and the runner's table lists it (docs/architecture.md, adding
    an actuator)."""
    files = _kbuild_objects(TOP)
    acts = [f for f in files if f.startswith("act_") and f != "act_ledger.c"]
    assert len(acts) >= 4
    objs = read_objects(built, files + ["actuators.c"])
    m = re.search(r"sbridge_acts\[\] = \{(.*?)\};", (TOP / CORE / "actuators.c").read_text(), re.S)
    assert m, "actuators.c has no sbridge_acts[]"
    table = m.group(1)
    listed = re.findall(r"&(sbridge_act_\w+)", table)
    bad = []
    for f in acts:
        ops = "sbridge_act_" + f[4:-2]
        if ops not in objs[f][0]:
            bad.append(f"{f} defines no {ops}")
        if ops not in listed:
            bad.append(f"{ops} is not in actuators.c's sbridge_acts[]")
        if ops not in objs["actuators.c"][1]:
            bad.append(f"actuators.o does not use {ops}")
        src = (TOP / CORE / f).read_text()
        body = re.search(rf"^const struct sbridge_actuator {ops} = \{{(.*?)^\}};", src, re.S | re.M)
        for member in (".name", ".param", ".trace_id", ".hint_bit", ".apply",
                       ".restore", ".active", ".status"):
            if not body or member not in body.group(1):
                bad.append(f"{ops} has no {member}")
        name = f[4:-2]
        if f'.name = "act.{name}"' not in src or f"sbridge_module_param(act_{name}," not in src:
            bad.append(f"{f} does not keep its switch act.{name} and its module parameter")
    assert len(listed) == len(set(listed)) == len(acts), (listed, acts)
    assert not bad, "\n".join(bad)


MUTATIONS = [
    # (file, text appended or (old, new), what the test must say)
    ("netlink.c", "\nDEFINE_PER_CPU(int, sbridge_x_pcpu);\n", None),
    ("task.c", "\nDECLARE_PER_CPU(int, sbridge_x_pcpu);\n"
               "int sbridge_x_read(void)\n{\n\treturn per_cpu(sbridge_x_pcpu, 0);\n}\n",
     r"task.c \(layer 2\) uses sbridge_x_pcpu of netlink.c \(layer 6\)"),
    ("internal.h", ("#endif /* _SBRIDGE_CORE_INTERNAL_H */",
                    "static inline void sbridge_x_up(void)\n{\n\tsbridge_netlink_exit();\n}\n"
                    "#endif /* _SBRIDGE_CORE_INTERNAL_H */"), None),
    ("model.c", "\n#ifdef __KERNEL__\n#include \"internal.h\"\nvoid sbridge_x_inline(void)\n"
                "{\n\tsbridge_x_up();\n}\n#endif\n",
     r"model.c \(layer 0\) uses sbridge_netlink_exit of netlink.c \(layer 6\)"),
    ("params.c", "\nint x_unprefixed;\n",
     r"params.c defines x_unprefixed without the sbridge_ prefix"),
    ("trace.h", ('#include "trace_fp.h"\n', '#include "trace_fp.h"\n#include "checker.h"\n'),
     r"sample.c \(layer 2\) includes checker.h \(layer 4\)"),
    ("policy.c", "\nvoid sbridge_actuators_kick(void);\n"
                 "void sbridge_x_kick(void)\n{\n\tsbridge_actuators_kick();\n}\n",
     r"cycle \(calls and headers\): .*actuators.c.*policy.c"),
    ("matrix.c", ('#include "internal.h"\n', '#include <net/genetlink.h>\n#include "internal.h"\n'),
     r"matrix.c \(layer 3\) is built from <net/genetlink.h>"),
]


@pytest.mark.slow
def test_core_layers_catches_each_mutation(built):
    """The layer test can fail: a per-CPU variable read from a lower layer,
    an inline helper in internal.h that calls up, a non-static name without
    the prefix, a header that pulls in a higher layer's, a call that
    closes a cycle inside layer 4 and <net/genetlink.h> below layer 6 are
    each caught. All go into the built
    tree at once and each finding must be named; a mutated header keeps
    its time stamp, so only the files that use it (and sample.c, which
    includes trace.h) are rebuilt, not the whole module."""
    assert not check_layers(built.parent, built), "the tree is not clean to begin with"
    for f, change, _ in MUTATIONS:
        p = built / f
        st = p.stat()
        text = p.read_text()
        if isinstance(change, tuple):
            assert change[0] in text, (f, change[0])
            text = text.replace(change[0], change[1], 1)
        else:
            text += change
        p.write_text(text)
        if f.endswith(".h"):
            os.utime(p, ns=(st.st_atime_ns, st.st_mtime_ns))
    (built / "sample.c").touch()
    build(built.parent, built.parent)
    bad = "\n".join(check_layers(built.parent, built))
    missed = [want for _, _, want in MUTATIONS if want and not re.search(want, bad)]
    assert not missed, f"not caught: {missed}\nfindings:\n{bad}"
