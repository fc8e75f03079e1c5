"""Routes that call a store's methods on its module (`storage.add(...)`) get one store.

Measured on the 1.5B (build benchmark, notes N4 at 3f37f7b and again at 48067b3): the
routes did `from app import storage` and called `storage.add(note_in)`, `storage.get(id)`,
`storage.store.values()`; app.storage defines only `class NoteStore` with those methods, so
every route raised AttributeError ("module 'app.storage' has no attribute 'add'") and the
code came back unchanged through every round. In a module that defines an `APIRouter`, a
project module it imports whole, whose top level lacks the names used on it and whose one
class has them all (methods, or attributes its `__init__` sets), gets one module-level
instance of that class after the imports, and those uses go through it.
"""

from __future__ import annotations

import ast

from codeloop.build.contract import path_of
from codeloop.build.import_homes import Read
from codeloop.build.source_spans import if_it_parses, parsed_python, replace_span
from codeloop.jobs.edit_engine.keep_content import after_imports
from codeloop.jobs.forgotten_imports import names_of


def module_used_as_store(path: str, source: str, package: str,
                         read: Read) -> tuple[str, list[str]]:
    """(`source` with a module's missing names read from one instance of its one class; a
    note per module); unchanged when there is nothing to mend or the result does not parse."""
    tree = parsed_python(path, source)
    if tree is None or not any(isinstance(n, ast.Assign) and isinstance(n.value, ast.Call)
                               and getattr(n.value.func, "id", "") == "APIRouter"
                               for n in tree.body):
        return source, []
    bound, _, _ = names_of(tree)
    lines = source.splitlines(keepends=True)
    made: list[str] = []
    notes: list[str] = []
    edits: list[tuple[ast.Name, str]] = []  # (the module's name in a use, the store's)
    for alias, module in whole_imports(tree, package).items():
        uses = [n for n in ast.walk(tree) if isinstance(n, ast.Attribute)
                and isinstance(n.value, ast.Name) and n.value.id == alias]
        found = _the_class_with(read(path_of(module)), {u.attr for u in uses})
        if found is None:
            continue
        cls, missing = found
        name = next(n for n in ("store", f"{alias}_store", f"shared_{alias}_store")
                    if n not in bound)
        bound.add(name)
        edits += [(u.value, name) for u in uses if u.attr in missing]  # type: ignore[misc]
        made.append(f"{name} = {alias}.{cls}()  # the store the routes share (codeloop)\n")
        notes.append(f"{path}: the routes called {', '.join(sorted(missing))} on the module "
                     f"{module}, which has them only on its class {cls}: the harness made "
                     f"one `{name} = {alias}.{cls}()` and the routes use it")
    if not made:
        return source, []
    for value, name in sorted(edits, key=lambda e: (e[0].lineno, e[0].col_offset),
                              reverse=True):
        lines = replace_span(lines, (value.lineno, value.col_offset),
                             (value.end_lineno or value.lineno, value.end_col_offset or 0),
                             name)
    at = after_imports(tree)
    result = "".join([*lines[:at], "\n" if at else "", *made, *lines[at:]])
    return if_it_parses(source, result, notes)


def whole_imports(tree: ast.Module, package: str) -> dict[str, str]:
    """{name: module} of the project modules the file imports whole (`from app import
    storage`, `import app.storage as storage`)."""
    found: dict[str, str] = {}
    for node in tree.body:
        if isinstance(node, ast.ImportFrom) and node.module == package and not node.level:
            found.update({(a.asname or a.name): f"{package}.{a.name}" for a in node.names})
        elif isinstance(node, ast.Import):
            found.update({a.asname: a.name for a in node.names
                          if a.asname and a.name.split(".")[0] == package})
    return found


def _the_class_with(text: str | None, used: set[str]) -> tuple[str, set[str]] | None:
    """(the module's one class, the used names its top level lacks) when that class has
    every one of them; None otherwise (or when none is missing)."""
    if not text or not used:
        return None
    tree = _parsed(text)
    if tree is None:
        return None
    missing = used - _top_level(tree)
    classes = [n for n in tree.body if isinstance(n, ast.ClassDef)
               and not any(isinstance(b, ast.Name) and b.id in {"BaseModel", "Exception"}
                           for b in n.bases)]
    if not missing or len(classes) != 1:
        return None
    members = {n.name for n in classes[0].body if isinstance(n, (ast.FunctionDef,
                                                                   ast.AsyncFunctionDef))}
    members |= {t.attr for n in ast.walk(classes[0]) if isinstance(n, (ast.Assign,
                                                                        ast.AnnAssign))
                for t in (n.targets if isinstance(n, ast.Assign) else [n.target])
                if isinstance(t, ast.Attribute) and isinstance(t.value, ast.Name)
                and t.value.id == "self"}
    return (classes[0].name, missing) if missing <= members else None


def module_names(text: str | None) -> set[str] | None:
    """The names a module's top level binds (definitions, assignments, imports); None when
    there is no text or it does not parse."""
    tree = _parsed(text)
    return None if tree is None else _top_level(tree)


def _parsed(text: str | None) -> ast.Module | None:
    try:
        return ast.parse(text) if text else None
    except (SyntaxError, ValueError, RecursionError):
        return None


def _top_level(tree: ast.Module) -> set[str]:
    bound, _, _ = names_of(tree)
    return {n for n in bound if any(_binds(node, n) for node in tree.body)}


def _binds(node: ast.stmt, name: str) -> bool:
    """Whether the top-level statement `node` binds `name`."""
    if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
        return node.name == name
    if isinstance(node, (ast.Import, ast.ImportFrom)):
        return any((a.asname or a.name).split(".")[0] == name for a in node.names)
    return any(isinstance(n, ast.Name) and n.id == name and isinstance(n.ctx, ast.Store)
               for n in ast.walk(node))
