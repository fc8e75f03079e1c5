"""A task's test file does not define its own copy of what it imports from the project: the
copy is taken out, and the tests test the code.

Measured on the 1.5B (build benchmark at ec2b586, notes N2): tests/test_models.py imported
`NoteIn, Note` from app.models and then defined both classes again below the import (`body`
in its `NoteIn`, which the code's lacked). Every test ran against the copies, passed whatever
app/models.py held, and N2 merged models without `body` that the next task and the hidden
tests needed. A top-level class or function of a test file named like a name the file
imports from a module of the project's source package shadows that import; it goes, so the
name is the project's again. Test functions and fixtures keep their own names and are never
taken."""

from __future__ import annotations

import ast
import re

from codeloop.build.contract import TaskContract
from codeloop.jobs.definitions import definition_span

_DEFINITION = (ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)


def _project_imports(tree: ast.Module, package: str) -> set[str]:
    """The names `tree` imports at its top level from `package` or a module under it."""
    names: set[str] = set()
    for node in tree.body:
        if isinstance(node, ast.ImportFrom) and node.module and not node.level and (
                node.module == package or node.module.startswith(package + ".")):
            names.update(alias.asname or alias.name for alias in node.names)
    return names


def without_own_copies(text: str, contract: TaskContract) -> tuple[str, list[str]]:
    """(`text` without the top-level classes and functions that define again a name it
    imports from the project, [their names]); `text` as it was when there are none or it
    does not parse."""
    package = contract.src_dir.strip("/").replace("/", ".")
    if contract.language != "python" or not package:
        return text, []
    try:
        tree = ast.parse(text)
    except (SyntaxError, ValueError, RecursionError):
        return text, []
    imported = _project_imports(tree, package)
    copies = [node for node in tree.body if isinstance(node, _DEFINITION)
              and node.name in imported and not node.name.startswith("test")]
    if not copies:
        return text, []
    lines = text.splitlines(keepends=True)
    for node in sorted(copies, key=lambda n: n.lineno, reverse=True):
        first, end = definition_span(node)
        del lines[first:end]
    kept = re.sub(r"\n{4,}", "\n\n\n", "".join(lines))
    return kept, [node.name for node in copies]
