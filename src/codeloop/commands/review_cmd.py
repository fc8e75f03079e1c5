"""`codeloop review`: a change request or existing files through the review cycle (security
gate, reviewer, diff-based refiner), then a person's approval before anything is written.

The engine is codeloop.review.service (imported when the command runs: it loads LangGraph);
this module turns the command line into a ReviewRequest, shows the run live, asks for the
approval in a terminal, and otherwise stops at the approval with the exact line that
resumes it (`codeloop approve RUN_ID -m ...`, from any shell, any time later)."""

from __future__ import annotations

import json
import os
import re
import sys
from pathlib import Path
from typing import Any

import typer

from codeloop.commands.common import (  # load_model: runs_cmd takes it from here
    MODEL_OPTION,
    STORE_OPTION,
    fail,
    job_console,
    load_model,
    open_store,
    settings_from_cli,
)

# Exit codes: 0 applied (or left waiting on purpose), 1 failed/blocked/rejected, 2 bad input.
OK_STATUSES = ("applied", "awaiting_approval")
REFINERS = ("diff", "full")
# A target names a file when it has no whitespace and looks like a path (a separator, a
# leading ~ or ., or a file extension); any other target is the change request.
_FILE_LIKE = re.compile(r"^\S*([/\\]\S*|\.[A-Za-z0-9]{1,10})$|^[~.]\S*$")


def split_targets(targets: list[str], request: str | None,
                  workspace: Path) -> tuple[str | None, list[str]]:
    """(request, files) from the positional targets: with --request every target is a file;
    without it, one target that does not look like a file (or exist) is the request."""
    if request is not None:
        if not request.strip():
            fail("--request is empty: say what should change, or leave --request out to "
                 "review the files as they are")
        return request.strip(), [_file_argument(t, workspace) for t in targets]
    wording = [t for t in targets if not _names_file(t, workspace)]
    if len(wording) > 1:
        fail(f"{len(wording)} targets are not files ({', '.join(map(repr, wording[:3]))}): "
             f"give one change request, quoted, or use --request")
    files = [_file_argument(t, workspace) for t in targets if t not in wording]
    if wording and not wording[0].strip():
        fail("the change request is empty: say what should change")
    return (wording[0].strip() if wording else None), files


def _names_file(target: str, workspace: Path) -> bool:
    if _FILE_LIKE.match(target):
        return True
    try:
        return (workspace / target).exists() or Path(target).exists()
    except (OSError, ValueError):  # a NUL byte or an over-long name: not a file
        return False


def _file_argument(target: str, workspace: Path) -> str:
    """A file as the engine takes it: relative to the workspace when it is there, else the
    absolute form of a path the user typed relative to the current directory (the engine's
    path guard decides whether it lies inside the workspace). Nothing is resolved here:
    following a link is the guard's call."""
    if "\x00" in target:
        fail("a file name holds a NUL byte")
    if os.path.isabs(target) or (workspace / target).exists():
        return target
    if Path(target).exists():
        return os.path.abspath(target)
    return target


