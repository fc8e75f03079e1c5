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


def definition_span(node: ast.stmt) -> tuple[int, int]:
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
    where = {n.name: definition_span(n) for n in old_tree.body if isinstance(n, _DEFS)}
    appended: list[str] = []
    # Replace from the bottom up, so earlier spans keep their line numbers.
    replacements: list[tuple[int, int, list[str]]] = []
    for node in defs:
        start, end = definition_span(node)
        text = new_lines[start:end]
        if node.name in where:
            replacements.append((*where[node.name], text))
        else:
            appended += ["", "", *text]
    for start, end, text in sorted(replacements, reverse=True):
        lines[start:end] = text
    imports = _new_imports(old_tree, new_tree, new_lines)
    if imports:
        at = max((definition_span(n)[1] for n in old_tree.body if isinstance(n, (ast.Import, ast.ImportFrom))),
                 default=_docstring_end(old_tree))
        # Spans before `at` were not replaced by definitions (imports come first), but a
        # replacement above may have moved them: recompute on the merged text.
        merged_tree = _parse("\n".join(lines))
        if merged_tree is not None:
            at = max((definition_span(n)[1] for n in merged_tree.body
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
            start, end = definition_span(node)
            out += new_lines[start:end]
    return out


def restore_dropped_members(old: str, content: str) -> str:
    """`content` with the methods its classes left out put back from `old`: a class the reply
    sends with fewer methods than the file's class of that name gets the missing ones
    appended, as they were. Why: asked for only the code it changes, the 1.5B sent
    `class Inventory` with the one method it fixed (fix_inventory_state); taken as it is,
    that deleted count(), names() and total(). A class with as many methods as before is
    taken as it is (a rename). `content` unchanged when either does not parse."""
    old_tree, new_tree = _parse(old), _parse(content)
    if old_tree is None or new_tree is None:
        return content
    old_lines, lines = old.splitlines(), content.splitlines()
    classes = {n.name: n for n in old_tree.body if isinstance(n, ast.ClassDef)}
    inserts: list[tuple[int, list[str]]] = []
    for node in new_tree.body:
        before = classes.get(node.name) if isinstance(node, ast.ClassDef) else None
        if before is None:
            continue
        had, has = _members(before), _members(node)
        missing = [name for name in had if name not in has]
        if not missing or len(has) >= len(had):
            continue
        indent = _body_indent(node, lines)
        old_indent = _body_indent(before, old_lines)
        block: list[str] = []
        for name in missing:
            start, end = definition_span(had[name])
            block += [""] + [_reindent(line, old_indent, indent)
                             for line in old_lines[start:end]]
        inserts.append((node.end_lineno or node.lineno, block))
    for at, block in sorted(inserts, reverse=True):
        lines[at:at] = block
    return "\n".join(lines).rstrip("\n") + "\n" if inserts else content


def _members(node: ast.ClassDef) -> dict[str, ast.stmt]:
    return {n.name: n for n in node.body if isinstance(n, _DEFS)}


def _body_indent(node: ast.ClassDef, lines: list[str]) -> str:
    first = lines[node.body[0].lineno - 1] if node.body else ""
    return first[:len(first) - len(first.lstrip())]


def _reindent(line: str, old: str, new: str) -> str:
    return new + line[len(old):] if line.startswith(old) else line
