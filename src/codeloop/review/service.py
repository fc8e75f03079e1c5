"""The review job's programmatic contract (see notes/review_contract.md): what the CLI, the
HTTP server and the benchmark call. Importable without a model or langgraph (both are
loaded inside the functions).

A run: `start_review` opens `store.run("review", ...)`, runs the graph (checkpointed in the
store, thread id = run id) to the human_approval interrupt, where the run pauses as
"awaiting_approval"; `decide_review` takes it up from any process (`store.resume`) and
resumes the graph with the person's decision. `resume_review` continues a run whose process
died (killed mid-refinement), or that stopped on a model or sandbox error, from its last
checkpoint.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, Field

from codeloop.events import Event
from codeloop.review.inputs import (
    ReviewInputError,
    changed_files,
    check_file,
    check_workspace,
)
from codeloop.review.outcome import ReviewOutcome, build_outcome
from codeloop.store import RunNotResumable

__all__ = ["ReviewInputError", "ReviewOutcome", "ReviewRequest", "decide_review",
           "resume_review", "start_review", "validate_request", "waiting_review"]

JOB = "review"


class ReviewRequest(BaseModel):
    workspace: Path  # the root; everything is path-guarded under it
    request: str | None = None  # a change request -> implementation
    files: list[str] = Field(default_factory=list)  # files to review (relative, or inside)
    git_rev: str | None = None  # review a commit's changes ("HEAD~1") or "WORKTREE"
    refiner: Literal["diff", "full"] = "diff"  # "full" = whole-file regeneration (baseline)
    model: str | None = None  # recorded in the run's inputs


def validate_request(req: ReviewRequest) -> ReviewRequest:
    """The request with its workspace resolved and its files workspace-relative; raises
    ReviewInputError (one line). No model, no writes."""
    from codeloop.sandbox.pathguard import PathGuard

    workspace = check_workspace(req.workspace)
    guard = PathGuard(workspace)
    files = list(dict.fromkeys(check_file(guard, name) for name in req.files))
    request = (req.request or "").strip() or None
    git_rev = (req.git_rev or "").strip() or None
    if git_rev is not None:
        found, _diff = changed_files(workspace, git_rev)
        if not found and not files:
            raise ReviewInputError(f"no changed files to review in {git_rev} ({workspace})")
    if request is None and not files and git_rev is None:
        raise ReviewInputError("nothing to review: give a change request, files or --git")
    return req.model_copy(update={"workspace": workspace, "files": files,
                                  "request": request, "git_rev": git_rev})


def start_review(req: ReviewRequest, llm, store, settings=None, *, approve: bool = False,
                 listen: Callable[[Event], None] | None = None,
                 on_run_id: Callable[[str], None] | None = None) -> ReviewOutcome:
    """Run a review until the person's approval is needed (paused, "awaiting_approval") or
    it ends. `approve`: approve automatically at the interrupt (CI)."""
    from codeloop.review.state import create_initial_state
    from codeloop.sandbox.pathguard import directory_identity

    req = validate_request(req)
    model = req.model or getattr(llm, "name", "")
    # the directory every later read and the write after approval must still be
    workspace_id = list(directory_identity(req.workspace))
    inputs = {"workspace": str(req.workspace), "request": req.request, "files": req.files,
              "git_rev": req.git_rev, "refiner": req.refiner, "model": model,
              "workspace_id": workspace_id}
    with store.run(JOB, inputs) as run:
        unsubscribe = run.bus.subscribe(listen) if listen is not None else None
        try:
            if on_run_id is not None:
                on_run_id(run.id)
            state = create_initial_state(
                workspace=str(req.workspace), run_id=run.id, request=req.request or "",
                files=req.files,
                git_rev=req.git_rev or "", refiner_mode=req.refiner, model=model,
                workspace_id=workspace_id)
            return _drive(run, state, llm, store, settings, approve=approve)
        finally:
            if unsubscribe is not None:
                unsubscribe()


def decide_review(run_id: str, *, approved: bool, message: str, llm, store, settings=None,
                  listen: Callable[[Event], None] | None = None,
                  digest: str | None = None) -> ReviewOutcome:
    """The person's decision on a waiting run, from any process. `digest`: of the pending
    diffs the person saw (ReviewOutcome.diff_digest); an approval must name it. Raises
    RunNotResumable (one line) when the run is unknown, not a review, or not waiting for
    approval; DigestRequired / DiffChanged (its subclasses) when the approval names no
    digest or another diff than the pending one: then nothing is written and the run
    stays waiting."""
    from langgraph.types import Command

    from codeloop.review.approval import DiffChanged, check_decision, checkpoint_values

    record = _require(store, run_id, "awaiting_approval")
    pending = checkpoint_values(store, run_id).get("pending_diffs") or []
    check_decision(run_id, pending, approved=approved, digest=digest)
    with store.resume(run_id) as run:
        try:  # claimed: no other decision can change the pending diffs any more
            check_decision(run_id, checkpoint_values(store, run_id).get("pending_diffs") or [],
                           approved=approved, digest=digest)
        except DiffChanged:
            run.pause("awaiting_approval", record.result)
            raise
        unsubscribe = run.bus.subscribe(listen) if listen is not None else None
        try:
            decision = Command(resume={"approved": bool(approved), "message": message or "",
                                       "digest": (digest or "").strip().lower()})
            return _drive(run, decision, llm, store, settings, approve=False)
        finally:
            if unsubscribe is not None:
                unsubscribe()


def resume_review(run_id: str, llm, store, settings=None, *, approve: bool = False,
                  listen: Callable[[Event], None] | None = None) -> ReviewOutcome:
    """Continue a run whose process died (killed, a crash) from its last checkpoint: the node
    it was in runs again; what was done before is kept."""
    store.mark_interrupted([run_id])
    record = _require(store, run_id, "interrupted")
    with store.resume(run_id) as run:
        unsubscribe = run.bus.subscribe(listen) if listen is not None else None
        try:
            return _drive(run, _restart_input(store, run.id, record.input), llm, store,
                          settings, approve=approve)
        finally:
            if unsubscribe is not None:
                unsubscribe()


def waiting_review(store, run_id: str) -> ReviewOutcome | None:
    """What a waiting run shows (pending diffs, findings, feedback, the diff digest),
    without a model; None when it is not a review run waiting for approval. Read from the
    run's checkpoint, the state persistence writes from: the exact bytes, never the
    redacted summary the store keeps as the run's result."""
    from codeloop.review.approval import checkpoint_values

    record = store.get_run(run_id)
    if record is None or record.job != JOB or record.status != "awaiting_approval":
        return None
    values = checkpoint_values(store, run_id)
    if not values:
        return None
    return build_outcome(run_id, values, "awaiting_approval")


