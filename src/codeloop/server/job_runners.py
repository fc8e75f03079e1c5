"""From a checked API request to a `Launch`: the inputs validated here, in the request (bad
input is a 4xx before any run exists), and the function a worker thread runs the job with.

solve and agent run here through `store.run` as their commands do; review and ask go through
their services (codeloop.review.service, codeloop.ask.service), which open and settle their
own runs. Every job gets its
model through the server's gate (model_gate.py).
"""

from __future__ import annotations

import io
from dataclasses import dataclass
from typing import Any

from codeloop.config import Settings
from codeloop.path_limits import too_long
from codeloop.server.models import ServerModels
from codeloop.server.roots import BadPath, Roots
from codeloop.server.run_manager import Launch, RunHandle
from codeloop.server.schemas import (
    AgentParams,
    AskParams,
    BuildParams,
    ReviewParams,
    SolveParams,
)
from codeloop.store import RunStore


class BadRequest(Exception):
    """The request's params are wrong in a way only the job can tell (HTTP 400)."""


@dataclass(frozen=True)
class JobContext:
    store: RunStore
    models: ServerModels
    settings: Settings
    roots: Roots


def _model_spec(ctx: JobContext, requested: str | None) -> str:
    """The spec the run uses; an LLMError (HTTP 400 "model") when it cannot be used."""
    return ctx.models.check_spec(requested)


def _recorded_model(ctx: JobContext, recorded: str | None) -> str:
    """The model a run was started with, to go on with; the server's own model when that
    one cannot be used here (a file outside the roots, a spec from another machine)."""
    import logging

    from codeloop.llm.base import LLMError

    try:
        return ctx.models.check_spec(recorded)
    except LLMError as exc:
        logging.getLogger("codeloop.server").info(
            "the run's model %r cannot be used here (%s): going on with %s", recorded, exc,
            ctx.settings.model)
        return ctx.models.check_spec(None)


def _gated(ctx: JobContext, spec: str, handle: RunHandle):
    return ctx.models.for_run(spec, handle.signals)


# ------------------------------------------------------------------ solve
def solve_launch(ctx: JobContext, params: SolveParams) -> Launch:
    from pydantic import ValidationError

    from codeloop.solve.tasks import Task

    try:
        task = Task(**params.task.model_dump())
    except ValidationError as exc:
        first = exc.errors()[0]
        where = ".".join(str(p) for p in first["loc"])
        raise BadRequest(f"task.{where}: {first['msg']}") from None
    spec = _model_spec(ctx, params.model)
    inputs = {"task": task.model_dump(), "model": spec, "test_file": None,
              "params": params.model_dump(), "via": "server"}

    def work(handle: RunHandle) -> None:
        from codeloop.solve.runner import solve_task

        llm = _gated(ctx, spec, handle)
        with ctx.store.run("solve", inputs) as run:
            run.bus.subscribe(handle.listen)
            handle.started(run.id)
            result = solve_task(
                task, llm, bus=run.bus, max_refinements=params.max_refinements,
                sandbox_timeout=ctx.settings.sandbox_timeout,
                unsafe_no_sandbox=ctx.settings.unsafe_no_sandbox,
                checkpointer=ctx.store.checkpointer(), thread_id=run.id,
                draft_first=not params.plan_first, crosscheck=params.crosscheck,
                samples_per_round=params.samples_per_round, seed=params.seed,
                edge_checks=params.edge_checks, vote=params.vote)
            run.finish(result.run_status, result.model_dump())

    return Launch("solve", work)


# ------------------------------------------------------------------ agent
def _user_mcp_servers() -> dict:
    """The MCP servers of the user's own config file, as `codeloop agent` reads them (a
    workspace's file never names one); a wrong entry is a one-line 400 and no run."""
    from codeloop.config import ConfigError, user_mcp_servers

    try:
        return user_mcp_servers()
    except ConfigError as exc:
        raise BadRequest(str(exc)) from None


