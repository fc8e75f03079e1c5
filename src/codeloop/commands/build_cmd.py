"""`codeloop build`: test-driven project generation from a task dependency graph (the build
job, src/codeloop/build/). Heavy imports (LangGraph, the model runtime) happen inside."""

from __future__ import annotations

import json
from pathlib import Path

import typer

from codeloop.commands.common import (
    JSON_OPTION,
    MODEL_OPTION,
    STORE_OPTION,
    fail,
    job_console,
    open_store,
    settings_from_cli,
    terminate_as_interrupt,
)


def build(
    tasks_file: Path = typer.Argument(..., help="The request: JSON {tech_stack, tasks: "  # noqa: B008
                                      "[{id, description, implementation_details, "
                                      "story_points, depends_on, keywords}]}."),
    out: Path = typer.Option(..., "--out", help="The project directory to create."),  # noqa: B008
    stack: str = typer.Option(None, "--stack", help="python-api, nodejs-api, react-spa or "
                              "go-api (default: the request's tech_stack)."),
    stack_file: Path = typer.Option(None, "--stack-file", help="Your own stack YAML "  # noqa: B008
                                    "(the bundled stacks show the fields)."),
    max_parallel: int = typer.Option(3, "--max-parallel", min=1, max=32,
                                     help="Task agents running at once."),
    model: str = MODEL_OPTION,
    push_to: str = typer.Option(None, "--push-to", help="Push main after every merge to "
                                "this bare repository (created if missing) or https URL."),
    resume: bool = typer.Option(False, "--resume", help="Go on with the interrupted build "
                                "in --out: merged tasks are kept, tasks in flight redone."),
    as_json: bool = JSON_OPTION,
    store: str = STORE_OPTION,
    verbose: bool = typer.Option(False, "--verbose", help="Show each agent step too."),
) -> None:
    """Build a tested project from a task dependency graph.

    Scaffold, tests-first task agents in parallel (a git branch each), merges with conflict
    resolution, and an integration pass."""
    from codeloop.build.models import models_for
    from codeloop.build.runner import (
        BuildInputError,
        BuildOptions,
        execute,
        find_resumable,
        prepare,
        resume_mismatch,
    )
    from codeloop.build.runtime import BuildRuntime
    from codeloop.build.view import BuildView
    from codeloop.llm.base import LLMError
    from codeloop.sandbox.types import SandboxUnavailable
    from codeloop.store import StoreError

    try:
        inputs = prepare(tasks_file, out_dir=out, stack=stack, stack_file=stack_file,
                         options=BuildOptions(max_parallel=max_parallel, push_to=push_to or ""),
                         resume=resume)
    except BuildInputError as exc:
        fail(str(exc))
    settings = settings_from_cli(model=model, store=store)
    try:
        llm_for = models_for(model, settings)
    except LLMError as exc:
        fail(str(exc))
    console = job_console(settings, as_json)
    runtime = BuildRuntime(llm_for=llm_for, unsafe_no_sandbox=settings.unsafe_no_sandbox)
    with open_store(settings.store_path()) as run_store:
        run_id = None
        if resume:
            run_id = find_resumable(run_store, inputs.out_dir)
            if run_id is None:
                fail(f"no interrupted build of {inputs.out_dir} in {settings.store_path()}: "
                     "nothing to resume")
            record = run_store.get_run(run_id)
            if record is not None and record.input.get("request") != \
                    inputs.request.model_dump():
                fail(f"{tasks_file} is not the request of the interrupted build {run_id}")
            mismatch = resume_mismatch(record.input, inputs) if record is not None else None
            if mismatch:
                fail(f"{mismatch} ({run_id})")
        run = None
        try:
            opened = run_store.resume(run_id) if run_id else \
                run_store.run("build", {**inputs.record(), "model": model or settings.model})
            with terminate_as_interrupt(), opened as run, BuildView(console, verbose) as view:
                run.bus.subscribe(view)
                final = execute(inputs, run, run_store, runtime, resuming=run_id is not None)
        except KeyboardInterrupt:
            # The run is recorded as interrupted (the worker threads stopped at their next
            # model call); the result says so, --json included.
            _interrupted(console, run_store, run, f"codeloop build {tasks_file} --out {out} "
                         "--resume", as_json)
            raise typer.Exit(130) from None
        except (LLMError, SandboxUnavailable, StoreError) as exc:
            fail(str(exc))
    if _report(console, final, run.id, settings.store_path(), as_json) != "succeeded":
        raise typer.Exit(1)  # a task failed or blocked: not a success


def _interrupted(console, run_store, run, resume: str, as_json: bool) -> None:
    """What an interrupted build says: where it got to (its last state snapshot) and the
    command that goes on; with --json, as JSON on stdout."""
    from rich.markup import escape

    from codeloop.build.context import last_snapshot
    from codeloop.build.state import public_state
    from codeloop.textsafe import printable

    if as_json:
        state = (last_snapshot(run_store.events(run.id)) if run is not None else None) or {}
        typer.echo(json.dumps({"run_id": run.id if run is not None else None,
                               "run_status": "interrupted", **public_state(state),
                               "current_tasks": [], "resume": resume}, indent=2))
    console.print(f"[yellow]interrupted[/]: go on with `{escape(printable(resume))}`",
                  highlight=False)


def _report(console, final: dict, run_id: str, store_path, as_json: bool) -> str:
    """Print the build's result; its run status (succeeded only when every task merged)."""
    from rich.markup import escape

    from codeloop.run_statuses import label, settle
    from codeloop.textsafe import printable

    status, outcome = settle("build", final["status"], final)
    if as_json:
        typer.echo(json.dumps({"run_id": run_id, "run_status": status, "outcome": outcome,
                               **final}, indent=2))
        return status
    style = "green" if status == "succeeded" else "red"
    console.print(f"[bold {style}]{label(status)}[/]: {escape(outcome)} into "
                  f"{escape(printable(final['out_dir']))} (main)", highlight=False)
    for task_id, reason in final["failed_tasks"].items():
        console.print(f"  [red]{task_id}[/]: {escape(printable(reason))}", highlight=False)
    if final.get("blocked_tasks"):
        console.print(f"  [yellow]blocked[/] (a task they depend on did not merge): "
                      f"{escape(printable(', '.join(final['blocked_tasks'])))}", highlight=False)
    if final.get("error"):
        console.print(f"  {escape(printable(final['error']))}", highlight=False)
    console.print(f"[dim]run {run_id} saved in {store_path}[/]", highlight=False)
    return status


def register(app: typer.Typer) -> None:
    app.command("build")(build)