# ------------------------------------------------------------------ internals


def _require(store, run_id: str, status: str):
    record = store.get_run(run_id)
    if record is None:
        raise RunNotResumable(f"no run {run_id!r} in {store.path} (see `codeloop runs`)")
    if record.job != JOB:
        raise RunNotResumable(f"run {run_id} is a {record.job} run, not a review")
    if record.status != status:
        wanted = "waiting for approval" if status == "awaiting_approval" else status
        raise RunNotResumable(f"run {run_id} is {record.status}, not {wanted}")
    return record


def _restart_input(store, run_id: str, inputs: dict[str, Any]):
    """None (go on from the checkpoint) when the run has one; else its initial state again
    (it died before its first node finished)."""
    from codeloop.review.graph import has_checkpoint
    from codeloop.review.state import create_initial_state
    from codeloop.sandbox.pathguard import directory_identity

    if has_checkpoint(store.checkpointer(), run_id):
        return None
    return create_initial_state(
        workspace=inputs["workspace"], run_id=run_id, request=inputs.get("request") or "",
        files=inputs.get("files") or [], git_rev=inputs.get("git_rev") or "",
        refiner_mode=inputs.get("refiner") or "diff", model=inputs.get("model") or "",
        workspace_id=inputs.get("workspace_id") or list(directory_identity(inputs["workspace"])))


def _drive(run, graph_input, llm, store, settings, *, approve: bool) -> ReviewOutcome:
    """Run the graph from `graph_input` to its end or the approval interrupt, and settle the
    run: paused (awaiting approval) or finished with the outcome as its result."""
    from langgraph.types import Command

    from codeloop.events import ApprovalRequest, Error
    from codeloop.llm.base import LLMError
    from codeloop.review.approval import diff_digest
    from codeloop.review.context import ReviewContext
    from codeloop.review.graph import build_graph
    from codeloop.sandbox.types import SandboxError

    ctx = ReviewContext.from_settings(llm, run.bus, settings)
    graph = build_graph(ctx, checkpointer=store.checkpointer())
    config = {"configurable": {"thread_id": run.id}, "recursion_limit": 200}
    try:
        # sync: each node's checkpoint is on disk before the next node starts, so a run
        # killed mid-refinement resumes after the last finished node, not before it.
        graph.invoke(graph_input, config, durability="sync")
        while graph.get_state(config).next:  # stopped at the human_approval interrupt
            if not approve:
                outcome = build_outcome(run.id, graph.get_state(config).values,
                                        "awaiting_approval")
                run.bus.emit(ApprovalRequest(subject=f"review {run.id}",
                                             detail=outcome.message))
                run.pause("awaiting_approval", outcome.model_dump())
                return outcome
            graph.invoke(Command(resume={
                "approved": True, "message": "approved automatically (--approve)",
                "digest": diff_digest(graph.get_state(config).values["pending_diffs"])}),
                config, durability="sync")
    except (LLMError, SandboxError) as exc:
        # The model or the sandbox failed, not the review: the run stays resumable from its
        # last checkpoint (the node that failed runs again), so a reject's refinement is
        # not lost to a model that went away. The outcome still says "error".
        run.bus.emit(Error(message=str(exc), where="review"))
        values = graph.get_state(config).values
        outcome = build_outcome(run.id, values, "error", message=(
            f"review stopped: {' '.join(str(exc).split())[:500]}; go on from the last "
            f"finished step with `codeloop review --resume {run.id}`"))
        run.finish("interrupted", outcome.model_dump())
        return outcome
    values = graph.get_state(config).values
    outcome = build_outcome(run.id, values, values["workflow_status"])
    run.finish(outcome.status, outcome.model_dump())
    return outcome
