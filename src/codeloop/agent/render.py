"""How an agent run looks in the terminal: thoughts, each tool call with its (shortened)
result, phase banners, and the end-of-turn summary. A listener on the event bus."""

from __future__ import annotations

import json
from typing import Any

from rich.console import Console
from rich.markup import escape

from codeloop.agent.multi.view import print_phases
from codeloop.agent.snapshots import FileChange
from codeloop.events import Event
from codeloop.run_statuses import label, settle
from codeloop.textsafe import printable

PHASE_BANNERS = {"planning": "[PLANNING]", "implementation": "[IMPLEMENTATION]",
                 "validation": "[VALIDATION]"}
RESULT_PREVIEW = 160


def shorten(text: str, limit: int = RESULT_PREVIEW) -> str:
    flat = printable(" ".join(text.split()))  # model and tool output: no raw escapes
    return flat if len(flat) <= limit else flat[: limit - 1] + "…"


def _args_preview(args: dict[str, Any]) -> str:
    parts = []
    for key, value in args.items():
        text = json.dumps(value, ensure_ascii=False) if not isinstance(value, str) else repr(value)
        parts.append(f"{key}={shorten(text, 60)}")
    return ", ".join(parts)


class EventPrinter:
    def __init__(self, console: Console) -> None:
        self.console = console

    def __call__(self, event: Event) -> None:
        kind = event.type
        if kind == "progress":
            self.console.print(f"[dim italic]  thought: {escape(shorten(event.message, 300))}[/]",
                               highlight=False)
        elif kind == "tool_call":
            mark = "[green]ok[/]" if event.ok else "[red]failed[/]"
            self.console.print(
                f"  [cyan]→ {escape(printable(event.tool))}[/]({escape(_args_preview(event.arguments))}) {mark}: "
                f"{escape(shorten(event.result))}", highlight=False)
        elif kind == "stage_start" and event.stage in PHASE_BANNERS:
            self.console.print(f"\n[bold magenta]{escape(PHASE_BANNERS[event.stage])}[/]")


def print_changes(console: Console, changes: list[FileChange]) -> None:
    if not changes:
        console.print("[dim]No files changed.[/]")
        return
    console.print("[bold]Changed files:[/]")
    for change in changes:
        console.print(f"  {escape(printable(change.describe()))}", highlight=False)


def print_turn_end(console: Console, answer: str, status: str, steps: int, tokens: int,
                   changes: list[FileChange], details: dict[str, Any] | None = None) -> None:
    """The turn's answer, changed files and figures; before them, a multi-agent run's
    plan, reports and verdicts (`details`)."""
    if details:
        console.print()
        print_phases(console, details)
    ok = status in ("finished", "approved")
    style = "green" if ok else "yellow"
    console.print(f"\n[bold {style}]{escape(printable(answer))}[/]", highlight=False)
    print_changes(console, changes)
    # the run's status and outcome in the words every job's run has (run_statuses.py)
    run_status, outcome = settle("agent", "done" if ok else status)
    console.print(f"[dim]({label(run_status)}: {outcome}; {steps} steps, {tokens} tokens)[/]",
                  highlight=False)
