"""`codeloop runs show RUN_ID`: one run whole, read from the run store. What was asked, the
model, its status and outcome, tokens per stage, its last events, and the commands that act
on it (approve, reject, resume) with the folder it worked in; `--json` for scripts."""

from __future__ import annotations

import json
import shlex
from typing import Any

import typer

from codeloop.commands.common import fail, open_store, settings_from_cli
from codeloop.commands.run_fields import WAITING, age, asked, run_row, status_text

EVENT_WIDTH = 110


def show(
    run_id: str = typer.Argument(..., help="The run's id (see `codeloop runs`)."),
    last: int = typer.Option(10, "--events", min=0, max=1_000, help="How many of its last "
                             "events are shown."),
    as_json: bool = typer.Option(False, "--json", help="Machine-readable run."),
    store: str = typer.Option(None, "--store", help="Run store path (SQLite)."),
) -> None:
    """Show one run: what was asked, outcome, tokens, last events, commands.

    The status and the job's outcome, tokens per stage, its last events, the folder it
    worked in and the commands that act on it (approve, reject, resume)."""
    run_id = run_id.strip()
    settings = settings_from_cli(store=store)
    with open_store(settings.store_path()) as run_store:
        run_store.mark_interrupted([run_id])  # a run whose process died is not "running"
        record = run_store.get_run(run_id)
        if record is None:
            fail(f"no run {run_id!r} in {settings.store_path()} (see `codeloop runs`)")
        events = [event for _seq, event in run_store.events(run_id)]
        row = run_row(run_store, record)
    detail = {**row, "asked": asked(record), "input": record.input, "result": record.result,
              "stages": stages(events), "folder": folder(record),
              "commands": commands(record, store),
              "events": [e.model_dump(mode="json") for e in events[-last:]] if last else [],
              "event_count": len(events)}
    if as_json:
        typer.echo(json.dumps(detail, indent=2, default=str))
        return
    _print(detail, [describe(e) for e in events[-last:]] if last else [])


def stages(events: list[Any]) -> dict[str, dict[str, int]]:
    """Tokens and model calls per stage, in the order the stages first called the model."""
    out: dict[str, dict[str, int]] = {}
    for event in events:
        if event.type != "llm_call":
            continue
        stage = out.setdefault(event.stage or "(none)", {"prompt_tokens": 0,
                                                         "completion_tokens": 0, "calls": 0})
        stage["prompt_tokens"] += event.prompt_tokens
        stage["completion_tokens"] += event.completion_tokens
        stage["calls"] += 1
    return out


def folder(record: Any) -> str | None:
    """The directory the run worked in (a workspace, a new project, a repository)."""
    inputs = record.input if isinstance(record.input, dict) else {}
    for key in ("workspace", "home", "out_dir", "repo"):
        if isinstance(inputs.get(key), str) and inputs[key]:
            return inputs[key]
    return None


def commands(record: Any, store_flag: str | None) -> list[str]:
    """The commands that act on the run now: decide it, take it up, look at it again."""
    from codeloop.commands.review_view import resume_commands

    suffix = f" --store {shlex.quote(store_flag)}" if store_flag else ""
    lines: list[str] = []
    if record.status == WAITING:
        lines += resume_commands(record.id, store_flag)
    elif record.status == "interrupted" and record.job == "review":
        lines.append(f"codeloop review --resume {record.id}{suffix}")
    elif record.status == "interrupted" and record.job == "build":
        out_dir = shlex.quote(str((record.input or {}).get("out_dir") or "DIR"))
        lines.append(f"codeloop build TASKS.json --out {out_dir} --resume{suffix}")
    lines.append(f"codeloop runs show {record.id} --json{suffix}")
    return lines


def describe(event: Any) -> str:
    """One event in one line."""
    kind = event.type
    if kind == "stage_start":
        text = f"start {event.stage}" + (f": {event.detail}" if event.detail else "")
    elif kind == "stage_end":
        text = f"{'end' if event.ok else 'FAILED'} {event.stage} ({event.seconds:.1f}s)"
    elif kind == "llm_call":
        text = (f"model {event.model} [{event.stage or '-'}]: {event.prompt_tokens}+"
                f"{event.completion_tokens} tokens, {event.seconds:.1f}s")
    elif kind == "tool_call":
        text = f"tool {event.tool} {'ok' if event.ok else 'failed'}"
    elif kind == "test_result":
        text = f"tests: {event.passed} passed, {event.failed} failed, {event.errors} errors"
    elif kind == "diff":
        text = f"diff {event.path}"
    elif kind == "approval_request":
        text = f"approval asked: {event.subject}"
    elif kind == "progress":
        text = f"progress {event.done}/{event.total} {event.message}".strip()
    elif kind == "error":
        text = f"error: {event.message}"
    elif kind == "debug_log":
        text = f"{event.node} {event.event_type}: {event.content}"
    else:
        text = kind
    text = " ".join(text.split())
    return text if len(text) <= EVENT_WIDTH else text[:EVENT_WIDTH - 1] + "…"


def _print(detail: dict[str, Any], lines: list[str]) -> None:
    from rich.console import Console
    from rich.text import Text

    from codeloop.textsafe import printable

    console = Console()
    status, style = status_text(detail)

    def field(name: str, value: Any, value_style: str = "") -> None:
        console.print(Text.assemble((f"{name:<9}", "dim"),
                                    (printable(str(value)), value_style)), soft_wrap=True)

    console.print(Text(detail["id"], style="bold"))
    field("job", detail["job"])
    field("asked", detail["asked"] or "-")
    field("model", detail["model"] or "-")
    field("status", status, style)
    field("started", f"{detail['started']} ({age(detail['age_seconds'])} ago)")
    if detail["ended"]:
        field("ended", detail["ended"])
    field("tokens", f"{detail['tokens']:,}" if detail["tokens"] is not None else "-")
    if detail["folder"]:
        field("folder", detail["folder"])
    if detail["stages"]:
        console.print(Text("stages", style="bold"))
        for name, figures in detail["stages"].items():
            total = figures["prompt_tokens"] + figures["completion_tokens"]
            console.print(Text(f"  {printable(name)}: {total:,} tokens in "
                               f"{figures['calls']} call(s)"))
    if lines:
        console.print(Text(f"last {len(lines)} of {detail['event_count']} events",
                           style="bold"))
        for line in lines:
            console.print(Text("  " + printable(line)), soft_wrap=True)
    console.print(Text("commands", style="bold"))
    for line in detail["commands"]:
        console.print(Text("  " + line), soft_wrap=True)
