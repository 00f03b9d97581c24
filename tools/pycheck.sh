#!/bin/bash
# ruff (lint) and mypy (types) over the host's Python, with the settings
# of pyproject.toml: make check and tests/test_style.py run it.
#   tools/pycheck.sh            the whole tree (pyproject.toml's file lists)
#   tools/pycheck.sh FILE...    those files only
# Both come at pinned versions from PyPI into a venv under build/ (Debian
# 12 has mypy 1.0.1 and no ruff), made on first use; the venv also sees
# the system's packages (pytest, numpy), so mypy checks calls into them.
# Exit 0: clean; 1: findings; 77: the tools cannot be installed (no
# python3-venv, PyPI unreachable), said on stderr: tests/test_style.py
# then reports a skip, make check fails.
set -euo pipefail
cd "$(dirname "$0")/.."
RUFF=0.8.4
MYPY=1.13.0
venv=build/pytools
want="ruff==$RUFF mypy==$MYPY"

mkdir -p build
exec 9>build/pytools.lock
flock 9
if [ "$(cat "$venv/.versions" 2>/dev/null)" != "$want" ]; then
	rm -rf "$venv"
	if ! log=$(/usr/bin/python3 -m venv --system-site-packages "$venv" 2>&1); then
		echo "pycheck: cannot make a venv (apt-get install python3-venv): $log" >&2
		rm -rf "$venv"
		exit 77
	fi
	# shellcheck disable=SC2086
	if ! log=$("$venv/bin/pip" install -q --disable-pip-version-check $want 2>&1); then
		echo "pycheck: cannot install $want from PyPI: $log" >&2
		rm -rf "$venv"
		exit 77
	fi
	echo "$want" > "$venv/.versions"
fi
flock -u 9

rc=0
"$venv/bin/ruff" check --config pyproject.toml "$@" || rc=1
"$venv/bin/mypy" --config-file pyproject.toml "$@" || rc=1
exit $rc
