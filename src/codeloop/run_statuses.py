"""The jobs the run store records and every status a stored run can have, in one place:
`codeloop runs --job/--status` refuses anything else, and a test checks that each job's own
status types (review's outcome, the agent's stop reasons) are covered here, so a status a
job adds cannot go unnoticed. Light: no job module is imported."""

from __future__ import annotations

from codeloop.store_run import RESUMABLE_STATUSES

# What the run's lifecycle writes whatever the job: started, paused or interrupted (both
# resumable), or ended by an exception.
LIFECYCLE_STATUSES: tuple[str, ...] = ("running", *RESUMABLE_STATUSES, "error")

# How each job finishes a run (`run.finish(status, ...)`).
JOB_STATUSES: dict[str, tuple[str, ...]] = {
    "solve": ("passed", "failed", "untested"),
    # "done", or why the agent stopped (jobs/react/state.py Status; multi-agent's
    # "needs_review" when the validator did not approve).
    "agent": ("done", "step_cap", "token_budget", "loop", "needs_review"),
    "review": ("applied", "failed", "blocked", "rejected"),
    "build": ("complete", "failed"),
    "ask": ("completed",),
}

JOBS: tuple[str, ...] = tuple(JOB_STATUSES)

# What the HTTP server writes for a run it stopped (run_manager.py, routes_runs.py).
SERVER_STATUSES: tuple[str, ...] = ("cancelled", "restarted")

RUN_STATUSES: tuple[str, ...] = tuple(dict.fromkeys(
    [*LIFECYCLE_STATUSES, *(s for group in JOB_STATUSES.values() for s in group),
     *SERVER_STATUSES]))


def unknown_value(kind: str, value: str, known: tuple[str, ...]) -> str | None:
    """The one-line refusal of a `value` not in `known` (None when it is known)."""
    if value in known:
        return None
    return f"unknown {kind} {value!r}: use one of {', '.join(known)}"
