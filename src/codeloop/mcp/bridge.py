"""The HTTP API's own route functions, called for MCP tools, and a live run followed as
progress notifications.

The runs API's routes (server/routes_runs.py) read nothing from their request but
`request.app.state.server`: `ApiRequest` gives them that, so a tool starts, lists, shows and
decides runs through the very code the HTTP API runs (the approval digest check included),
never a copy of it.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from types import SimpleNamespace
from typing import Any

import anyio

from codeloop.events import Event

POLL_SECONDS = 0.1  # how often a followed run's new events are read from the store


@dataclass(frozen=True)
class ApiRequest:
    """What a route function of the runs API reads of its request."""

    app: SimpleNamespace

    @classmethod
    def on(cls, state: Any) -> ApiRequest:
        return cls(app=SimpleNamespace(state=SimpleNamespace(server=state)))


# One short line per event kind for a progress notification; other kinds show their name.
_EVENT_LINES: dict[str, Callable[[Any], str]] = {
    "stage_start": lambda e: f"{e.stage}: started",
    "stage_end": lambda e: f"{e.stage}: {'done' if e.ok else 'failed'} in {e.seconds:.1f}s",
    "llm_call": lambda e: f"model call ({e.stage or 'run'}): {e.completion_tokens} tokens",
    "tool_call": lambda e: f"tool {e.tool}",
    "test_result": lambda e: f"tests: {e.passed} passed, {e.failed} failed",
    "progress": lambda e: f"{e.message or 'progress'} ({e.done}/{e.total})",
    "diff": lambda e: f"diff of {e.path}",
    "approval_request": lambda e: f"waiting for approval: {e.subject}",
    "error": lambda e: f"error: {e.message}",
}


def describe(event: Event) -> str:
    """One short line for a progress notification."""
    line = _EVENT_LINES.get(event.type)
    return line(event)[:300] if line else event.type


async def follow_run(state: Any, run_id: str, ctx: Any) -> int:
    """Report the run's events as progress until its worker ends; the events seen.

    A cancelled tool call (the client's notifications/cancelled) cancels the run: it stops
    at its next model call, as DELETE /api/runs/{id} does."""
    seen = 0
    try:
        while True:
            live = state.manager.is_live(run_id)
            batch = await anyio.to_thread.run_sync(state.feed.run_events, run_id, seen)
            for seq, event in batch:
                seen = seq
                await ctx.report_progress(seq, None, describe(event)[:300])
            if not live and not batch:  # ended, and every event it stored was reported
                return seen
            await anyio.sleep(POLL_SECONDS)
    except anyio.get_cancelled_exc_class():
        if state.manager.is_live(run_id):
            state.manager.cancel(run_id)
        raise
