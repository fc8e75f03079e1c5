"""Trailing `# comments` on one line of Python, found with the tokenizer so that a '#'
inside a string literal stays."""

from __future__ import annotations

import io
import tokenize


def strip_comment(line: str) -> str:
    """`line` without its trailing comment (docstring examples often explain themselves)."""
    if "#" not in line:
        return line
    try:
        for token in tokenize.generate_tokens(io.StringIO(line).readline):
            if token.type == tokenize.COMMENT:
                return line[: token.start[1]].rstrip()
    except (tokenize.TokenError, SyntaxError, IndentationError):
        pass
    return line
