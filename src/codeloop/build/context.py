"""The build's context, bound to every node (not state: not data), and the state snapshot
event every change emits (build_status and --resume read the last one)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from codeloop.build.request import BuildRequest
from codeloop.build.runtime import BuildRuntime
from codeloop.build.stacks import Stack
from codeloop.build.state import STATE_CONTENT, public_state
from codeloop.events import DebugLog, EventBus
from codeloop.jobs.executor import Executor, local_executor
from codeloop.jobs.stage import StageContext


@dataclass(kw_only=True)
class BuildContext(StageContext[BuildRequest]):
    stack: Stack
    out_dir: Path
    runtime: BuildRuntime
    worktrees: Path  # one directory per task worktree, outside the project
    max_parallel: int = 3
    retries: int = 5
    fix_rounds: int = 3
    backoff_seconds: float = 2.0
    integration_fixes: int = 3
    executor_factory: Callable[[int], Executor] = local_executor
    resume_snapshot: dict[str, Any] | None = None  # the last state of the run being resumed
    push_to: str = ""  # a remote (bare repository or https URL) main is pushed to


def emit_state(bus: EventBus, state: dict[str, Any]) -> None:
    bus.emit(DebugLog(node="build", agent="scheduler", event_type="result",
                      content=STATE_CONTENT, metadata={"build_state": public_state(state)}))


def last_snapshot(events: list[tuple[int, Any]]) -> dict[str, Any] | None:
    """The newest state snapshot among a run's events."""
    for _seq, event in reversed(events):
        if event.type == "debug_log" and event.content == STATE_CONTENT \
                and isinstance(event.metadata.get("build_state"), dict):
            return event.metadata["build_state"]
    return None
