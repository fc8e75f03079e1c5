"""Resources: a run's record (`codeloop://runs/{run_id}`, what run_show gives) and its events
(`codeloop://runs/{run_id}/events`, as the run store keeps them: redacted), for the runs this
server answers for."""

from __future__ import annotations

import json
from typing import Any

MAX_EVENTS = 5000  # the newest are kept when a run has more (a resource is read whole)


def register(server: Any, state: Any) -> None:
    from mcp.server.mcpserver.exceptions import ResourceNotFoundError

    from codeloop.mcp.bridge import ApiRequest
    from codeloop.server.run_access import visible_record
    from codeloop.server.run_manager import RunNotFound

    def _visible(run_id: str) -> None:
        try:
            visible_record(state.store, state.roots, run_id)
        except RunNotFound as exc:
            raise ResourceNotFoundError(str(exc)) from None

    @server.resource("codeloop://runs/{run_id}", mime_type="application/json",
                     description="A run's record: status, inputs, result, tokens per stage")
    def run_record(run_id: str) -> str:
        from codeloop.server.routes_runs import get_run

        _visible(run_id)
        return get_run(ApiRequest.on(state), run_id).model_dump_json(indent=2)

    @server.resource("codeloop://runs/{run_id}/events", mime_type="application/json",
                     description="A run's events, in order (as the run store keeps them)")
    def run_events(run_id: str) -> str:
        _visible(run_id)
        events = state.store.events(run_id)[-MAX_EVENTS:]
        return json.dumps([{"seq": seq, **event.model_dump(mode="json")}
                           for seq, event in events], indent=1)
