"""Which tasks may start: those whose dependencies are all merged (not level by level), in
request order, at most `max_parallel` running at once; and what a failure blocks. Pure
bookkeeping, no I/O: generate.py drives it with the executor and the merges."""

from __future__ import annotations

from codeloop.build.request import BuildRequest, dependents

FAIL_FRACTION = 0.5  # more than this share of the tasks not merged: the build FAILS


class Schedule:
    def __init__(self, request: BuildRequest, max_parallel: int, *,
                 merged: list[str] | None = None, failed: dict[str, str] | None = None,
                 blocked: list[str] | None = None) -> None:
        if max_parallel < 1:
            raise ValueError(f"max_parallel must be at least 1 (got {max_parallel})")
        self.request, self.max_parallel = request, max_parallel
        self.merged: list[str] = list(merged or [])
        self.failed: dict[str, str] = dict(failed or {})
        self.blocked: list[str] = list(blocked or [])
        self.running: list[str] = []
        self.stopped = False

    def settled(self, task_id: str) -> bool:
        return task_id in self.merged or task_id in self.failed or task_id in self.blocked

    def next_ready(self) -> list[str]:
        """Tasks to start now (their dependencies merged), up to the free slots."""
        if self.stopped:
            return []
        free = self.max_parallel - len(self.running)
        ready = [t.id for t in self.request.tasks
                 if not self.settled(t.id) and t.id not in self.running
                 and all(d in self.merged for d in t.depends_on)]
        return ready[:max(free, 0)]

    def start(self, task_id: str) -> None:
        self.running.append(task_id)

    def merge_done(self, task_id: str) -> None:
        self.running.remove(task_id)
        self.merged.append(task_id)

    def task_failed(self, task_id: str, reason: str, *, blocked: bool) -> list[str]:
        """Record the failure (`blocked`: retries used up) and block every task depending
        on it; the newly blocked dependents."""
        if task_id in self.running:
            self.running.remove(task_id)
        self.failed[task_id] = reason
        if blocked and task_id not in self.blocked:
            self.blocked.append(task_id)
        newly = []
        for dep in dependents(self.request, task_id):
            if not self.settled(dep) and dep not in self.running:
                self.blocked.append(dep)
                self.failed[dep] = f"blocked: depends on {task_id}, which was not merged"
                newly.append(dep)
        if self.too_many_failed():
            self.stopped = True
        return newly

    def unmerged_count(self) -> int:
        return len(set(self.failed) | set(self.blocked))

    def too_many_failed(self) -> bool:
        return self.unmerged_count() > FAIL_FRACTION * len(self.request.tasks)
