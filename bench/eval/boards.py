"""The boards `make eval` runs on: which CPUs are big and little.

Read by run.py (what to boot) and report.py (what the files mean): one
place, below both.
"""

# The boards: the rig's topologies (tools/rig/rig.conf). On x86 the core
# types differ only in clock and the kernel sees one capacity, so sbridge
# is told the types (cpu_types=) as on such a machine: every x86 boot is
# a "sym" boot.
BOARDS: dict[str, dict[str, str]] = {
    "1b1s": dict(arch="arm64", topology="1b1s", big="0", little="1"),
    "1b3s": dict(arch="arm64", topology="1b3s", big="0", little="1 2 3"),
    "3b1s": dict(arch="arm64", topology="3b1s", big="0 1 2", little="3"),
    "x86-2f2s": dict(arch="x86_64", topology="2f2s", big="0 1", little="2 3",
                     cpu_types="0-1:1024;2-3:512"),
}
