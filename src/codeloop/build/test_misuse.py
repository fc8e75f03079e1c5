"""What in a test file can never pass whatever the task's code, or tests none of it: found
before any code is asked for, so the tests are rewritten (test_scope.py), not the code
blamed.

Each from the 1.5B: a pydantic model called with a positional argument (`Todo(TodoIn(...))`),
a model already on main built without a field it requires, a name the task builds,
imported from the project and rebound by the test (`Inventory = pytest.fixture`), a route
the test file defines itself; and what each test reaches (test_reach.py).
"""

from __future__ import annotations

import ast
from pathlib import Path

from codeloop.build.contract import (
    TaskContract,
    callee,
    normal_path,
    path_of,
    read_module,
    route_decorators,
)
from codeloop.build.missing_ids import expects_not_found
from codeloop.build.model_fields import ModelFields
from codeloop.build.module_store import module_names, whole_imports
from codeloop.build.test_reach import reach_problems

Problem = tuple[int, str]  # (line, what is wrong)


def misuse(parsed: ast.Module, contract: TaskContract, tree: Path) -> list[Problem]:
    """The problems of the test file `parsed`, in the worktree `tree`."""
    fields = ModelFields(parsed, contract.src_dir.replace("/", "."),
                         lambda p: _read_inside(tree, p), own=False)
    refused = _expected_to_fail(parsed)
    problems: list[Problem] = _rebound(parsed, contract) + _own_routes(parsed) \
        + reach_problems(parsed, contract) + _not_in_module(parsed, contract, tree) \
        + _raises_around_requests(parsed) + _main_routes_of_own_app(parsed, contract)
    for node in ast.walk(parsed):
        if isinstance(node, ast.Call):
            problems += _positional_model(node, contract)
            if node.lineno not in refused:
                problems += _model_without_fields(node, contract, fields)
    return problems


def _rebound(parsed: ast.Module, contract: TaskContract) -> list[Problem]:
    """A top-level assignment to a name of the task's that the file imports from the
    project: the tests then test that, not the task's code (an app of the test's own, `app =
    FastAPI()` with the router included, is no such name: it tests the router). Measured on the 1.5B (inventory I3, stop 65): `Inventory =
    pytest.fixture` and `OutOfStock = pytest.fixture` after importing both from app.storage,
    the tests exercising a `MockInventory` of their own."""
    package = contract.src_dir.replace("/", ".")
    imported = {(a.asname or a.name): n.module for n in parsed.body
                if isinstance(n, ast.ImportFrom) and n.module and not n.level
                and n.module.split(".")[0] == package for a in n.names
                if a.name in contract.names}
    problems: list[Problem] = []
    for node in parsed.body:
        targets = node.targets if isinstance(node, ast.Assign) else \
            [node.target] if isinstance(node, (ast.AnnAssign, ast.AugAssign)) else []
        for target in targets:
            if isinstance(target, ast.Name) and target.id in imported:
                problems.append((node.lineno, (
                    f"assigns {target.id}, imported from {imported[target.id]}: the tests "
                    f"must use the project's {target.id} as it is, not a replacement")))
    return problems


def _own_routes(parsed: ast.Module) -> list[Problem]:
    """A route the test file defines itself (`@app.post("/bookmarks")` over a handler):
    its tests then call that route, not the project's. Measured on the 1.5B (bookmarks B3,
    stop 66): its tests made an app of their own with every route the task promises, and
    all four code rounds sent that file back as app/routes.py."""
    return [(line, (f"defines the route {method} {path} itself: the tests call the project's "
                   "routes (a TestClient of the app in the entry point, or of an app that "
                   "includes the task's router), they never define one"))
            for method, path, line in route_decorators(parsed)]


def _not_in_module(parsed: ast.Module, contract: TaskContract, tree: Path) -> list[Problem]:
    """A name read on a project module already on main that the module does not define
    (`storage.add(note_in)` where app.storage has only `class NoteStore`): AttributeError
    whatever the task's code. Measured on the 1.5B (notes N4 at 48067b3): the routes tests
    called `storage.add` and read `storage.store`, and the routes copied it."""
    problems: list[Problem] = []
    package = contract.src_dir.replace("/", ".")
    for alias, module in whole_imports(parsed, package).items():
        if path_of(module) in contract.modules:
            continue  # the task's own module: not written yet
        names = module_names(_read_inside(tree, path_of(module)))
        if names is None:
            continue
        # every line that uses one, not only the first: pruned, each test using it goes
        # (notes N4 at 4988dd1: `storage.add` in four tests, the first one named, and the
        # three left kept the file out of scope until the harness's contract replaced it)
        uses = sorted({(node.lineno, node.attr) for node in ast.walk(parsed)
                       if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name)
                       and node.value.id == alias and node.attr not in names})
        public = ", ".join(sorted(n for n in names if not n.startswith("_"))[:6])
        problems += [(line, (f"uses {alias}.{name}, which {module} does not define (it "
                            f"defines {public}): use what it defines"))
                     for line, name in uses]
    return problems


_HTTP_METHODS = {"get", "post", "put", "patch", "delete", "head", "options", "request"}


