"""A router whose routes write its prefix again (`APIRouter(prefix='/bookmarks')` with
`@router.post('/bookmarks')`, served at /bookmarks/bookmarks) loses the prefix, rewritten by
the harness. Measured on the 1.5B (bookmarks B3 at a0d1d3c, and the todo routes in stop 61):
told by the contract test "POST /bookmarks is not served; served: POST
/bookmarks/bookmarks", the model sent the module back unchanged. Only when every route of the
router starts with the prefix: then the paths alone say where the routes are."""

from __future__ import annotations

import ast

from codeloop.build.source_spans import if_it_parses, parsed_python, replace_span

_METHODS = {"get", "post", "put", "patch", "delete"}


def without_repeated_prefix(path: str, source: str) -> tuple[str, list[str]]:
    """(`source` with the `prefix=` of each router whose every route repeats it removed, one
    note per router); unchanged otherwise."""
    tree = parsed_python(path, source)
    if tree is None:
        return source, []
    lines = source.splitlines(keepends=True)
    notes: list[str] = []
    for node in reversed(tree.body):
        prefix_arg = _router_prefix(node)
        if prefix_arg is None:
            continue
        name, keyword, prefix = prefix_arg
        paths = _route_paths(tree, name)
        if not paths or not all(p == prefix or p.startswith(prefix + "/") for p in paths):
            continue
        call = node.value  # type: ignore[attr-defined]
        kept = [k for k in call.keywords if k is not keyword]
        new = ast.Call(func=call.func, args=call.args, keywords=kept)
        lines = replace_span(lines, (call.lineno, call.col_offset),
                             (call.end_lineno or call.lineno, call.end_col_offset or 0),
                             ast.unparse(new))
        notes.append(f"{path}: every route of `{name}` wrote its prefix {prefix!r} again (served "
                     f"at {prefix}{paths[0]}): the harness removed the router's prefix")
    return if_it_parses(source, "".join(lines), notes)


def _router_prefix(node: ast.stmt) -> tuple[str, ast.keyword, str] | None:
    if not (isinstance(node, ast.Assign) and len(node.targets) == 1
            and isinstance(node.targets[0], ast.Name) and isinstance(node.value, ast.Call)
            and isinstance(node.value.func, ast.Name) and node.value.func.id == "APIRouter"):
        return None
    for keyword in node.value.keywords:
        if keyword.arg == "prefix" and isinstance(keyword.value, ast.Constant) \
                and isinstance(keyword.value.value, str) and keyword.value.value.strip("/"):
            return node.targets[0].id, keyword, "/" + keyword.value.value.strip("/")
    return None


def _route_paths(tree: ast.Module, router: str) -> list[str]:
    """The paths of `@router.<method>("path")` decorators."""
    paths = []
    for node in tree.body:
        if not isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            continue
        for decorator in node.decorator_list:
            if isinstance(decorator, ast.Call) and isinstance(decorator.func, ast.Attribute) \
                    and isinstance(decorator.func.value, ast.Name) \
                    and decorator.func.value.id == router and decorator.func.attr in _METHODS \
                    and decorator.args and isinstance(decorator.args[0], ast.Constant) \
                    and isinstance(decorator.args[0].value, str):
                paths.append(decorator.args[0].value.rstrip("/") or "/")
    return paths
