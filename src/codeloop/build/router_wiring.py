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
"""

from __future__ import annotations

import ast

from codeloop.build.contract import module_of


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
                and _callee(node.value) == "FastAPI"
                for target in node.targets if isinstance(target, ast.Name)), None)
    if app is None or not routers:
        return None
    lines = [entry_text.rstrip("\n"), ""]
    for module, name in routers:
        alias = f"{module.rsplit('.', 1)[-1]}_{name}"
        lines += [f"from {module} import {name} as {alias}  # noqa: E402 (wired by codeloop)",
                  f"{app}.include_router({alias})"]
    return "\n".join(lines) + "\n"


def _routers(text: str) -> list[str]:
    try:
        parsed = ast.parse(text)
    except (SyntaxError, ValueError, MemoryError, RecursionError):
        return []
    return [target.id for node in parsed.body if isinstance(node, ast.Assign)
            and _callee(node.value) == "APIRouter"
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


def _callee(node: ast.expr) -> str:
    if not isinstance(node, ast.Call):
        return ""
    func = node.func
    return func.id if isinstance(func, ast.Name) else \
        func.attr if isinstance(func, ast.Attribute) else ""
