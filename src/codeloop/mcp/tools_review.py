"""`review` and its decision, `approve` / `reject`, bound to the digest of the diff shown.

A review runs to the approval step and returns the pending diffs (exact, never redacted; a
`shown` text with hidden characters made visible) and their `diff_digest`. A client that
can elicit (over a connection that lets the server ask mid-call) is asked there and then;
otherwise the run waits, and `approve` / `reject` decide it. Both go through the HTTP API's
own decision code (routes_runs._decide): an approval names the digest of the diff the person
saw, a stale one is refused and nothing is written.
"""

from __future__ import annotations

from typing import Any

import anyio
from mcp.server.mcpserver import Context
from pydantic import BaseModel, Field

from codeloop.mcp.access import ClientRoots, check_path
from codeloop.mcp.bridge import ApiRequest
from codeloop.mcp.errors import api_call, one_line
from codeloop.mcp.params_tool import params_tool, validated
from codeloop.mcp.runs import finished, start
from codeloop.server.schemas import Decision, ReviewParams, StartReview

REVIEW_DOC = ("Review a change in a workspace (files, a git revision, or a change request to "
              "implement): security gate, reviewer, refiner with real test runs. Stops at "
              "human approval with the pending diffs and their diff_digest: approve (naming "
              "the digest) or reject them. A client that supports elicitation is asked.")
APPROVE_DOC = ("Approve a review run waiting for approval: its pending diffs are written. "
               "`digest` must be the diff_digest shown with the diffs; a stale one is refused "
               "and nothing is written.")
REJECT_DOC = ("Reject a review run waiting for approval, with the reason (`message`): it "
              "refines the change again (self-healing) and waits for a new decision.")


class ReviewResult(BaseModel):
    run_id: str
    status: str = Field(description="awaiting_approval, succeeded, failed, cancelled")
    outcome: str = Field("", description="Beside the status: applied, rejected, blocked, ...")
    message: str = ""
    diff_digest: str = Field("", description="What approve names: sha256 of pending_diffs")
    pending_diffs: list[dict[str, Any]] = Field(default_factory=list)
    shown: str = Field("", description="The pending diffs as text, hidden characters "
                       "(control, bidi) made visible as markers")
    findings: list[dict[str, Any]] = Field(default_factory=list)
    review_feedback: dict[str, Any] | None = None
    written: list[str] = Field(default_factory=list, description="Files written (applied)")
    decided_by: str = Field("", description="'elicitation' when the client's user decided")


class DecisionForm(BaseModel):
    approve: bool = Field(description="Write these changes (true) or send them back (false)")
    message: str = Field("", description="Why (a rejection's reason guides the next round)")


def shown_text(diffs: list[dict[str, Any]]) -> str:
    from codeloop.textsafe import marked

    return "\n".join(marked(str(d.get("diff_hunks") or "")) for d in diffs)


def review_result(state: Any, run_id: str) -> ReviewResult:
    """The run as GET /api/runs/{id} shows it (pending diffs from its checkpoint)."""
    from codeloop.server.routes_runs import get_run

    detail = api_call(get_run, ApiRequest.on(state), run_id)
    outcome = detail.result if isinstance(detail.result, dict) else {}
    return ReviewResult(
        run_id=run_id, status=detail.status, outcome=detail.outcome, message=detail.message,
        diff_digest=detail.diff_digest, pending_diffs=detail.pending_diffs,
        shown=shown_text(detail.pending_diffs), findings=detail.findings,
        review_feedback=detail.review_feedback,
        written=[str(w) for w in outcome.get("written") or []])


async def decide(state: Any, run_id: str, approved: bool, message: str,
                 digest: str | None, ctx: Any) -> ReviewResult:
    """POST /api/runs/{id}/approve|reject's own code, then the run followed to its end."""
    from codeloop.server.routes_runs import _decide

    body = validated(Decision, {"message": message, "digest": digest})
    await anyio.to_thread.run_sync(api_call, _decide, ApiRequest.on(state), run_id, approved,
                                   body)
    await finished(state, run_id, ctx)
    return review_result(state, run_id)


async def _ask_person(state: Any, shown: ReviewResult, ctx: Any) -> ReviewResult | None:
    """The client's user decides, when the client can be asked now; None otherwise."""
    from mcp.shared.exceptions import NoBackChannelError

    caps = ctx.client_capabilities
    if caps is None or caps.elicitation is None:
        return None
    files = ", ".join(str(d.get("file_path")) for d in shown.pending_diffs)
    text = (f"codeloop review {shown.run_id} wants to write {files} "
            f"(digest {shown.diff_digest[:12]}):\n\n{shown.shown}")[:20_000]
    try:
        answer = await ctx.elicit(text, DecisionForm)
    except NoBackChannelError:  # a 2026-07-28 connection: approve/reject decide instead
        return None
    if answer.action != "accept":
        return None  # declined or dismissed: the run keeps waiting
    decided = await decide(state, shown.run_id, answer.data.approve, answer.data.message,
                           shown.diff_digest, ctx)
    return decided.model_copy(update={"decided_by": "elicitation"})


def register(server: Any, state: Any) -> None:
    async def review(params: ReviewParams, ctx: Context = None,
                     roots: ClientRoots = None) -> ReviewResult:
        workspace = check_path(state, params.workspace, roots)
        params = params.model_copy(update={"workspace": str(workspace)})
        run_id = await start(state, StartReview(job="review", params=params))
        await finished(state, run_id, ctx)
        shown = review_result(state, run_id)
        if shown.status == "awaiting_approval" and shown.pending_diffs:
            return await _ask_person(state, shown, ctx) or shown
        return shown

    async def approve(run_id: str, digest: str, message: str = "",
                      ctx: Context = None) -> ReviewResult:
        """Approve a waiting review run: the diffs whose digest is `digest` are written."""
        return await decide(state, _run_id(run_id), True, message, digest, ctx)

    async def reject(run_id: str, message: str, digest: str | None = None,
                     ctx: Context = None) -> ReviewResult:
        """Reject a waiting review run with the reason; it refines again and waits."""
        return await decide(state, _run_id(run_id), False, message, digest, ctx)

    server.add_tool(params_tool(ReviewParams, review, name="review", doc=REVIEW_DOC,
                                extra={"ctx": Context, "roots": ClientRoots}),
                    name="review", description=REVIEW_DOC)
    server.add_tool(approve, name="approve", description=APPROVE_DOC)
    server.add_tool(reject, name="reject", description=REJECT_DOC)


def _run_id(raw: str) -> str:
    import re

    from codeloop.mcp.errors import ToolError
    from codeloop.server.sse import RUN_ID

    if not re.match(RUN_ID, raw or ""):
        raise ToolError(f"run_id {one_line(raw)[:60]!r} is not a run id (see runs_list)")
    return raw
