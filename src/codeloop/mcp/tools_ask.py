"""`ask`: a question about a repository (or a general one), answered by the ask job, its
citations checked (grounding). The HTTP API has no ask runner, so its `Launch` is here, on
the same pieces: ask's service (the job), the server's gated model (cancel at the next model
call), the runs manager; the repository must lie under the roots."""

from __future__ import annotations

from typing import Any, Literal

from mcp.server.mcpserver import Context
from pydantic import BaseModel, ConfigDict, Field

from codeloop.mcp.access import ClientRoots, check_path
from codeloop.mcp.errors import ToolError, api_call
from codeloop.mcp.params_tool import params_tool
from codeloop.mcp.runs import RunOutcome, finished
from codeloop.server.schemas import Model

ASK_DOC = ("Ask codeloop about a repository under the server's roots (analyse it, answer a "
           "question citing file:line) or a general question. The result holds the answer "
           "(final_output), its citations' grounding and the run's self-evaluation.")


class AskParams(BaseModel):
    model_config = ConfigDict(extra="forbid")
    question: str = Field(min_length=1, max_length=4000)
    repo: str | None = Field(None, max_length=4096, description="A directory under one of "
                             "the server's roots (omit for a general question)")
    task_type: Literal["analyze_repo", "answer_question", "generate_content",
                       "general"] | None = None
    model: Model = None
    retrieval: bool = Field(True, description="BM25-retrieved code for questions (false: "
                            "the most central files)")
    max_iterations: int = Field(10, ge=1, le=50)


def ask_launch(state: Any, params: AskParams, repo: str | None):
    from codeloop.ask.context import AskError
    from codeloop.ask.service import prepare
    from codeloop.server.run_manager import Launch, RunHandle

    try:  # bad input is one line before any run exists
        _q, index, _t = prepare(params.question, repo, params.task_type)
    except AskError as exc:
        raise ToolError(str(exc)) from None
    spec = api_call(state.jobs.models.check_spec, params.model)

    def work(handle: RunHandle) -> None:
        from codeloop.ask.service import ask

        ask(params.question, repo, state.jobs.models.for_run(spec, handle.signals),
            state.store, state.settings, task_type=params.task_type,
            retrieval=params.retrieval, listen=handle.listen,
            max_iterations=params.max_iterations, index=index, on_run_id=handle.started)

    return Launch("ask", work)


def register(server: Any, state: Any) -> None:
    async def ask(params: AskParams, ctx: Context = None,
                  roots: ClientRoots = None) -> RunOutcome:
        import anyio

        repo = str(check_path(state, params.repo, roots, kind="repository")) \
            if params.repo else None
        launch = ask_launch(state, params, repo)
        run_id = await anyio.to_thread.run_sync(api_call, state.manager.start, launch)
        return await finished(state, run_id, ctx)

    server.add_tool(params_tool(AskParams, ask, name="ask", doc=ASK_DOC,
                                extra={"ctx": Context, "roots": ClientRoots}),
                    name="ask", description=ASK_DOC)
