"""A request test that did not see the change is set aside, not obeyed.

Measured on the 1.5B (benchmarks/review_bench.py, mutable_default): the request test held
`assert cart_size([]) == 2`, which no fix of `add_item` can meet; the refiner wrote the
right fix (`cart=None`), every workspace test passed, and the request test failed with the
very values it failed with before, so the review blocked a right change until "Max
iterations". When the code changed (beyond its docstrings and comments), every other test
passes, each failing request test shows the same compared values as on the code before the
change, and its failing line calls nothing the change rewrote, the values that test looks
at do not depend on the change: it measures nothing about it. It stops blocking, and the
person sees why beside the diff.

Only value comparisons count (`assert 0 == 2`, read in pytest's full output): a "DID NOT
RAISE" or a bare AssertionError reads the same for a wrong fix as for a wrong test, so those
stay in force (measured: input_validation's right test kept failing against wrong fixes)."""

from __future__ import annotations

import ast
import re
from typing import Any

from codeloop.review.request_test import failing_source_lines, failure_texts, set_aside
from codeloop.review.request_test_focus import invented_raise
from codeloop.review.state import ReviewState


def _code_shape(text: str) -> str | None:
    """The module's AST without docstrings (comments are not in it); None: not Python."""
    try:
        tree = ast.parse(text)
    except (SyntaxError, ValueError):
        return None
    for node in ast.walk(tree):
        body = getattr(node, "body", None)
        if (isinstance(body, list) and body and isinstance(body[0], ast.Expr)
                and isinstance(body[0].value, ast.Constant)
                and isinstance(body[0].value.value, str)):
            node.body = body[1:] or [ast.Pass()]  # type: ignore[attr-defined]
    return ast.dump(tree)


def _functions(text: str) -> dict[str, str]:
    """{name: its AST without docstrings} of the functions and methods of a module."""
    try:
        tree = ast.parse(text)
    except (SyntaxError, ValueError):
        return {}
    return {node.name: _code_shape(ast.unparse(node)) or "" for node in ast.walk(tree)
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef))}


def changed_functions(state: ReviewState) -> set[str]:
    """The functions and methods of the Python files under review that the change wrote or
    rewrote (beyond their docstrings)."""
    changed: set[str] = set()
    for artifact in state["artifacts"]:
        before = state["originals"].get(artifact["file_path"])
        if artifact["file_path"].endswith(".py") and before is not None \
                and before != artifact["content"]:
            old, new = _functions(before), _functions(artifact["content"])
            changed |= {name for name, shape in new.items() if old.get(name) != shape}
    return changed


def code_changed(state: ReviewState) -> bool:
    """A Python file under review differs from the workspace's in more than docstrings."""
    for artifact in state["artifacts"]:
        before = state["originals"].get(artifact["file_path"])
        if artifact["file_path"].endswith(".py") and before is not None \
                and before != artifact["content"] \
                and _code_shape(before) != _code_shape(artifact["content"]):
            return True
    return False


_CALLED = re.compile(r"([A-Za-z_]\w*)\s*\(")


def unseen_change(state: ReviewState, tests: dict[str, Any]) -> dict | None:
    """The run's request test with the functions that did not see the change set aside
    (see the module's docstring): {..., reproduced: the rest, content without them,
    set_aside: why}, or None while every failing one measures the change. With none left
    there is no request test to lay over the runs (overlay)."""
    found = state.get("request_test") or {}
    before, path = found.get("failed_with") or {}, found.get("path")
    if not path or not before or not tests["failed"]:
        return None
    now = failure_texts(tests.get("stdout") or "", path)
    if sum(len(texts) for texts in now.values()) != tests["failed"]:
        return None  # another test fails too: the change is wrong, whatever this test is
    same = all(before.get(name) == texts for name, texts in now.items())
    if not now or not same or not all(text.removeprefix("AssertionError: ").startswith("assert ")
                                       for texts in now.values() for text in texts):
        return None
    if not code_changed(state):
        return None
    called = {name for line in failing_source_lines(tests.get("stdout") or "", path)
              for name in _CALLED.findall(line)}
    if called & changed_functions(state):
        return None  # the failing line calls what the change rewrote: it may see it yet
    unseen = sorted(now)
    shown = "; ".join(f"{name}: {texts[0].splitlines()[0]}" for name, texts in now.items())
    why = (f"{', '.join(unseen)} fail with the values they failed with before the change, "
           "although the code changed and every other test passes: they do not look at what "
           f"the change did, so they no longer block ({shown[:300]})")
    return set_aside(found, set(unseen), why)


def invented_demands(state: ReviewState, tests: dict[str, Any]) -> dict | None:
    """The run's request test with the functions whose failure now is an exception the
    request never asks for set aside: {..., reproduced: the rest, content without them,
    set_aside: why}, or None. Only when every other test passes."""
    found = state.get("request_test") or {}
    path = found.get("path")
    if not path or not found.get("reproduced") or not tests["failed"]:
        return None
    now = failure_texts(tests.get("stdout") or "", path)
    if not now or sum(len(texts) for texts in now.values()) != tests["failed"]:
        return None  # another test fails too: the change is not done, whatever this is
    invented = {name: invented_raise(texts[0], state["request"]) for name, texts in now.items()}
    if not all(invented.values()):
        return None
    failing = {line.strip() for line in failing_source_lines(tests.get("stdout") or "", path)}
    content = _without_checks(found["content"], set(now), failing)
    # the tests keep their other checks, which passed; else they go whole
    kept = "they no longer block" if content is None else \
        "those checks are dropped, the rest stays"
    why = (f"{', '.join(sorted(now))} now fail only because "
           f"{', '.join(sorted(set(invented.values())))} is not raised, which the request "
           f"never asks for: {kept}")
    return set_aside(found, set() if content is not None else set(now), why, content)

def _without_checks(source: str, functions: set[str], lines: set[str]) -> str | None:
    """`source` without the `with pytest.raises(...)` blocks of `functions` whose first line
    is one of `lines`; None when none goes, it does not parse, or a function would be left
    with no assert."""
    try:
        tree = ast.parse(source)
    except (SyntaxError, ValueError, RecursionError):
        return None
    text = source.splitlines(keepends=True)
    spans = []
    for node in tree.body:
        if not isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) \
                or node.name not in functions:
            continue
        gone = [stmt for stmt in node.body if isinstance(stmt, ast.With)
                and text[stmt.lineno - 1].strip() in lines]
        left = [stmt for stmt in node.body if stmt not in gone]
        if not gone or not any(isinstance(n, ast.Assert) for stmt in left
                               for n in ast.walk(stmt)):
            return None
        spans += [(stmt.lineno, stmt.end_lineno or stmt.lineno) for stmt in gone]
    for start, end in sorted(spans, reverse=True):
        del text[start - 1:end]
    result = "".join(text)
    try:
        ast.parse(result)
    except SyntaxError:
        return None
    return result
