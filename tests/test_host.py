"""Host-side tests: the plain-C suites (built and run by make), the board
runner, and the sources' structure (core layers, man page, completion)."""
import os
import re
import subprocess
from pathlib import Path

import pytest

TOP = Path(__file__).resolve().parents[1]
SUITES = [d for d in ("tests/unit", "tests/host/ctl") if (TOP / d / "Makefile").exists()]


@pytest.mark.parametrize("suite", SUITES)
def test_host_suite(suite):
    r = subprocess.run(["make", "-s", "-C", str(TOP / suite)], text=True,
                       capture_output=True)
    out = r.stdout + r.stderr
    m = re.findall(r"(\d+) passed, (\d+) failed", out)
    assert r.returncode == 0, out[-4000:]
    assert m, f"{suite}: no 'N passed, N failed' line:\n{out[-2000:]}"
    passed, failed = map(int, m[-1])
    assert failed == 0 and passed > 0, out[-4000:]


def test_man_page_lists_every_parameter():
    # The SET_PARAM table in the core is the truth; the man page must name
    # every entry (and nothing the core does not know).
    src = (TOP / "sbridge-core/params.c").read_text()
    table = src[src.index("sbridge_param_tab[] = {"):]
    table = table[:table.index("};")]
    names = set(re.findall(r'\{ "([a-z_.]+)", &', table))
    # each actuator keeps its act.* switch in its act_*.c
    for p in (TOP / "sbridge-core").glob("act_*.c"):
        names |= set(re.findall(r'\.name = "(act\.[a-z_]+)", \.val = &', p.read_text()))
    man = (TOP / "docs/man/sbridgectl.8").read_text()
    sec = man[man.index(".SH PARAMETERS"):man.index(".SH CPU LISTS")]
    documented = {n.replace("\\-", "-") for n in re.findall(r'^\.BR (\S+) "', sec, re.M)}
    assert len(names) > 10
    assert names == documented, f"only in the core: {names - documented}; only in the man page: {documented - names}"


@pytest.mark.skipif(os.geteuid() != 0, reason="tests/board/run needs root")
def test_board_runner_ktap(tmp_path):
    """tests/board/run: one KTAP subtest per scenario, a failure, a bail-out
    and a short plan each fail it, another arch is skipped, totals add up."""
    scen, progs = tmp_path / "scenarios", tmp_path / "progs"
    scen.mkdir()
    progs.mkdir()
    (progs / "sbridgectl").write_text("#!/bin/sh\nexit 0\n")
    (progs / "sbridgectl").chmod(0o755)
    head = '#!/bin/sh\n# scenario: {}\n# arch: {}\n# board: yes\n. "$SBRIDGE_LIB"\n'
    bodies = {
        "a-pass": ("any", 'plan 2\ncheck "true" true\nskip "later" "not here"\n'),
        "b-fail": ("any", 'plan 2\ncheck "true" true\ncheck "false" false\n'),
        "c-bail": ("any", 'plan 3\nok "first"\nbail_out "setup failed"\n'),
        "d-short": ("any", 'plan 3\nok "only one"\n'),
        "e-other": ("riscv64", 'plan 1\nok "never"\n'),
    }
    for name, (arch, body) in bodies.items():
        (scen / f"{name}.sh").write_text(head.format(name, arch) + body)
    (scen / "f-notboard.sh").write_text('#!/bin/sh\n# scenario: x\n# arch: any\n')
    env = dict(os.environ, SBRIDGE_SCENARIOS=str(scen), SBRIDGE_MODDIR=str(tmp_path),
               SBRIDGE_BOARD_PROGS=str(progs))
    run = TOP / "tests/board/run"
    listed = subprocess.run([str(run), "-l"], env=env, text=True, capture_output=True)
    assert listed.stdout.split() == ["a-pass", "b-fail", "c-bail", "d-short", "e-other"]
    r = subprocess.run([str(run)], env=env, text=True, capture_output=True)
    lines = r.stdout.splitlines()
    assert r.returncode == 1, r.stdout + r.stderr
    assert lines[:2] == ["TAP version 13", "1..5"]
    top = [line for line in lines if re.match(r"(not )?ok \d", line)]
    assert top[0] == "ok 1 - a-pass"
    assert top[1].startswith("not ok 2 - b-fail # exit 0, plan 2, ran 2, not ok 1")
    assert top[2].startswith("not ok 3 - c-bail # exit 1") and "bailed out" in top[2]
    assert top[3].startswith("not ok 4 - d-short # exit 0, plan 3, ran 1")
    assert top[4] == "ok 5 - e-other # SKIP for riscv64, this board is " + \
        {"aarch64": "arm64"}.get(os.uname().machine, os.uname().machine)
    assert "    # Totals: pass:1 fail:0 xfail:0 xpass:0 skip:1 error:0" in lines
    assert "    Bail out! setup failed" in lines
    assert lines[-1] == "# Totals: pass:1 fail:3 xfail:0 xpass:0 skip:1 error:0"
    bad = subprocess.run([str(run), "nosuch"], env=env, text=True, capture_output=True)
    assert bad.returncode == 2 and "no scenario 'nosuch'" in bad.stderr


