"""The live terminal view of a build: a progress bar over the tasks (from the state
snapshots) and one line per task step (started, tests, fix, retry, merged, blocked)."""

from __future__ import annotations

from typing import Any, Self

from rich.console import Console
from rich.markup import escape
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

from codeloop.build.state import STATE_CONTENT
from codeloop.textsafe import printable

_NODES = {"scaffold": "scaffold", "generate": "tasks", "integrate": "integration"}


class BuildView:
    """An event listener; `with BuildView(console) as view: bus.subscribe(view)`."""

    def __init__(self, console: Console, verbose: bool = False) -> None:
        self.console, self.verbose = console, verbose
        self.bar = Progress(TextColumn("[bold]{task.description}"), BarColumn(),
                            MofNCompleteColumn(), TimeElapsedColumn(), console=console,
                            transient=False)
        self.task = self.bar.add_task("build", total=None)

    def __enter__(self) -> Self:
        self.bar.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.bar.stop()

    def line(self, text: str, style: str = "") -> None:
        shown = escape(printable(text))
        self.bar.console.print(f"[{style}]{shown}[/]" if style else shown, highlight=False,
                               soft_wrap=True)

    def __call__(self, event: Any) -> None:
        kind = event.type
        if kind == "debug_log" and event.content == STATE_CONTENT:
            state = event.metadata.get("build_state") or {}
            settled = set(state.get("completed_tasks") or []) | set(state.get("failed_tasks")
                                                                    or {})
            running = ", ".join(state.get("current_tasks") or []) or "-"
            self.bar.update(self.task, total=state.get("total_tasks") or None,
                            completed=len(settled),
                            description=f"{state.get('status', '')} (running: {running})")
        elif kind == "stage_start" and event.stage in _NODES:
            self.line(f"== {_NODES[event.stage]}", "bold")
        elif kind == "stage_end" and event.stage in _NODES:
            self.line(f"   {_NODES[event.stage]}: {event.output}", "" if event.ok else "red")
        elif kind == "stage_start" and event.stage == "build.task":
            self.line(f"-> {event.detail}: started", "cyan")
        elif kind == "stage_end" and event.stage == "build.task":
            self.line(f"<- {event.output}", "green" if event.ok else "red")
        elif kind == "progress" and event.message and \
                not event.message.endswith(": merged into main"):  # the task line says it
            agent_note = event.message.startswith("[")
            if not agent_note or self.verbose:
                self.line(f"   {event.message}", "dim" if agent_note else "")
        elif kind == "error":
            self.line(f"error: {event.message}", "red")