def agent_launch(ctx: JobContext, params: AgentParams) -> Launch:
    from codeloop.agent.snapshots import is_git_repo, not_a_repository
    from codeloop.server.roots import BadPath

    workspace_dir = ctx.roots.resolve(params.workspace)
    if not params.init_git and not is_git_repo(workspace_dir):
        # The agent commits a snapshot of what it finds: only a request that says so may
        # make a directory (the server's root, a home) a repository with every file in it.
        raise BadRequest(not_a_repository(workspace_dir))
    spec = _model_spec(ctx, params.model)
    mcp_servers = {} if params.multi_agent else _user_mcp_servers()
    inputs = {"request": params.request, "home": str(workspace_dir),
              "multi_agent": params.multi_agent, "model": spec,
              "params": {**params.model_dump(), "workspace": str(workspace_dir)},
              "via": "server"}

    def work(handle: RunHandle) -> None:
        from rich.console import Console

        from codeloop.agent.app import AgentApp, AgentAppError, open_workspace
        from codeloop.jobs.react.state import AgentLimits
        from codeloop.mcp_client.hub import McpHub

        quiet = Console(file=io.StringIO(), soft_wrap=True)  # the API's views are the events
        try:
            workspace = open_workspace(workspace_dir, ctx.settings, quiet,
                                       init_git=params.init_git)
        except AgentAppError as exc:
            raise BadPath(str(exc)) from None
        limits = AgentLimits(max_steps=params.max_steps, token_budget=params.token_budget,
                             max_tokens_per_step=ctx.settings.max_tokens,
                             temperature=ctx.settings.temperature)
        # The user's MCP servers, as `codeloop agent` starts them: for this run, then stopped.
        hub = McpHub(mcp_servers).start() if mcp_servers else None
        try:
            app = AgentApp(_gated(ctx, spec, handle), workspace, ctx.store, limits=limits,
                           multi_agent=params.multi_agent, thread=params.thread,
                           console=quiet, mcp_hub=hub)
            conversation = app.conversation()
            with ctx.store.run("agent", inputs, bus=app.bus) as run:
                unsubscribe = run.bus.subscribe(handle.listen)
                handle.started(run.id)
                try:
                    outcome = conversation.ask(params.request)
                finally:
                    unsubscribe()  # the app's bus outlives the run
                ok = outcome.status in ("finished", "approved")
                # The outcome's own record: with --multi-agent, the plan, the implementation
                # reports and the validator's verdicts too (as the CLI stores them).
                run.finish("done" if ok else outcome.status, outcome.record())
        finally:
            if hub is not None:
                hub.stop()

    return Launch("agent", work)


# ------------------------------------------------------------------ review
def _review_request(ctx: JobContext, params: ReviewParams, spec: str):
    from codeloop.review.service import ReviewInputError, ReviewRequest, validate_request

    workspace_dir = ctx.roots.resolve(params.workspace)
    for name in params.files:  # ENAMETOOLONG is bad input, said before the guard looks
        if (why := too_long(workspace_dir / name)) is not None:
            raise BadPath(f"the file {name[:40]}... is {why}")
    try:
        return validate_request(ReviewRequest(
            workspace=workspace_dir, request=params.request, files=params.files,
            git_rev=params.git_rev, refiner=params.refiner, model=spec))
    except ReviewInputError as exc:
        raise BadRequest(str(exc)) from None


def review_launch(ctx: JobContext, params: ReviewParams) -> Launch:
    spec = _model_spec(ctx, params.model)
    request = _review_request(ctx, params, spec)

    def work(handle: RunHandle) -> None:
        from codeloop.review.service import start_review

        start_review(request, _gated(ctx, spec, handle), ctx.store, ctx.settings,
                     approve=params.approve, listen=handle.listen, on_run_id=handle.started)

    return Launch("review", work)


def decision_launch(ctx: JobContext, run_id: str, *, approved: bool, message: str,
                    digest: str | None = None) -> Launch:
    """Approve or reject a review run waiting for it (checked by the caller); `digest`: of
    the diff the person saw (decide_review refuses another)."""
    record = ctx.store.get_run(run_id)
    spec = _recorded_model(ctx, (record.input or {}).get("model") if record else None)

    def work(handle: RunHandle) -> None:
        from codeloop.review.service import decide_review

        handle.started(run_id)
        decide_review(run_id, approved=approved, message=message,
                      llm=_gated(ctx, spec, handle), store=ctx.store, settings=ctx.settings,
                      listen=handle.listen, digest=digest)

    return Launch("review", work, run_id=run_id)


