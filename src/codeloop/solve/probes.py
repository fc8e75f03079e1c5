"""Inputs to tell candidates apart: calls of the task's function that the model proposes
from the description, kept only as plain literals, and what each candidate does on them.

Used by the cross-check of untested code (crosscheck.py). The model's calls run inside the
trusted test harness (as `assert` sources), so only calls whose every argument is a Python
literal are kept: nothing model-written runs there but the call into the candidate.
"""

from __future__ import annotations

import ast
from collections import Counter

from codeloop.docstring_examples.named import is_literal
from codeloop.jobs.extract import code_blocks

MAX_PROBES = 8
MAX_CALL_CHARS = 300
# The harness reports an expression's value when an `==` against it fails; an empty tuple
# never equals a one-element tuple (lengths differ before any element is compared), so
# `(f(x),) == ()` fails for every value and the message carries that value's repr.
PROBE_ASSERT = "assert ({call},) == ()"
RETURNED = " returned "


def _unwrap(node: ast.AST) -> ast.AST:
    """The call in `print(f(x))`, `y = f(x)`, `assert f(x) == y` or `f(x) == y`: models add
    these despite being asked for bare calls."""
    if isinstance(node, ast.Assert):
        node = node.test
    if isinstance(node, (ast.Expr, ast.Assign)):
        node = node.value
    if isinstance(node, ast.Compare) and len(node.ops) == 1:
        node = node.left
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) \
            and node.func.id == "print" and len(node.args) == 1 and not node.keywords:
        node = node.args[0]
    return node


def _fits(call: ast.Call, signature: ast.FunctionDef | ast.AsyncFunctionDef) -> bool:
    """The call's arguments could bind to the signature's parameters."""
    args = signature.args
    positional = [*args.posonlyargs, *args.args]
    required = len(positional) - len(args.defaults)
    names = {a.arg for a in [*args.args, *args.kwonlyargs]}
    if len(call.args) > len(positional) and args.vararg is None:
        return False
    given = len(call.args) + sum(1 for k in call.keywords if k.arg in names)
    return given >= required and all(k.arg in names or args.kwarg is not None
                                     for k in call.keywords)


def probe_calls(reply: str, signature: ast.FunctionDef | ast.AsyncFunctionDef) -> list[str]:
    """The distinct calls of the function in `reply` (its code blocks, else its lines) whose
    arguments are all literals and fit the signature, at most MAX_PROBES, in order."""
    name = signature.name
    text = "\n".join(code_blocks(reply)) or reply
    calls: list[str] = []
    for line in text.splitlines():
        line = line.strip()
        if not line or len(line) > MAX_CALL_CHARS or name not in line:
            continue
        try:
            tree = ast.parse(line)
        except (SyntaxError, ValueError, RecursionError, MemoryError):
            continue
        if len(tree.body) != 1:
            continue
        node = _unwrap(tree.body[0])
        if not (isinstance(node, ast.Call) and isinstance(node.func, ast.Name)
                and node.func.id == name and _fits(node, signature)):
            continue
        arguments = [*node.args, *(k.value for k in node.keywords)]
        if any(isinstance(a, ast.Starred) for a in node.args) \
                or any(k.arg is None for k in node.keywords) \
                or not all(is_literal(a) for a in arguments):
            continue
        call = ast.unparse(node)
        if call not in calls:
            calls.append(call)
        if len(calls) == MAX_PROBES:
            break
    return calls


def outcome(kind: str, message: str) -> str:
    """One call's result as comparable text: the value's repr, the exception's type, or
    'timeout'. (Exception messages differ between right programs; their types rarely do.)"""
    if kind == "fail" and RETURNED in message:
        wrapped = message.split(RETURNED, 1)[1].rsplit(", expected ", 1)[0]
        # "(5,)": the one-element tuple PROBE_ASSERT put the value in (cut at "..." when long)
        value = wrapped.removeprefix("(").removesuffix(",)")
        return "value " + value
    if kind == "error":
        return "raises " + message.split(":", 1)[0].strip()
    return kind  # "timeout", or "pass" for a value that claims to equal ()


def majority(behaviours: list[tuple[str, ...] | None]) -> int | None:
    """The index of the first candidate whose behaviour the most candidates share (the
    earliest wins a tie, so the current code stays unless outvoted); None if none ran."""
    counts = Counter(b for b in behaviours if b is not None)
    if not counts:
        return None
    most = max(counts.values())
    return next(i for i, b in enumerate(behaviours) if b is not None and counts[b] == most)


def informative(behaviours: list[tuple[str, ...] | None]) -> list[int]:
    """The probes on which at least one candidate returned a value: calls that every
    candidate rejects (the model proposed a bad input) say nothing about them."""
    ran = [b for b in behaviours if b is not None]
    if not ran:
        return []
    return [i for i in range(len(ran[0])) if any(b[i].startswith("value ") for b in ran)]
