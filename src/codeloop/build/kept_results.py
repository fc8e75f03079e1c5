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
"""

from __future__ import annotations

import ast

from codeloop.build.fixture_requests import fixtures
from codeloop.build.model_fields import ModelFields, Read


def with_kept_results(text: str, package: str, read: Read) -> tuple[str, list[str]]:
    """(`text` with such calls' results kept; one note per call)."""
    try:
        tree = ast.parse(text)
    except (SyntaxError, ValueError, RecursionError):
        return text, []
    models = ModelFields(tree, package, read, own=False)
    made_by = {name: cls for name, node in fixtures(tree).items()
               if (cls := _returned_model(node, models))}
    lines = text.splitlines(keepends=True)
    found: list[tuple[ast.Expr, str, str]] = []  # (call statement, argument, field read)
    for test in tree.body:
        if isinstance(test, (ast.FunctionDef, ast.AsyncFunctionDef)) \
                and test.name.startswith("test"):
            found += _dropped_results(test, made_by, models)
    notes = []
    for statement, name, read_field in sorted(found, key=lambda f: -f[0].lineno):
        line = lines[statement.lineno - 1]
        if line[:statement.col_offset].strip() or not line[statement.col_offset:].strip():
            continue
        lines[statement.lineno - 1] = (line[:statement.col_offset] + f"{name} = "
                                       + line[statement.col_offset:])
        notes.append(f"line {statement.lineno}: `{ast.unparse(statement)[:60]}` keeps what it "
                     f"returns in {name}, which the test then reads ({name}.{read_field})")
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
                     models: ModelFields) -> list[tuple[ast.Expr, str, str]]:
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
        read_field = _read_only_on_built(body[index + 1:], name, cls, models)
        if read_field:
            found.append((node, name, read_field))
            of.pop(name)  # its name now holds what the call returned
    return found


def _read_only_on_built(after: list[ast.stmt], name: str, cls: str,
                        models: ModelFields) -> str | None:
    """A field of `name` read below, before anything binds `name` again, that `cls` lacks
    and a model built on `cls` declares."""
    built = set().union(*(models.fields(b) for b in models.based_on(cls)), set())
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
