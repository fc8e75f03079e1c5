"""`codeloop runs` (the run store's runs, those awaiting approval first to the eye),
`codeloop runs show RUN_ID` (run_show.py) and `codeloop approve` / `codeloop reject` (decide a
review run that waits for a person, from any shell, any time after the process that started
it has gone)."""

from __future__ import annotations

import json
from typing import Any

import typer

from codeloop.commands import run_show
from codeloop.commands.common import fail, open_store, settings_from_cli
from codeloop.commands.run_fields import WAITING, age, run_row, status_text
from codeloop.run_statuses import label

__all__ = ["WAITING", "age", "approve", "register", "reject", "run_row", "runs", "runs_app"]


# ------------------------------------------------------------------ codeloop runs
def runs(
    ctx: typer.Context,
    job: str = typer.Option(None, "--job", help="Only this job's runs (solve, agent, review…)."),
    status: str = typer.Option(None, "--status", help="Only runs in this status: queued, "
                               "running, awaiting_approval, succeeded, failed, cancelled, "
                               "interrupted."),
    limit: int = typer.Option(20, "--limit", min=1, max=10_000, help="Newest runs shown."),
    as_json: bool = typer.Option(False, "--json", help="Machine-readable list."),
    store: str = typer.Option(None, "--store", help="Run store path (SQLite)."),
) -> None:
    """List recent runs; those awaiting approval are highlighted.

    Columns: id, job, status and outcome, model, what was asked, age, tokens.
    `codeloop runs show RUN_ID` shows one run."""
    if ctx.invoked_subcommand is not None:
        return
    from codeloop.run_statuses import JOBS, status_refusal, unknown_value

    # A filter no run can match is a typo, not an empty list: one line, nothing opened.
    if job and (refusal := unknown_value("job", job, JOBS)):
        fail(refusal)
    if status and (refusal := status_refusal(status)):
        fail(refusal)
    settings = settings_from_cli(store=store)
    with open_store(settings.store_path()) as run_store:
        run_store.mark_interrupted()  # a run whose process died is not "running"
        records = run_store.list_runs(job or None, limit, status=status or None)
        rows = [run_row(run_store, r) for r in records]
        waiting = run_store.count_runs(job or None, WAITING)
    if as_json:
        typer.echo(json.dumps(rows, indent=2))
        return
    _print_runs(rows, waiting, settings.store_path(), store)


def _print_runs(rows: list[dict[str, Any]], waiting: int, path: Any,
                store_flag: str | None) -> None:
    from rich import box
    from rich.console import Console
    from rich.table import Table
    from rich.text import Text

    from codeloop.commands.review_view import resume_commands
    from codeloop.textsafe import printable

    console = Console()
    if not rows:
        console.print(Text(f"no runs in {path}", style="dim"))
        return
    table = Table(title=f"Runs in {printable(str(path))}", title_justify="left",
                  box=box.SIMPLE_HEAD, show_edge=False, pad_edge=False,
                  collapse_padding=True)
    # Ids, statuses, ages and tokens are never cut (people copy ids); what was asked, the
    # outcome and the model share the width left, in that order, cropped or left out.
    cells = [{"id": r["id"], "job": printable(r["job"]), "status": label(r["status"]),
              "outcome": printable(r["outcome"] or ""), "asked": printable(r["asked"] or "-"),
              "model": printable(str(r["model"] or "-")), "age": age(r["age_seconds"]),
              "tokens": f"{r['tokens']:,}" if r["tokens"] is not None else "-"} for r in rows]
    widths = {key: max(len(key), *(len(c[key]) for c in cells)) for key in cells[0]}
    fixed = ("id", "job", "status", "age", "tokens")
    room = console.width - sum(widths[k] for k in fixed) - 2 * (len(fixed) - 1)
    caps = _share(room, {k: min(widths[k], n) for k, n in (("asked", 10), ("outcome", 10),
                                                           ("model", 8))},
                  [("asked", min(widths["asked"], 30)), ("outcome", widths["outcome"]),
                   ("model", widths["model"]), ("asked", min(widths["asked"], 60))])
    shown_keys = [k for k in ("id", "job", "status", "outcome", "asked", "model", "age",
                              "tokens") if k in fixed or caps.get(k)]
    for key in shown_keys:
        table.add_column(key, no_wrap=True, justify="right" if key in ("age", "tokens")
                         else "left", overflow="ellipsis", max_width=caps.get(key),
                         min_width=widths[key] if key in fixed else None)
    for row, cell in zip(rows, cells, strict=True):
        styles = {"id": "bold" if row["waiting"] else "", "status": status_text(row)[1]}
        table.add_row(*(Text(cell[k], style=styles.get(k, "")) for k in shown_keys),
                      style="on grey15" if row["waiting"] else None)
    console.print(table)
    if waiting:
        first = next((r["id"] for r in rows if r["waiting"]), None)
        console.print(Text(f"{waiting} run(s) awaiting approval", style="bold yellow"))
        if first:
            for line in resume_commands(first, store_flag):
                console.print(Text("  " + line), soft_wrap=True)


