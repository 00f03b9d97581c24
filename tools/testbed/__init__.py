"""sbridge_testbed: the QEMU testbed (scenarios x kernel cells).

The package lives in tools/testbed; its import root is tools/, where
tools/sbridge_testbed names this directory, so tests and tools import
`from sbridge_testbed import harness` (pyproject.toml puts tools/ on
pytest's path). Each module also runs as a script, as the Makefile, the
docs and CI call it (python3 tools/testbed/harness.py ...): see standalone.py.
"""
