"""`codeloop config show`: the effective settings and where each came from."""

from __future__ import annotations

import json

import typer

from codeloop.commands.common import fail


def register(app: typer.Typer) -> None:
    config_app = typer.Typer(help="Show the effective configuration.", no_args_is_help=True)
    app.add_typer(config_app, name="config")

    @config_app.command("show")
    def show(
        as_json: bool = typer.Option(False, "--json", help="Machine-readable output."),
        model: str = typer.Option(None, "--model", help="Override the model spec."),
        store: str = typer.Option(None, "--store", help="Override the run store path."),
    ) -> None:
        """Print every setting, its value and its source (default, file, env, cli)."""
        from rich.console import Console
        from rich.table import Table

        from codeloop.config import ConfigError, load_config

        try:
            effective = load_config({"model": model, "store": store})
        except ConfigError as exc:
            fail(str(exc))
        rows = effective.rows()
        if as_json:
            typer.echo(json.dumps({k: {"value": v, "source": s} for k, v, s in rows}, indent=2))
            return
        table = Table(title="codeloop configuration")
        table.add_column("setting")
        table.add_column("value")
        table.add_column("source")
        for key, value, source in rows:
            table.add_row(key, str(value), source)
        Console().print(table)
