"""A task's Python code does not define again a class a module on main already defines (an
earlier task's, the scaffold's): it imports it. Measured on the 1.5B (todo graph, T2):
app/storage.py re-defined T1's `TodoIn` and `Todo` (a `Todo` with another shape), set `id` on
a `TodoIn`, and every later round kept the copy. The write is refused with the import to use,
so the engine's next round says so."""

from __future__ import annotations

import ast

from codeloop.build.contract import TaskContract, is_test_module, module_of
from codeloop.jobs.edit_engine.api import Check, EditSite


def redefined_classes(path: str, text: str, contract: TaskContract) -> list[str]:
    """One line per top-level class of `text` (a Python module the task writes) that a module
    on main other than the task's own (an earlier task's, the scaffold's) defines already."""
    if not path.endswith(".py") or is_test_module(path):
        return []
    try:
        tree = ast.parse(text)
    except SyntaxError:
        return []  # the stack's tests report it
    classes = [node.name for node in tree.body if isinstance(node, ast.ClassDef)]
    out = []
    for name in classes:
        home = next((p for p, names in sorted(contract.built.items())
                     if p != path and p not in contract.modules and name in names
                     and not is_test_module(p)), None)
        if home is not None:
            out.append(f"class {name} is already defined in {module_of(home)} on main: "
                       f"write `from {module_of(home)} import {name}` instead of defining "
                       "it again")
    return out


class NoRedefinitions:
    """An edit site that refuses a write re-defining a class on main (redefined_classes); the
    rest is `site`'s."""

    def __init__(self, site: EditSite, contract: TaskContract) -> None:
        self.site, self.contract = site, contract

    def write(self, path: str, text: str) -> str | None:
        problems = redefined_classes(path, text, self.contract)
        if problems:
            return f"{path} not written: " + "; ".join(problems)
        return self.site.write(path, text)

    def check(self) -> Check | None:
        return self.site.check()