def _share(room: int, least: dict[str, int], steps: list[tuple[str, int]]) -> dict[str, int]:
    """Widths for the flexible columns: each (in `least`'s order) gets its least width while
    the room lasts, then each step (key, width) widens that column up to width with what is
    left. A column that gets nothing is left out."""
    caps: dict[str, int] = {}
    for key, width in least.items():
        if room - 2 >= width:  # 2: the gap before the column
            caps[key], room = width, room - width - 2
    for key, width in steps:
        if key in caps and room > 0:
            extra = max(0, min(room, width - caps[key]))
            caps[key], room = caps[key] + extra, room - extra
    return caps


# ------------------------------------------------------------------ approve / reject
def approve(
    run_id: str = typer.Argument(..., help="The waiting review run (see `codeloop runs`)."),
    digest: str = typer.Option(None, "--digest", help="The digest printed with the diffs "
                               "you approve; without it, the diffs and their digest are "
                               "shown and nothing is written."),
    message: str = typer.Option("LGTM", "-m", "--message", help="A note kept with the run."),
    model: str = typer.Option(None, "--model", help="Model spec (default: the run's own)."),
    store: str = typer.Option(None, "--store", help="Run store path (SQLite)."),
    as_json: bool = typer.Option(False, "--json", help="Print the outcome as JSON."),
    debug: bool = typer.Option(False, "--debug", help="Show every node's debug log live."),
) -> None:
    """Approve a waiting review run: write exactly the changes you saw."""
    _decide(run_id, True, message or "LGTM", model=model, store=store, as_json=as_json,
            debug=debug, no_input=True, digest=digest)


def reject(
    run_id: str = typer.Argument(..., help="The waiting review run (see `codeloop runs`)."),
    message: str = typer.Option(None, "-m", "--message",
                                help="What should change (required): the refiner is told."),
    model: str = typer.Option(None, "--model", help="Model spec (default: the run's own)."),
    store: str = typer.Option(None, "--store", help="Run store path (SQLite)."),
    as_json: bool = typer.Option(False, "--json", help="Print the outcome as JSON."),
    debug: bool = typer.Option(False, "--debug", help="Show every node's debug log live."),
    no_input: bool = typer.Option(False, "--no-input", help="Do not ask about the refined "
                                  "changes; leave the run waiting again."),
    digest: str = typer.Option(None, "--digest", help="The digest of the diffs you reject "
                               "(refused when they have changed since)."),
) -> None:
    """Reject a waiting review run; the refiner reworks it.

    The refined changes come back for approval (self-heal), up to the retry limit."""
    if not (message or "").strip():
        fail("a rejection needs a message (-m): say what should change")
    _decide(run_id, False, message.strip(), model=model, store=store, as_json=as_json,
            debug=debug, no_input=no_input, digest=digest)


