"""`codeloop runs` (the run store's runs, those awaiting approval first to the eye) and
`codeloop approve` / `codeloop reject` (decide a review run that waits for a person, from any
shell, any time after the process that started it has gone)."""

from __future__ import annotations

import json
import time
from typing import Any

import typer

from codeloop.commands.common import fail, open_store, settings_from_cli

WAITING = "awaiting_approval"
STATUS_STYLES = {WAITING: "bold yellow", "interrupted": "magenta", "running": "cyan",
                 "error": "red", "failed": "red", "blocked": "red", "rejected": "red",
                 "applied": "green", "passed": "green", "done": "green", "untested": "yellow"}


# ------------------------------------------------------------------ codeloop runs
def runs(
    job: str = typer.Option(None, "--job", help="Only this job's runs (solve, agent, review…)."),
    status: str = typer.Option(None, "--status", help="Only runs in this status, e.g. "
                               "awaiting_approval, interrupted, applied."),
    limit: int = typer.Option(20, "--limit", min=1, max=10_000, help="Newest runs shown."),
    as_json: bool = typer.Option(False, "--json", help="Machine-readable list."),
    store: str = typer.Option(None, "--store", help="Run store path (SQLite)."),
) -> None:
    """List recent runs; those awaiting approval are highlighted.

    Columns: id, job, status, model, age, tokens."""
    from codeloop.run_statuses import JOBS, RUN_STATUSES, unknown_value

    # A filter no run can match is a typo, not an empty list: one line, nothing opened.
    for kind, value, known in (("job", job, JOBS), ("status", status, RUN_STATUSES)):
        if value and (refusal := unknown_value(kind, value, known)):
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


def run_row(run_store: Any, record: Any) -> dict[str, Any]:
    """One run as `runs` shows it; the model and tokens from the run's result when it says,
    else from its recorded model calls (a run still going, or a job that does not say)."""
    model = record.input.get("model") if isinstance(record.input, dict) else None
    tokens = _result_tokens(record.result)
    if model is None or tokens is None:
        calls = [e for _, e in run_store.events(record.id) if e.type == "llm_call"]
        if calls:
            model = model or calls[0].model
            if tokens is None:
                tokens = sum(c.prompt_tokens + c.completion_tokens for c in calls)
    now = time.time()
    return {"id": record.id, "job": record.job, "status": record.status,
            "model": model, "tokens": tokens,
            "started": _iso(record.started), "ended": _iso(record.ended),
            "age_seconds": round(now - record.started, 1), "waiting": record.status == WAITING}


def _result_tokens(result: Any) -> int | None:
    """Total tokens from the shapes the jobs record: review {"tokens": {"total"}}, agent
    {"tokens": N}, solve {"totals": {prompt_tokens, completion_tokens}}."""
    if not isinstance(result, dict):
        return None
    tokens = result.get("tokens")
    if isinstance(tokens, dict) and isinstance(tokens.get("total"), int):
        return tokens["total"]
    if isinstance(tokens, int) and not isinstance(tokens, bool):
        return tokens
    totals = result.get("totals")
    if isinstance(totals, dict):
        figures = [totals.get("prompt_tokens"), totals.get("completion_tokens")]
        if all(isinstance(f, int) for f in figures):
            return sum(figures)
    return None


def _iso(ts: float | None) -> str | None:
    return None if ts is None else time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(ts))


def age(seconds: float) -> str:
    """A run's age the way people say it: 45s, 12m, 3h, 2d."""
    for size, unit in ((86_400, "d"), (3_600, "h"), (60, "m")):
        if seconds >= size:
            return f"{int(seconds // size)}{unit}"
    return f"{max(0, int(seconds))}s"


def _print_runs(rows: list[dict[str, Any]], waiting: int, path: Any,
                store_flag: str | None) -> None:
    from rich.console import Console
    from rich.table import Table
    from rich.text import Text

    from codeloop.commands.review_view import resume_commands
    from codeloop.textsafe import printable

    console = Console()
    if not rows:
        console.print(Text(f"no runs in {path}", style="dim"))
        return
    from rich import box

    table = Table(title=f"Runs in {printable(str(path))}", title_justify="left",
                  box=box.SIMPLE_HEAD, show_edge=False, pad_edge=False,
                  collapse_padding=True)
    # Ids, statuses, ages and tokens are never cut (people copy ids); the model's name gets
    # what width is left, and its column goes when there is too little.
    cells = [{"id": r["id"], "job": printable(r["job"]), "status": printable(r["status"]),
              "model": printable(str(r["model"] or "-")), "age": age(r["age_seconds"]),
              "tokens": f"{r['tokens']:,}" if r["tokens"] is not None else "-"} for r in rows]
    widths = {key: max(len(key), *(len(c[key]) for c in cells)) for key in cells[0]}
    room = console.width - sum(w for k, w in widths.items() if k != "model") - 2 * 5
    show_model = room >= 8
    for key in ("id", "job", "status", "model", "age", "tokens"):
        if key == "model" and not show_model:
            continue
        table.add_column(key, no_wrap=True, justify="right" if key in ("age", "tokens")
                         else "left", overflow="ellipsis",
                         max_width=min(widths[key], room) if key == "model" else None,
                         min_width=None if key == "model" else widths[key])
    for row, cell in zip(rows, cells, strict=True):
        shown = [Text(cell["id"], style="bold" if row["waiting"] else ""), Text(cell["job"]),
                 Text(cell["status"], style=STATUS_STYLES.get(row["status"], ""))]
        shown += [Text(cell["model"])] if show_model else []
        table.add_row(*shown, cell["age"], cell["tokens"],
                      style="on grey15" if row["waiting"] else None)
    console.print(table)
    if waiting:
        first = next((r["id"] for r in rows if r["waiting"]), None)
        console.print(Text(f"{waiting} run(s) awaiting approval", style="bold yellow"))
        if first:
            for line in resume_commands(first, store_flag):
                console.print(Text("  " + line), soft_wrap=True)


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


def register(app: typer.Typer) -> None:
    app.command("runs")(runs)
    app.command("approve")(approve)
    app.command("reject")(reject)