# ------------------------------------------------------------------ ask
def ask_launch(ctx: JobContext, params: AskParams) -> Launch:
    """An ask run: its repository under the roots (read once, here: a repository that
    holds nothing readable, an empty question or a type that needs a repository is a 400
    before any run exists)."""
    from codeloop.ask.context import AskError
    from codeloop.ask.service import prepare

    repo_dir = (ctx.roots.resolve(params.repo, kind="repository")
                if params.repo is not None else None)
    try:
        question, index, _type = prepare(params.question, repo_dir, params.task_type)
    except AskError as exc:
        raise BadRequest(str(exc)) from None
    spec = _model_spec(ctx, params.model)

    def work(handle: RunHandle) -> None:
        from codeloop.ask.service import ask

        ask(question, repo_dir, _gated(ctx, spec, handle), ctx.store, ctx.settings,
            task_type=params.task_type, retrieval=params.retrieval, listen=handle.listen,
            max_iterations=params.max_iterations, index=index, on_run_id=handle.started)

    return Launch("ask", work)


# ------------------------------------------------------------------ build
# How often the worker of a build (which runs in the build service's own thread) looks at
# its run: it wakes the run's streams, and stays live while the build runs (cancel, queued).
_BUILD_WATCH_SECONDS = 0.25


def build_launch(ctx: JobContext, params: BuildParams) -> Launch:
    from codeloop.build.runner import BuildInputError, BuildOptions, prepare

    out_dir = ctx.roots.resolve(params.out_dir, kind="project directory", must_exist=False)
    spec = _model_spec(ctx, params.model)
    request = params.request.model_dump()
    try:  # every check the build makes before it writes anything, here: a 400, no run
        prepare(request, out_dir=out_dir, stack=params.stack,
                options=BuildOptions(max_parallel=params.max_parallel))
    except BuildInputError as exc:
        raise BadRequest(str(exc)) from None

    def work(handle: RunHandle) -> None:
        import time

        from codeloop.build.runtime import BuildRuntime
        from codeloop.build.service import start_build

        runtime = BuildRuntime(llm_for=ctx.models.for_build(spec, handle.signals),
                               unsafe_no_sandbox=ctx.settings.unsafe_no_sandbox)
        run_id = start_build(ctx.store, request, out_dir=str(out_dir), stack=params.stack,
                             model=spec, max_parallel=params.max_parallel,
                             settings=ctx.settings, runtime=runtime)
        handle.started(run_id)
        while (record := ctx.store.get_run(run_id)) is not None and record.status == "running":
            handle.notifier.notify(run_id)
            time.sleep(_BUILD_WATCH_SECONDS)

    return Launch("build", work)


def resume_launch(ctx: JobContext, run_id: str, job: str, inputs: dict[str, Any]) -> Launch:
    """An interrupted run taken up again. review: from its last checkpoint, the same run id
    (its service's resume_review). solve and agent: started again from the start with the
    same inputs, as a new run (both are short, and the agent's conversation memory is kept
    by its thread). build: not here (BadRequest): `codeloop build --resume` takes it up."""
    if job == "review":
        spec = _recorded_model(ctx, inputs.get("model"))

        def work(handle: RunHandle) -> None:
            from codeloop.review.service import resume_review

            handle.started(run_id)
            resume_review(run_id, _gated(ctx, spec, handle), ctx.store, ctx.settings,
                          listen=handle.listen)

        return Launch("review", work, run_id=run_id)
    if job == "build":
        out_dir = inputs.get("out_dir") or "DIR"
        raise BadRequest(f"build runs resume from the CLI only: codeloop build TASKS.json "
                         f"--out {out_dir} --resume")
    params = inputs.get("params")
    if not isinstance(params, dict):
        raise BadRequest(f"run {run_id} was not started by the server: its inputs cannot be "
                         "replayed; start it again")
    if job == "solve":
        return solve_launch(ctx, SolveParams.model_validate(params))
    if job == "agent":
        return agent_launch(ctx, AgentParams.model_validate(params))
    raise BadRequest(f"{job} runs cannot be resumed through the API")


LAUNCHERS = {"solve": solve_launch, "agent": agent_launch, "review": review_launch,
             "build": build_launch, "ask": ask_launch}
