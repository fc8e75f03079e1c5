"""Starting a job through the runs API's own route and following it to its end."""

from __future__ import annotations

from typing import Any

import anyio
from pydantic import BaseModel, Field

from codeloop.mcp.bridge import ApiRequest, follow_run
from codeloop.mcp.errors import api_call
from codeloop.server.schemas import OUTCOME_FIELD, STATUS_FIELD


class RunOutcome(BaseModel):
    """A finished run as the run store holds it (`run_show` gives every detail)."""

    run_id: str
    job: str
    status: str = STATUS_FIELD
    outcome: str = OUTCOME_FIELD
    result: Any = Field(None, description="The job's result as the run store keeps it")
    events: int = Field(0, description="Events the run emitted (resource "
                        "codeloop://runs/{run_id}/events)")


async def start(state: Any, body: BaseModel) -> str:
    """POST /api/runs's own code: the run's id once it exists (bad input: ToolError)."""
    from codeloop.server.routes_runs import start_run

    started = await anyio.to_thread.run_sync(api_call, start_run, ApiRequest.on(state), body)
    return started.run_id


async def start_and_follow(state: Any, body: BaseModel, ctx: Any) -> RunOutcome:
    run_id = await start(state, body)
    return await finished(state, run_id, ctx)


async def finished(state: Any, run_id: str, ctx: Any) -> RunOutcome:
    """Follow a live run to its end (progress; cancellation cancels it); its outcome."""
    events = await follow_run(state, run_id, ctx)
    record = state.store.get_run(run_id)
    return RunOutcome(run_id=run_id, job=record.job, status=record.status,
                      outcome=record.outcome or "", result=record.result, events=events)
