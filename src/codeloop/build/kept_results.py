"""A test that drops what `add(item_in)` returns and then reads `item_in.id` keeps the result.

Measured on the 1.5B (build benchmark at 48067b3, inventory I3): its store tests were
`inventory.add(item_in)` then `inventory.get(item_in.id)`, `inventory.take(item_in.id, 5)`
on an `ItemIn` fixture; ItemIn has no id (the Item that add returns has), so six of the
eight tests failed on right code, the code came back unchanged twice, a test repair sent the
file back as it was, and the task was blocked. When a test calls something with a model of
the project as an argument and drops the result, then reads a field of that argument which
its model lacks and a model built on it declares, the call's result is kept in the
argument's name (`item_in = inventory.add(item_in)`): what the test reads is then what the
code returned, so wrong code still fails it.

The same when the test compares the argument after such a call and the task says the method
returns a model built on the argument's (`add(BookmarkIn) -> Bookmark`, then `assert
store.get(1) == bookmark_in`): bookmarks B2 at 4e021a9, four of five tests comparing a
stored Bookmark with the BookmarkIn given, against right code, until the task was blocked.
"""

from __future__ import annotations

import ast
import re

from codeloop.build.fixture_requests import fixtures
from codeloop.build.model_fields import ModelFields, Read

_STATED_RETURN = re.compile(r"\b(\w+)\([^()]*\)\s*->\s*([A-Z]\w*)")


def stated_returns(task_text: str) -> dict[str, str]:
    """{method: the class the task says it returns}: `add(ItemIn) -> Item` gives add: Item."""
    return dict(_STATED_RETURN.findall(task_text))


def with_kept_results(text: str, package: str, read: Read,
                      returns: dict[str, str] | None = None,
                      on_main: list[str] | tuple[str, ...] = ()) -> tuple[str, list[str]]:
    """(`text` with such calls' results kept; one note per call). `returns`: what the task
    says its methods return (`stated_returns`); `on_main`: the project's modules on main,
    whose models count too when the file imports them through the task's own module
    (inventory I3's tests: `from app.storage import Inventory, Item, ItemIn`)."""
    try:
        tree = ast.parse(text)
    except (SyntaxError, ValueError, RecursionError):
        return text, []
    models = ModelFields(tree, package, read, own=False)
    for path in on_main:
        models.add_source(read(path))
    made_by = {name: cls for name, node in fixtures(tree).items()
               if (cls := _returned_model(node, models))}
    lines = text.splitlines(keepends=True)
    found: list[tuple[ast.Expr, str, str]] = []  # (call statement, argument, why)
    for test in tree.body:
        if isinstance(test, (ast.FunctionDef, ast.AsyncFunctionDef)) \
                and test.name.startswith("test"):
            found += _dropped_results(test, made_by, models, returns or {})
    notes = []
    for statement, name, why in sorted(found, key=lambda f: -f[0].lineno):
        line = lines[statement.lineno - 1]
        if line[:statement.col_offset].strip() or not line[statement.col_offset:].strip():
            continue
        lines[statement.lineno - 1] = (line[:statement.col_offset] + f"{name} = "
                                       + line[statement.col_offset:])
        notes.append(f"line {statement.lineno}: `{ast.unparse(statement)[:60]}` keeps what it "
                     f"returns in {name}, {why}")
    return "".join(lines), notes[::-1]


def _returned_model(fixture: ast.FunctionDef | ast.AsyncFunctionDef,
                    models: ModelFields) -> str | None:
    """The project model a fixture returns a new instance of (`return ItemIn(...)`)."""
    returned = [n.value for n in ast.walk(fixture) if isinstance(n, (ast.Return, ast.Yield))
                and n.value is not None]
    classes = {getattr(v.func, "id", "") for v in returned if isinstance(v, ast.Call)}
    return next(iter(classes)) if len(classes) == 1 and models.known(next(iter(classes))) \
        else None


def _dropped_results(test: ast.FunctionDef | ast.AsyncFunctionDef, made_by: dict[str, str],
                     models: ModelFields, returns: dict[str, str]
                     ) -> list[tuple[ast.Expr, str, str]]:
    params = {a.arg for a in test.args.args}
    of = {name: cls for name, cls in made_by.items() if name in params}
    found: list[tuple[ast.Expr, str, str]] = []
    body = test.body
    for index, node in enumerate(body):
        if isinstance(node, ast.Assign) and isinstance(node.value, ast.Call) \
                and models.known(getattr(node.value.func, "id", "")):
            for target in node.targets:
                if isinstance(target, ast.Name):
                    of[target.id] = node.value.func.id  # type: ignore[attr-defined]
            continue
        if not (isinstance(node, ast.Expr) and isinstance(node.value, ast.Call)
                and isinstance(node.value.func, ast.Attribute)):  # `store.add(item_in)`
            continue
        args = [a.id for a in node.value.args if isinstance(a, ast.Name) and a.id in of]
        if len(args) != 1:
            continue
        name, cls = args[0], of[args[0]]
        read = _read_only_on_built(body[index + 1:], name, cls, models)
        method = node.value.func.attr  # type: ignore[attr-defined]
        why = f"which the test then reads ({name}.{read})" if read else \
            f"which the test compares, and the task says {method} returns {returns[method]}" \
            if returns.get(method) in models.built_from(cls) \
            and _compared(body[index + 1:], name) else ""
        if why:
            found.append((node, name, why))
            of.pop(name)  # its name now holds what the call returned
    return found


def _compared(after: list[ast.stmt], name: str) -> bool:
    """Whether an assert below compares `name` (or a list holding it) before anything binds
    `name` again."""
    for node in after:
        if any(isinstance(n, ast.Name) and n.id == name and isinstance(n.ctx, ast.Store)
               for n in ast.walk(node)):
            return False
        if isinstance(node, ast.Assert) and isinstance(node.test, ast.Compare) and any(
                isinstance(n, ast.Name) and n.id == name
                for side in [node.test.left, *node.test.comparators] for n in ast.walk(side)):
            return True
    return False


def _read_only_on_built(after: list[ast.stmt], name: str, cls: str,
                        models: ModelFields) -> str | None:
    """A field of `name` read below, before anything binds `name` again, that `cls` lacks
    and a model built on `cls` declares."""
    built = set().union(*(models.fields(b) for b in models.built_from(cls)), set())
    own = models.fields(cls)
    for node in after:
        for inner in ast.walk(node):
            if isinstance(inner, ast.Name) and inner.id == name \
                    and isinstance(inner.ctx, ast.Store):
                return None
            if isinstance(inner, ast.Attribute) and isinstance(inner.value, ast.Name) \
                    and inner.value.id == name and inner.attr not in own \
                    and inner.attr in built:
                return inner.attr
    return None
