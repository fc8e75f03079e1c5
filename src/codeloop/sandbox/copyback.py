"""sync_back: write what a sandboxed program changed in the staged copy home, through one
gate: plan (copyback_plan.py: caps, host policy, links judged by where they resolve), then an
all-or-nothing apply (copyback_apply.py). What the policy refuses is reported, not silently
dropped; over a cap, past the deadline or on any error the workspace stays exactly as it was.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from pathlib import Path

from codeloop.sandbox.copyback_apply import apply_plan
from codeloop.sandbox.copyback_plan import CopyBackError, make_plan
from codeloop.sandbox.staging import Snapshot
from codeloop.sandbox.types import Limits


@dataclass
class SyncReport:
    written: list[str] = field(default_factory=list)
    deleted: list[str] = field(default_factory=list)
    refused: list[str] = field(default_factory=list)  # "path: reason"
    refused_count: int = 0  # may exceed len(refused), which is capped


def sync_back(staging: Path, workspace: Path, snapshot: Snapshot, limits: Limits | None = None,
              deadline: float | None = None) -> SyncReport:
    """Apply the changes in `staging` (the program must be gone) to `workspace`.
    deadline: a time.monotonic() value; defaults to now + limits.copyback_seconds."""
    limits = limits or Limits()
    if deadline is None:
        deadline = time.monotonic() + limits.copyback_seconds

    def check_time() -> None:
        if time.monotonic() > deadline:
            raise CopyBackError(f"copy-back ran past its {limits.copyback_seconds}s deadline "
                                "(Limits.copyback_seconds)")

    try:
        plan = make_plan(staging, workspace, snapshot, limits, deadline)
        written, deleted = apply_plan(plan, staging, workspace, check_time)
    except CopyBackError:
        raise
    except OSError as exc:
        raise CopyBackError(f"copy-back failed ({exc}); the workspace is unchanged") from None
    refused = list(plan.refused)
    if plan.refused_count > len(refused):
        refused.append(f"... and {plan.refused_count - len(refused)} more refused")
    return SyncReport(written, deleted, refused, plan.refused_count)


__all__ = ["CopyBackError", "SyncReport", "sync_back"]
