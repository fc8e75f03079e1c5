"""`runs_list` and `run_show`: GET /api/runs and GET /api/runs/{id}, by their own code (the
runs this server answers for: their paths under its roots)."""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import Field

from codeloop.mcp.bridge import ApiRequest
from codeloop.mcp.errors import api_call
from codeloop.server.schemas import RunDetail, RunList

LIST_DOC = "codeloop's runs, newest first (job and status filter; limit and offset page)."
SHOW_DOC = ("One run: status, inputs, result, tokens per stage; a review waiting for "
            "approval with its pending diffs and their diff_digest.")


def register(server: Any, state: Any) -> None:
    def runs_list(
        job: Literal["solve", "agent", "review", "build", "ask"] | None = None,
        status: Annotated[str | None, Field(max_length=40, pattern=r"^[a-z_]+$")] = None,
        limit: Annotated[int, Field(ge=1, le=200)] = 50,
        offset: Annotated[int, Field(ge=0, le=10**9)] = 0,
    ) -> RunList:
        from codeloop.server.routes_runs import list_runs

        return api_call(list_runs, ApiRequest.on(state), job, status, limit, offset)

    def run_show(run_id: Annotated[str, Field(min_length=1, max_length=128)]) -> RunDetail:
        from codeloop.mcp.tools_review import _run_id
        from codeloop.server.routes_runs import get_run

        return api_call(get_run, ApiRequest.on(state), _run_id(run_id))

    server.add_tool(runs_list, name="runs_list", description=LIST_DOC)
    server.add_tool(run_show, name="run_show", description=SHOW_DOC)
