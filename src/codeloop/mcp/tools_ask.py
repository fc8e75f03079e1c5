"""`ask`: a question about a repository under the roots (or a general one), answered by the
ask job with its citations checked (grounding): the API's ask run (POST /api/runs
{job: "ask"}), its arguments the API's AskParams."""

from __future__ import annotations

from typing import Any

from mcp.server.mcpserver import Context

from codeloop.mcp.access import ClientRoots, check_path
from codeloop.mcp.params_tool import params_tool
from codeloop.mcp.runs import RunOutcome, start_and_follow
from codeloop.server.schemas import AskParams, StartAsk

ASK_DOC = ("Ask codeloop about a repository under the server's roots (analyse it, answer a "
           "question citing file:line) or a general question. The result holds the answer "
           "(final_output), its citations' grounding and the run's self-evaluation.")


def register(server: Any, state: Any) -> None:
    async def ask(params: AskParams, ctx: Context = None,
                  roots: ClientRoots = None) -> RunOutcome:
        if params.repo is not None:
            repo = check_path(state, params.repo, roots, kind="repository")
            params = params.model_copy(update={"repo": str(repo)})
        return await start_and_follow(state, StartAsk(job="ask", params=params), ctx)

    server.add_tool(params_tool(AskParams, ask, name="ask", doc=ASK_DOC,
                                extra={"ctx": Context, "roots": ClientRoots}),
                    name="ask", description=ASK_DOC)
