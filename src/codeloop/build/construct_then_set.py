"""A pydantic model built without a required field that the very next lines set, built
with it.

Measured on the 1.5B (build benchmark, notes N3 in all four attempts of stop 65, todo T2
before it): `note = Note(**note_in.dict())` then `note.id = len(self.notes) + 1`. pydantic
validates on construction, so the first line raises "Field required" for `id` and every
test of the store fails; the failure, the lines it points at and the prompt's "build them
with keyword arguments" did not change what the model wrote. The assignments that follow
the construction directly, of a field the model declares without a default and the call
does not give, go into the call (`Note(**{**note_in.dict(), 'id': ...})`: an unpacked
mapping is merged, so a key it already holds is overridden exactly as the assignment
would have). Only a value that does not read the new object moves; what the model meant is
kept, and the tests still judge it.
"""

from __future__ import annotations

import ast
from collections.abc import Callable

from codeloop.build.contract import module_of
from codeloop.build.model_fields import ModelFields, Read
from codeloop.build.source_spans import if_it_parses, parsed_python, replace_span


def constructed_with_fields(path: str, source: str, models: set[str],
                            read: Read) -> tuple[str, list[str]]:
    """(`source` with each construction of a model in `models` that misses a required
    field the next statements set given that field, one note each); unchanged when there
    is none or the result would not parse."""
    tree = parsed_python(path, source)
    if tree is None or not models:
        return source, []
    required = ModelFields(tree, module_of(path).split(".", 1)[0], read).required
    folds = [fold for body in _bodies(tree) for index in range(len(body))
             if (fold := _fold(body, index, models, required)) is not None]
    lines = source.splitlines(keepends=True)
    for statement, first, last, _, _ in sorted(folds, key=lambda f: f[1].lineno,
                                                reverse=True):  # the file's end first
        lines = replace_span(lines, (first.lineno, first.col_offset),
                             (last.end_lineno or last.lineno, last.end_col_offset or 0),
                             ast.unparse(statement))
    notes = [f"{path}: {cls}(...) was built without {', '.join(fields)}, which {cls} "
             "requires, and set just after: pydantic refuses a model without a required "
             f"field, so the harness passed {', '.join(fields)} in the call"
             for _, first, _, fields, cls in sorted(folds, key=lambda f: f[1].lineno)]
    return if_it_parses(source, "".join(lines), notes)


def _bodies(tree: ast.Module):
    """Every statement list of the module, outermost first."""
    for node in ast.walk(tree):
        for field in ("body", "orelse", "finalbody"):
            body = getattr(node, field, None)
            if isinstance(body, list) and body and isinstance(body[0], ast.stmt):
                yield body


def _fold(body: list[ast.stmt], index: int, models: set[str],
          required: Callable[[str], set[str]]):
    """(the construction statement rewritten, it as it was, the last statement folded, the
    fields, the class) when `body[index]` builds a model the statements after it complete, else None."""
    statement = body[index]
    if not (isinstance(statement, ast.Assign) and len(statement.targets) == 1
            and isinstance(statement.targets[0], ast.Name)
            and isinstance(statement.value, ast.Call)
            and isinstance(statement.value.func, ast.Name)
            and statement.value.func.id in models):
        return None
    name, call = statement.targets[0].id, statement.value
    missing = required(call.func.id) - {k.arg for k in call.keywords if k.arg}
    values: dict[str, ast.expr] = {}
    last = statement
    for after in body[index + 1:]:
        field = _set_field(after, name)
        if field is None or field[0] not in missing or field[0] in values \
                or _reads(field[1], name):
            break
        values[field[0]] = field[1]
        last = after
    if not values:
        return None
    new_call = _with_fields(call, values)
    if new_call is None:
        return None
    rewritten = ast.fix_missing_locations(ast.copy_location(
        ast.Assign(targets=statement.targets, value=new_call), statement))
    return rewritten, statement, last, list(values), call.func.id


def _set_field(statement: ast.stmt, name: str) -> tuple[str, ast.expr] | None:
    if isinstance(statement, ast.Assign) and len(statement.targets) == 1:
        target = statement.targets[0]
        if isinstance(target, ast.Attribute) and isinstance(target.value, ast.Name) \
                and target.value.id == name:
            return target.attr, statement.value
    return None


def _reads(value: ast.expr, name: str) -> bool:
    return any(isinstance(n, ast.Name) and n.id == name for n in ast.walk(value))


def _with_fields(call: ast.Call, values: dict[str, ast.expr]) -> ast.Call | None:
    """`call` given `values`: merged into its one unpacked mapping, or as keywords when it
    has none; None when it unpacks more than one."""
    unpacked = [k for k in call.keywords if k.arg is None]
    if len(unpacked) > 1:
        return None
    keywords = [k for k in call.keywords if k.arg is not None]
    if not unpacked:
        keywords += [ast.keyword(arg=f, value=v) for f, v in values.items()]
        return ast.Call(func=call.func, args=call.args, keywords=keywords)
    merged = ast.Dict(keys=[None, *(ast.Constant(f) for f in values)],
                      values=[unpacked[0].value, *values.values()])
    position = call.keywords.index(unpacked[0])
    keywords = list(call.keywords)
    keywords[position] = ast.keyword(arg=None, value=merged)
    return ast.Call(func=call.func, args=call.args, keywords=keywords)
