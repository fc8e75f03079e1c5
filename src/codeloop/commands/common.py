"""Helpers shared by the CLI commands: settings from flags, clean exits on user errors."""

from __future__ import annotations

import sys
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
