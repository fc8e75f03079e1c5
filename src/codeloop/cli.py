"""The `codeloop` command. Thin: each command lives in codeloop.commands.<name> and imports
its heavy dependencies (llama.cpp, LangGraph) only when it runs, so --help stays fast."""

from __future__ import annotations

import importlib

import typer

from codeloop import __version__

COMMAND_MODULES = [
    "solve_cmd",
    "agent_cmd",
    "bench_cmd",
    "models_cmd",
    "chat_cmd",
    "sandbox_cmd",
    "config_cmd",
]

app = typer.Typer(
    name="codeloop",
    help="A local-first coding agent: turns a task into working, tested code.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
)


def _version(value: bool) -> None:
    if value:
        typer.echo(f"codeloop {__version__}")
        raise typer.Exit()


@app.callback()
def _root(
    version: bool = typer.Option(
        False, "--version", callback=_version, is_eager=True, help="Print the version and exit."
    ),
) -> None:
    """codeloop: solve, agent, review, build, ask, bench, serve, models."""


for _name in COMMAND_MODULES:
    importlib.import_module(f"codeloop.commands.{_name}").register(app)


def main() -> None:
    app()
