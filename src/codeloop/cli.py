"""The `codeloop` command. Thin: each command is a module-level function in
codeloop.commands.<name>_cmd that imports its heavy dependencies (llama.cpp, LangGraph) only
when it runs, so `codeloop --help` stays fast."""

from __future__ import annotations

import typer

from codeloop import __version__
from codeloop.commands import (
    agent_cmd,
    ask_cmd,
    bench_cmd,
    build_cmd,
    chat_cmd,
    config_cmd,
    mcp_cmd,
    models_cmd,
    review_cmd,
    runs_cmd,
    sandbox_cmd,
    serve_cmd,
    solve_cmd,
)

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
    """A local-first coding agent: turns a task into working, tested code."""


# The order here is the order `codeloop --help` lists them in (typer puts single commands
# before command groups).
app.command("solve")(solve_cmd.solve)
app.command("agent")(agent_cmd.agent)
app.command("review")(review_cmd.review)
app.command("build")(build_cmd.build)
app.command("ask")(ask_cmd.ask)
app.command("chat")(chat_cmd.chat)
app.command("serve")(serve_cmd.serve)
app.command("mcp")(mcp_cmd.mcp)
app.add_typer(runs_cmd.runs_app(), name="runs")  # `runs` lists; `runs show RUN_ID`
app.command("approve")(runs_cmd.approve)
app.command("reject")(runs_cmd.reject)
app.add_typer(bench_cmd.bench_app(), name="bench")
app.add_typer(models_cmd.models_app(), name="models")
app.add_typer(sandbox_cmd.sandbox_app(), name="sandbox")
app.add_typer(config_cmd.config_app(), name="config")


def main() -> None:
    """The `codeloop` program. SIGTERM (`kill`, `timeout`, a CI limit) ends any command as
    Ctrl-C does: its run is recorded as interrupted and its result still printed. A model
    that cannot be reached stops every job at once (it passes through the jobs' handlers of
    one failed call): here it becomes one line naming the URL, exit 2."""
    from codeloop.commands.common import error_line, terminate_as_interrupt
    from codeloop.llm.base import ModelUnreachable

    with terminate_as_interrupt() as signalled:
        try:
            app()
        except ModelUnreachable as exc:
            error_line(str(exc))
            raise SystemExit(2) from None
        except OSError as exc:  # ENAMETOOLONG from any path option: bad input, one line
            from codeloop.path_limits import is_too_long, too_long_line

            if not is_too_long(exc):
                raise
            error_line(too_long_line(exc))
            raise SystemExit(2) from None
        except SystemExit as done:
            if signalled.is_set():
                _end_now(done.code)
            raise


def _end_now(code: object) -> None:
    """After a SIGTERM, once the command has recorded its run and printed its result: exit
    without joining threads. The signal can land while a worker thread is being started (a
    LangGraph step's pool), leaving a thread no pool will ever stop, and the normal exit
    would wait on it for good."""
    import os
    import sys

    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()
        except (OSError, ValueError):  # a closed pipe: nothing more to say
            pass
    os._exit(code if isinstance(code, int) else 1)
