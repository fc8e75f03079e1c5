"""Where no cgroup can be made: sum the resident memory of a run's whole process tree.

Sampled every WATCH_INTERVAL seconds, so a burst shorter than that can slip past; runs
without a cgroup therefore also get a smaller process limit (runner.py), which bounds how much
per-process RLIMIT_AS lets the tree reserve between two samples. Where a stack raises the
address space (Limits.address_space_mb, for V8's reservations), what slips past is bounded by
how fast the processes can touch pages in one interval.
"""

from __future__ import annotations

import os

WATCH_INTERVAL = 0.05
_PAGE = os.sysconf("SC_PAGE_SIZE") if hasattr(os, "sysconf") else 4096


def _stat_fields() -> dict[int, tuple[int, int]]:
    """pid -> (parent pid, resident bytes) for every process we can see."""
    out: dict[int, tuple[int, int]] = {}
    for entry in os.scandir("/proc"):
        if not entry.name.isdigit():
            continue
        try:
            with open(f"/proc/{entry.name}/stat", "rb") as fh:
                raw = fh.read()
        except OSError:
            continue
        # The command name (field 2) may hold spaces and parentheses: split after the last ')'.
        fields = raw[raw.rfind(b")") + 2:].split()
        try:
            out[int(entry.name)] = (int(fields[1]), int(fields[21]) * _PAGE)
        except (IndexError, ValueError):
            continue
    return out


def tree_rss(root_pid: int) -> int:
    """Resident bytes of root_pid and all its descendants. In a pid namespace orphans are
    re-parented to the namespace's init, itself a descendant, so none drops out of the tree."""
    table = _stat_fields()
    children: dict[int, list[int]] = {}
    for pid, (ppid, _rss) in table.items():
        children.setdefault(ppid, []).append(pid)
    total, todo, seen = 0, [root_pid], set()
    while todo:
        pid = todo.pop()
        if pid in seen or pid not in table:
            continue
        seen.add(pid)
        total += table[pid][1]
        todo += children.get(pid, [])
    return total
