"""A top-level call that uses a name the module binds only further down moves below it.

Measured on the 1.5B (build benchmark at 48067b3, bookmarks B3): app/routes.py began
`app.include_router(router)` and defined `router = APIRouter(...)` six lines later; the
module raised NameError on import, every test errored at collection, and the next round,
shown that NameError, sent the file back unchanged. Python runs a module top to bottom, so
a bare call statement (no assignment: nothing below can depend on what it binds) whose names
are bound only later is moved to just after the last top-level statement that binds or uses
them (a router's routes are added by the decorators below its definition); nothing else
moves.
"""

from __future__ import annotations

import ast


def with_late_calls_moved(path: str, text: str) -> tuple[str, list[str]]:
    """(`text` with each top-level call statement placed after the bindings it uses; a note
    per statement moved)."""
    try:
        tree = ast.parse(text)
    except (SyntaxError, ValueError, RecursionError):
        return text, []
    body = tree.body
    bound_at = _first_bindings(body)
    moves: list[tuple[ast.stmt, ast.stmt]] = []  # (statement, the one it goes after)
    for index, node in enumerate(body):
        if not (isinstance(node, ast.Expr) and isinstance(node.value, ast.Call)):
            continue
        late = {name for name in _loaded(node) if bound_at.get(name, -1) > index}
        if late and not _bound_earlier(body[:index], late):
            # after the bindings and what else uses them (`@router.get` routes: an
            # include_router before them would register a router still empty)
            last = max(i for i, other in enumerate(body) if i > index
                       and (_loaded(other) | _stored(other)) & late)
            moves.append((node, body[last]))
    if not moves:
        return text, []
    lines = text.splitlines(keepends=True)
    if not lines[-1].endswith("\n"):
        lines[-1] += "\n"
    # each statement with the blank and comment lines above it, so a moved one keeps them
    ends = [node.end_lineno or node.lineno for node in body]
    chunks = ["".join(lines[start:end]) for start, end in zip([0] + ends[:-1], ends)]
    moved = {id(node) for node, _ in moves}
    out: list[str] = []
    notes: list[str] = []
    for node, chunk in zip(body, chunks):
        if id(node) not in moved:
            out.append(chunk)
        for statement, anchor in moves:
            if anchor is node:
                out.append(chunks[body.index(statement)])
                notes.append(f"{path}: `{ast.unparse(statement)[:60]}` used names the module "
                             "defines only below it; the harness moved it after them")
    return "".join(out + lines[ends[-1]:]), notes


def _first_bindings(body: list[ast.stmt]) -> dict[str, int]:
    """Each name bound at the module's top level, with the index of its first binding."""
    found: dict[str, int] = {}
    for index, node in enumerate(body):
        names: list[str] = []
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            names = [node.name]
        elif isinstance(node, (ast.Assign, ast.AnnAssign, ast.AugAssign)):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            names = [n.id for t in targets for n in ast.walk(t) if isinstance(n, ast.Name)]
        elif isinstance(node, (ast.Import, ast.ImportFrom)):
            names = [(a.asname or a.name).split(".")[0] for a in node.names]
        for name in names:
            found.setdefault(name, index)
    return found


def _loaded(node: ast.stmt) -> set[str]:
    return {n.id for n in ast.walk(node) if isinstance(n, ast.Name)
            and isinstance(n.ctx, ast.Load)}


def _stored(node: ast.stmt) -> set[str]:
    names = {n.id for n in ast.walk(node) if isinstance(n, ast.Name)
             and isinstance(n.ctx, ast.Store)}
    if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
        names.add(node.name)
    if isinstance(node, (ast.Import, ast.ImportFrom)):
        names |= {(a.asname or a.name).split(".")[0] for a in node.names}
    return names


def _bound_earlier(before: list[ast.stmt], names: set[str]) -> bool:
    """Whether a statement before binds one of `names` in a way _first_bindings does not see
    (a loop, a `with`, a conditional): then the call's place may be right, and it stays."""
    return any(isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store) and n.id in names
               for node in before for n in ast.walk(node))
