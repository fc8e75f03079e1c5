"""A request test that the workspace's own tests contradict is set aside, not obeyed.

Measured on the 1.5B (benchmarks/review_bench.py, swallowed_exception, d3a1e88): asked for
"a missing settings file should still give the defaults, but a file that is not valid JSON
must raise ValueError", it wrote `test_missing_file_gives_defaults` expecting
`load_settings(tmp_path / "absent.json")` to raise ValueError. The refiner met it, and the
workspace's test of that very call, which passed before, failed; the review then blocked
every change until "Max iterations". The workspace's tests are the specification and the
request test is the small model's guess: when, after a change, every request test passes
and a workspace test that passed before fails, the request test functions that make the
same call as that workspace test (the same expression) stop blocking, and the person sees
why beside the diff. A request test that calls nothing the broken test calls stays: the
change broke the workspace test on its own, and the refiner is told so by the failure.
"""

from __future__ import annotations

import ast
from typing import Any

from codeloop.review.request_test import set_aside
from codeloop.review.request_test_contradiction import summary_ids
from codeloop.review.state import ReviewState


def _function_calls(source: str) -> dict[str, set[str]]:
    """{test function: the call expressions in it, as written (unparsed)}."""
    try:
        tree = ast.parse(source)
    except (SyntaxError, ValueError, RecursionError):
        return {}
    return {node.name: {ast.unparse(call) for call in ast.walk(node)
                        if isinstance(call, ast.Call)}
            for node in tree.body if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef))}


def against_the_spec(state: ReviewState, tests: dict[str, Any], sources: dict[str, str]
                     ) -> dict | None:
    """The run's request test with the functions a broken workspace test contradicts set
    aside (see the module's docstring): {..., reproduced: the rest, content without them,
    set_aside: why}, or None. `sources`: {path: text} of the workspace's test files."""
    found = state.get("request_test") or {}
    path = found.get("path")
    if not path or not found.get("reproduced") or not tests["failed"]:
        return None
    failing = summary_ids(tests["failures"])
    if len(failing) != tests["failed"] or any(file == path for file, _ in failing):
        return None  # the request test fails itself, or a failure we cannot name
    before = set(summary_ids(state["baseline_tests"].get("failures") or []))
    broken = [(file, name) for file, name in failing if (file, name) not in before]
    spec_calls: set[str] = set()
    for file, name in broken:
        spec_calls |= _function_calls(sources.get(file, "")).get(name, set())
    if not spec_calls:
        return None
    own = _function_calls(found["content"])
    against = sorted(name for name in found["reproduced"] if own.get(name, set()) & spec_calls)
    if not against:
        return None
    calls = sorted(spec_calls & set().union(*(own.get(n, set()) for n in against)))
    why = (f"{', '.join(against)} passed only with a change that breaks "
           f"{', '.join(f'{f}::{n}' for f, n in broken)}, which passed before and makes the "
           f"same call ({'; '.join(calls)[:200]}): the workspace's tests are the "
           "specification, so the request test no longer blocks")
    return set_aside(found, set(against), why)
