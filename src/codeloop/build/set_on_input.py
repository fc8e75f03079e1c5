"""A field set on an input model that does not have it becomes the output model, built.

Measured on the 1.5B (build benchmark at f6b8a6d, bookmarks B2, three attempts and eleven
code rounds): `def add(self, bookmark: BookmarkIn) -> Bookmark:` then `bookmark.id =
self.next_id`. pydantic refuses a field a model does not declare ("BookmarkIn" object has
no field "id"), so every test that adds a bookmark failed; the rounds were told the error
and the line, and sent the same line back each time (notes N3's `note.id = ...` on its
NoteIn the same at 59a3c48). The assignments in a row that set on such a parameter fields
its model lacks, and that the output model declares, become one construction of the output
model from the input's fields (`bookmark = Bookmark(**{**bookmark.model_dump(), 'id':
self.next_id})`): the output model is the function's return annotation, else the one class
based on the input's. Only when the output model is then given every field it requires, and
no value reads a field set in the same row; what the model meant is kept and the tests
still judge it.
"""

from __future__ import annotations

import ast

from codeloop.build.contract import module_of
from codeloop.build.model_fields import ModelFields, Read
from codeloop.build.source_spans import if_it_parses, parsed_python, replace_span

_FUNCTIONS = (ast.FunctionDef, ast.AsyncFunctionDef)


def built_from_input(path: str, source: str, models: set[str],
                     read: Read) -> tuple[str, list[str]]:
    """(`source` with each such row of assignments made a construction, one note each);
    unchanged when there is none or the result would not parse."""
    tree = parsed_python(path, source)
    if tree is None or not models:
        return source, []
    fields = ModelFields(tree, module_of(path).split(".", 1)[0], read)
    rows = [row for node in ast.walk(tree) if isinstance(node, _FUNCTIONS)
            for row in _rows(node, models, fields)]
    lines = source.splitlines(keepends=True)
    for statement, first, last, _, _, _ in sorted(rows, key=lambda r: r[1].lineno,
                                                   reverse=True):  # the file's end first
        lines = replace_span(lines, (first.lineno, first.col_offset),
                             (last.end_lineno or last.lineno, last.end_col_offset or 0),
                             ast.unparse(statement))
    notes = [f"{path}: {name}.{', '.join(set_fields)} set on a {cls_in}, which has no such "
             f"field (pydantic refuses it): the harness built a {cls_out} from it instead "
             f"({name} = {cls_out}(**{{**{name}.model_dump(), ...}}))"
             for _, _, _, (name, cls_in), set_fields, cls_out in rows]
    return if_it_parses(source, "".join(lines), notes)


def _rows(function: ast.FunctionDef | ast.AsyncFunctionDef, models: set[str],
          fields: ModelFields):
    """Each row of the function's body that sets on a model parameter fields it lacks."""
    inputs = {a.arg: a.annotation.id for a in function.args.args
              if isinstance(a.annotation, ast.Name) and a.annotation.id in models}
    body = function.body
    index = 0
    while index < len(body):
        found = _row(body, index, inputs, function.returns, models, fields)
        if found is None:
            index += 1
            continue
        yield found
        index = body.index(found[2]) + 1


def _row(body: list[ast.stmt], index: int, inputs: dict[str, str], returns: ast.expr | None,
         models: set[str], fields: ModelFields):
    target = _set_field(body[index])
    if target is None or target[0] not in inputs:
        return None
    name, cls_in = target[0], inputs[target[0]]
    has = fields.fields(cls_in)
    if not fields.known(cls_in) or target[1] in has:
        return None
    cls_out = _output(cls_in, returns, models, fields)
    if cls_out is None:
        return None
    values: dict[str, ast.expr] = {}
    last = body[index]
    for statement in body[index:]:
        found = _set_field(statement)
        if found is None or found[0] != name or found[1] not in fields.fields(cls_out) \
                or found[1] in values or _reads_any(found[2], name, set(values)):
            break
        values[found[1]] = found[2]
        last = statement
    if not fields.required(cls_out) <= has | set(values):
        return None
    dumped = ast.Call(func=ast.Attribute(value=ast.Name(id=name, ctx=ast.Load()),
                                         attr="model_dump", ctx=ast.Load()),
                      args=[], keywords=[])
    merged = ast.Dict(keys=[None, *(ast.Constant(f) for f in values)],
                      values=[dumped, *values.values()])
    built = ast.Call(func=ast.Name(id=cls_out, ctx=ast.Load()), args=[],
                     keywords=[ast.keyword(arg=None, value=merged)])
    statement = ast.fix_missing_locations(ast.copy_location(
        ast.Assign(targets=[ast.Name(id=name, ctx=ast.Store())], value=built), body[index]))
    return statement, body[index], last, (name, cls_in), list(values), cls_out


def _output(cls_in: str, returns: ast.expr | None, models: set[str],
            fields: ModelFields) -> str | None:
    """The model the function makes of its input: its return annotation when that is a
    model (`-> Bookmark`, `-> Optional[Bookmark]` aside), else the one class based on the
    input's."""
    if isinstance(returns, ast.Name) and returns.id in models and returns.id != cls_in:
        return returns.id
    based = [c for c in fields.based_on(cls_in) if c in models]
    return based[0] if len(based) == 1 and returns is None else None


def _set_field(statement: ast.stmt) -> tuple[str, str, ast.expr] | None:
    """(name, field, value) of `name.field = value`."""
    if isinstance(statement, ast.Assign) and len(statement.targets) == 1:
        target = statement.targets[0]
        if isinstance(target, ast.Attribute) and isinstance(target.value, ast.Name):
            return target.value.id, target.attr, statement.value
    return None


def _reads_any(value: ast.expr, name: str, set_fields: set[str]) -> bool:
    """Whether `value` reads `name.<a field set in the row>` (not set yet once rebuilt)."""
    return any(isinstance(n, ast.Attribute) and isinstance(n.value, ast.Name)
               and n.value.id == name and n.attr in set_fields for n in ast.walk(value))
