"""A model test that asserts a call the task's text states with another result is wrong by
the task's own words: it goes before any code is asked for.

Measured on the 1.5B (build benchmark at ec2b586, inventory I2): the task states
`apply_discount(200.0, 15) == 170.0`; the tests the model wrote first held the row
`(200.0, 15, 215.0)` for `assert apply_discount(price, percent) == expected`. No code meets
both that row and the harness's test of the stated example beside it (stated_examples.py),
and the code rounds went to a test nothing can pass. Only a call whose function, literal
arguments and literal result can be read (directly, or through a `pytest.mark.parametrize`
row) is compared; a test function holding a contradiction is dropped whole (the stated
example is tested beside it), each named in the outcome.
"""

from __future__ import annotations

import ast
import math
from typing import Any

from codeloop.jobs.edit_engine.failing_new_tests import without_functions

_UNREAD = object()  # a value that is no literal


def _example(text: str) -> tuple[str, tuple[Any, ...], Any] | None:
    """(function, arguments, expected) of one `name(args) == expected` example."""
    try:
        node = ast.parse(text, mode="eval").body
    except SyntaxError:
        return None
    if not (isinstance(node, ast.Compare) and isinstance(node.left, ast.Call)
            and isinstance(node.left.func, ast.Name) and len(node.comparators) == 1):
        return None
    args = tuple(_literal(a, {}) for a in node.left.args)
    expected = _literal(node.comparators[0], {})
    if _UNREAD in args or expected is _UNREAD or node.left.keywords:
        return None
    return node.left.func.id, args, expected


def _literal(node: ast.expr, row: dict[str, Any]) -> Any:
    if isinstance(node, ast.Name) and node.id in row:
        return row[node.id]
    try:
        return ast.literal_eval(node)
    except (ValueError, SyntaxError, TypeError, MemoryError, RecursionError):
        return _UNREAD


def _rows(function: ast.FunctionDef) -> list[dict[str, Any]]:
    """The parameter bindings of each case of `function` ([{}] without parametrize)."""
    rows: list[dict[str, Any]] = [{}]
    for decorator in function.decorator_list:
        if not (isinstance(decorator, ast.Call) and isinstance(decorator.func, ast.Attribute)
                and decorator.func.attr == "parametrize" and len(decorator.args) >= 2):
            continue
        names = _literal(decorator.args[0], {})
        values = _literal(decorator.args[1], {})
        if not isinstance(names, str) or not isinstance(values, (list, tuple)):
            return []
        keys = [n.strip() for n in names.split(",") if n.strip()]
        cases = []
        for value in values:
            value = value if len(keys) > 1 else (value,)
            if not isinstance(value, (list, tuple)) or len(value) != len(keys):
                return []
            cases.append(dict(zip(keys, value, strict=True)))
        rows = [{**row, **case} for row in rows for case in cases]
    return rows


def _differs(found: Any, stated: Any) -> bool:
    if isinstance(found, (int, float)) and isinstance(stated, (int, float)) \
            and not isinstance(found, bool) and not isinstance(stated, bool):
        return not math.isclose(found, stated, rel_tol=1e-9, abs_tol=1e-9)
    return found != stated


def contradictions(test_text: str, examples: list[str]) -> dict[str, str]:
    """{test function: why} for each top-level test function of `test_text` that asserts a
    call of `examples` (`name(args) == expected`, stated_examples.py) with the same
    arguments and another result."""
    stated = [e for e in (_example(text) for text in examples) if e is not None]
    try:
        tree = ast.parse(test_text)
    except (SyntaxError, ValueError, RecursionError):
        return {}
    found: dict[str, str] = {}
    for function in tree.body:
        if not (isinstance(function, ast.FunctionDef) and function.name.startswith("test")):
            continue
        for node in ast.walk(function):
            why = _against(node, _rows(function), stated)
            if why:
                found[function.name] = why
                break
    return found


def _against(node: ast.AST, rows: list[dict[str, Any]],
             stated: list[tuple[str, tuple[Any, ...], Any]]) -> str | None:
    if not (isinstance(node, ast.Assert) and isinstance(node.test, ast.Compare)
            and len(node.test.ops) == 1 and isinstance(node.test.ops[0], ast.Eq)):
        return None
    left, right = node.test.left, node.test.comparators[0]
    call, value = (left, right) if isinstance(left, ast.Call) else (right, left)
    if not (isinstance(call, ast.Call) and isinstance(call.func, ast.Name)) or call.keywords:
        return None
    for row in rows:
        args = tuple(_literal(a, row) for a in call.args)
        result = _literal(value, row)
        if _UNREAD in args or result is _UNREAD:
            continue
        for name, stated_args, expected in stated:
            if name == call.func.id and args == stated_args and _differs(result, expected):
                shown = ", ".join(repr(a) for a in args)
                return (f"it asserts {name}({shown}) == {result!r}; the task states "
                        f"{name}({shown}) == {expected!r}")
    return None


def without_contradictions(test_text: str, examples: list[str]) -> tuple[str, dict[str, str]]:
    """(`test_text` without its test functions that contradict `examples`, {dropped: why});
    the text as it was when none does or none would be left."""
    found = contradictions(test_text, examples)
    kept = without_functions(test_text, set(found)) if found else None
    return (test_text, {}) if kept is None else (kept, found)
