"""`codeloop chat PROMPT`: one completion streamed to the terminal, then tokens and time."""

from __future__ import annotations

import typer

from codeloop.commands.common import err_console, fail, settings_from_cli


def chat(
    prompt: str = typer.Argument(..., help="What to ask the model."),
    model: str = typer.Option(None, "--model", help="Model spec, e.g. ollama:qwen2.5-coder:7b"),
    system: str = typer.Option(None, "--system", help="An optional system message."),
    max_tokens: int = typer.Option(None, "--max-tokens", help="Cap on the reply length."),
) -> None:
    """Ask the model one question; the answer streams as it is written."""
    from codeloop.llm.base import LLMError, Message, Reply
    from codeloop.llm.registry import get_llm

    settings = settings_from_cli(model=model, max_tokens=max_tokens)
    messages = ([Message("system", system)] if system else []) + [Message("user", prompt)]
    final = None
    try:
        llm = get_llm(settings.model, settings)
        for item in llm.stream(messages, max_tokens=settings.max_tokens,
                               temperature=settings.temperature):
            if isinstance(item, Reply):
                final = item
            else:
                typer.echo(item, nl=False)
    except LLMError as exc:
        typer.echo("")
        fail(str(exc))
    typer.echo("")
    if final is not None:
        err_console.print(
            f"[dim]{final.model}: {final.usage.prompt_tokens} prompt + "
            f"{final.usage.completion_tokens} completion tokens, {final.seconds:.2f} s"
            f"{'' if final.finish_reason == 'stop' else f' ({final.finish_reason})'}[/]",
            highlight=False,
        )


def register(app: typer.Typer) -> None:
    app.command("chat")(chat)
