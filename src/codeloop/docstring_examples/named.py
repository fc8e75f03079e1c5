"""Docstring examples that name their inputs instead of writing the call:

    For lst = [1, 2, 3] the output should be 14
    For s = "abcde", c = "ae", the result should be ('bcd', False)
    For N = 150, the sum of digits will be 6 the output should be "110"   (a remark between)
    Input: arr = [-3, -4, 5], k = 3          Input: 3          Input:
    Output: [-4, -3, 5]                      Output: (1, 2)        grid : [[0, 1]]
                                                                   capacity : 1
                                                               Output: 6

They become `f(...) == value` with the arguments in the signature's order. Only inputs
that are all Python literals and cover every parameter count; anything else is prose.
"""

from __future__ import annotations

import ast
import re

from codeloop.docstring_examples.comments import strip_comment

_FOR_FORM = re.compile(
    r"^for\s+(?P<inputs>.+?),?\s+(?:the\s+)?(?:output|result|answer)\s+"
    r"(?:should be|will be|is)\s*:?\s*(?P<value>.+?)\.?$", re.IGNORECASE)
_INPUT = re.compile(r"^input\s*:\s*(?P<inputs>.+)$", re.IGNORECASE)
_INPUT_BLOCK = re.compile(r"^input\s*:\s*$", re.IGNORECASE)
_NAMED_LINE = re.compile(r"^(?P<name>[A-Za-z_]\w*)\s*[:=]\s*(?P<value>.+)$")
_OUTPUT = re.compile(r"^output\s*:\s*(?P<value>.+)$", re.IGNORECASE)


def is_literal(node: ast.expr) -> bool:
    """The expression is a plain Python literal (ast.literal_eval accepts it)."""
    try:
        ast.literal_eval(node)
    except (ValueError, SyntaxError, TypeError, MemoryError, RecursionError):
        return False
    return True


def _call(inputs: str, entry_point: str, params: list[str]) -> str | None:
    """`lst = [1], k = 2` or `[1], 2` as the call `entry_point([1], 2)`."""
    try:
        node = ast.parse(f"_({inputs.strip().rstrip(',')})", mode="eval").body
    except SyntaxError:
        return None
    assert isinstance(node, ast.Call)
    named = {k.arg: k.value for k in node.keywords}
    if None in named or any(name not in params for name in named):
        return None
    values = list(node.args) + [named[p] for p in params[len(node.args):] if p in named]
    if len(values) != len(params) or len(node.args) + len(named) != len(params):
        return None
    if not all(is_literal(v) for v in values):
        return None
    return f"{entry_point}({', '.join(ast.unparse(v) for v in values)})"


def _value(text: str) -> str | None:
    """The expected value, without a trailing `# remark`."""
    for candidate in (strip_comment(text), text.split("#", 1)[0]):
        candidate = candidate.strip().rstrip(".,;")
        try:
            node = ast.parse(candidate, mode="eval").body
        except SyntaxError:
            continue
        return candidate if is_literal(node) else None
    return None


def _example(inputs: str, value: str, entry_point: str, params: list[str]) -> str | None:
    call, expected = _call(inputs, entry_point, params), _value(value)
    if call is None and "," in inputs:
        # "N = 150, the sum of digits will be 6": the longest comma-separated start that is
        # a call with every parameter (the rest is a remark).
        parts = inputs.split(",")
        call = next((c for k in range(len(parts) - 1, 0, -1)
                     if (c := _call(",".join(parts[:k]), entry_point, params))), None)
    return f"{call} == {expected}" if call and expected is not None else None


def _block_example(lines: list[str], entry_point: str, params: list[str]) -> str | None:
    """`Input:` alone on its line, then one `name : value` line per parameter, then
    `Output: value`. The names are matched to the parameters, or taken in order when the
    docstring names them differently but gives one value for each."""
    named, i = [], 0
    while i < len(lines) and (line := _NAMED_LINE.match(lines[i])) and not _OUTPUT.match(lines[i]):
        named.append((line["name"], line["value"].strip().rstrip(",")))
        i += 1
    answer = _OUTPUT.match(lines[i]) if i < len(lines) else None
    if not named or answer is None:
        return None
    if all(name in params for name, _ in named):
        inputs = ", ".join(f"{name}={value}" for name, value in named)
    elif len(named) == len(params):
        inputs = ", ".join(value for _, value in named)
    else:
        return None
    return _example(inputs, answer["value"], entry_point, params)


def named_examples(text: str, entry_point: str, params: list[str]) -> list[str]:
    """The examples in `text` that name their inputs, as assert expressions."""
    found: list[str] = []
    lines = [line.strip() for line in text.splitlines() if line.strip()]
    for i, line in enumerate(lines):
        form = _FOR_FORM.match(line)
        if form:
            example = _example(form["inputs"], form["value"], entry_point, params)
        elif _INPUT_BLOCK.match(line):
            example = _block_example(lines[i + 1:i + 2 + len(params)], entry_point, params)
        else:
            given = _INPUT.match(line)
            answer = _OUTPUT.match(lines[i + 1]) if given and i + 1 < len(lines) else None
            example = (_example(given["inputs"], answer["value"], entry_point, params)
                       if given and answer else None)
        if example:
            found.append(example)
    return found
