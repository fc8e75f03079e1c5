"""A test's `from app.x import Name` where app.x has no `Name` but one other module of the
project is its home: the harness corrects the import rather than refusing the file.

Measured on the 1.5B (the todo example's routes task, retry 2): its tests imported
`TodoStore` and `router` from app.main, which holds neither; TodoStore is T2's, in
app.storage, and `router` is what the task itself builds in app.routes. Refused three times
with the reason said, the tests were pruned to what was left; the import's home is not a
guess the model has to make again. Corrected only where the home is unambiguous: the one
module of the task's own that the name belongs to, or the one module on main that defines
it (a class, function or assignment, not an import of it). A project name the file uses and
never imports (the 1.5B's route tests used `TodoIn` with no import, refused three times) gets
its import from the same one home.
"""

from __future__ import annotations

import ast
import builtins
from collections.abc import Callable

from codeloop.build.contract import TaskContract, is_test_module, module_of, path_of
from codeloop.build.source_spans import if_it_parses
from codeloop.jobs.edit_engine.keep_content import after_imports
from codeloop.jobs.forgotten_imports import names_of

Read = Callable[[str], "str | None"]  # a worktree file's text, through the path guard


def mended_imports(source: str, contract: TaskContract, read: Read,
                   path: str = "") -> tuple[str, list[str]]:
    """The repairs on the file at `path` (a test when ""): a module's imports of itself
    dropped, imports pointed at their names' homes, then the project names it forgot to
    import; one note per name."""
    source, selfish = without_self_imports(source, path) if path else (source, [])
    source, moved = corrected_imports(source, contract, read)
    source, forgotten = forgotten_project_imports(source, contract, read, path)
    return source, selfish + moved + forgotten


def without_self_imports(source: str, path: str) -> tuple[str, list[str]]:
    """(`source`, the module at `path`, without its top-level imports of itself, one note
    each); unchanged when there is none or the result would not parse. Measured on the 1.5B
    (bookmarks B3): its app/routes.py began with the tests' `from app.routes import router`
    in every attempt, and each ended in a circular ImportError."""
    try:
        tree = ast.parse(source)
    except SyntaxError:
        return source, []
    own = module_of(path)
    lines = source.splitlines(keepends=True)
    notes: list[str] = []
    for node in reversed(tree.body):
        if isinstance(node, ast.ImportFrom) and not node.level and node.module:
            mine = [a for a in node.names if node.module == own
                    or f"{node.module}.{a.name}" == own]
            keep = [a for a in node.names if a not in mine]
            statement = f"from {node.module} import {', '.join(map(_spelled, keep))}\n"
        elif isinstance(node, ast.Import):
            mine = [a for a in node.names if a.name == own]
            keep = [a for a in node.names if a not in mine]
            statement = f"import {', '.join(map(_spelled, keep))}\n"
        else:
            continue
        if not mine:
            continue
        lines[node.lineno - 1:node.end_lineno or node.lineno] = [statement] if keep else []
        spelled = (f"from {node.module} import {', '.join(a.name for a in mine)}"
                   if isinstance(node, ast.ImportFrom) else f"import {own}")
        notes.insert(0, f"the module imported itself (`{spelled}`): the harness removed "
                        "that import (a module uses its own names directly)")
    return if_it_parses(source, "".join(lines), notes)


def corrected_imports(source: str, contract: TaskContract,
                      read: Read) -> tuple[str, list[str]]:
    """(`source` with each project `from M import n` whose M lacks `n` pointed at n's home,
    one note per corrected name); unchanged when nothing is corrected or it would not parse.
    `read` gives a module's text on the worktree (None: unreadable, refused)."""
    parsed = _python(source, contract)
    if parsed is None:
        return source, []
    package = contract.src_dir.replace("/", ".")
    lines = source.splitlines(keepends=True)
    notes: list[str] = []
    for node in reversed(parsed.body):  # from the bottom: earlier line numbers stay right
        if not isinstance(node, ast.ImportFrom) or node.level or not node.module \
                or node.module.split(".")[0] != package:
            continue
        moved: dict[str, list[str]] = {}
        kept: list[ast.alias] = []
        said: list[str] = []
        for alias in node.names:
            home = _home(alias.name, node.module, contract, read)
            if home is None:
                kept.append(alias)
            else:
                moved.setdefault(home, []).append(_spelled(alias))
                said.append(f"{alias.name} is imported from {home}, not {node.module} "
                            f"(which has no {alias.name})")
        if not moved:
            continue
        new = [f"from {node.module} import {', '.join(map(_spelled, kept))}\n"] if kept else []
        new += [f"from {home} import {', '.join(names)}\n" for home, names in moved.items()]
        lines[node.lineno - 1:node.end_lineno or node.lineno] = new
        notes = said + notes
    return if_it_parses(source, "".join(lines), notes)


