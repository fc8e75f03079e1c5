"""A dict given in a test to a method the task says takes a model is given as that model.

Measured on the 1.5B (build benchmark at 48067b3 and at 4e021a9, bookmarks B2): the task
says `add(BookmarkIn) -> Bookmark`, and four of the five tests wrote `data = {"url": ...,
"title": ..., "tags": [...]}` then `storage.add(data)`. Right code (`data.model_dump()`,
`data.title`) raised AttributeError on a dict in every one; the code rounds were told to fix
the code, and the task and the routes after it were blocked. What the test means is plain:
the harness writes `storage.add(BookmarkIn(**data))`, so pydantic checks the dict as the
task's callers will, and code that does not store or return it still fails the test.

Only a call of a method the task's text names with one model in its parentheses
(`add(BookmarkIn)`), given one argument that is a dict literal or a name the same function
bound to one, on a receiver that is no HTTP client. A model the file does not import is
left for the caller to import from its home (import_homes.forgotten_project_imports).
"""

from __future__ import annotations

import ast
import re

_STATED_PARAMETER = re.compile(r"\b(\w+)\(\s*([A-Z]\w*)\s*\)")
_CLIENTS = {"client", "test_client", "api", "http"}


def stated_parameters(task_text: str, models: set[str] | frozenset[str] | tuple[str, ...]
                      ) -> dict[str, str]:
    """{method: the model the task says it takes}: `add(ItemIn) -> Item` gives add: ItemIn
    (only a model of the project's, not `get(id)` nor `Exception(...)`)."""
    return {method: model for method, model in _STATED_PARAMETER.findall(task_text)
            if model in models}


def with_model_arguments(text: str, parameters: dict[str, str]) -> tuple[str, list[str]]:
    """(`text` with each such dict given as the model; one note per call)."""
    if not parameters:
        return text, []
    try:
        tree = ast.parse(text)
    except (SyntaxError, ValueError, RecursionError):
        return text, []
    found: list[tuple[ast.expr, str]] = []
    for function in ast.walk(tree):
        if isinstance(function, (ast.FunctionDef, ast.AsyncFunctionDef)):
            found += _dict_arguments(function, parameters)
    lines = text.splitlines(keepends=True)
    notes: list[str] = []
    for argument, model in sorted(found, key=lambda f: (f[0].lineno, f[0].col_offset),
                                  reverse=True):
        if argument.end_lineno != argument.lineno:
            continue
        line = lines[argument.lineno - 1].encode()
        segment = line[argument.col_offset:argument.end_col_offset].decode()
        lines[argument.lineno - 1] = (line[:argument.col_offset]
                                      + f"{model}(**{segment})".encode()
                                      + line[argument.end_col_offset:]).decode()
        notes.append(f"line {argument.lineno}: a dict is given as {model}(**{segment[:30]}), "
                     f"the model the task says the method takes")
    return "".join(lines), notes[::-1]


def _dict_arguments(function: ast.FunctionDef | ast.AsyncFunctionDef,
                    parameters: dict[str, str]) -> list[tuple[ast.expr, str]]:
    """(argument, model) of each call in `function` that gives a dict to such a method."""
    bound: dict[str, bool] = {}  # name -> every assignment of it in the function is a dict
    for node in ast.walk(function):
        if isinstance(node, ast.Assign):
            for target in node.targets:
                if isinstance(target, ast.Name):
                    bound[target.id] = bound.get(target.id, True) \
                        and isinstance(node.value, ast.Dict)
    found: list[tuple[ast.expr, str]] = []
    for node in ast.walk(function):
        if not (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)
                and node.func.attr in parameters and len(node.args) == 1
                and not node.keywords):
            continue
        receiver = node.func.value
        if isinstance(receiver, ast.Name) and receiver.id.lower() in _CLIENTS:
            continue
        argument = node.args[0]
        if isinstance(argument, ast.Dict) or (isinstance(argument, ast.Name)
                                              and bound.get(argument.id)):
            found.append((argument, parameters[node.func.attr]))
    return found

