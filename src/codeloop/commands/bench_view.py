"""What `codeloop bench` shows: the live progress bar, the run summary, two runs compared."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import typer

from codeloop.commands.common import err_console


def progress_bar(total: int, done: int, passed: int, label: str):
    """A bar on stderr (stdout keeps --json clean): pass@1 so far and the last problem."""
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


def show_resumed(progress, task, out_dir: Path, selected: set[str]) -> None:
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


def print_summary(summary: dict[str, Any], out_dir: Path, as_json: bool,
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


def print_comparison(comparison, as_json: bool) -> None:
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
