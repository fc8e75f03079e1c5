"""A task's Python code does not define again a class a module on main already defines (an
earlier task's, the scaffold's): it imports it. Measured on the 1.5B (todo graph, T2):
app/storage.py re-defined T1's `TodoIn` and `Todo` (a `Todo` with another shape), set `id` on
a `TodoIn`, and every later round kept the copy. The write is refused with the import to use,
so the engine's next round says so."""

from __future__ import annotations

import ast

from codeloop.build.code_mends import mended_code
from codeloop.build.contract import TaskContract, is_test_module, module_of
from codeloop.build.import_homes import Read
from codeloop.build.tests_as_code import written_as_tests
from codeloop.jobs.definitions import definition_span
from codeloop.jobs.edit_engine.api import Check, EditSite
from codeloop.jobs.edit_engine.keep_content import after_imports


def redefined_classes(path: str, text: str, contract: TaskContract) -> list[str]:
    """One line per top-level class of `text` (a Python module the task writes) that a module
    on main other than the task's own (an earlier task's, the scaffold's) defines already."""
    if not path.endswith(".py") or is_test_module(path):
        return []
    try:
        tree = ast.parse(text)
    except SyntaxError:
        return []  # the stack's tests report it
    out = []
    for node in tree.body:
        home = _home(node, path, contract) if isinstance(node, ast.ClassDef) else None
        if home is not None:
            out.append(f"class {node.name} is already defined in {module_of(home)} on main: "
                       f"write `from {module_of(home)} import {node.name}` instead of "
                       "defining it again")
    return out


def import_instead(path: str, text: str, contract: TaskContract) -> tuple[str, list[str]]:
    """(`text` with each top-level class that main defines elsewhere replaced by an import
    of it, one note per replaced class); unchanged when there is none or the result would
    not parse."""
    if not path.endswith(".py") or is_test_module(path):
        return text, []
    try:
        tree = ast.parse(text)
    except SyntaxError:
        return text, []
    lines = text.splitlines(keepends=True)
    drop: set[int] = set()
    imports: dict[str, list[str]] = {}
    notes = []
    for node in tree.body:
        home = _home(node, path, contract) if isinstance(node, ast.ClassDef) else None
        if home is None:
            continue
        start, end = definition_span(node)
        while start > 0 and not lines[start - 1].strip():
            start -= 1  # and the blank lines before it
        drop.update(range(start, end))
        imports.setdefault(module_of(home), []).append(node.name)
        notes.append(f"{path}: class {node.name} is defined in {module_of(home)} on main; the "
                     f"harness replaced your copy with `from {module_of(home)} import "
                     f"{node.name}`: use that class as it is")
    if not imports:
        return text, []
    added = "".join(f"from {module} import {', '.join(names)}\n"
                    for module, names in imports.items())
    at = after_imports(tree)
    kept = [line for number, line in enumerate(lines) if number not in drop]
    at -= sum(1 for number in drop if number < at)
    result = "".join([*kept[:at], added, *kept[at:]])
    try:
        ast.parse(result)
    except SyntaxError:
        return text, []
    return result, notes


def _home(node: ast.ClassDef, path: str, contract: TaskContract) -> str | None:
    return next((p for p, names in sorted(contract.built.items())
                 if p != path and p not in contract.modules and node.name in names
                 and not is_test_module(p)), None)


class NoRedefinitions:
    """An edit site whose `prepare` applies the stack's library mends (`site.prepare`),
    replaces a copy of a class on main with its import, then the harness's mends of a task's
    module (code_mends.py), and that refuses a write still re-defining a class
    (redefined_classes); the rest is `site`'s."""

    def __init__(self, site: EditSite, contract: TaskContract, read: Read) -> None:
        self.site, self.contract, self.read = site, contract, read

    def prepare(self, path: str, text: str) -> tuple[str, list[str]]:
        text, notes = self.site.prepare(path, text) if hasattr(self.site, "prepare") \
            else (text, [])
        text, replaced = import_instead(path, text, self.contract)
        notes += replaced
        text, mended = mended_code(path, text, self.contract, self.read)
        notes += mended
        return text, notes

    def write(self, path: str, text: str) -> str | None:
        not_code = written_as_tests(path, text, self.contract)
        if not_code:
            return f"{path} not written: {not_code}"
        problems = redefined_classes(path, text, self.contract)
        if problems:
            return f"{path} not written: " + "; ".join(problems)
        return self.site.write(path, text)

    def check(self) -> Check | None:
        return self.site.check()