def _c_code(text):
    """C text without comments and string literals (names there are not uses)."""
    text = re.sub(r"/\*.*?\*/", "", text, flags=re.S)
    text = re.sub(r"//[^\n]*", "", text)
    return re.sub(r'"(\\.|[^"\\\n])*"', '""', text)


def test_pmu_monitor_uses_only_the_exported_api():
    """The leaf module reaches the core only through include/sbridge/ and the
    symbols sbridge-core exports, as a board's own counter source would."""
    exported = set()
    for p in (TOP / "sbridge-core").glob("*.c"):
        exported |= set(re.findall(r"EXPORT_SYMBOL(?:_GPL)?\((sbridge_\w+)\)", p.read_text()))
    assert "sbridge_register_source" in exported
    core_defs = set()
    for p in (TOP / "sbridge-core").glob("*.c"):
        core_defs |= set(re.findall(r"^(?!static)[a-z][\w *]*?\b(sbridge_\w+)\s*\(",
                                    _c_code(p.read_text()), re.M))
    bad = []
    for p in sorted((TOP / "pmu-monitor").glob("*.[ch]")):
        if p.name.endswith(".mod.c"):
            continue
        code = _c_code(p.read_text())
        for h in re.findall(r'^#include\s+[<"]([^>"]+)[>"]', p.read_text(), re.M):
            if "sbridge-core" in h or h in ("internal.h", "model.h", "trace.h", "actuators.h",
                                            "policy.h", "checker.h", "act_ops.h", "trace_act.h"):
                bad.append(f"{p.name} includes {h}")
        for sym in sorted(core_defs - exported):
            if re.search(rf"\b{sym}\b", code):
                bad.append(f"{p.name} uses {sym}, which sbridge-core does not export")
    assert not bad, "\n".join(bad)


def test_bash_completion_offers_rule_files(tmp_path):
    """rules check <TAB> offers *.rules files and directories, in a plain
    bash without extglob or the bash-completion package."""
    (tmp_path / "a.rules").write_text("")
    (tmp_path / "b.txt").write_text("")
    (tmp_path / "sub").mkdir()
    script = f"""
shopt -u extglob
source {TOP}/userspace-ctl/completion/sbridgectl.bash
COMP_WORDS=(sbridgectl rules check "")
COMP_CWORD=3
_sbridgectl
printf '%s\\n' "${{COMPREPLY[@]}}" | sort
"""
    r = subprocess.run(["bash", "--norc", "--noprofile", "-c", script], cwd=tmp_path,
                       text=True, capture_output=True)
    assert r.stdout.split() == ["a.rules", "sub"], r.stdout + r.stderr
