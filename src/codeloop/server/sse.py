"""Server-Sent Events: a run's events from the store, from the start, then live.

`GET /api/runs/{id}/events`: every stored event of the run (its DebugLog lines included),
each as one SSE message whose `id` is the event's `seq` in the store, so a client that
reconnects with `Last-Event-ID: N` (EventSource does it by itself) gets exactly the events
after N: no loss, no duplicates. The data is the event's JSON with `seq` added.
The stream ends (an `end` event with the run's status, then close) when the run has ended:
finished, failed, cancelled, or interrupted (a dead process: resuming it is a new request).
A run waiting at human approval keeps its stream open: its approval resumes it on the same
run, and its events go on in the same stream.

`GET /api/workflow/stream`: every run's events as they arrive, ids being the store's event
order (Last-Event-ID resumes too); from now, or from `after=` (0: the whole history).

Both are bounded (stream_gate.py): so many streams in all and per client address, one more
is a 429; a replay goes page by page, each page read off the event loop on the streams' own
few threads, so a flood of streams cannot take the API's loop or threads.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator
from typing import Annotated

from fastapi import APIRouter, Header, Path, Query, Request

from codeloop.server.errors import ERROR_RESPONSES
from codeloop.server.feed import with_seq
from codeloop.server.run_access import visible_record, visible_run_ids
from codeloop.server.stream_gate import HeldStream, client_of

OPEN_STATUSES = ("running", "awaiting_approval")
_POLL_SECONDS = 1.0  # re-read the store this often anyway (runs moved on by other processes)
_PING_SECONDS = 15
RUN_ID = r"^[A-Za-z0-9][A-Za-z0-9._-]{0,127}$"

router = APIRouter(responses=ERROR_RESPONSES)

_SSE_DOC = {200: {"content": {"text/event-stream": {"schema": {"type": "string"}}},
                  "description": "Server-Sent Events: id = seq, data = event JSON"}}


MAX_EVENT_ID = 2**63 - 1  # SQLite's largest integer: no stored id is larger


def _event_id(last_event_id: str | None) -> int | None:
    """A numeric Last-Event-ID (ASCII digits; anything else is ignored, as EventSource
    does); BadRequest (400) past the largest id the store can hold."""
    text = (last_event_id or "").strip()
    if not text or not (text.isascii() and text.isdigit()):
        return None
    value = int(text)
    if value > MAX_EVENT_ID:
        from codeloop.server.job_runners import BadRequest

        raise BadRequest(f"Last-Event-ID {text[:20]}... is larger than any event id "
                         f"({MAX_EVENT_ID}): reconnect without it")
    return value


def _cursor(last_event_id: str | None, after: int | None) -> int:
    return max(after or 0, _event_id(last_event_id) or 0)


def _workflow_page(server, cursor: int) -> tuple[int, list[dict[str, str]]]:
    """(the last rowid read, the messages of the next page of every run's events after
    `cursor` that this server shows). Runs on a stream reader thread."""
    rows = server.feed.all_payloads(cursor)
    shown = visible_run_ids(server.store, server.roots, {run_id for _r, run_id, _s, _p in rows})
    return (rows[-1][0] if rows else cursor,
            [{"id": str(rowid), "event": "message", "data": with_seq(payload, seq)}
             for rowid, run_id, seq, payload in rows if run_id in shown])  # roots: the rest


async def _wait(wake: asyncio.Event) -> None:
    try:
        await asyncio.wait_for(wake.wait(), timeout=_POLL_SECONDS)
    except TimeoutError:
        pass


@router.get("/api/runs/{run_id}/events", responses=_SSE_DOC, response_model=None,
            summary="A run's events as Server-Sent Events (replay, then live)")
async def run_events(
    request: Request,
    run_id: Annotated[str, Path(pattern=RUN_ID)],
    last_event_id: Annotated[str | None, Header(max_length=40)] = None,
    after: Annotated[int | None, Query(ge=0, le=10**12)] = None,
):
    from sse_starlette import EventSourceResponse

    server = request.app.state.server
    gate = server.streams
    visible_record(server.store, server.roots, run_id)  # 404: none, or outside the roots
    start = _cursor(last_event_id, after)
    slot = gate.admit(client_of(request))  # 429 past the bounds; last: nothing can fail after

    async def stream() -> AsyncIterator[dict[str, str]]:
        cursor = start
        with server.notifier.watch(run_id) as wake:
            while True:
                wake.clear()
                live = server.manager.is_live(run_id)
                # one page (status read first): from memory, or read off the event loop
                status, rows = await gate.run_page(server.run_cache, run_id, cursor)
                for seq, data in rows:
                    cursor = seq
                    yield {"id": str(seq), "event": "message", "data": data}
                if rows:
                    await asyncio.sleep(0)  # the next page after the others' turn
                    continue  # more may be stored already
                if not live and status not in OPEN_STATUSES:
                    yield {"event": "end", "data": json.dumps({"run_id": run_id,
                                                               "status": status})}
                    return
                if status == "running" and not live:  # another process's run: alive?
                    await gate.read(server.store.mark_interrupted, [run_id])
                await _wait(wake)

    return HeldStream(EventSourceResponse(stream(), ping=_PING_SECONDS,
                                          headers={"Cache-Control": "no-store",
                                                   "X-Accel-Buffering": "no"}), slot)


@router.get("/api/workflow/stream", responses=_SSE_DOC, response_model=None,
            summary="Every run's events as Server-Sent Events (live)")
async def workflow_stream(
    request: Request,
    last_event_id: Annotated[str | None, Header(max_length=40)] = None,
    after: Annotated[int | None, Query(ge=0, le=10**12)] = None,
):
    from sse_starlette import EventSourceResponse

    server = request.app.state.server
    gate = server.streams
    explicit = after is not None or _event_id(last_event_id) is not None
    start = (_cursor(last_event_id, after) if explicit
             else await gate.read(server.feed.last_rowid))
    slot = gate.admit(client_of(request))  # 429 past the bounds; last: nothing can fail after

    async def stream() -> AsyncIterator[dict[str, str]]:
        cursor = start
        with server.notifier.watch(None) as wake:
            while True:
                wake.clear()
                # one page (a replay from after=0 goes page by page), read off the loop
                last, messages = await gate.read(_workflow_page, server, cursor)
                for message in messages:
                    yield message
                if last == cursor:
                    await _wait(wake)
                cursor = last

    return HeldStream(EventSourceResponse(stream(), ping=_PING_SECONDS,
                                          headers={"Cache-Control": "no-store",
                                                   "X-Accel-Buffering": "no"}), slot)
