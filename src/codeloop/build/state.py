"""The build's state: one TypedDict, every field set by `create_initial_state`.

status: PENDING -> SCAFFOLDING -> GENERATING -> INTEGRATING -> COMPLETE | FAILED. The
scheduler keeps the task fields current and emits the whole state after every change
(`state_event`), so `build_status` and `--resume` read it back from the run store.
"""

from __future__ import annotations

import operator
from typing import Annotated, Any, Literal, TypedDict

BuildStatus = Literal["PENDING", "SCAFFOLDING", "GENERATING", "INTEGRATING", "COMPLETE",
                      "FAILED"]
STATE_CONTENT = "state"  # the DebugLog content that marks a state snapshot


class BuildState(TypedDict):
    status: BuildStatus
    tech_stack: str
    out_dir: str
    total_tasks: int
    completed_tasks: list[str]  # merged into main, in merge order
    current_tasks: list[str]  # running now
    failed_tasks: dict[str, str]  # task id -> why it was not merged
    blocked_tasks: list[str]  # retries used up, or a dependency not merged
    levels: dict[str, int]  # dependency level of each task
    scaffold_commit: str
    integration: dict[str, Any]  # {"passed": bool, "fixes": int, "summary": str}
    error: str  # why the build FAILED ("" otherwise)
    usage: Annotated[list[dict[str, Any]], operator.add]  # per-node usage entries


def create_initial_state(tech_stack: str, out_dir: str, levels: dict[str, int]) -> BuildState:
    return BuildState(
        status="PENDING", tech_stack=tech_stack, out_dir=out_dir, total_tasks=len(levels),
        completed_tasks=[], current_tasks=[], failed_tasks={}, blocked_tasks=[],
        levels=dict(levels), scaffold_commit="", integration={}, error="", usage=[],
    )


def public_state(state: dict[str, Any]) -> dict[str, Any]:
    """The fields a status reader gets (no usage list)."""
    keys = ("status", "tech_stack", "out_dir", "total_tasks", "completed_tasks",
            "current_tasks", "failed_tasks", "blocked_tasks", "levels", "integration", "error")
    return {k: state.get(k) for k in keys}


def progress_percent(state: dict[str, Any]) -> int:
    """Tasks settled (merged, failed or blocked) out of all, 100 when the build is done."""
    if state.get("status") in ("COMPLETE", "FAILED"):
        return 100
    total = state.get("total_tasks") or 0
    if not total:
        return 0
    settled = set(state.get("completed_tasks") or []) | set(state.get("failed_tasks") or {}) \
        | set(state.get("blocked_tasks") or [])
    return int(100 * len(settled) / total)
