"""pydantic 1's API that pydantic 2 (python-api's) refuses when the module is imported,
rewritten by the harness before a write: the 1.5B learnt pydantic 1. Measured: bookmarks B1
wrote `@validator('url', mode='before')` (TypeError at import), inventory I3's tests named
`PydanticUserError` after its models' import raised one, and every attempt of both ended in
a collection error. Only what raises is rewritten, each to pydantic 2's spelling of the same
rule:

- `Field(regex=...)`, `constr(regex=...)` -> `pattern=`
- `@root_validator` with neither `pre=True` nor `skip_on_failure` -> `skip_on_failure=True`
- `@validator(..., mode=...)` (pydantic 1's decorator, pydantic 2's argument) ->
  `@field_validator(..., mode=...)`, imported from pydantic

A module that does not import pydantic, or whose rewrite would not parse, is left as it is.
"""

from __future__ import annotations

import ast
from dataclasses import dataclass

from codeloop.build.source_spans import if_it_parses, parsed_python, replace_span
from codeloop.jobs.edit_engine.keep_content import after_imports

PATTERN_TAKERS = {"Field", "constr"}  # calls whose `regex=` pydantic 2 refuses
VALIDATOR_KEYWORDS = {"mode", "check_fields"}  # field_validator's own, besides the fields


@dataclass(frozen=True)
class _Edit:
    start: tuple[int, int]  # (line from 1, column), as ast gives them
    end: tuple[int, int]
    text: str
    note: str


def pydantic2_mended(path: str, text: str) -> tuple[str, list[str]]:
    """(`text` with pydantic 1's spellings that raise under pydantic 2 rewritten, one note
    per rewrite); unchanged when there is none, the module does not import pydantic, or the
    result would not parse."""
    tree = parsed_python(path, text)
    if tree is None or not _imports_pydantic(tree):
        return text, []
    edits = [*_pattern_edits(tree), *_decorator_edits(tree)]
    if not edits:
        return text, []
    lines = text.splitlines(keepends=True)
    for edit in sorted(edits, key=lambda e: e.start, reverse=True):
        lines = replace_span(lines, edit.start, edit.end, edit.text)
    result = "".join(lines)
    if any("field_validator(" in e.text for e in edits):
        result = _with_field_validator_import(result)
    return if_it_parses(text, result, [f"{path}: pydantic 2 is installed: {e.note}"
                                       for e in edits])


def _imports_pydantic(tree: ast.Module) -> bool:
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and (node.module or "").split(".")[0] == "pydantic":
            return True
        if isinstance(node, ast.Import) and any(a.name.split(".")[0] == "pydantic"
                                                for a in node.names):
            return True
    return False


def _name(func: ast.expr) -> str:
    if isinstance(func, ast.Name):
        return func.id
    return func.attr if isinstance(func, ast.Attribute) else ""


def _pattern_edits(tree: ast.Module) -> list[_Edit]:
    out = []
    for node in ast.walk(tree):
        if not (isinstance(node, ast.Call) and _name(node.func) in PATTERN_TAKERS):
            continue
        for keyword in node.keywords:
            if keyword.arg == "regex":
                at = (keyword.lineno, keyword.col_offset)
                out.append(_Edit(at, (at[0], at[1] + len("regex")), "pattern",
                                 f"`{_name(node.func)}(regex=...)` became `pattern=` "
                                 f"(line {at[0]})"))
    return out


def _decorator_edits(tree: ast.Module) -> list[_Edit]:
    out = []
    for node in ast.walk(tree):
        if not isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            continue
        for decorator in node.decorator_list:
            call = decorator if isinstance(decorator, ast.Call) else None
            name = _name(call.func if call else decorator)
            keywords = {k.arg: k for k in call.keywords} if call else {}
            new: ast.Call | None = None
            if name == "root_validator" and "skip_on_failure" not in keywords \
                    and not _is_true(keywords.get("pre")):
                new = ast.Call(func=ast.Name("root_validator"), args=call.args if call else [],
                               keywords=[*(call.keywords if call else []),
                                         ast.keyword("skip_on_failure", ast.Constant(True))])
                why = "`@root_validator` needs `skip_on_failure=True`"
            elif name == "validator" and call is not None and "mode" in keywords:
                new = ast.Call(func=ast.Name("field_validator"), args=call.args,
                               keywords=[k for k in call.keywords
                                         if k.arg in VALIDATOR_KEYWORDS])
                why = "`@validator(..., mode=...)` became `@field_validator(..., mode=...)`"
            if new is not None:
                out.append(_Edit((decorator.lineno, decorator.col_offset),
                                 (decorator.end_lineno or decorator.lineno,
                                  decorator.end_col_offset or 0),
                                 ast.unparse(new), f"{why} (line {decorator.lineno})"))
    return out


def _is_true(keyword: ast.keyword | None) -> bool:
    return keyword is not None and isinstance(keyword.value, ast.Constant) \
        and keyword.value.value is True


def _with_field_validator_import(text: str) -> str:
    try:
        tree = ast.parse(text)
    except SyntaxError:
        return text  # if_it_parses keeps the original
    for node in tree.body:
        if isinstance(node, ast.ImportFrom) and node.module == "pydantic" and \
                any(a.name == "field_validator" for a in node.names):
            return text
    lines = text.splitlines(keepends=True)
    at = after_imports(tree)
    return "".join([*lines[:at], "from pydantic import field_validator\n", *lines[at:]])
