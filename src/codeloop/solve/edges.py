"""Edge inputs: the task's own example calls with one string, list, tuple, dict or set
argument made empty or cut to its first item. Code that passes every example and then
crashes or hangs on such a call is often wrong where the examples do not look
(`max()` of an empty list, `s[-2]` of a one-letter string).

Nothing here knows what the function should return on these inputs, and the description
may exclude them (a "non-empty list"), so a crash never fails the code: it is a warning,
and a reason to spend a refinement round on a sample told the crash. That sample replaces
the code only if it passes every example, crashes on fewer edge calls, and returns what the
code returned on every edge call where the code returned a value (review, `keeps_values`):
a right answer whose crash was outside the task's domain stays as it was.

Only literal arguments are changed, and the calls run in the trusted harness like the
examples (as `assert` sources; see solve/probes.py), never as model-written code.
Read on three full HumanEval runs' final code: 14 problems' code crashes on an edge call,
3 of them wrong (HumanEval/70, 119, 134), 11 right (inputs the description excludes). In a
full run (benchmarks/results/humaneval-1.5b-pipeline-edges) the rounds won 70, lost nothing,
and cost 0.10x one-shot's tokens with one round a problem.
"""

from __future__ import annotations

import ast
from collections.abc import Callable

from codeloop.docstring_examples.named import is_literal

MAX_EDGE_CALLS = 6
EDGE_TIMEOUT = 3.0  # seconds a call: an edge input that loops costs this
MESSAGE_CHARS = 200  # of an exception's message: the candidate's text, told to the model
_COLLECTIONS = (str, list, tuple, dict, set, frozenset, bytes)


def _shrunk(value: object) -> list[object]:
    """The edge forms of one argument: empty, then its first item alone."""
    if not isinstance(value, _COLLECTIONS) or not value:
        return []
    if isinstance(value, dict):
        return [{}]
    if isinstance(value, (set, frozenset)):
        return [type(value)()]
    forms: list[object] = [value[:0]]
    if len(value) > 1:
        forms.append(value[:1])
    return forms


def _example_call(assertion: str, name: str) -> ast.Call | None:
    """The first call of the task's function in an example (`f(x) == y`, `abs(f(x) - y) < e`)."""
    try:
        tree = ast.parse(assertion)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return None
    for node in ast.walk(tree):
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == name:
            return node
    return None


def _boundaries(value: object) -> list[object]:
    """Boundary forms of one argument: a number made 0, 1 or negative; a list or tuple given
    a duplicate of its first item."""
    if isinstance(value, bool):
        return []
    if isinstance(value, (int, float)):
        forms = [type(value)(0), type(value)(1), -abs(value)]
        return [f for f in dict.fromkeys(forms) if f != value]
    if isinstance(value, (list, tuple)) and value:
        return [value + value[:1]]
    return []


def _varied_calls(assertions: list[str], name: str, forms: Callable[[object], list[object]],
                  limit: int) -> list[str]:
    """Calls of `name` made from the examples' calls by changing one literal argument into
    each of `forms(argument)`; none that an example already makes. At most `limit`, in the
    examples' order."""
    made = set()
    calls: list[str] = []
    for assertion in assertions:
        call = _example_call(assertion, name)
        if call is None or call.keywords or not all(is_literal(a) for a in call.args):
            continue
        made.add(ast.unparse(call))
        values = [ast.literal_eval(a) for a in call.args]
        for index, value in enumerate(values):
            for form in forms(value):
                args = [repr(v) for v in values]
                args[index] = repr(form)
                text = f"{name}({', '.join(args)})"
                if text not in calls:
                    calls.append(text)
    return [c for c in calls if c not in made][:limit]


def edge_calls(assertions: list[str], name: str, limit: int = MAX_EDGE_CALLS) -> list[str]:
    """Calls of `name` made from the examples' calls by shrinking one literal argument;
    none that an example already makes. At most `limit`, in the examples' order."""
    return _varied_calls(assertions, name, _shrunk, limit)


def boundary_calls(assertions: list[str], name: str, limit: int = MAX_EDGE_CALLS) -> list[str]:
    """Calls of `name` made from the examples' calls with one literal argument at a
    boundary (zero, one, negative, a duplicated item); none that an example makes."""
    return _varied_calls(assertions, name, _boundaries, limit)


def deliberate_raises(code: str) -> set[str]:
    """The exception names the code raises itself (`raise ValueError(...)`): a documented
    refusal of an input, not a crash."""
    try:
        tree = ast.parse(code)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return set()
    names = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Raise) and node.exc is not None:
            target = node.exc.func if isinstance(node.exc, ast.Call) else node.exc
            if isinstance(target, ast.Name):
                names.add(target.id)
    return names


def crash_lines(calls: list[str], results: list[tuple[str, str]], code: str) -> list[str]:
    """"f('') raised IndexError: string index out of range" for each call that crashed or
    timed out; `results` holds (kind, message) per call, as the harness reported them."""
    refused = deliberate_raises(code)
    lines = []
    for call, (kind, text) in zip(calls, results, strict=True):
        message = text if len(text) <= MESSAGE_CHARS else text[:MESSAGE_CHARS - 3] + "..."
        if kind == "timeout":
            lines.append(f"{call} did not return ({message})")
        elif kind == "error" and message.split(":", 1)[0].strip() not in refused:
            lines.append(f"{call} raised {message}")
    return lines


def keeps_values(old: list[str], new: list[str]) -> bool:
    """Does the new code return what the old one did on every edge call where the old one
    returned a value? (`old`/`new`: outcomes per call, solve/probes.py: outcome.)"""
    if len(old) != len(new):  # the old code's edge run told nothing (it did not load)
        return not old
    return all(n == o for o, n in zip(old, new, strict=True) if o.startswith("value "))
