"""human_approval: a LangGraph interrupt. The run is checkpointed and paused here (the
service settles it as "awaiting_approval"); the person's decision comes back, from any
process, as the interrupt's value {approved, message, digest}. On resume this node runs again from
its start, so everything after `interrupt()` is the only part with effects."""

from __future__ import annotations

from codeloop.jobs.stage import StageOutput
from codeloop.jobs.usage import UsageRecord
from codeloop.review.context import ReviewContext
from codeloop.review.debug import DebugTrail
from codeloop.review.state import ReviewState


def ask_person(state: ReviewState, ctx: ReviewContext, usage: UsageRecord,
               trail: DebugTrail) -> StageOutput:
    from langgraph.types import interrupt

    decision = interrupt({"pending_diffs": [d["file_path"] for d in state["pending_diffs"]],
                          "run_id": state["run_id"]})
    if not isinstance(decision, dict):
        decision = {"approved": False, "message": f"unreadable decision {decision!r}"}
    approved = bool(decision.get("approved"))
    message = str(decision.get("message") or "").strip()
    trail.log("result", f"{'approved' if approved else 'rejected'}: {message or '(no message)'}")
    # the digest of the diff the person saw: persistence writes only a change with it
    digest = str(decision.get("digest") or "") if approved else ""
    return StageOutput({"approval_status": "approved" if approved else "rejected",
                        "human_message": message, "workflow_status": "running",
                        "approved_digest": digest},
                       f"{'approved' if approved else 'rejected'}"
                       + (f": {message}" if message else ""), ok=approved)
