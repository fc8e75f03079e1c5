"""A def whose annotation is prose copied from the request is kept, without the annotation.

Measured on the 1.5B (build benchmark at 48067b3, bookmarks B2): the task said `all() -> list
of Bookmark`, and four replies in a row wrote `def all(self) -> list of Bookmark:`; each file
was refused as not Python, the task's code round ended with nothing written, and the task
spent a retry (2.5 of its graph's 12 minutes) on a store that was right but for those words.
An annotation does not change what the code does, so a return annotation (`-> list of X`)
or a parameter's (`tags: list of str`) that is not a Python expression is taken out, on the
line the parser stops at, until the file parses; anything else that does not parse is left
for the refusal, with the line and the parser's message (`syntax_problem`).
"""

from __future__ import annotations

import ast
import re

_RETURN = re.compile(r"\)\s*->\s*(?P<ann>[^:#]+?)\s*:(?P<rest>\s*(?:#.*)?)$")
# `name: several words` up to a comma, `=` or the closing parenthesis
_PARAM = re.compile(r"(?P<name>\b\w+)\s*:\s*(?P<ann>[A-Za-z_][\w.\[\], ]*?\s+[\w.\[\] ]+?)"
                    r"\s*(?=[,)=])")
_MAX_MENDS = 20


def without_prose_annotations(text: str) -> tuple[str, list[str]]:
    """(`text` with each annotation that is no Python taken out, the annotations taken out);
    `text` as it was, and no annotations, when that does not make it parse."""
    lines = text.splitlines(keepends=True)
    taken: list[str] = []
    for _ in range(_MAX_MENDS):
        error = _syntax_error("".join(lines))
        if error is None:
            return "".join(lines), taken
        index = (error.lineno or 0) - 1
        if not 0 <= index < len(lines):
            break
        mended, annotation = _unannotated(lines[index])
        if annotation is None:
            break
        lines[index] = mended
        taken.append(annotation)
    return text, []


def syntax_problem(text: str) -> str:
    """Where and why `text` does not parse (`line 19, `def all(self) -> list of X:`: expected
    ':'`), or "" when it parses."""
    error = _syntax_error(text)
    if error is None:
        return ""
    line = (error.text or "").strip()
    shown = f", `{line[:80]}`" if line else ""
    return f"line {error.lineno}{shown}: {error.msg}"


def _unannotated(line: str) -> tuple[str, str | None]:
    """`line` without its first annotation that is no Python expression, and that annotation."""
    end = line[len(line.rstrip("\r\n")):]
    body = line[:len(line) - len(end)]
    returned = _RETURN.search(body)
    if returned and not _expression(returned["ann"]):
        return body[:returned.start()] + "):" + returned["rest"] + end, returned["ann"].strip()
    for param in _PARAM.finditer(body):
        if not _expression(param["ann"]):
            return body[:param.start()] + param["name"] + body[param.end():] + end, \
                param["ann"].strip()
    return line, None


def _expression(text: str) -> bool:
    try:
        ast.parse(text.strip(), mode="eval")
    except (SyntaxError, ValueError, RecursionError):
        return False
    return True


def _syntax_error(text: str) -> SyntaxError | None:
    try:
        ast.parse(text)
    except SyntaxError as error:
        return error
    except (ValueError, RecursionError):
        return SyntaxError("the file cannot be parsed")
    return None
