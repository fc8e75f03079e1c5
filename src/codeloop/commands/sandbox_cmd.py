"""`codeloop sandbox run -- CMD...`: run a command exactly as the jobs would;
`codeloop sandbox info`: what isolates and limits a run on this machine."""

from __future__ import annotations

import sys

import typer

from codeloop.commands.common import fail, settings_from_cli


def run(
    command: list[str] = typer.Argument(..., help="The command, after `--`."),  # noqa: B008
    timeout: float | None = typer.Option(None, "--timeout", help="Wall-clock seconds "
                                        "(default: the sandbox_timeout setting)."),
    workspace: str | None = typer.Option(None, "--workspace", help="Directory mounted "
                                        "at /workspace (default: a throw-away one)."),
    mode: str = typer.Option("rw", "--mode", help="rw, ro or cow (a throw-away copy)."),
    network: str = typer.Option("none", "--network", help="Only `none` is supported."),
    unsafe_no_sandbox: bool | None = typer.Option(
        None, "--unsafe-no-sandbox", help="Run without bubblewrap (rlimits and timeout "
        "only). Only for hosts where bubblewrap cannot run."),
) -> None:
    """Run CMD in the sandbox, print its output, a summary on stderr, exit with its code."""
    from pathlib import Path

    from codeloop.sandbox import SandboxError, run_command
    from codeloop.textsafe import printable

    if network != "none":
        fail(f"--network {network!r} is not supported: sandboxed commands have no network")
    if mode not in ("rw", "ro", "cow"):
        fail(f"--mode must be rw, ro or cow (got {mode!r})")
    if workspace is not None and not Path(workspace).is_dir():
        fail(f"--workspace {workspace} is not a directory")
    settings = settings_from_cli(sandbox_timeout=timeout, unsafe_no_sandbox=unsafe_no_sandbox)
    try:
        result = run_command(list(command), workspace=workspace, mode=mode,
                             timeout=settings.sandbox_timeout,
                             unsafe_no_sandbox=settings.unsafe_no_sandbox)
    except (SandboxError, ValueError) as exc:
        fail(str(exc))
    if not result.sandboxed:
        from codeloop.sandbox.unsafe import UNSANDBOXED_NOTICE

        typer.echo(f"[sandbox] {UNSANDBOXED_NOTICE}", err=True)
    # The program's bytes never reach the terminal raw (OSC 52 would write the clipboard).
    sys.stdout.write(printable(result.stdout))
    sys.stdout.flush()
    sys.stderr.write(printable(result.stderr))
    typer.echo(f"[sandbox] {result.summary()}", err=True)
    raise typer.Exit(result.exit_code)


def info() -> None:
    """Say which isolation, syscall filter and resource limits are in force here."""
    from codeloop.sandbox import SandboxError
    from codeloop.sandbox.describe import describe

    try:
        lines = describe()
    except SandboxError as exc:
        fail(str(exc))
    for key, value in lines:
        typer.echo(f"{key}: {value}")


def sandbox_app() -> typer.Typer:
    """The `sandbox` group, built fresh so each app that registers it owns its own."""
    group = typer.Typer(help="Run commands in the sandbox.", no_args_is_help=True)
    # Options after CMD's first word are CMD's own (`run -- python -c ... --help`).
    group.command("run", context_settings={"allow_interspersed_args": False})(run)
    group.command("info")(info)
    return group


def register(app: typer.Typer) -> None:
    app.add_typer(sandbox_app(), name="sandbox")
