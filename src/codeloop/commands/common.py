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


def fail(message: str, code: int = 2) -> NoReturn:
    """Print a one-line error (no traceback) and exit."""
    err_console.print(f"[bold red]error:[/] {message}", highlight=False, soft_wrap=True)
    raise typer.Exit(code)


def settings_from_cli(**cli: Any):
    """Effective settings with the CLI layer on top; a bad config file is a clean error."""
    from codeloop.config import ConfigError, load_config

    try:
        return load_config(cli).settings
    except ConfigError as exc:
        fail(str(exc))


def is_tty() -> bool:
    return sys.stdout.isatty()


@contextlib.contextmanager
def terminate_as_interrupt() -> Iterator[None]:
    """Within the block, SIGTERM (`kill`, `timeout`, a CI limit) ends the command as Ctrl-C
    does, so its `finally` blocks still run: a long run keeps its summary. A background job
    started from a script ignores SIGINT, so SIGTERM is how such a run gets stopped."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return

    def interrupt(_signum: int, _frame: object) -> None:
        raise KeyboardInterrupt

    previous = signal.signal(signal.SIGTERM, interrupt)
    try:
        yield
    finally:
        signal.signal(signal.SIGTERM, previous)
