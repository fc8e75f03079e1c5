"""`codeloop ask`: repository analysis and questions answered from the code, citing file:line
(or general questions and content writing). With no question, a REPL. Heavy imports
(LangGraph, bm25s, the model runtime) happen inside the command."""

from __future__ import annotations

import json
from pathlib import Path

import typer

from codeloop.commands.common import (
    JSON_OPTION,
    MODEL_OPTION,
    STORE_OPTION,
    fail,
    load_model,
    open_store,
    settings_from_cli,
)

TYPES = "analyze_repo, answer_question, generate_content, general"


def ask(
    question: str = typer.Argument(None, help="The question or task. Omit it for the REPL."),
    repo: Path = typer.Option(None, "--repo", help="The repository to analyse or ask "  # noqa: B008
                              "about (a directory)."),
    task_type: str = typer.Option(None, "--type", help=f"Skip detection: one of {TYPES}."),
    model: str = MODEL_OPTION,
    no_model: bool = typer.Option(False, "--no-model", help="Use no model: repository "
                                  "analysis from the tool data alone (the template report)."),
    no_retrieval: bool = typer.Option(False, "--no-retrieval", help="Questions get the "
                                      "most central files instead of BM25-retrieved code."),
    max_iterations: int = typer.Option(10, "--max-iterations", min=1, max=50,
                                       help="Planner-reflector loops at most."),
    as_json: bool = JSON_OPTION,
    store: str = STORE_OPTION,
) -> None:
    """Analyse a repository or ask about it; answers cite file:line.

    The run scores itself on five weighted metrics and checks its citations (grounding).
    With no question: a REPL (/history, /stats, /quit)."""
    from rich.console import Console

    from codeloop.ask.context import AskError
    from codeloop.ask.service import ask as run_ask
    from codeloop.ask.service import prepare
    from codeloop.ask.view import LiveNodes, render_result
    from codeloop.llm.base import LLMError

    try:  # bad input is one line before any model loads or anything is recorded
        _question, index, _type = prepare("repl" if question is None else question, repo,
                                          task_type)
    except AskError as exc:
        fail(str(exc))
    settings = settings_from_cli(model=model, store=store)
    llm = None if no_model else load_model(model, settings)
    console = Console(stderr=as_json)  # with --json, stdout holds the JSON alone

    def answer(text: str):
        started: list[str] = []  # the run's id once it exists
        try:
            return run_ask(text, repo, llm, run_store, settings, task_type=task_type,
                           retrieval=not no_retrieval, listen=LiveNodes(console),
                           max_iterations=max_iterations, index=index,
                           on_run_id=started.append)
        except (AskError, LLMError) as exc:
            if question is not None:
                fail(str(exc))
            _error_line(str(exc))  # the REPL goes on
            return None
        except KeyboardInterrupt:  # Ctrl-C or SIGTERM: the run is recorded interrupted
            run_id = started[0] if started else None
            if as_json:
                typer.echo(json.dumps({"run_id": run_id, "status": "interrupted"}, indent=2))
            console.print(f"[yellow]interrupted[/] (run {run_id})", highlight=False)
            raise typer.Exit(130) from None

    with open_store(settings.store_path()) as run_store:
        if question is None:
            _repl(answer, console, as_json)
            return
        result = answer(question)
    if as_json:
        typer.echo(json.dumps(result.model_dump(mode="json"), indent=2))
    else:
        render_result(console, result)
        console.print(f"[dim]run {result.run_id} saved in {settings.store_path()}[/]")


def _error_line(message: str) -> None:
    from rich.markup import escape

    from codeloop.commands.common import err_console
    from codeloop.textsafe import printable

    err_console.print(f"[bold red]error:[/] {escape(printable(message))}", highlight=False)


def _repl(answer, console, as_json: bool) -> None:
    from codeloop.ask.repl import run_repl
    from codeloop.ask.view import render_result

    def read_line() -> str | None:
        try:
            return input("ask> ")
        except (EOFError, KeyboardInterrupt):
            return None

    def show(result) -> None:
        if as_json:
            typer.echo(json.dumps(result.model_dump(mode="json")))
        else:
            render_result(console, result)

    run_repl(answer, read_line, console, show)


def register(app: typer.Typer) -> None:
    app.command("ask")(ask)
