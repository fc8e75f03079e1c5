"""`build_server(state)`: the MCP server on a `ServerState` (server/app.py's `open_state`),
the one `codeloop serve` runs its API on: the same store, live runs, model gate and roots."""

from __future__ import annotations

from typing import Any

INSTRUCTIONS = (
    "codeloop: a local coding agent with its own model and a sandbox. Tools: solve (a "
    "function task), agent (one turn in a workspace), review (a change reviewed, refined and "
    "held for approval: approve/reject name its diff_digest), ask (questions about a "
    "repository, with citations), sandbox_run (a command in the sandbox), runs_list, "
    "run_show. Workspaces must lie under the server's roots.")


def build_server(state: Any):
    from mcp.server import MCPServer

    from codeloop import __version__
    from codeloop.mcp import (
        resources,
        tools_ask,
        tools_jobs,
        tools_review,
        tools_runs,
        tools_sandbox,
    )

    server = MCPServer("codeloop", version=__version__, instructions=INSTRUCTIONS,
                       log_level="WARNING")
    for module in (tools_jobs, tools_review, tools_ask, tools_sandbox, tools_runs, resources):
        module.register(server, state)
    return server
