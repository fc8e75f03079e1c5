"""The harness's rewrites of a Python source: a span (as ast gives its positions) replaced
by new text, the tree of a file that parses, a result kept only when it parses."""

from __future__ import annotations

import ast


def replace_span(lines: list[str], start: tuple[int, int], end: tuple[int, int],
                 text: str) -> list[str]:
    """`lines` (keepends) with the span from `start` to `end` ((line from 1, column) as ast
    gives them) replaced by `text`; ast's columns count UTF-8 bytes, so lines are cut as
    bytes."""
    (first, start_col), (last, end_col) = start, end
    head = lines[first - 1].encode()[:start_col].decode(errors="replace")
    tail = lines[last - 1].encode()[end_col:].decode(errors="replace")
    return [*lines[:first - 1], head + text + tail, *lines[last:]]


def parsed_python(path: str, source: str) -> ast.Module | None:
    """`source`'s tree when `path` is a Python file and it parses, else None."""
    if not path.endswith(".py"):
        return None
    try:
        return ast.parse(source)
    except SyntaxError:
        return None


def if_it_parses(source: str, result: str, notes: list[str]) -> tuple[str, list[str]]:
    """(result, notes) when `result` parses, else `source` unchanged and no note: a rewrite
    by the harness never leaves a module that does not parse."""
    if not notes:
        return source, []
    try:
        ast.parse(result)
    except SyntaxError:
        return source, []
    return result, notes
