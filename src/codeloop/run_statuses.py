"""One vocabulary for every run: a lifecycle status from one small set, and beside it the
job's own outcome (a short phrase: "tests passed", "applied", "3 of 5 tasks merged").

The store keeps only these statuses; the CLI, `--json`, the API and the UI show the same
words. A job may still finish with its own word (`run.finish("passed", ...)`): `settle`
turns it into (status, outcome) in this one place, and the store's migration uses the same
mapping for runs written the old way. Light: no job module is imported.
"""

from __future__ import annotations

from typing import Any

STATUSES: tuple[str, ...] = ("queued", "running", "awaiting_approval", "succeeded", "failed",
                             "cancelled", "interrupted")
# A paused run waits for someone (a person's approval); `store.resume(run_id)` claims it.
PAUSED_STATUSES: tuple[str, ...] = ("awaiting_approval",)
# Runs that can be taken up again: paused ones, and ones whose process died.
RESUMABLE_STATUSES: tuple[str, ...] = (*PAUSED_STATUSES, "interrupted")
# Stored while the run goes on; `queued` is never stored (a live server handle's state).
LIVE_STATUSES: tuple[str, ...] = ("queued", "running")
ENDED_STATUSES: tuple[str, ...] = ("succeeded", "failed", "cancelled", "interrupted")

JOBS: tuple[str, ...] = ("solve", "agent", "review", "build", "ask")

# Each job's own words (what it finished with before, and may still pass to run.finish):
# the lifecycle status and the outcome phrase each one means.
JOB_WORDS: dict[str, dict[str, tuple[str, str]]] = {
    "solve": {"passed": ("succeeded", "tests passed"), "untested": ("succeeded", "untested"),
              "failed": ("failed", "tests failed")},
    # "done", or why the agent stopped (jobs/react/state.py Status; multi-agent's
    # "needs_review" when the validator did not approve).
    "agent": {"done": ("succeeded", "done"), "step_cap": ("failed", "step cap"),
              "token_budget": ("failed", "token budget"), "loop": ("failed", "loop"),
              "needs_review": ("failed", "needs review")},
    "review": {"applied": ("succeeded", "applied"), "rejected": ("failed", "rejected"),
               "blocked": ("failed", "blocked"), "failed": ("failed", "failed")},
    "build": {"complete": ("succeeded", ""), "COMPLETE": ("succeeded", ""),
              "failed": ("failed", ""), "FAILED": ("failed", "")},
    "ask": {"completed": ("succeeded", "answered"), "answered": ("succeeded", "answered")},
}
# Words any job's run had before this vocabulary.
_OLD_WORDS: dict[str, str] = {"error": "failed", "restarted": "cancelled",
                              "paused": "awaiting_approval", "completed": "succeeded",
                              "complete": "succeeded", "done": "succeeded"}
# Every old word a stored run may hold, for the migration and `runs --status`'s hint.
OLD_STATUSES: tuple[str, ...] = tuple(w for w in dict.fromkeys(
    [*_OLD_WORDS, *(w for words in JOB_WORDS.values() for w in words)]) if w not in STATUSES)

_OUTCOME_WIDTH = 80


def label(status: str) -> str:
    """How people read a status: "awaiting approval"."""
    return status.replace("_", " ")


def settle(job: str, word: str, result: Any = None) -> tuple[str, str]:
    """(lifecycle status, outcome) for a run of `job` that ended with `word` (a status of
    the set, a job's own word, or a word an older codeloop stored) and `result`."""
    if job == "build" and word in ("complete", "COMPLETE", "failed", "FAILED", "succeeded"):
        return _build(word, result)
    mapped = JOB_WORDS.get(job, {}).get(word)
    if mapped is not None:
        status, outcome = mapped
        if job == "review" and word == "blocked":
            outcome = _phrase("blocked", _field(result, "message"))
        return status, outcome
    if word == "error":
        return "failed", _phrase("error", _field(result, "error"))
    if word == "restarted":
        new_id = _field(result, "restarted_as")
        return "cancelled", f"restarted as {new_id}" if new_id else "restarted"
    status = _OLD_WORDS.get(word, word)
    if status not in STATUSES:  # a word nobody knows: kept readable, never a success
        return "failed", _phrase("unknown status", word)
    return status, default_outcome(job, status, result)


def default_outcome(job: str, status: str, result: Any) -> str:
    """The outcome of a run finished with a plain lifecycle status."""
    if job == "build" and status in ("succeeded", "failed"):
        return _build(status, result)[1]
    if status == "failed" and (error := _field(result, "error")):
        return _phrase("error", error)
    if status == "succeeded":
        return {"solve": "tests passed", "review": "applied", "agent": "done",
                "ask": "answered"}.get(job, "")
    return ""


def _build(word: str, result: Any) -> tuple[str, str]:
    """A build succeeds when every task merged: blocked or failed tasks make it failed."""
    merged = len(_field(result, "completed_tasks", []) or [])
    total = _field(result, "total_tasks", 0) or 0
    blocked_ids = set(_field(result, "blocked_tasks", []) or [])
    blocked = len(blocked_ids)
    # failed_tasks holds a reason for every task not merged, the blocked ones too
    failed = len(set(_field(result, "failed_tasks", {}) or {}) - blocked_ids)
    if not total:
        ok = word in ("complete", "COMPLETE", "succeeded")
        return ("succeeded" if ok else "failed"), _phrase("error", _field(result, "error"))
    outcome = f"{merged} of {total} tasks merged"
    extra = [f"{n} {what}" for n, what in ((blocked, "blocked"), (failed, "failed")) if n]
    ok = word in ("complete", "COMPLETE", "succeeded") and merged == total
    return ("succeeded" if ok else "failed"), ", ".join([outcome, *extra])


def _field(result: Any, key: str, default: Any = "") -> Any:
    return result.get(key, default) if isinstance(result, dict) else default


def _phrase(head: str, detail: Any) -> str:
    text = " ".join(str(detail or "").split())
    if not text:
        return head if head != "error" else "error"
    phrase = f"{head}: {text}"
    return phrase if len(phrase) <= _OUTCOME_WIDTH else phrase[:_OUTCOME_WIDTH - 1] + "…"


def status_refusal(value: str) -> str | None:
    """The one-line refusal of a `--status` value that is not a status (an old word is told
    its new name), or None."""
    if value in STATUSES:
        return None
    new = _OLD_WORDS.get(value) or next((s for words in JOB_WORDS.values()
                                         for w, (s, _o) in words.items() if w == value), None)
    if new is not None:
        return (f"{value!r} is an old status word: runs now show {new!r} with the job's "
                f"outcome beside it; use one of {', '.join(STATUSES)}")
    return unknown_value("status", value, STATUSES)


def unknown_value(kind: str, value: str, known: tuple[str, ...]) -> str | None:
    """The one-line refusal of a `value` not in `known` (None when it is known)."""
    if value in known:
        return None
    return f"unknown {kind} {value!r}: use one of {', '.join(known)}"
