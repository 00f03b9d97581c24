#!/bin/bash
# The main job (README's first command): an emulated big.LITTLE board
# running sbridge. Installs what it needs on a fresh Debian 12 machine.
set -euo pipefail
cd "$(dirname "$0")/../.."
tools/testbed/setup-host.sh
exec /usr/bin/python3 tools/testbed/demo.py "$@"
