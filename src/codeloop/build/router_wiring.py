"""The harness registers a task's FastAPI router in the entry point when nothing does: a
module-level `router = APIRouter(...)` in a project module whose module app.main never
imports gets `from app.routes import router as routes_router` and
`app.include_router(routes_router)` (python-api: the entry point's `X = FastAPI(...)`).

Why not leave it to the model: the integration's whole job on the todo graph is this one
wiring, and on the 1.5B (stop 61, all three tasks merged) its first write turned a passing
suite into two collection errors, three fixes did not mend it, and it was rolled back: the
build ended COMPLETE with a router nobody serves. Wiring that is mechanical is done
mechanically; the suite judges it like any write (integration.py keeps it only when the
suite is no worse), and the model's integration round follows.

A router module that registers itself (`from app.main import app` and
`app.include_router(router)` at its top level) is served only when something else happens to
import it, and wiring it into app.main as it is makes an import cycle: a test that imports
app.routes first gets "cannot import name 'router' from partially initialized module"
(the 1.5B's bookmarks build at ec2b586: COMPLETE, and POST /bookmarks answered 404 on main).
Those two statements move to the entry point: they leave the module
(`without_self_registration`), and the module is wired like any other.
"""

from __future__ import annotations

import ast

from codeloop.build.contract import callee, module_of


def unwired_routers(files: dict[str, str], entry: str) -> list[tuple[str, str]]:
    """(module, name) of each module-level APIRouter in `files` (project modules, not the
    entry point) whose module no module of `files` imports (one that is imported may be
    included by a router of its importer)."""
    imported = set().union(*(_imported_modules(text) for text in files.values()))
    found = []
    for path, text in sorted(files.items()):
        if path == entry or not path.endswith(".py"):
            continue
        module = module_of(path)
        if module in imported:
            continue
        found += [(module, name) for name in _routers(text)]
    return found


def wired_entry(entry_text: str, routers: list[tuple[str, str]]) -> str | None:
    """`entry_text` with an import and an `include_router` line per router, after the
    module's last statement; None when it holds no `X = FastAPI(...)` or does not parse."""
    try:
        parsed = ast.parse(entry_text)
    except (SyntaxError, ValueError, MemoryError, RecursionError):
        return None
    app = next((target.id for node in parsed.body if isinstance(node, ast.Assign)
                and callee(node.value) == "FastAPI"
                for target in node.targets if isinstance(target, ast.Name)), None)
    if app is None or not routers:
        return None
    lines = [entry_text.rstrip("\n"), ""]
    for module, name in routers:
        alias = f"{module.rsplit('.', 1)[-1]}_{name}"
        lines += [f"from {module} import {name} as {alias}  # noqa: E402 (wired by codeloop)",
                  f"{app}.include_router({alias})"]
    return "\n".join(lines) + "\n"


def without_self_registration(text: str, entry_module: str) -> str | None:
    """`text` without its top-level `from <entry_module> import X` and `X.include_router(...)`
    statements, when it has both and X is used nowhere else in it; None when it has none to
    take out (or does not parse)."""
    try:
        parsed = ast.parse(text)
    except (SyntaxError, ValueError, MemoryError, RecursionError):
        return None
    imports = [node for node in parsed.body if isinstance(node, ast.ImportFrom)
               and node.module == entry_module and not node.level]
    imported = {alias.asname or alias.name for node in imports for alias in node.names}
    registrations = [node for node in parsed.body if isinstance(node, ast.Expr)
                     and isinstance(node.value, ast.Call)
                     and isinstance(node.value.func, ast.Attribute)
                     and node.value.func.attr == "include_router"
                     and isinstance(node.value.func.value, ast.Name)
                     and node.value.func.value.id in imported]
    holders = {node.value.func.value.id for node in registrations}  # type: ignore[attr-defined]
    if not registrations or holders != imported:
        return None  # the import brings more than the app it registers on: leave it
    dropped = {*imports, *registrations}
    used = [node for top in parsed.body if top not in dropped for node in ast.walk(top)
            if isinstance(node, ast.Name) and node.id in holders]
    if used:
        return None
    lines = text.splitlines(keepends=True)
    for node in sorted(dropped, key=lambda n: n.lineno, reverse=True):
        del lines[node.lineno - 1:node.end_lineno]
    return "".join(lines)


def _routers(text: str) -> list[str]:
    try:
        parsed = ast.parse(text)
    except (SyntaxError, ValueError, MemoryError, RecursionError):
        return []
    return [target.id for node in parsed.body if isinstance(node, ast.Assign)
            and callee(node.value) == "APIRouter"
            for target in node.targets if isinstance(target, ast.Name)]


def _imported_modules(text: str) -> set[str]:
    """The modules `text` imports, `from app import routes` counted as app.routes."""
    try:
        parsed = ast.parse(text)
    except (SyntaxError, ValueError, MemoryError, RecursionError):
        return set()
    found: set[str] = set()
    for node in ast.walk(parsed):
        if isinstance(node, ast.Import):
            found.update(a.name for a in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
            found.add(node.module)
            found.update(f"{node.module}.{a.name}" for a in node.names)
    return found
