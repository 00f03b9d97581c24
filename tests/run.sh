#!/bin/bash
# The test command: installs what it needs on a fresh Debian 12 machine,
# then builds and boots every (arch, kernel) cell and runs every suite.
#   SBRIDGE_CELLS=x86_64-bookworm,arm64-trixie tests/run.sh   narrows cells
#   tests/run.sh -k load                                       pytest args pass through
# Checks marked slow (a test of the tests, minutes each) are left out:
# make test-slow runs them.
set -euo pipefail
cd "$(dirname "$0")/.."
tools/testbed/setup-host.sh
exec /usr/bin/python3 -m pytest tests -v -rs --durations=15 -p no:cacheprovider -m "not slow" "$@"
