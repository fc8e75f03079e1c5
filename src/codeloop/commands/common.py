"""Helpers shared by the CLI commands: settings from flags, clean exits on user errors."""

from __future__ import annotations

import contextlib
import signal
import sys
import threading
from collections.abc import Iterator
from typing import Any, NoReturn

import typer
from rich.console import Console

err_console = Console(stderr=True)

# Options the job commands share (typer reads them as defaults; they hold no state).
MODEL_OPTION = typer.Option(None, "--model", help="Model spec, e.g. local:qwen2.5-coder-1.5b, "
                            "ollama:NAME (or a bare Ollama name), scripted:FILE.yaml.")
JSON_OPTION = typer.Option(False, "--json", help="Machine-readable result.")
STORE_OPTION = typer.Option(None, "--store", help="Run store path (SQLite).")


def error_line(message: str) -> None:
    """Print a one-line error on stderr. The message may quote a file's content or a path:
    it is shown escaped, never read as markup or terminal control sequences."""
    from rich.markup import escape

    from codeloop.textsafe import printable

    err_console.print(f"[bold red]error:[/] {escape(printable(message))}", highlight=False,
                      soft_wrap=True)


def fail(message: str, code: int = 2) -> NoReturn:
    """Print a one-line error (no traceback) and exit."""
    error_line(message)
    raise typer.Exit(code)


def open_store(path):
    """The run store at `path`, or a one-line error naming the file and what to do (exit 2)."""
    from codeloop.store import RunStore, StoreError

    try:
        return RunStore(path)
    except StoreError as exc:
        fail(str(exc))


def settings_from_cli(**cli: Any):
    """Effective settings with the CLI layer on top; a bad config file is a clean error."""
    from rich.markup import escape

    from codeloop.config import ConfigError, load_config
    from codeloop.textsafe import printable

    try:
        effective = load_config(cli)
    except ConfigError as exc:
        fail(str(exc))
    for warning in effective.warnings():  # a project file tried to loosen a setting
        err_console.print("[yellow]warning:[/] " + escape(printable(warning)), highlight=False,
                          soft_wrap=True)
    return effective.settings


def load_model(spec: str | None, settings: Any) -> Any:
    """The model a spec names, or a one-line error (exit 2) when it cannot be had."""
    from codeloop.llm.base import LLMError
    from codeloop.llm.registry import get_llm

    try:
        return get_llm(spec, settings)
    except LLMError as exc:
        fail(str(exc))


def check_model_spec(spec: str) -> None:
    """A server's default model spec, checked at start: a bad one is one line now (exit 2),
    not an error in every run it starts."""
    from codeloop.llm.base import LLMError
    from codeloop.llm.registry import parse_spec

    try:
        parse_spec(spec)
    except LLMError as exc:
        fail(str(exc))


def job_console(settings: Any, as_json: bool) -> Console:
    """A job's live view: on stderr with --json (stdout holds the JSON alone), and opened by
    the warning when the sandbox is off."""
    console = Console(stderr=as_json)
    if settings.unsafe_no_sandbox:
        from codeloop.sandbox.unsafe import UNSANDBOXED_NOTICE

        console.print(f"[bold red]{UNSANDBOXED_NOTICE}[/]", highlight=False)
    return console


def is_tty() -> bool:
    return sys.stdout.isatty()


@contextlib.contextmanager
def terminate_as_interrupt() -> Iterator[threading.Event]:
    """Within the block, SIGTERM (`kill`, `timeout`, a CI limit) ends the command as Ctrl-C
    does, so its `finally` blocks still run: a long run keeps its summary. A background job
    started from a script ignores SIGINT, so SIGTERM is how such a run gets stopped. The
    event it gives is set once a SIGTERM came."""
    signalled = threading.Event()
    if threading.current_thread() is not threading.main_thread():
        yield signalled
        return

    def interrupt(_signum: int, _frame: object) -> None:
        signalled.set()
        raise KeyboardInterrupt

    previous = signal.signal(signal.SIGTERM, interrupt)
    try:
        yield signalled
    finally:
        signal.signal(signal.SIGTERM, previous)
