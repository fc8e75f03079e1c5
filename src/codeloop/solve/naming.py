"""A solution the model wrote under another name than the task's.

Small models "correct" a task's function name (`lateralsuface_cylinder` becomes
`lateralsurface_cylinder`, `check_occurences` becomes `check_occurrences`) or choose their
own (`and_tuples` becomes `assert_and_tuples`). Nothing can call such code by the name the
task asks for, so it failed without a single test run, and telling the model did not help:
in a full MBPP pipeline run (benchmarks/results/mbpp-1.5b-pipeline-t05) four problems lost
every one of their six candidates this way.

When the name the task asks for is missing, and the reply's code has exactly one function
that nothing else in it calls, taking as many positional parameters as the task's function,
that function is renamed to the task's name (its recursive calls too). Nothing is renamed
when the task's name is already used in that code: `sum` wanted, the model wrote
`sum_of_divisors` and calls the builtin `sum` inside it, so renaming would break it.
"""

from __future__ import annotations

import ast
import re
from dataclasses import dataclass

from codeloop.jobs.extract import extract_code, parsed_modules

Function = ast.FunctionDef | ast.AsyncFunctionDef


@dataclass(frozen=True)
class Renamed:
    code: str
    written_as: str


def _positional(node: Function) -> tuple[int, bool]:
    return len(node.args.posonlyargs) + len(node.args.args), node.args.vararg is not None


def _names_used(tree: ast.AST) -> set[str]:
    return {n.id for n in ast.walk(tree) if isinstance(n, ast.Name)} | {
        n.attr for n in ast.walk(tree) if isinstance(n, ast.Attribute)}


def _lone_entry(module: ast.Module, expected: Function) -> Function | None:
    """The one top-level function no other function of the module calls, when it takes
    the task's positional parameters."""
    functions = [n for n in module.body if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef))]
    called = set().union(*(_names_used(f) - {f.name} for f in functions)) if functions else set()
    roots = [f for f in functions if f.name not in called]
    if len(roots) != 1 or _positional(roots[0]) != _positional(expected):
        return None
    return roots[0]


def renamed_solution(reply: str, expected: Function) -> Renamed | None:
    """The reply's solution with its function renamed to `expected.name`, or None when the
    reply has no such lone function (or the name is taken in its code)."""
    modules = parsed_modules(reply)
    module = next((m for m in reversed(modules)
                   if any(isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef))
                          for n in m.body)), None)
    if module is None:
        return None
    # Top-level demo code (`print(f(3))`, an assert copied from the task) is dropped by
    # extraction; what stays must not already use the name.
    kept = [n for n in module.body if isinstance(
        n, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.Assign, ast.AnnAssign))]
    if any(expected.name in _names_used(n) for n in kept):
        return None
    lone = _lone_entry(module, expected)
    if lone is None:
        return None
    # Whole-word, not after a dot: the function's own name and calls to it, nowhere else.
    pattern = re.compile(rf"(?<![\w.]){re.escape(lone.name)}(?!\w)")
    code = extract_code(pattern.sub(expected.name, reply), expected.name)
    return Renamed(code, lone.name) if code is not None else None
