"""self_heal (a person rejected the change): count the rejection, and send the person's
message to the refiner as the failure to fix; a new review round starts. At MAX_RETRIES the
run is blocked, and when the refinements are spent it fails."""

from __future__ import annotations

from codeloop.jobs.stage import StageOutput
from codeloop.jobs.usage import UsageRecord
from codeloop.review.context import ReviewContext
from codeloop.review.debug import DebugTrail
from codeloop.review.state import (
    BLOCKED,
    MAX_REFINEMENT_ITERATIONS,
    MAX_RETRIES,
    ReviewState,
)


def heal(state: ReviewState, ctx: ReviewContext, usage: UsageRecord,
         trail: DebugTrail) -> StageOutput:
    retries = state["retry_count"] + 1
    message = state["human_message"] or "no reason given"
    update = {"retry_count": retries, "approval_status": "pending", "iteration": 0,
              "is_fixed": False,
              "last_error": f"- a person rejected the change: {message}"}
    if retries >= MAX_RETRIES:
        update.update(workflow_status="blocked", error_log=[BLOCKED])
        trail.log("error", f"{BLOCKED} ({retries} rejections)")
        return StageOutput(update, BLOCKED, ok=False)
    if state["refinement_iteration"] >= MAX_REFINEMENT_ITERATIONS:
        error = f"Max refinement iterations ({MAX_REFINEMENT_ITERATIONS}) reached"
        update.update(workflow_status="failed", error_log=[error])
        return StageOutput(update, error, ok=False)
    update["workflow_status"] = "running"
    trail.log("thinking", f"rejection {retries} of {MAX_RETRIES}: refine for {message!r}")
    return StageOutput(update, f"retry {retries} of {MAX_RETRIES}: {message}")
