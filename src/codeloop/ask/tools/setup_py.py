"""What a `setup.py` declares (install_requires, extras_require, tests_require, console
scripts), read by parsing it, never by running it: the keyword arguments of its `setup(...)`
call, each a literal or a name bound to a literal at the module's top level
(`install_requires = ['x']` ... `setup(install_requires=install_requires)`). Anything else
(a computed list, a file read at build time) is not guessed at.
"""

from __future__ import annotations

import ast
from typing import Any

KEYS = ("install_requires", "extras_require", "tests_require", "entry_points")


def setup_py_metadata(text: str) -> dict[str, Any]:
    """{install_requires: [str], extras_require: {group: [str]}, tests_require: [str],
    entry_points: {group: [str]}, lines: {key: line of its value}}; SyntaxError propagates."""
    tree = ast.parse(text, "setup.py")
    literals: dict[str, tuple[Any, int]] = {}
    for node in tree.body:
        if isinstance(node, ast.Assign) and len(node.targets) == 1 \
                and isinstance(node.targets[0], ast.Name):
            value = _literal(node.value)
            if value is not None:
                literals[node.targets[0].id] = (value, node.lineno)
    out: dict[str, Any] = {"install_requires": [], "extras_require": {}, "tests_require": [],
                           "entry_points": {}, "lines": {}}
    for call in ast.walk(tree):
        if not (isinstance(call, ast.Call) and _name(call.func) == "setup"):
            continue
        for kw in call.keywords:
            if kw.arg not in KEYS:
                continue
            value, line = _literal(kw.value), kw.value.lineno
            if value is None and isinstance(kw.value, ast.Name) and kw.value.id in literals:
                value, line = literals[kw.value.id]
            if value is None:
                continue
            if kw.arg in ("entry_points", "extras_require") and isinstance(value, dict):
                value = {str(k): [value[k]] if isinstance(value[k], str) else list(value[k])
                         for k in value}
            elif isinstance(value, str):
                value = [value]
            out[kw.arg] = value
            out["lines"][kw.arg] = line
    return out


def _name(func: ast.expr) -> str:
    return func.id if isinstance(func, ast.Name) else (
        func.attr if isinstance(func, ast.Attribute) else "")


def _literal(node: ast.expr) -> Any:
    try:
        value = ast.literal_eval(node)
    except (ValueError, TypeError, SyntaxError, MemoryError, RecursionError):
        return None
    return value if isinstance(value, (list, tuple, dict, str)) else None
