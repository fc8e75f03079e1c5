"""Routes that make their store afresh on every request share one, rewritten by the harness.

Measured on the 1.5B: in four routes tasks of five (todo T3, bookmarks B3 twice, notes N4,
stops 61-62) each route began with `store = NoteStore()` or took `store: BookmarkStore =
Depends()`, so what a POST added the next GET never found; the task's text said "on one
NoteStore", the code prompt said to share one module-level store, and the model kept
writing it. In a module that defines an `APIRouter`, a project class (imported from the
source package) that route functions construct with no arguments, or take as a
`Depends()` parameter, and that the module never instantiates at its top level gets one
module-level instance after the imports; each of those constructions becomes that instance,
and each such `Depends()` returns it.
"""

from __future__ import annotations

import ast
import re
from dataclasses import dataclass

from codeloop.build.source_spans import if_it_parses, parsed_python, replace_span
from codeloop.jobs.edit_engine.keep_content import after_imports
from codeloop.jobs.forgotten_imports import names_of


@dataclass(frozen=True)
class _Edit:
    start: tuple[int, int]
    end: tuple[int, int]
    text: str


def shared_store(path: str, source: str, package: str,
                 models: set[str]) -> tuple[str, list[str]]:
    """(`source` with the stores its routes make per request shared, one note per class);
    unchanged when there is none, the module serves no router, or the result would not
    parse. `package`: the source package (`app`); `models`: its pydantic models (values,
    not stores: never shared)."""
    tree = parsed_python(path, source)
    if tree is None or not _has_router(tree):
        return source, []
    project = _project_classes(tree, package) - models
    made_at_top = {_called(n.value) for n in tree.body
                   if isinstance(n, (ast.Assign, ast.AnnAssign)) and n.value is not None}
    bound, _, _ = names_of(tree)  # anywhere: a route's own `store = ...` stays its own
    edits: list[_Edit] = []
    names: dict[str, str] = {}
    for function in (n for n in tree.body if isinstance(n, (ast.FunctionDef,
                                                            ast.AsyncFunctionDef))):
        for node in ast.walk(function):
            cls = _called(node) if isinstance(node, ast.Call) else None
            if cls in project and cls not in made_at_top and not node.args \
                    and not node.keywords:
                name = names.setdefault(cls, _instance_name(cls, bound, names))
                edits.append(_edit(node, name))
        for argument, default in _defaults(function.args):
            cls = _annotated(argument)
            if cls in project and cls not in made_at_top and _is_bare_depends(default):
                name = names.setdefault(cls, _instance_name(cls, bound, names))
                edits.append(_edit(default, f"Depends(lambda: {name})"))
    if not edits:
        return source, []
    lines = source.splitlines(keepends=True)
    for edit in sorted(edits, key=lambda e: e.start, reverse=True):
        lines = replace_span(lines, edit.start, edit.end, edit.text)
    at = after_imports(tree)
    made = "".join(f"{name} = {cls}()  # one store for every request (codeloop)\n"
                   for cls, name in names.items())
    result = "".join([*lines[:at], "\n" if at else "", made, *lines[at:]])
    return if_it_parses(source, result, [f"{path}: the routes made a {cls} per request, so what one request added "
                    f"the next could not find: the harness made one module-level `{name} = "
                    f"{cls}()` that they share" for cls, name in names.items()])


def _has_router(tree: ast.Module) -> bool:
    return any(isinstance(n, ast.Assign) and _called(n.value) == "APIRouter"
               for n in tree.body)


def _project_classes(tree: ast.Module, package: str) -> set[str]:
    """Capitalised names imported from the source package."""
    return {(a.asname or a.name) for n in tree.body if isinstance(n, ast.ImportFrom)
            and not n.level and (n.module or "").split(".")[0] == package
            for a in n.names if a.name[:1].isupper()}


def _called(node: ast.expr | None) -> str | None:
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Name):
        return node.func.id
    return None


def _annotated(argument: ast.arg) -> str | None:
    return argument.annotation.id if isinstance(argument.annotation, ast.Name) else None


def _is_bare_depends(node: ast.expr | None) -> bool:
    return isinstance(node, ast.Call) and _called(node) == "Depends" and not node.args \
        and not node.keywords


def _defaults(arguments: ast.arguments) -> list[tuple[ast.arg, ast.expr | None]]:
    positional = [*arguments.posonlyargs, *arguments.args]
    padded = [None] * (len(positional) - len(arguments.defaults)) + list(arguments.defaults)
    return [*zip(positional, padded, strict=True),
            *zip(arguments.kwonlyargs, arguments.kw_defaults, strict=True)]


def _instance_name(cls: str, bound: set[str], taken: dict[str, str]) -> str:
    snake = re.sub(r"(?<!^)(?=[A-Z])", "_", cls).lower()  # NoteStore -> note_store
    for name in ("store", snake, f"shared_{snake}"):
        if name not in bound and name not in taken.values():
            return name
    return f"shared_{snake}_{len(taken)}"


def _edit(node: ast.expr, text: str) -> _Edit:
    return _Edit((node.lineno, node.col_offset),
                 (node.end_lineno or node.lineno, node.end_col_offset or 0), text)
