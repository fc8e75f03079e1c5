"""`codeloop mcp`: codeloop's jobs as MCP tools over stdio, for an MCP client's config file
(Claude Desktop, Cursor, VS Code...). `--root` and `--model` as `codeloop serve` takes them:
workspaces must lie under the roots (default: the current directory)."""

from __future__ import annotations

from pathlib import Path

import typer

from codeloop.commands.common import fail, settings_from_cli


def mcp(
    root: list[Path] = typer.Option(  # noqa: B008
        [], "--root", help="A directory workspaces must lie under (repeatable; default: "
        "the current directory)."),
    model: str = typer.Option(None, "--model", help="Default model spec for runs."),
    store: str = typer.Option(None, "--store", help="Run store path (SQLite)."),
) -> None:
    """Serve the jobs as MCP tools on stdio, for an MCP client."""
    import anyio

    from codeloop.commands.serve_cmd import check_roots
    from codeloop.llm.base import LLMError
    from codeloop.llm.registry import parse_spec
    from codeloop.store import StoreError

    roots = check_roots(root)
    settings = settings_from_cli(model=model, store=store)
    try:  # a bad default model is one line now, not an error in every tool call
        parse_spec(settings.model)
    except LLMError as exc:
        fail(str(exc))
    from codeloop.mcp.server import build_server
    from codeloop.server.app import open_state

    try:
        state = open_state(settings, roots, None, settings.store_path())
    except StoreError as exc:
        fail(str(exc))
    try:
        anyio.run(build_server(state).run_stdio_async)
    finally:
        state.close()


def register(app: typer.Typer) -> None:
    app.command("mcp")(mcp)
