"""Merging a reply that rewrote only some functions of a Python file back into the file.

Asked for a whole file, a small model often sends just the function it fixed (plus maybe an
import). Taken as the file, that deletes the rest of the module; dropped, it loses the fix.
Merged by name, it is the edit the model meant: each top-level function or class it sent
replaces the one of the same name (decorators included), new ones are appended, and new
imports go after the file's own imports.
"""

from __future__ import annotations

import ast

_DEFS = (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)


def _span(node: ast.stmt) -> tuple[int, int]:
    """0-based first line (decorators included) and end line (exclusive) of a statement."""
    first = min([node.lineno, *(d.lineno for d in getattr(node, "decorator_list", []))])
    return first - 1, node.end_lineno or node.lineno


def _parse(source: str) -> ast.Module | None:
    try:
        return ast.parse(source)
    except (SyntaxError, ValueError, MemoryError, RecursionError):
        return None


def top_level_names(source: str) -> set[str] | None:
    """The functions and classes a file defines at top level; None if it does not parse."""
    tree = _parse(source)
    if tree is None:
        return None
    return {n.name for n in tree.body if isinstance(n, _DEFS)}


def merge_definitions(old: str, snippet: str) -> str | None:
    """`old` with the snippet's top-level definitions put in by name, and its new imports
    added; None when either does not parse or the snippet holds no definition."""
    old_tree, new_tree = _parse(old), _parse(snippet)
    if old_tree is None or new_tree is None:
        return None
    new_lines = snippet.splitlines()
    defs = [n for n in new_tree.body if isinstance(n, _DEFS)]
    if not defs:
        return None
    lines = old.splitlines()
    where = {n.name: _span(n) for n in old_tree.body if isinstance(n, _DEFS)}
    appended: list[str] = []
    # Replace from the bottom up, so earlier spans keep their line numbers.
    replacements: list[tuple[int, int, list[str]]] = []
    for node in defs:
        start, end = _span(node)
        text = new_lines[start:end]
        if node.name in where:
            replacements.append((*where[node.name], text))
        else:
            appended += ["", "", *text]
    for start, end, text in sorted(replacements, reverse=True):
        lines[start:end] = text
    imports = _new_imports(old_tree, new_tree, new_lines)
    if imports:
        at = max((_span(n)[1] for n in old_tree.body if isinstance(n, (ast.Import, ast.ImportFrom))),
                 default=_docstring_end(old_tree))
        # Spans before `at` were not replaced by definitions (imports come first), but a
        # replacement above may have moved them: recompute on the merged text.
        merged_tree = _parse("\n".join(lines))
        if merged_tree is not None:
            at = max((_span(n)[1] for n in merged_tree.body
                      if isinstance(n, (ast.Import, ast.ImportFrom))),
                     default=_docstring_end(merged_tree))
        lines[at:at] = imports
    return "\n".join(lines + appended).rstrip("\n") + "\n"


def _docstring_end(tree: ast.Module) -> int:
    first = tree.body[0] if tree.body else None
    if isinstance(first, ast.Expr) and isinstance(getattr(first, "value", None), ast.Constant) \
            and isinstance(first.value.value, str):
        return first.end_lineno or 0
    return 0


def _new_imports(old_tree: ast.Module, new_tree: ast.Module, new_lines: list[str]) -> list[str]:
    have = {ast.dump(n) for n in old_tree.body if isinstance(n, (ast.Import, ast.ImportFrom))}
    out: list[str] = []
    for node in new_tree.body:
        if isinstance(node, (ast.Import, ast.ImportFrom)) and ast.dump(node) not in have:
            start, end = _span(node)
            out += new_lines[start:end]
    return out