def review(
    targets: list[str] = typer.Argument(  # noqa: B008
        None, help="A change request (quoted), or files to review.", show_default=False),
    request: str = typer.Option(None, "--request", "-r",
                                help="The change to make to the files named."),
    workspace: Path = typer.Option(  # noqa: B008
        None, "--workspace", "-w", help="The project; nothing outside it is read or written. "
        "Default: the current directory."),
    git: str = typer.Option(None, "--git", help="Review a commit's changes (e.g. HEAD~1) or "
                            "the uncommitted ones (WORKTREE)."),
    approve: bool = typer.Option(False, "--approve", help="Apply without asking (CI use)."),
    no_input: bool = typer.Option(False, "--no-input", help="Stop at the approval and print "
                                  "how to approve or reject later."),
    as_json: bool = typer.Option(False, "--json", help="Print the outcome as JSON on stdout "
                                 "(the live view goes to stderr); never asks."),
    debug: bool = typer.Option(False, "--debug", help="Show every node's debug log live."),
    resume: str = typer.Option(None, "--resume", metavar="RUN_ID",
                               help="Continue a review run whose process died."),
    refiner: str = typer.Option("diff", "--refiner", hidden=True,
                                help="diff (search/replace edits) or full (whole files)."),
    model: str = MODEL_OPTION,
    store: str = STORE_OPTION,
) -> None:
    """Review or implement changes; nothing is written until approved.

    Reviews files (or a commit's changes with --git), or implements a request; the security
    gate, the reviewer and the diff-based refiner go round until the changes pass.

    Examples: codeloop review "Add input validation" -w ./app;
    codeloop review app/db.py --request "use query parameters";
    codeloop review --git HEAD~1 -w ./app"""
    if approve and no_input:
        fail("--approve and --no-input contradict each other: choose one")
    if refiner not in REFINERS:
        fail(f"--refiner must be one of {', '.join(REFINERS)}, not {refiner!r}")
    interactive = not (no_input or approve or as_json) and sys.stdin.isatty()
    if resume is not None:
        if targets or request is not None or git is not None or workspace is not None:
            fail("--resume continues a run with its own request: give no targets, "
                 "--request, --git or --workspace with it")
        _resume(resume.strip(), model=model, store=store, approve=approve, debug=debug,
                as_json=as_json, interactive=interactive)
        return
    root = workspace if workspace is not None else Path.cwd()
    wanted, files = split_targets(list(targets or []), request, root)
    if wanted is None and not files and git is None:
        fail("nothing to review: give a change request, files, or --git REV")
    settings = settings_from_cli(model=model, store=store)

    from codeloop.review.service import ReviewInputError, ReviewRequest, validate_request

    try:
        req = validate_request(ReviewRequest(
            workspace=root, request=wanted, files=files, git_rev=git,
            refiner=refiner, model=settings.model))  # type: ignore[arg-type]
    except (ReviewInputError, ValueError) as exc:  # pydantic's ValidationError is a ValueError
        fail(_one_line(exc))
    llm = load_model(settings.model, settings)
    _run(req, llm, settings, store_flag=store, approve=approve, debug=debug, as_json=as_json,
         interactive=interactive)


def _run(req: Any, llm: Any, settings: Any, *, store_flag: str | None, approve: bool,
         debug: bool, as_json: bool, interactive: bool) -> None:
    from codeloop.commands.review_view import LiveReview
    from codeloop.review.service import start_review

    console = job_console(settings, as_json)
    with open_store(settings.store_path()) as run_store:
        started: list[str] = []  # the run's id as soon as it exists (for an interruption)
        outcome = guarded(lambda: start_review(req, llm, run_store, settings, approve=approve,
                                               listen=LiveReview(console, debug),
                                               on_run_id=started.append), started,
                          as_json=as_json)
        outcome = settle(outcome, llm=llm, run_store=run_store, settings=settings,
                         console=console, interactive=interactive, debug=debug)
        conclude(outcome, console, as_json=as_json, store_flag=store_flag,
                 shown=interactive)  # a person who quit the prompt has seen the diffs


def _resume(run_id: str, *, model: str | None, store: str | None, approve: bool, debug: bool,
            as_json: bool, interactive: bool) -> None:
    """`--resume RUN_ID`: an interrupted review run goes on from its last checkpoint, with
    the model it was started with unless --model says otherwise."""
    from codeloop.commands.review_view import LiveReview
    from codeloop.review.service import resume_review

    if not run_id:
        fail("--resume needs a run id (see `codeloop runs --status interrupted`)")
    settings = settings_from_cli(model=model, store=store)
    with open_store(settings.store_path()) as run_store:
        record = review_run(run_store, run_id, settings.store_path(), "interrupted")
        llm = load_model(model or record.input.get("model") or settings.model, settings)
        console = job_console(settings, as_json)
        outcome = guarded(lambda: resume_review(run_id, llm, run_store, settings,
                                                approve=approve,
                                                listen=LiveReview(console, debug)), run_id,
                          as_json=as_json)
        outcome = settle(outcome, llm=llm, run_store=run_store, settings=settings,
                         console=console, interactive=interactive, debug=debug)
        conclude(outcome, console, as_json=as_json, store_flag=store, shown=interactive)


