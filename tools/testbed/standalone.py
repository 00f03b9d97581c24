"""Run a testbed module as a script: python3 tools/testbed/harness.py.

Python then runs the file as __main__ with tools/testbed first on sys.path,
so the package sbridge_testbed is not importable by name. A module's

    if not __package__:  # a script, or imported with tools/testbed on sys.path
        import standalone  # type: ignore[import-not-found]  # noqa: F401

registers this directory as the package sbridge_testbed before its
`from sbridge_testbed import ...` lines, without touching sys.path. The
same holds for callers that import a module flat (`import harness` with
tools/testbed on sys.path).
"""
import importlib.util
import sys
from pathlib import Path

NAME = "sbridge_testbed"

if NAME not in sys.modules:
    _here = Path(__file__).resolve().parent
    _spec = importlib.util.spec_from_file_location(
        NAME, _here / "__init__.py", submodule_search_locations=[str(_here)])
    assert _spec is not None and _spec.loader is not None
    _pkg = importlib.util.module_from_spec(_spec)
    sys.modules[NAME] = _pkg
    _spec.loader.exec_module(_pkg)
