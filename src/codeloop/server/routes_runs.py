"""The runs API: start, list, show, cancel, approve/reject, resume."""

from __future__ import annotations

import time
from typing import Annotated, Literal

from fastapi import APIRouter, Body, Path, Query, Request

from codeloop.commands.run_fields import asked
from codeloop.run_statuses import LIVE_STATUSES, STATUSES
from codeloop.server.errors import ERROR_RESPONSES
from codeloop.server.job_runners import LAUNCHERS, BadRequest, decision_launch, resume_launch
from codeloop.server.run_access import shown_by, visible_page, visible_record
from codeloop.server.run_manager import RunConflict
from codeloop.server.schemas import (
    Accepted,
    BuildStatus,
    Decision,
    RunDetail,
    RunList,
    RunSummary,
    StageTokens,
    Started,
    StartRun,
)
from codeloop.server.sse import RUN_ID

router = APIRouter(prefix="/api", responses=ERROR_RESPONSES)
RunId = Annotated[str, Path(pattern=RUN_ID, description="A run id (GET /api/runs)")]
Job = Literal["solve", "agent", "review", "build", "ask"]
Status = Literal[STATUSES]  # type: ignore[valid-type]  # run_statuses.py's one set


def _server(request: Request):
    return request.app.state.server


def _summary(server, record, tokens: int, status: str | None = None) -> RunSummary:
    inputs = record.input if isinstance(record.input, dict) else {}
    model = inputs.get("model")
    return RunSummary(
        id=record.id, job=record.job,
        status=status or server.manager.live_status(record.id, record.status),
        outcome=record.outcome, asked=asked(record),
        model=model if isinstance(model, str) else None, tokens=tokens,
        started=record.started, ended=record.ended,
        age_seconds=round(max(0.0, time.time() - record.started), 3))


def result_tokens(result) -> int:
    """Tokens a run's result states (runs with no model-call events: older or CLI runs)."""
    if not isinstance(result, dict):
        return 0
    tokens = result.get("tokens")
    if isinstance(tokens, int):
        return tokens
    if isinstance(tokens, dict) and isinstance(tokens.get("total"), int):
        return tokens["total"]
    totals = result.get("totals")
    if isinstance(totals, dict):
        return int(totals.get("prompt_tokens") or 0) + int(totals.get("completion_tokens") or 0)
    return 0


def _record(server, run_id: str):
    """The run, if this server answers for it (its paths under the roots); else 404."""
    return visible_record(server.store, server.roots, run_id)


@router.post("/runs", status_code=202, response_model=Started,
             summary="Start a job: solve, agent or review")
def start_run(request: Request, body: Annotated[StartRun, Body()]) -> Started:
    server = _server(request)
    launch = LAUNCHERS[body.job](server.jobs, body.params)
    run_id = server.manager.start(launch)
    return Started(run_id=run_id, job=body.job, status=server.manager.current_status(run_id))


@router.get("/runs", response_model=RunList, summary="Runs, newest first")
def list_runs(
    request: Request,
    job: Job | None = None,
    status: Status | None = None,
    limit: Annotated[int, Query(ge=1, le=200)] = 50,
    offset: Annotated[int, Query(ge=0, le=10**9)] = 0,
) -> RunList:
    server = _server(request)
    if status in LIVE_STATUSES:
        # `queued` is never stored: a run stored as running is queued while this server's
        # handle of it waits for the model. Both are told apart by the live handles (the
        # stored running runs are few: the live ones, and those of other processes).
        stored = server.store.list_runs(job, server.store.count_runs(job, "running") + 64,
                                        status="running")
        visible = shown_by(server.roots)
        shown = [(r, server.manager.live_status(r.id, r.status)) for r in stored
                 if visible(r)]
        matching = [(r, s) for r, s in shown if s == status]
        total, page = len(matching), matching[offset:offset + limit]
    else:
        records, total = visible_page(server.store, server.roots, job, status, limit, offset)
        page = [(r, None) for r in records]
    tokens = server.feed.tokens_by_run([r.id for r, _s in page])
    return RunList(runs=[_summary(server, r, tokens.get(r.id) or result_tokens(r.result), s)
                         for r, s in page],
                   total=total, limit=limit, offset=offset)


@router.get("/runs/{run_id}", response_model=RunDetail, summary="One run: status, result, "
            "tokens per stage, pending diffs")
def get_run(request: Request, run_id: RunId) -> RunDetail:
    server = _server(request)
    record = _record(server, run_id)
    stages = server.feed.tokens_by_stage(run_id)
    summary = _summary(server, record, sum(s["total_tokens"] for s in stages.values())
                       or result_tokens(record.result))
    detail = RunDetail(**summary.model_dump(), input=record.input or {},
                       result=record.result,
                       tokens_per_stage={k: StageTokens(**v) for k, v in stages.items()},
                       events=server.feed.count_events(run_id),
                       live=server.manager.is_live(run_id))
    if record.job == "build":
        _add_build(server, record, detail)
    outcome = record.result if record.job == "review" and isinstance(record.result,
                                                                      dict) else None
    if outcome is not None:
        detail.findings = list(outcome.get("findings") or [])
        detail.review_feedback = outcome.get("review_feedback")
        detail.message = str(outcome.get("message") or "")
        if record.status == "awaiting_approval":
            _add_pending(server, run_id, detail)
    return detail


