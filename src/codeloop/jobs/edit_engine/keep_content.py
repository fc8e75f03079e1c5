"""A whole Python file sent back keeps what the model did not mean to change.

Measured on held-out repairs (1.5B): in every file the model rewrote, content the request did
not touch was lost, e.g. a module's trailing docstring. So a rewrite is merged against the
original: the module docstring, the string blocks at the end of the module and the top-level
constants the new code still uses but no longer defines come back as they were. What the
request talks about (a docstring it asks to remove) is left as the model sent it.
"""

from __future__ import annotations

import ast
import re

_REMOVING = re.compile(r"\b(remove|delete|drop|strip)\b", re.IGNORECASE)


def _parse(source: str) -> ast.Module | None:
    try:
        return ast.parse(source)
    except (SyntaxError, ValueError, MemoryError, RecursionError):
        return None


def _is_string(node: ast.stmt) -> bool:
    return isinstance(node, ast.Expr) and isinstance(node.value, ast.Constant) \
        and isinstance(node.value.value, str)


def _span(source_lines: list[str], node: ast.stmt) -> list[str]:
    return source_lines[node.lineno - 1:node.end_lineno or node.lineno]


def _assigned(tree: ast.Module) -> set[str]:
    names: set[str] = set()
    for node in tree.body:
        targets = node.targets if isinstance(node, ast.Assign) else \
            [node.target] if isinstance(node, ast.AnnAssign) else []
        names |= {t.id for t in targets if isinstance(t, ast.Name)}
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            names.add(node.name)
        if isinstance(node, (ast.Import, ast.ImportFrom)):
            names |= {(a.asname or a.name).split(".")[0] for a in node.names}
    return names


def _used(tree: ast.Module) -> set[str]:
    return {n.id for n in ast.walk(tree) if isinstance(n, ast.Name)
            and isinstance(n.ctx, ast.Load)}


def keep_unmentioned(old: str, new: str, request: str = "") -> str:
    """`new` (a whole-file rewrite of `old`) with the original's untouched content put back:
    its module docstring when the rewrite has none, its trailing string blocks when the
    rewrite dropped them, and its top-level constants the rewrite uses without defining."""
    old_tree, new_tree = _parse(old), _parse(new)
    if old_tree is None or new_tree is None or not old_tree.body:
        return new
    if "docstring" in request.lower() and _REMOVING.search(request):
        return new  # the request is about the docstrings: the model's text stands
    old_lines, lines = old.splitlines(), new.splitlines()
    new_strings = {n.value.value for n in new_tree.body if _is_string(n)}  # type: ignore[attr-defined]
    head: list[str] = []
    first = old_tree.body[0]
    if _is_string(first) and not (new_tree.body and _is_string(new_tree.body[0])):
        head = _span(old_lines, first)
    constants: list[str] = []
    missing = _used(new_tree) - _assigned(new_tree)
    for node in old_tree.body:
        if isinstance(node, (ast.Assign, ast.AnnAssign)):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            names = {t.id for t in targets if isinstance(t, ast.Name)}
            if names and names <= missing:
                constants += _span(old_lines, node)
    tail: list[str] = []
    for node in reversed(old_tree.body[1:]):
        if not _is_string(node):
            break
        if node.value.value not in new_strings:  # type: ignore[attr-defined]
            tail = _span(old_lines, node) + ([""] if tail else []) + tail
    if not (head or constants or tail):
        return new
    at = after_imports(new_tree)
    rest = lines[at:]
    body = lines[:at] + ([""] if at and constants else []) + constants + \
        ([""] if constants and rest[:1] != [""] else []) + rest
    merged = head + ([""] if head else []) + body
    text = "\n".join(merged).rstrip("\n") + "\n"
    if tail:
        text += "\n\n" + "\n".join(tail) + "\n"
    return text if _parse(text) is not None else new


def after_imports(tree: ast.Module) -> int:
    """The line after the last top-level import (or the module docstring), 0 when neither."""
    end = 0
    for index, node in enumerate(tree.body):
        if isinstance(node, (ast.Import, ast.ImportFrom)) or (index == 0 and _is_string(node)):
            end = node.end_lineno or node.lineno
        else:
            break
    return end