def _raises_around_requests(parsed: ast.Module) -> list[Problem]:
    """`with pytest.raises(HTTPException): client.post(...)`: a TestClient answers an
    HTTPException with its status, it never raises it, so the block fails whatever the
    routes. Measured on the 1.5B (notes N4 at 4e021a9): two tests expected a 422 so."""
    problems: list[Problem] = []
    for node in ast.walk(parsed):
        if not isinstance(node, (ast.With, ast.AsyncWith)) or not any(
                "raises" in ast.unparse(item.context_expr)
                and "HTTPException" in ast.unparse(item.context_expr) for item in node.items):
            continue
        requests = [call for statement in node.body for call in ast.walk(statement)
                    if isinstance(call, ast.Call) and isinstance(call.func, ast.Attribute)
                    and call.func.attr in _HTTP_METHODS]
        if requests:
            problems.append((node.lineno, (
                "expects a request to raise HTTPException, but the test client answers it "
                "with its status code: assert `response.status_code` instead")))
    return problems


def _main_routes_of_own_app(parsed: ast.Module, contract: TaskContract) -> list[Problem]:
    """A request for a route main serves (`GET /health`) in a file whose client is an app the
    test builds itself (`app = FastAPI()`, the task's router included): that app serves the
    task's routes only, so the test gets 404 whatever the code. Measured on the 1.5B: 13 of
    the routes tasks' test files in six build benchmark runs built such an app and asked it
    for /health (notes N4 at 4e021a9: one of its eight failures)."""
    own = {target.id for node in parsed.body if isinstance(node, ast.Assign)
           and isinstance(node.value, ast.Call) and callee(node.value) == "FastAPI"
           for target in node.targets if isinstance(target, ast.Name)}
    clients = {callee(arg) or getattr(arg, "id", "") for node in ast.walk(parsed)
               if isinstance(node, ast.Call) and callee(node) == "TestClient"
               for arg in node.args[:1]}
    if not own or not clients or not clients <= own:
        return []  # no app of its own, or a client of another app beside it: not told apart
    mains = set(contract.served) - set(contract.endpoints)
    problems: list[Problem] = []
    asking = [function for function in ast.walk(parsed)
              if isinstance(function, (ast.FunctionDef, ast.AsyncFunctionDef))
              and not expects_not_found(function)]  # a 404 from that app is right
    for node in (node for function in asking for node in ast.walk(function)):
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) \
                and node.func.attr in _HTTP_METHODS - {"request"} and node.args \
                and isinstance(node.args[0], ast.Constant) \
                and isinstance(node.args[0].value, str):
            route = f"{node.func.attr.upper()} {normal_path(node.args[0].value)}"
            if route in mains:
                problems.append((node.lineno, (
                    f"asks for {route}, which the project's entry point serves, of the app "
                    f"the test builds itself ({', '.join(sorted(own))} = FastAPI()): that app "
                    "serves the task's routes only; test the task's routes")))
    return problems


def _positional_model(node: ast.Call, contract: TaskContract) -> list[Problem]:
    """A pydantic model called with a positional argument: pydantic refuses it, so the
    test never passes whatever the code (the 1.5B wrote `Todo(TodoIn(title="x"))`)."""
    name = getattr(node.func, "id", "")
    if name not in contract.models or not node.args:
        return []
    return [(node.lineno, (
        f"calls {name}(...) with a positional argument, but {name} is a pydantic model: "
        f"it takes keyword arguments only ({name}(field=value, ...), or "
        f"{name}(**other.model_dump(), field=value))"))]


def _model_without_fields(node: ast.Call, contract: TaskContract,
                          fields: ModelFields) -> list[Problem]:
    """A model already on main built without a field it requires, outside a
    `pytest.raises`: pydantic refuses it, so the test never passes whatever the task's
    code. Measured on the 1.5B (inventory I3, stop 65): `ItemIn(name="Item 1",
    quantity=10)` without its price; the round told to fix the code, and no code could."""
    name = getattr(node.func, "id", "")
    if name not in contract.models or not fields.known(name) or node.args \
            or any(k.arg is None for k in node.keywords):
        return []
    missing = sorted(fields.required(name) - {k.arg for k in node.keywords})
    if not missing:
        return []
    return [(node.lineno, (
        f"builds {name} without {', '.join(missing)}, which {name} requires (it is on main, "
        f"{name}'s fields stay as they are): pydantic refuses it; give every field {name} "
        f"requires ({', '.join(sorted(fields.required(name)))})"))]


def _expected_to_fail(parsed: ast.Module) -> set[int]:
    """The lines inside `with pytest.raises(...)` blocks: a construction there is meant to
    be refused."""
    lines: set[int] = set()
    for node in ast.walk(parsed):
        if isinstance(node, (ast.With, ast.AsyncWith)) and any(
                "raises" in ast.unparse(item.context_expr) for item in node.items):
            lines |= set(range(node.lineno, (node.end_lineno or node.lineno) + 1))
    return lines


def _read_inside(tree: Path, path: str) -> str | None:
    """A worktree module's text; None for a path that leaves the worktree through a link
    at any depth (model-written code ran in that tree), a link, or a huge file."""
    target = tree / path
    try:
        if not target.resolve().is_relative_to(tree.resolve()):
            return None
    except (OSError, RuntimeError):
        return None
    return read_module(target)
