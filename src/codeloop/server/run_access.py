"""Which stored runs this server answers for: those whose recorded paths lie under its roots.

The run store is shared with the CLI (and other servers), so it holds runs started anywhere.
A run is this server's to show, list, stream, approve, reject, cancel or resume only when
every path its inputs hold (a workspace, an agent's home, a build's out_dir and push target,
an ask's repository, a solve's test file, absolute review files) resolves, now, under a
--root: the rule a new request meets, held for as long as the run is reachable. Any other
run is answered as one that does not exist (404), so the API does not tell that it exists.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from typing import Any

from codeloop.server.roots import Roots
from codeloop.server.run_manager import RunNotFound
from codeloop.store import RunRecord, RunStore

PATH_KEYS = ("workspace", "home", "out_dir", "repo", "test_file", "stack_file")
_SCAN_BATCH = 200


def recorded_paths(inputs: Any) -> list[str]:
    """Every filesystem path a run's inputs name (at the top and in the server's `params`)."""
    if not isinstance(inputs, dict):
        return []
    found: list[str] = []
    for scope in (inputs, inputs.get("params")):
        if not isinstance(scope, dict):
            continue
        found += [str(scope[key]) for key in PATH_KEYS if scope.get(key) not in (None, "")]
        push_to = scope.get("push_to")
        if isinstance(push_to, str) and os.path.isabs(push_to):  # a path, not a URL
            found.append(push_to)
        files = scope.get("files")
        if isinstance(files, list):  # relative ones lie in the workspace (its guard says)
            found += [f for f in files if isinstance(f, str) and os.path.isabs(f)]
    return found


def shown_by(roots: Roots) -> Callable[[RunRecord], bool]:
    """A test of runs for one request (a path several runs share is resolved once)."""
    seen: dict[str, bool] = {}

    def shown(record: RunRecord) -> bool:
        for path in recorded_paths(record.input):
            if path not in seen:
                seen[path] = roots.contains(path)
            if not seen[path]:
                return False
        return True

    return shown


def visible_record(store: RunStore, roots: Roots, run_id: str) -> RunRecord:
    """The run, or RunNotFound (404) when it does not exist or lies outside the roots."""
    record = store.get_run(run_id)
    if record is None or not shown_by(roots)(record):
        raise RunNotFound(f"no run {run_id!r} (see GET /api/runs)")
    return record


def visible_page(store: RunStore, roots: Roots, job: str | None, status: str | None,
                 limit: int, offset: int) -> tuple[list[RunRecord], int]:
    """(one page of the shown runs, newest first; how many runs are shown in all)."""
    shown, page, total, scanned = shown_by(roots), [], 0, 0
    while batch := store.list_runs(job, _SCAN_BATCH, status=status, offset=scanned):
        scanned += len(batch)
        for record in batch:
            if not shown(record):
                continue
            if offset <= total < offset + limit:
                page.append(record)
            total += 1
    return page, total


def visible_run_ids(store: RunStore, roots: Roots, run_ids: set[str | None]) -> set[str]:
    """Those of `run_ids` this server answers for (an all-runs stream's batch filter)."""
    shown = shown_by(roots)
    found = set()
    for run_id in run_ids:
        record = store.get_run(run_id) if run_id else None
        if record is not None and shown(record):
            found.add(run_id)
    return found
