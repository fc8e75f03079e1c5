"""The ReviewOutcome of a run's state: what front ends show and the run store keeps."""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, Field

from codeloop.jobs.usage import per_stage
from codeloop.review.digest import diff_digest
from codeloop.review.state import BLOCKED, MAX_RETRIES


class ReviewOutcome(BaseModel):
    run_id: str
    status: Literal["awaiting_approval", "applied", "failed", "blocked", "rejected", "error"]
    workflow_type: Literal["implementation", "review", "fix"]
    pending_diffs: list[dict] = Field(default_factory=list)
    findings: list[dict] = Field(default_factory=list)
    review_feedback: dict | None = None
    written: list[str] = Field(default_factory=list)
    error_log: list[str] = Field(default_factory=list)
    tokens: dict = Field(default_factory=lambda: {"total": 0, "per_node": {}})
    refinements: list[dict] = Field(default_factory=list)
    message: str = ""
    diff_digest: str = ""  # sha256 of pending_diffs (digest.py): what an approval names


_FINAL = {"applied", "failed", "blocked", "rejected", "awaiting_approval", "error"}


def tokens_of(usage: list[dict[str, Any]]) -> dict[str, Any]:
    stages, total = per_stage(usage)
    return {"total": total.total_tokens,
            "per_node": {name: record.total_tokens for name, record in stages.items()}}


def _message(run_id: str, status: str, values: dict[str, Any]) -> str:
    pending = values.get("pending_diffs") or []
    if status == "awaiting_approval":
        files = ", ".join(d["file_path"] for d in pending) or "no file changes"
        return (f"Review passed; waiting for approval of {files}: codeloop approve {run_id} "
                f"--digest {diff_digest(pending)} -m MSG (or codeloop reject {run_id} -m MSG)")
    if status == "applied":
        written = values.get("written") or []
        return (f"Applied: wrote {', '.join(written)}" if written
                else "Review passed and approved; no file needed a change")
    if status == "blocked":
        return f"{BLOCKED} (rejected {MAX_RETRIES} times)"
    errors = values.get("error_log") or []
    if status == "failed":
        return errors[-1] if errors else "the review failed"
    return errors[-1] if errors else status


def build_outcome(run_id: str, values: dict[str, Any], status: str,
                  message: str | None = None) -> ReviewOutcome:
    values = dict(values or {})
    if status not in _FINAL:  # a graph that ended without a verdict is a bug: say so
        status, message = "error", message or f"the review ended while {status!r}"
    feedback = values.get("review_feedback")
    return ReviewOutcome(
        run_id=run_id, status=status,  # type: ignore[arg-type]
        workflow_type=values.get("workflow_type") or "review",
        pending_diffs=[dict(d) for d in values.get("pending_diffs") or []],
        findings=[*values.get("refused_paths", []), *values.get("security_findings", [])],
        review_feedback=dict(feedback) if feedback else None,
        written=list(values.get("written") or []),
        error_log=list(values.get("error_log") or []),
        tokens=tokens_of(values.get("usage") or []),
        refinements=list(values.get("refinements") or []),
        message=message or _message(run_id, status, values),
        diff_digest=diff_digest(values.get("pending_diffs") or []),
    )
