"""A test file cut off at the reply's length limit, kept as far as it is whole.

Measured on the 1.5B (build benchmark, notes N1 at ff44f1f): five test files in a row ran to
the 1,024-token limit (one assert repeated, then a string cut mid-line) and were refused as
"does not parse"; asked again with the broken file shown, the model wrote it long again, and
the task spent nine minutes before a test file came back whole. The lines before the cut
are usually right: the file is taken up to its last line after which it parses, with a line
repeated right after itself kept once; with no test function left there is nothing to keep.
"""

from __future__ import annotations

import ast

MAX_DROPPED_LINES = 60  # a cut this far from a parsing prefix is not a test file worth keeping


def whole_part(text: str) -> str | None:
    """The longest prefix of `text` (a Python test file) that parses and holds a test
    function, repeated lines dropped; None when there is none."""
    lines: list[str] = []
    for line in text.splitlines():
        if not lines or line.strip() == "" or line != lines[-1]:
            lines.append(line)
    for end in range(len(lines), max(len(lines) - MAX_DROPPED_LINES, 0), -1):
        candidate = "\n".join(lines[:end]).rstrip() + "\n"
        try:
            tree = ast.parse(candidate)
        except (SyntaxError, ValueError):
            continue
        if any(isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef))
               and node.name.startswith("test") for node in tree.body):
            return candidate
        return None
    return None