def guarded(call, run_id: str | list[str] | None = None, *, as_json: bool = False):
    """Run an engine call; a model or store failure is one line (the run records it).
    Ctrl-C or SIGTERM stops it: the store records the run as interrupted, and the user is
    told how to go on (`run_id`: the id, or a list the engine fills in once it exists);
    `as_json`: the interruption is also a JSON result on stdout."""
    from codeloop.commands.common import terminate_as_interrupt
    from codeloop.llm.base import LLMError
    from codeloop.store import StoreError

    try:
        with terminate_as_interrupt():
            return call()
    except (LLMError, StoreError) as exc:
        fail(_one_line(exc))
    except KeyboardInterrupt:
        known = run_id[0] if isinstance(run_id, list) and run_id else run_id
        known = known or None  # an empty list: the run never started
        if as_json:
            typer.echo(json.dumps({"run_id": known, "status": "interrupted", "resume":
                                   f"codeloop review --resume {known}" if known else None},
                                  indent=2))
        fail(f"interrupted: continue with `codeloop review --resume {known}`" if known
             else "interrupted before the run started", code=130)


def settle(outcome: Any, *, llm: Any, run_store: Any, settings: Any, console: Any,
           interactive: bool, debug: bool) -> Any:
    """In a terminal, show each waiting round's diffs and ask until the run ends (a
    rejection sends the message to the refiner and comes back with new diffs) or the person
    quits (the run stays waiting). Elsewhere the outcome is returned as it is."""
    from codeloop.commands.review_view import LiveReview, ask_decision, render_pending
    from codeloop.review.service import decide_review

    while interactive and outcome.status == "awaiting_approval":
        render_pending(console, outcome.model_dump())
        try:
            decision = ask_decision(console)
        except (KeyboardInterrupt, EOFError):
            console.print()
            decision = None
        if decision is None:
            break
        approved, message = decision
        # the decision names the diffs just shown: a change since is refused, not written
        outcome = guarded(lambda a=approved, m=message, rid=outcome.run_id,
                          d=outcome.diff_digest: decide_review(
            rid, approved=a, message=m, llm=llm, store=run_store, settings=settings,
            listen=LiveReview(console, debug), digest=d), outcome.run_id)
    return outcome


def conclude(outcome: Any, console: Any, *, as_json: bool, store_flag: str | None,
             shown: bool = False) -> None:
    """Print the outcome (JSON on stdout, or the rich view) and exit with its code."""
    from codeloop.commands.review_view import render_outcome, render_pending, render_waiting

    data = outcome.model_dump(mode="json")
    waiting = outcome.status == "awaiting_approval"
    if waiting and not shown and not as_json:
        render_pending(console, data)
    render_outcome(console, data)
    if waiting:
        render_waiting(console, outcome.run_id, store_flag, outcome.diff_digest)
    if as_json:  # the run's status and outcome as the run store has them, then the review's
        from codeloop.run_statuses import settle

        run_status, phrase = settle("review", outcome.status, data)
        typer.echo(json.dumps({"run_status": run_status, "outcome": phrase, **data}, indent=2))
    if outcome.status not in OK_STATUSES:
        raise typer.Exit(1)


def review_run(run_store: Any, run_id: str, path: Any, status: str) -> Any:
    """The review run `run_id` in `status`, or one line and exit 2: unknown, another job's,
    or in another state (with what to do instead)."""
    run_store.mark_interrupted([run_id])  # a run whose process died is not "running"
    record = run_store.get_run(run_id)
    if record is None:
        fail(f"no run {run_id!r} in {path} (see `codeloop runs`)")
    if record.job != "review":
        fail(f"run {run_id} is a {record.job} run: only review runs wait for approval")
    if record.status == status:
        return record
    wanted = "waiting for approval" if status == "awaiting_approval" else status
    hint = {"interrupted": f": continue it with `codeloop review --resume {run_id}`",
            "awaiting_approval": f": decide it with `codeloop approve {run_id} -m ...` or "
                                 f"`codeloop reject {run_id} -m ...`"}
    fail(f"run {run_id} is {record.status}, not {wanted}"
         + hint.get(record.status, ": nothing to do"))


def _one_line(exc: BaseException) -> str:
    from pydantic import ValidationError

    if isinstance(exc, ValidationError):
        return "; ".join(f"{'.'.join(map(str, e['loc'])) or 'request'}: {e['msg']}"
                         for e in exc.errors())
    text = " ".join(str(exc).split())
    return text or type(exc).__name__


def register(app: typer.Typer) -> None:
    app.command("review")(review)