def _decide(run_id: str, approved: bool, message: str, *, model: str | None,
            store: str | None, as_json: bool, debug: bool, no_input: bool,
            digest: str | None = None) -> None:
    import sys

    from rich.console import Console

    from codeloop.commands.review_cmd import conclude, guarded, load_model, review_run, settle
    from codeloop.commands.review_view import LiveReview

    run_id = run_id.strip()
    if not run_id:
        fail("give a run id (see `codeloop runs --status awaiting_approval`)")
    settings = settings_from_cli(model=model, store=store)
    with open_store(settings.store_path()) as run_store:
        record = review_run(run_store, run_id, settings.store_path(), WAITING)
        if approved and not (digest or "").strip():
            _show_and_ask_for_digest(run_store, run_id, store, as_json)
        spec = model or record.input.get("model") or settings.model
        # Approving writes files and calls no model: the model loads only if asked for.
        llm = _LazyLLM(spec, settings) if approved else load_model(spec, settings)
        console = Console(stderr=as_json)

        from codeloop.review.service import decide_review

        outcome = guarded(lambda: decide_review(
            run_id, approved=approved, message=message, llm=llm, store=run_store,
            settings=settings, listen=LiveReview(console, debug), digest=digest), run_id)
        # A rejection comes back refined: in a terminal, it is asked about again.
        interactive = not (no_input or as_json) and sys.stdin.isatty()
        outcome = settle(outcome, llm=llm, run_store=run_store, settings=settings,
                         console=console, interactive=interactive, debug=debug)
        conclude(outcome, console, as_json=as_json, store_flag=store, shown=interactive)


def _show_and_ask_for_digest(run_store: Any, run_id: str, store_flag: str | None,
                             as_json: bool) -> None:
    """`codeloop approve RUN` without --digest: show the exact pending diffs (from the run's
    checkpoint) and their digest, write nothing, and say the line that approves them."""
    from rich.console import Console

    from codeloop.commands.review_view import render_pending, resume_commands
    from codeloop.review.service import waiting_review

    shown = waiting_review(run_store, run_id)
    if shown is None:
        fail(f"run {run_id} has no pending change to show (no checkpoint)")
    data = shown.model_dump(mode="json")
    if as_json:
        typer.echo(json.dumps(data, indent=2))
    else:
        render_pending(Console(), data)
    command = resume_commands(run_id, store_flag, shown.diff_digest)[0]
    fail(f"nothing written: an approval names the digest of the diffs it approves; if the "
         f"diffs shown are what you approve, run: {command}")


class _LazyLLM:
    """The run's model, built on first use: approving a run must not load a gigabyte of
    weights it never calls. `name` is known without building it."""

    def __init__(self, spec: str, settings: Any) -> None:
        self.name = spec
        self._settings = settings
        self._llm = None

    def forget_prompt_cache(self) -> None:
        if self._llm is not None:  # a model not built yet has cached nothing
            from codeloop.llm.base import forget_prompt_cache

            forget_prompt_cache(self._llm)

    def __getattr__(self, attribute: str) -> Any:
        if attribute.startswith("_"):  # copy/pickle probes; never build the model for them
            raise AttributeError(attribute)
        if self._llm is None:
            from codeloop.llm.registry import get_llm

            self._llm = get_llm(self.name, self._settings)
        return getattr(self._llm, attribute)


def runs_app() -> typer.Typer:
    """`codeloop runs` lists (no subcommand needed); `codeloop runs show RUN_ID`."""
    group = typer.Typer(add_completion=False, pretty_exceptions_enable=False)
    group.callback(invoke_without_command=True)(runs)
    group.command("show")(run_show.show)
    return group


def register(app: typer.Typer) -> None:
    app.add_typer(runs_app(), name="runs")
    app.command("approve")(approve)
    app.command("reject")(reject)
