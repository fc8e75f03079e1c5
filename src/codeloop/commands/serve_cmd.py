"""`codeloop serve`: the HTTP API and the web UI (FastAPI on uvicorn).

Binds 127.0.0.1 by default. A token is always asked (Jupyter Server's rule: the loopback is
shared by every account of the machine): the one kept in the user's config directory, made
on the first start (server/token_file.py), or `--token`, `CODELOOP_TOKEN`, `--token auto` (a
new one for this start). The login link is printed. `--no-token` turns it off, with a
warning, on a loopback address only. Workspaces a request names must lie under the `--root`
directories (default: the current directory).
"""

from __future__ import annotations

from pathlib import Path

import typer

from codeloop.commands.common import check_model_spec, fail, settings_from_cli
from codeloop.server.auth import is_loopback  # one rule for binding and for Host headers

NO_TOKEN_WARNING = ("warning: --no-token: every user of this machine can list, start, "
                    "approve and cancel runs on this server")


def choose_token(token: str | None, host: str, no_token: bool = False) -> str | None:
    """The token the server will require (None: none, asked for by --no-token), or a
    one-line error (exit 2). Without --token: the one kept in the config directory."""
    from codeloop.server.auth import generate_token
    from codeloop.server.token_file import TokenFileError, load_or_create

    if no_token:
        if token is not None:
            fail("--no-token and --token (or CODELOOP_TOKEN) contradict each other: "
                 "choose one")
        if not is_loopback(host):
            fail(f"refusing to serve on {host} without a token: drop --no-token (a token "
                 "is made and printed)")
        return None
    if token is not None and token.strip().lower() == "auto":
        return generate_token()
    if token is not None:
        token = token.strip()
        if len(token) < 16:
            fail("the token must be 16 characters or more (or use --token auto)")
        return token
    try:
        return load_or_create()[0]
    except TokenFileError as exc:
        fail(str(exc))


def check_roots(roots: list[Path]) -> list[Path]:
    chosen = roots or [Path.cwd()]
    for root in chosen:
        if not root.expanduser().is_dir():
            fail(f"--root {root} is not an existing directory")
    return [root.expanduser().resolve() for root in chosen]


def serve(
    host: str = typer.Option("127.0.0.1", "--host", help="Address to bind. Any other than "
                             "the loopback needs a token."),
    port: int = typer.Option(8765, "--port", min=0, max=65535, help="Port to listen on."),
    token: str = typer.Option(None, "--token", envvar="CODELOOP_TOKEN",
                              help="Require this token on every API call and the UI "
                              "('auto': a new one for this start). Default: the token kept "
                              "in the config directory, made on the first start."),
    no_token: bool = typer.Option(False, "--no-token", help="Ask no token (loopback only): "
                                  "every user of this machine can then drive the server."),
    root: list[Path] = typer.Option(  # noqa: B008
        [], "--root", help="A directory workspaces must lie under (repeatable; default: "
        "the current directory)."),
    model: str = typer.Option(None, "--model", help="Default model spec for runs."),
    store: str = typer.Option(None, "--store", help="Run store path (SQLite)."),
    log_level: str = typer.Option("warning", "--log-level",
                                  help="uvicorn's log level: critical, error, warning, info "
                                  "(every request, tokens hidden) or debug."),
) -> None:
    """Serve the HTTP API and the web UI."""
    from codeloop.server.log_filter import LOG_LEVELS, log_config
    from codeloop.store import StoreError

    if log_level.lower() not in LOG_LEVELS:
        fail(f"--log-level must be one of {', '.join(LOG_LEVELS)}, not {log_level!r}")
    chosen_token = choose_token(token, host, no_token)
    roots = check_roots(root)
    settings = settings_from_cli(model=model, store=store)
    check_model_spec(settings.model)
    import uvicorn

    from codeloop.server.app import create_app

    try:
        app = create_app(settings, roots, chosen_token, settings.store_path())
    except StoreError as exc:
        fail(str(exc))
    shown = f"[{host}]" if ":" in host else host
    url = f"http://{shown}:{port}/"
    typer.echo(f"codeloop serve: {url} (roots: {', '.join(map(str, roots))}; "
               f"model: {settings.model}; store: {settings.store_path()})")
    if chosen_token is not None:
        typer.echo(f"token: {chosen_token}")
        typer.echo(f"open {url}?token={chosen_token} in a browser, or send "
                   "'Authorization: Bearer TOKEN'")
    else:
        typer.echo(NO_TOKEN_WARNING, err=True)
    try:
        uvicorn.run(app, host=host, port=port, log_level=log_level.lower(),
                    log_config=log_config(chosen_token), proxy_headers=False,
                    server_header=False)
    except OSError as exc:  # the port is taken, the address is not ours
        fail(f"cannot listen on {host}:{port}: {exc.strerror or exc}")


def register(app: typer.Typer) -> None:
    app.command("serve")(serve)
