"""One run as the CLI shows it (`codeloop runs`, `codeloop runs show`): what was asked, the
model, status and outcome, tokens and times. Shared by the list and the detail view."""

from __future__ import annotations

import time
from typing import Any

from codeloop.run_statuses import label

WAITING = "awaiting_approval"
STATUS_STYLES = {WAITING: "bold yellow", "interrupted": "magenta", "running": "cyan",
                 "queued": "cyan", "failed": "red", "cancelled": "dim",
                 "succeeded": "green"}
# Outcomes that are not plain successes although the run succeeded: no test judged the code.
CAUTION_OUTCOMES = ("untested",)


def asked(record: Any) -> str:
    """What the run was asked, in one line: the request, the question, the task."""
    inputs = record.input if isinstance(record.input, dict) else {}
    if record.job == "solve":
        task = inputs.get("task") if isinstance(inputs.get("task"), dict) else {}
        name, signature = str(task.get("task_id") or ""), str(task.get("signature") or "")
        return " ".join(f"{name}: {signature}".strip(": ").split())
    if record.job == "build":
        request = inputs.get("request") if isinstance(inputs.get("request"), dict) else {}
        tasks = request.get("tasks") if isinstance(request.get("tasks"), list) else []
        first = tasks[0].get("description", "") if tasks and isinstance(tasks[0], dict) else ""
        text = f"{len(tasks)} task(s): {first}" if tasks else str(inputs.get("out_dir") or "")
        return " ".join(text.split())
    text = inputs.get("request") or inputs.get("task") or ""
    if not text and record.job == "review":
        files = inputs.get("files") or []
        text = f"review {', '.join(map(str, files))}" if files else "review"
    return " ".join(str(text).split())


def run_row(run_store: Any, record: Any) -> dict[str, Any]:
    """One run as `runs` shows it; the model and tokens from the run's input and result when
    they say, else from its recorded model calls (a run still going, an older run)."""
    model = record.input.get("model") if isinstance(record.input, dict) else None
    tokens = result_tokens(record.result)
    if model is None or tokens is None:
        calls = [e for _, e in run_store.events(record.id) if e.type == "llm_call"]
        if calls:
            model = model or calls[0].model
            if tokens is None:
                tokens = sum(c.prompt_tokens + c.completion_tokens for c in calls)
    now = time.time()
    return {"id": record.id, "job": record.job, "status": record.status,
            "outcome": record.outcome, "asked": asked(record), "model": model,
            "tokens": tokens, "started": iso(record.started), "ended": iso(record.ended),
            "age_seconds": round(now - record.started, 1), "waiting": record.status == WAITING}


def status_text(row: dict[str, Any]) -> tuple[str, str]:
    """The status as people read it, with the outcome beside it, and its style."""
    text = label(row["status"]) + (f" · {row['outcome']}" if row.get("outcome") else "")
    style = STATUS_STYLES.get(row["status"], "")
    if row["status"] == "succeeded" and row.get("outcome") in CAUTION_OUTCOMES:
        style = "yellow"
    return text, style


def result_tokens(result: Any) -> int | None:
    """Total tokens from the shapes the jobs record: review {"tokens": {"total"}}, agent
    {"tokens": N}, solve {"totals": {prompt_tokens, completion_tokens}}."""
    if not isinstance(result, dict):
        return None
    tokens = result.get("tokens")
    if isinstance(tokens, dict) and isinstance(tokens.get("total"), int):
        return tokens["total"]
    if isinstance(tokens, int) and not isinstance(tokens, bool):
        return tokens
    totals = result.get("totals")
    if isinstance(totals, dict):
        figures = [totals.get("prompt_tokens"), totals.get("completion_tokens")]
        if all(isinstance(f, int) for f in figures):
            return sum(figures)
    return None


def iso(ts: float | None) -> str | None:
    return None if ts is None else time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(ts))


def age(seconds: float) -> str:
    """A run's age the way people say it: 45s, 12m, 3h, 2d."""
    for size, unit in ((86_400, "d"), (3_600, "h"), (60, "m")):
        if seconds >= size:
            return f"{int(seconds // size)}{unit}"
    return f"{max(0, int(seconds))}s"
