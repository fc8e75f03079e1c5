"""Help texts are printed through rich markup: a literal `[word]` in one (an extra such as
`codeloop[ray]`) would vanish from `--help`. Every command's and option's help must read the
same after markup as it was written."""

from __future__ import annotations

import typer.main
from rich.text import Text

from codeloop.cli import app


def _walk(command, path: str):
    # typer ships its own click: walk by the attribute, not by click's classes.
    yield path, command
    for name, sub in (getattr(command, "commands", None) or {}).items():
        yield from _walk(sub, f"{path} {name}")


def _help_texts():
    root = typer.main.get_command(app)
    for path, command in _walk(root, "codeloop"):
        if command.help:
            yield path, command.help
        for param in command.params:
            text = getattr(param, "help", None)
            if text:
                yield f"{path} {param.name}", text


def test_no_help_text_loses_a_bracketed_word_to_markup():
    assert len(list(_help_texts())) > 50  # the walk reached the sub-commands' options
    lost = [(where, text) for where, text in _help_texts()
            if Text.from_markup(text).plain != text.replace("\\[", "[")]
    assert lost == []


def test_the_check_sees_a_bracket_that_markup_would_eat():
    assert Text.from_markup("needs codeloop[ray]").plain != "needs codeloop[ray]"
    assert Text.from_markup("needs codeloop\\[ray]").plain == "needs codeloop[ray]"