def _add_pending(server, run_id: str, detail: RunDetail) -> None:
    """The exact diffs a person approves and their digest, from the run's checkpoint (the
    stored result is a redacted summary: it would hide what the model wrote)."""
    from codeloop.review.service import waiting_review

    shown = waiting_review(server.store, run_id)
    if shown is not None:
        detail.pending_diffs = shown.pending_diffs
        detail.diff_digest = shown.diff_digest


def _add_build(server, record, detail: RunDetail) -> None:
    from pathlib import Path as FilePath

    from codeloop.build.service import build_status

    status = build_status(server.store, record.id)
    status["run_status"] = detail.status
    detail.build = BuildStatus(**status)
    out_dir = FilePath(str((record.input or {}).get("out_dir", "")))
    if out_dir.parent == server.roots.dirs[0]:
        detail.project_id = out_dir.name


@router.delete("/runs/{run_id}", status_code=202, response_model=Accepted,
               summary="Cancel a live run (it stops at its next model call) or a waiting one")
def cancel_run(request: Request, run_id: RunId) -> Accepted:
    _record(_server(request), run_id)
    status = _server(request).manager.cancel(run_id)
    return Accepted(run_id=run_id, status=status,
                    detail="stops at its next model call" if status == "cancelling" else "")


def _decide(request: Request, run_id: str, approved: bool, body: Decision) -> Accepted:
    from codeloop.review.approval import DigestRequired, check_decision
    from codeloop.review.service import waiting_review

    server = _server(request)
    record = _record(server, run_id)
    if record.job != "review":
        raise RunConflict(f"run {run_id} is a {record.job} run: only review runs wait for "
                          "approval")
    if record.status != "awaiting_approval" or server.manager.is_live(run_id):
        raise RunConflict(f"run {run_id} is {record.status}, not waiting for approval")
    shown = waiting_review(server.store, run_id)
    try:  # a stale digest: DiffChanged, a 409; decide_review checks again once it claims
        check_decision(run_id, shown.pending_diffs if shown else [], approved=approved,
                       digest=body.digest)
    except DigestRequired as exc:
        raise BadRequest(str(exc)) from None
    server.manager.start(decision_launch(server.jobs, run_id, approved=approved,
                                         message=body.message, digest=body.digest))
    verb = "approved: applying the changes" if approved else "rejected: self-healing"
    return Accepted(run_id=run_id, status=server.manager.current_status(run_id), detail=verb)


@router.post("/runs/{run_id}/approve", status_code=202, response_model=Accepted,
             summary="Approve a review run waiting at human approval")
def approve_run(request: Request, run_id: RunId,
                body: Annotated[Decision, Body()]) -> Accepted:
    return _decide(request, run_id, True, body)


@router.post("/runs/{run_id}/reject", status_code=202, response_model=Accepted,
             summary="Reject a review run waiting at human approval (with the reason)")
def reject_run(request: Request, run_id: RunId,
               body: Annotated[Decision, Body()]) -> Accepted:
    return _decide(request, run_id, False, body)


@router.post("/runs/{run_id}/resume", status_code=202, response_model=Started,
             summary="Take up an interrupted run (review: from its checkpoint; solve, agent: "
                     "re-run from the start with the same inputs; build: from the CLI only, "
                     "codeloop build --resume)")
def resume_run(request: Request, run_id: RunId) -> Started:
    from pydantic import ValidationError

    from codeloop.store import RunNotResumable

    server = _server(request)
    record = _record(server, run_id)
    if server.manager.is_live(run_id):
        raise RunConflict(f"run {run_id} is running on this server")
    if record.status == "running":
        server.store.mark_interrupted([run_id])  # its process may have died since
        record = _record(server, run_id)
    if record.status != "interrupted":
        hint = ": approve or reject it" if record.status == "awaiting_approval" else ""
        raise RunConflict(f"run {run_id} is {record.status}, not interrupted{hint}")
    try:
        launch = resume_launch(server.jobs, run_id, record.job, record.input or {})
    except ValidationError as exc:
        raise BadRequest(f"run {run_id}'s inputs no longer validate: "
                         f"{exc.errors()[0]['msg']}") from None
    if launch.run_id == run_id:  # the job continues the same run
        server.manager.start(launch)
        return Started(run_id=run_id, job=record.job,
                       status=server.manager.current_status(run_id), resumed_from=run_id)
    try:  # a new run replaces it; one claim wins, so it is restarted once
        server.store.claim_run(run_id)
    except RunNotResumable as exc:
        raise RunConflict(str(exc)) from None
    try:
        new_id = server.manager.start(launch)
    except Exception:
        server.store.finish_run(run_id, "interrupted", record.result)
        raise
    server.store.finish_run(run_id, "cancelled", {"restarted_as": new_id},
                            outcome=f"restarted as {new_id}")
    server.notifier.notify(run_id)  # its streams end now
    return Started(run_id=new_id, job=record.job, status=server.manager.current_status(new_id),
                   resumed_from=run_id)
