"""`codeloop config show`: the effective settings, where each came from, what a project file
may set, what a project file tried to set but was ignored, and the MCP servers of the user's
config with the tools each offers (each started briefly)."""

from __future__ import annotations

import json

import typer

from codeloop.commands.common import fail


def show(
    as_json: bool = typer.Option(False, "--json", help="Machine-readable output."),
    model: str = typer.Option(None, "--model", help="Override the model spec."),
    store: str = typer.Option(None, "--store", help="Override the run store path."),
    start_mcp: bool = typer.Option(True, "--mcp/--no-mcp",
                                   help="Start the configured MCP servers to list their tools."),
) -> None:
    """Print every setting, its value and its source (default, file, env, cli)."""
    from rich.console import Console
    from rich.markup import escape
    from rich.table import Table

    from codeloop.config import SECRET_KEYS, ConfigError, load_config
    from codeloop.project_config import PROJECT_RULES
    from codeloop.textsafe import printable

    try:
        effective = load_config({"model": model, "store": store})
    except ConfigError as exc:
        fail(str(exc))
    rows = effective.rows()
    servers = _mcp_statuses(effective.mcp_servers, start_mcp, as_json)
    if as_json:
        data = {}
        for key, value, source in rows:
            rule = PROJECT_RULES.get(key)
            data[key] = {"value": value, "source": source,
                         "project_file_may": rule[1] if rule else "not set it",
                         "ignored": [{"value": "(hidden)" if key in SECRET_KEYS else i.value,
                                      "path": i.path, "reason": i.reason}
                                     for i in effective.ignored if i.key == key]}
        if servers:
            data["mcp_servers"] = servers
        typer.echo(json.dumps(data, indent=2, default=str))
        for warning in effective.warnings():
            typer.echo(f"warning: {printable(warning)}", err=True)
        return
    table = Table(title="codeloop configuration")
    for column in ("setting", "value", "source", "project file may"):
        table.add_column(column)
    for key, value, source in rows:
        rule = PROJECT_RULES.get(key)
        table.add_row(key, escape(printable(str(value))), escape(printable(source)),
                      rule[1] if rule else "[dim]not set it[/]")
    console = Console()
    console.print(table)
    if effective.ignored:
        console.print("[yellow]Ignored (a project file may only tighten settings):[/]")
        for item in effective.ignored:
            console.print("  " + escape(printable(item.warning())), highlight=False,
                          soft_wrap=True)
    if servers:
        console.print("[bold]MCP servers[/] (your user config; their tools are the agent's):")
        for line in servers.values():
            console.print("  " + escape(printable(line)), highlight=False, soft_wrap=True)


def _mcp_statuses(configured, start: bool, as_json: bool) -> dict:
    """name -> its one-line status (or its record with --json); each server started briefly
    to list its tools unless --no-mcp."""
    from codeloop.mcp_client.hub import ServerStatus
    from codeloop.mcp_client.report import probe, status_line, status_record

    if not configured:
        return {}
    if start:
        statuses = probe(configured)
    else:
        statuses = [ServerStatus(name, config, error="not started (--no-mcp)")
                    for name, config in configured.items()]
    return {s.name: status_record(s) if as_json else status_line(s) for s in statuses}


def config_app() -> typer.Typer:
    """The `config` group, built fresh so each app that registers it owns its own."""
    group = typer.Typer(help="Show the effective configuration.", no_args_is_help=True)
    group.command("show")(show)
    return group


def register(app: typer.Typer) -> None:
    app.add_typer(config_app(), name="config")
