"""A reviewer's "no" that is only about code beside the change.

Measured on the 1.5B (benchmarks/review_bench.py, mutable_default at 04abe13 and b26fcbc):
asked to fix add_item's shared default cart, the refiner wrote the right fix (`cart=None`)
with every check passing, and the reviewer model said no: "The function `cart_size` does not
return the size of the cart but the sum of quantities". cart_size was untouched and the
request does not name it; the next round had nothing to act on, and the rounds ran out.

An objection is beside the change when it names functions, methods or classes of the code
under review and every one it names is one the change left as it was and the request does
not name. When each objection is, and every check passes, the change goes to the person
with the objections beside the diff: the person, not another round, decides on them. An
objection that names no such definition (a missing check, a wrong value) still goes to the
refiner, as does any naming what the change wrote."""

from __future__ import annotations

import ast
import re

from codeloop.review.request_test_focus import request_names

_WORD = re.compile(r"[A-Za-z_]\w*")
_DEFINITION = (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)


def _definitions(source: str | None) -> dict[str, str]:
    """{name: source text} of every function, method and class in `source` (a name defined
    twice keeps both texts joined, so a change to either counts)."""
    if source is None:
        return {}
    try:
        tree = ast.parse(source)
    except (SyntaxError, ValueError, RecursionError):
        return {}
    found: dict[str, str] = {}
    for node in ast.walk(tree):
        if isinstance(node, _DEFINITION):
            text = ast.get_source_segment(source, node) or ""
            found[node.name] = found.get(node.name, "") + text
    return found


def beside_the_change(objections: list[str], request: str, originals: dict[str, str],
                      changed: dict[str, str]) -> bool:
    """True when there are objections and each names at least one definition of the code
    under review (`changed`: {path: content now}) and only ones the change left as they were
    (`originals`: {path: content before}) and `request` does not name."""
    if not objections:
        return False
    defined: set[str] = set()
    touched: set[str] = set()
    for path, content in changed.items():
        before, after = _definitions(originals.get(path)), _definitions(content)
        defined |= after.keys()
        touched |= {name for name in before.keys() | after.keys()
                    if before.get(name) != after.get(name)}
    asked = request_names(request, changed)
    for objection in objections:
        named = defined & set(_WORD.findall(objection))
        if not named or named & (touched | asked):
            return False
    return True