def forgotten_project_imports(source: str, contract: TaskContract, read: Read,
                              path: str = "") -> tuple[str, list[str]]:
    """(`source`, the file at `path`, with `from <home> import name` for each name it reads
    and binds nowhere (not a builtin) whose home is unambiguous and not the file itself, one
    note per name); unchanged otherwise."""
    parsed = _python(source, contract)
    if parsed is None:
        return source, []
    bound, read_names, _ = names_of(parsed)
    homes: dict[str, list[str]] = {}
    for name in sorted(read_names - bound - set(dir(builtins))):
        home = _home_of(name, path or None, contract, read)
        if home is not None and path_of(home) != path:
            homes.setdefault(home, []).append(name)
    if not homes:
        return source, []
    lines = source.splitlines(keepends=True)
    at = after_imports(parsed)
    added = [f"from {home} import {', '.join(names)}\n" for home, names in homes.items()]
    if at and not lines[at - 1].endswith("\n"):
        lines[at - 1] += "\n"
    result = "".join([*lines[:at], *added, *lines[at:]])
    try:
        ast.parse(result)
    except SyntaxError:
        return source, []
    return result, [f"{name} is imported from {home} (the file used it without importing it)"
                    for home, names in homes.items() for name in names]


def _python(source: str, contract: TaskContract) -> ast.Module | None:
    """`source` parsed, for a Python task; None otherwise or when it does not parse."""
    if contract.language != "python":
        return None
    try:
        return ast.parse(source)
    except (SyntaxError, ValueError, MemoryError, RecursionError):
        return None


def _home(name: str, module: str, contract: TaskContract, read: Read) -> str | None:
    """The module `name` should come from, when `module` (a module on the worktree) lacks it
    and exactly one other module is its home."""
    if path_of(module) in contract.modules and path_of(module) not in contract.built \
            and name not in contract.names:
        # the task's own module, not written yet, asked for an earlier task's name
        # (inventory I2's retry at 4e021a9: `from app.pricing import ItemIn`, I1's model in
        # app.models): its one home on main, when it has one
        return _home_of(name, path_of(module), contract, read)
    path = next((p for p in (path_of(module), module.replace(".", "/") + "/__init__.py")
                 if p in contract.built), None)
    if path is None or name == "*" or path in contract.modules or name in contract.built[path]:
        return None  # not on main (a file the same reply may create), the task's own
        # module (its code is not written yet), or the name is there
    if f"{module}.{name}".replace(".", "/") + ".py" in contract.built:
        return None  # a submodule (`from app import models`)
    return _home_of(name, path, contract, read)


def _home_of(name: str, path: str | None, contract: TaskContract, read: Read) -> str | None:
    """The one module `name` comes from (other than `path`): the task's one module for a name
    the task builds, else the one module on main that defines it."""
    if name in contract.names and len(contract.modules) == 1:
        return module_of(contract.modules[0])
    homes = [p for p in sorted(contract.built) if p != path and not is_test_module(p)
             and name in contract.built[p] and _defines(read(p), name)]
    return module_of(homes[0]) if len(homes) == 1 else None


def _defines(source: str | None, name: str) -> bool:
    """The module `source` defines `name` at its top level (not by importing it)."""
    if source is None:
        return False
    try:
        parsed = ast.parse(source)
    except (SyntaxError, ValueError, MemoryError, RecursionError):
        return False
    for node in parsed.body:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)) \
                and node.name == name:
            return True
        if isinstance(node, (ast.Assign, ast.AnnAssign)):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            if any(isinstance(t, ast.Name) and t.id == name for t in targets):
                return True
    return False


def _spelled(alias: ast.alias | str) -> str:
    if isinstance(alias, str):
        return alias
    return f"{alias.name} as {alias.asname}" if alias.asname else alias.name
