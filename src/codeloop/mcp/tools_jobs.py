"""`solve` (a function task) and `agent` (one turn in a workspace): the API's jobs, their
arguments the API's params, their result the finished run (the agent's holds its change
summary, `result.changes`)."""

from __future__ import annotations

from typing import Any

from mcp.server.mcpserver import Context

from codeloop.mcp.access import ClientRoots, check_path
from codeloop.mcp.params_tool import params_tool
from codeloop.mcp.runs import RunOutcome, start_and_follow
from codeloop.server.schemas import AgentParams, SolveParams, StartAgent, StartSolve

SOLVE_DOC = ("Solve a function-level task (signature, docstring, examples) on codeloop's model: "
             "analysis, planning, generation, review by real execution in the sandbox, "
             "refinement. Returns the run: its status and result (the code, tests passed).")
AGENT_DOC = ("One turn of codeloop's coding agent in a workspace (a git repository under the "
             "server's roots): it reads, edits and tests files there. Returns the run; "
             "result.changes is the change summary, result.answer its reply.")


def register(server: Any, state: Any) -> None:
    async def solve(params: SolveParams, ctx: Context = None) -> RunOutcome:
        return await start_and_follow(state, StartSolve(job="solve", params=params), ctx)

    async def agent(params: AgentParams, ctx: Context = None,
                    roots: ClientRoots = None) -> RunOutcome:
        workspace = check_path(state, params.workspace, roots)
        params = params.model_copy(update={"workspace": str(workspace)})
        return await start_and_follow(state, StartAgent(job="agent", params=params), ctx)

    server.add_tool(params_tool(SolveParams, solve, name="solve", doc=SOLVE_DOC,
                                extra={"ctx": Context}), name="solve", description=SOLVE_DOC)
    server.add_tool(params_tool(AgentParams, agent, name="agent", doc=AGENT_DOC,
                                extra={"ctx": Context, "roots": ClientRoots}),
                    name="agent", description=AGENT_DOC)
