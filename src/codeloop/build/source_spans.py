"""A span of a Python source (as ast gives its positions) replaced by new text."""

from __future__ import annotations


def replace_span(lines: list[str], start: tuple[int, int], end: tuple[int, int],
                 text: str) -> list[str]:
    """`lines` (keepends) with the span from `start` to `end` ((line from 1, column) as ast
    gives them) replaced by `text`; ast's columns count UTF-8 bytes, so lines are cut as
    bytes."""
    (first, start_col), (last, end_col) = start, end
    head = lines[first - 1].encode()[:start_col].decode(errors="replace")
    tail = lines[last - 1].encode()[end_col:].decode(errors="replace")
    return [*lines[:first - 1], head + text + tail, *lines[last:]]
