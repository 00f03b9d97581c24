"""Kernel coding style and static checks: checkpatch and sparse over every module source, clean."""
import re
import subprocess
from pathlib import Path

import pytest

TOP = Path(__file__).resolve().parents[1]


def test_checkpatch_clean():
    # checkpatch exits non-zero on any finding; the script fails if it cannot
    # fetch checkpatch. --quiet prints nothing for clean files.
    r = subprocess.run([str(TOP / "tools/checkpatch.sh")], text=True, capture_output=True)
    assert r.returncode == 0, f"{r.stdout[-6000:]}\n{r.stderr[-2000:]}"


def test_sparse_clean():
    """make sparse (C=2) against the x86_64 6.1 cell's headers on the host
    (the ones test_dkms builds with): not one warning."""
    from sbridge_testbed import harness
    k = next((k for k in harness.cells() if k.cell == "x86_64-bookworm"), None)
    if k is None:
        pytest.skip("x86_64-bookworm not in SBRIDGE_CELLS")
    if not Path(f"/lib/modules/{k.release}/build/Makefile").exists():
        pytest.fail(f"host headers for {k.release} not installed (tools/testbed/setup-host.sh)")
    r = subprocess.run(["make", "-s", "-C", str(TOP), "sparse", f"KVER={k.release}"],
                       text=True, capture_output=True)
    assert r.returncode == 0, f"{r.stdout[-6000:]}\n{r.stderr[-2000:]}"


def _pycheck(*files):
    """tools/pycheck.sh (ruff and mypy at pinned versions); a skip, never a
    pass, when they cannot be installed."""
    r = subprocess.run([str(TOP / "tools/pycheck.sh"), *map(str, files)], text=True,
                       capture_output=True)
    if r.returncode == 77:
        pytest.skip(f"ruff/mypy not installable: {r.stderr.strip()[-500:]}")
    return r


def test_python_lint_and_types_clean():
    """ruff and mypy over the host's Python (pyproject.toml): not one finding."""
    r = _pycheck()
    assert r.returncode == 0, f"{r.stdout[-6000:]}\n{r.stderr[-2000:]}"


def test_python_check_catches_findings(tmp_path):
    """The check can fail: an unused import (ruff) and a wrong return type (mypy)."""
    bad = tmp_path / "bad.py"
    bad.write_text('import os\n\n\ndef f() -> int:\n    return "x"\n')
    r = _pycheck(bad)
    assert r.returncode == 1, r.stdout + r.stderr
    assert "F401" in r.stdout and "[return-value]" in r.stdout, r.stdout


CTL = TOP / "userspace-ctl"
CTL_FN_MAX = 80     # lines of one function of sbridgectl, signature to closing brace


def _c_functions(text):
    """(name, first line, lines) of each function defined in a C file in
    kernel style: the body opens with a '{' alone at column 0 and closes
    with a '}' alone at column 0; the signature starts at column 0 and its
    continuation lines are indented."""
    lines = text.split("\n")
    out = []
    i = 0
    while i < len(lines):
        if lines[i] != "{":
            i += 1
            continue
        j = i - 1
        while j > 0 and lines[j][:1] in (" ", "\t"):
            j -= 1
        k = i
        while k < len(lines) and lines[k] != "}":
            k += 1
        m = re.search(r"(\w+)\s*\(", " ".join(lines[j:i]))
        if m:
            out.append((m.group(1), j + 1, k - j + 1))
        i = k + 1
    return out


def _ctl_sources():
    return sorted(CTL.glob("*.c")) + sorted((CTL / "lib").glob("*.c"))


def test_ctl_functions_short():
    """No function of sbridgectl runs over CTL_FN_MAX lines: a long one is
    cut into options, run and print steps (userspace-ctl/README.md)."""
    found, long = {}, []
    for p in _ctl_sources():
        for name, line, n in _c_functions(p.read_text()):
            found[name] = n
            if n > CTL_FN_MAX:
                long.append(f"{p.relative_to(TOP)}:{line} {name}() is {n} lines")
    # the scan sees the functions it is meant to: main() and every command
    assert "main" in found and len(found) > 300, sorted(found)
    cmds = re.findall(r"^SB_COMMAND\((\w+),", (CTL / "commands.h").read_text(), re.M)
    assert cmds and all(f"cmd_{c}" in found for c in cmds), cmds
    assert not long, f"over {CTL_FN_MAX} lines:\n" + "\n".join(long)


def test_ctl_function_scan_catches_a_long_one():
    """The length scan can fail: a function of CTL_FN_MAX + 1 lines is one."""
    body = "\n".join(["\tx++;"] * (CTL_FN_MAX - 3))
    src = f"static int f(int x,\n\t     int y)\n{{\n{body}\n}}\n\nint g(void)\n{{\n\treturn 0;\n}}\n"
    assert _c_functions(src) == [("f", 1, CTL_FN_MAX + 1), ("g", CTL_FN_MAX + 3, 4)]


def test_ctl_commands_one_file_each():
    """A command is one file, NAME.c, defining cmd_NAME(), and one line of
    commands.h; lib/ holds the library, every symbol it exports sb_*."""
    cmds = re.findall(r"^SB_COMMAND\((\w+),", (CTL / "commands.h").read_text(), re.M)
    assert len(cmds) >= 12, cmds
    for c in cmds:
        src = CTL / f"{c}.c"
        assert src.exists(), f"commands.h names {c}, but there is no {src.name}"
        assert re.search(rf"^int cmd_{c}\(int argc, char \*\*argv\)$", src.read_text(), re.M), \
            f"{src.name} does not define cmd_{c}()"
    # no command defined outside the table, nor outside its own file
    for p in _ctl_sources():
        for name in re.findall(r"^int (cmd_\w+)\(", p.read_text(), re.M):
            assert name[4:] in cmds and p == CTL / f"{name[4:]}.c", f"{p.name} defines {name}"


def test_ctl_lib_one_prefix(tmp_path):
    """From the built objects: every symbol lib/ defines for others is
    sb_*; a command file's are cmd_NAME and NAME_* (what another command
    shares of it), main.c's main alone."""
    subprocess.run(["make", "-s", "-C", str(CTL), "params_tab.h"], check=True)
    bad = []
    for p in _ctl_sources():
        o = tmp_path / f"{p.parent.name}-{p.stem}.o"
        subprocess.run(["cc", "-std=gnu11", "-c", '-DSB_VERSION="test"', f"-I{CTL}",
                        f"-I{CTL / 'lib'}", f"-I{TOP / 'include/uapi'}", "-o", str(o), str(p)],
                       check=True)
        nm = subprocess.run(["nm", "--defined-only", str(o)], text=True, capture_output=True,
                            check=True).stdout
        syms = [f[2] for f in (ln.split() for ln in nm.splitlines())
                if len(f) == 3 and f[1] in "TDBRCG"]
        if p.parent.name == "lib":
            ok = [s for s in syms if s.startswith("sb_")]
        elif p.stem == "main":
            ok = [s for s in syms if s == "main"]
        else:
            ok = [s for s in syms if s == f"cmd_{p.stem}" or s.startswith(f"{p.stem}_")]
        bad += [f"{p.relative_to(TOP)}: {s}" for s in syms if s not in ok]
    assert not bad, "symbols outside their file's prefix:\n" + "\n".join(bad)
