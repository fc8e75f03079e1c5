"""`codeloop solve`: function-level tasks through analysis, planning, generation, review and
refinement (a draft first; the thinking stages when review finds it wrong, see
solve/graph.py). Heavy imports (LangGraph, the model runtime) happen inside the command."""

from __future__ import annotations

import json
from pathlib import Path

import typer

from codeloop.commands.common import (
    JSON_OPTION,
    MODEL_OPTION,
    STORE_OPTION,
    fail,
    open_store,
    settings_from_cli,
)

UNTESTED_EXIT = 3  # no task failed, but one ran no test (its verdict: "Code is untested")


def _load_tasks(task_file: Path | None, task_id: str | None):
    """[(task, its file)] for the run; bad files and unknown ids are clean errors."""
    from codeloop.solve.tasks import (
        TaskFileError,
        UnknownTaskError,
        load_bundled_tasks,
        load_task_file,
        select_task,
    )

    try:
        if task_file is not None:
            tasks = [(task_file, t) for t in load_task_file(task_file)]
            where = str(task_file)
        else:
            tasks = load_bundled_tasks()
            where = "the bundled task files"
        if task_id is not None:
            chosen = select_task([t for _, t in tasks], task_id, where)
            tasks = [(p, t) for p, t in tasks if t is chosen]
    except (TaskFileError, UnknownTaskError) as exc:
        fail(str(exc))
    if not tasks:
        fail(f"{where} holds no tasks")
    return tasks


def solve(
    task_file: Path = typer.Option(None, "--task-file", help="JSON list of tasks "  # noqa: B008
                                   "{task_id, signature, docstring, examples?}. "
                                   "Default: the bundled example tasks."),
    task_id: str = typer.Option(None, "--task-id", help="Solve only this task."),
    test_file: Path = typer.Option(  # noqa: B008
        None, "--test-file", help="A pytest file whose tests (test_<task_id>_*) review runs too."),
    model: str = MODEL_OPTION,
    show_node_info: bool = typer.Option(False, "--show-node-info",
                                        help="Show each stage's output, live."),
    as_json: bool = JSON_OPTION,
    store: str = STORE_OPTION,
    max_refinements: int = typer.Option(3, "--max-refinements", min=0, max=3,
                                        help="Refinement rounds at most (0-3)."),
    samples_per_round: int = typer.Option(
        1, "--samples-per-round", min=1, max=3,
        help="Samples a round may draw (1-3; default 1): after a failing one, the next is "
        "drawn in the same round while the task has spent under 8x its draft's tokens."),
    seed: int = typer.Option(None, "--seed", min=0,
                             help="Draw the sampled rounds from this seed: the same task, "
                             "model and seed give the same run (default: fresh samples)."),
    edge_checks: bool = typer.Option(
        True, "--edge-checks/--no-edge-checks",
        help="Run code that passes its tests on the examples' calls with an argument made "
        "empty or cut to one item; a crash there gets a refinement round (default: on)."),
    vote: bool = typer.Option(
        False, "--vote/--no-vote",
        help="Code that passes its tests only after a failed draft meets an independent "
        "sample on edge calls; two samples that agree against it replace it (default: off: "
        "it changed no HumanEval answer for 0.23x one-shot's tokens)."),
    plan_first: bool = typer.Option(False, "--plan-first",
                                    help="Run analysis and planning before any code, "
                                    "even for a task whose first draft would pass."),
    crosscheck: bool = typer.Option(
        False, "--crosscheck",
        help="For a task with no examples and no test file: spend the refinement rounds on "
        "independent samples, run them all on calls the model proposes, and keep the "
        "behaviour most share (slower; says how far they agreed)."),
) -> None:
    """Write a tested function from a signature and a docstring.

    The draft runs against the task's examples (and --test-file's tests) in the sandbox and
    is refined until it passes or the rounds run out. Exit code: 0 every task passed its
    tests, 1 one failed, 3 none failed but one ran no test ("Code is untested": its examples
    do not call the function, or it has none), 130 interrupted."""
    from codeloop.commands.common import job_console, load_model
    from codeloop.events import Progress
    from codeloop.llm.base import LLMError
    from codeloop.sandbox.unsafe import UNSANDBOXED_NOTICE
    from codeloop.solve.execute import TestFileError, read_test_file
    from codeloop.solve.runner import solve_task
    from codeloop.solve.view import LiveStages, render_result

    tasks = _load_tasks(task_file, task_id)
    if test_file is not None:
        try:
            read_test_file(test_file)
        except TestFileError as exc:
            fail(str(exc))
    settings = settings_from_cli(model=model, store=store)
    llm = load_model(model, settings)
    console = job_console(settings, as_json)
    results = []
    with open_store(settings.store_path()) as run_store:
        for _path, task in tasks:
            inputs = {"task": task.model_dump(), "model": llm.name,
                      "test_file": str(test_file) if test_file else None}
            opened = None  # the task's run, once it exists
            try:  # the run records the error itself; the user gets one line
                with run_store.run("solve", inputs) as run:
                    opened = run
                    run.bus.subscribe(LiveStages(console, show_node_info))
                    if settings.unsafe_no_sandbox:
                        run.bus.emit(Progress(done=0, total=0, message=UNSANDBOXED_NOTICE))
                    result = solve_task(
                        task, llm, bus=run.bus, test_file=test_file,
                        max_refinements=max_refinements, show_node_info=show_node_info,
                        stream=show_node_info and not as_json,
                        sandbox_timeout=settings.sandbox_timeout,
                        unsafe_no_sandbox=settings.unsafe_no_sandbox,
                        checkpointer=run_store.checkpointer(), thread_id=run.id,
                        draft_first=not plan_first, crosscheck=crosscheck,
                        samples_per_round=samples_per_round, seed=seed,
                        edge_checks=edge_checks, vote=vote)
                    run.finish(result.run_status, result.model_dump())
            except (LLMError, TestFileError) as exc:
                fail(f"{task.task_id}: {exc}")
            except KeyboardInterrupt:  # Ctrl-C or SIGTERM: the run is recorded interrupted
                stopped = {"run_id": opened.id if opened else None, "task_id": task.task_id,
                           "status": "interrupted"}
                if as_json:
                    _print_json([*_payload(results, settings), stopped])
                console.print(f"[yellow]interrupted[/]: {task.task_id}"
                              + (f" (run {opened.id})" if opened else ""), highlight=False)
                raise typer.Exit(130) from None
            results.append((run.id, result))
            if not as_json:
                render_result(console, result)
                console.print(f"[dim]run {run.id} saved in {settings.store_path()}[/]")
    if as_json:
        _print_json(_payload(results, settings))
    statuses = {r.run_status for _, r in results}
    if "failed" in statuses:
        raise typer.Exit(1)
    if "untested" in statuses:  # nothing failed, but no test ran: not a success either
        raise typer.Exit(UNTESTED_EXIT)


def _payload(results, settings) -> list[dict]:
    """Each task's run: its status and outcome as the run store has them, and the result."""
    from codeloop.run_statuses import settle

    rows = []
    for rid, result in results:
        status, outcome = settle("solve", result.run_status)
        rows.append({"run_id": rid, "status": status, "outcome": outcome,
                     "sandboxed": not settings.unsafe_no_sandbox, **result.model_dump()})
    return rows


def _print_json(payload: list[dict]) -> None:
    typer.echo(json.dumps(payload[0] if len(payload) == 1 else payload, indent=2))


def register(app: typer.Typer) -> None:
    app.command("solve")(solve)
