"""`codeloop agent`: the ReAct coding agent in a workspace (REPL, or one request with -p),
or the planner -> implementer -> validator team with --multi-agent."""

from __future__ import annotations

import typer

from codeloop.commands.common import fail, settings_from_cli


def agent(
    home: str = typer.Option(".", "--home", help="The workspace; tools stay inside it."),
    prompt: str = typer.Option(None, "-p", "--prompt",
                               help="Run one request, print the result, exit."),
    thread: str = typer.Option("default", "--thread",
                               help="Conversation thread to continue or start."),
    multi_agent: bool = typer.Option(False, "--multi-agent",
                                     help="Planner, implementer and validator agents."),
    model: str = typer.Option(None, "--model", help="Model spec, e.g. local:qwen2.5-coder-0.5b"),
    max_steps: int = typer.Option(20, "--max-steps", min=1, help="Step cap per turn."),
    token_budget: int = typer.Option(60_000, "--token-budget", min=1,
                                     help="Token budget per turn (prompt + completion)."),
    tools_only: bool = typer.Option(False, "--tools-only",
                                    help="Skip the context-first edit: the ReAct tools alone."),
    as_json: bool = typer.Option(False, "--json", help="With -p: print the result as JSON."),
    store: str = typer.Option(None, "--store", help="Run store path (SQLite); threads "
                              "are kept per workspace in it."),
) -> None:
    """Work on a project with the coding agent."""
    from codeloop.agent.app import AgentApp, AgentAppError

    if as_json and prompt is None:  # the interactive session has no JSON form
        fail("--json needs a request: codeloop agent -p 'REQUEST' --json")
    settings = settings_from_cli(model=model, store=store)
    from codeloop.config import ConfigError, user_mcp_servers

    try:  # MCP servers: the user's own config file only, never the project's
        mcp_servers = user_mcp_servers()
    except ConfigError as exc:
        fail(str(exc))
    if settings.unsafe_no_sandbox:  # one visible line; stderr keeps --json's stdout clean
        from codeloop.commands.common import err_console
        from codeloop.sandbox.unsafe import UNSANDBOXED_NOTICE

        err_console.print(f"[bold red]{UNSANDBOXED_NOTICE}[/]", highlight=False)
    try:
        application = AgentApp.open(home, settings, max_steps=max_steps,
                                    token_budget=token_budget, multi_agent=multi_agent,
                                    thread=thread, quiet=as_json,
                                    context_first=not tools_only,
                                    mcp_servers=mcp_servers)
    except AgentAppError as exc:
        fail(str(exc))
    try:
        if prompt is not None:
            code = application.run_once(prompt, as_json=as_json)
            raise typer.Exit(code)
        application.run_repl()
    finally:
        application.close()


def register(app: typer.Typer) -> None:
    app.command("agent")(agent)
