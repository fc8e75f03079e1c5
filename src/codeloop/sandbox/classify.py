"""Which limit ended a run, read from its exit status, the cgroup's counters and the tail of
its stderr."""

from __future__ import annotations

import signal

from codeloop.sandbox.types import LimitHit, Limits

_MEMORY_MARKS = ("MemoryError", "Cannot allocate memory", "std::bad_alloc", "out of memory")
_PROCESS_MARKS = ("Resource temporarily unavailable", "BlockingIOError",
                  "can't start new thread", "fork: retry")


def classify(exit_code: int, stderr: str, *, timed_out: bool, limits: Limits,
             output_size: int, memory_killed: bool = False,
             processes_capped: bool = False) -> LimitHit | None:
    """memory_killed: the run's cgroup OOM-killed a process (or the no-cgroup watchdog
    killed the tree); processes_capped: its cgroup refused a fork at pids.max."""
    if timed_out:
        return "timeout"
    if exit_code == 128 + signal.SIGXCPU:
        return "cpu"
    if memory_killed:  # even when the main process survived a killed child
        return "memory"
    if exit_code == 0:
        return None
    if output_size >= limits.file_size_mb * 1024 * 1024:
        # RLIMIT_FSIZE stopped a write to stdout/stderr: SIGXFSZ, or EFBIG where the program
        # ignores that signal (Python does).
        return "output"
    tail = stderr[-2000:]
    if any(mark in tail for mark in _MEMORY_MARKS):
        return "memory"
    if processes_capped or any(mark in tail for mark in _PROCESS_MARKS):
        return "processes"
    if exit_code == 128 + signal.SIGKILL:
        # The hard CPU limit (soft + 1 s) ends with SIGKILL after an ignored SIGXCPU.
        return "cpu"
    return None
