"""What a Python module on main offers, in a few lines for a code prompt: its classes with
their fields and public methods' signatures, its functions' signatures. Measured on the
1.5B (todo T3 at c8106ba, bookmarks B3 at 674fb3a): told only that `app.storage` holds
`TodoStore`, the routes called `store.create(...)` and `store.list()` (it has add, get,
all, delete) and every route answered 500."""

from __future__ import annotations

import ast

LINE_CHARS = 300  # one class's or function's line, at most


def module_api(text: str) -> list[str]:
    """One line per public top-level class and function of `text` (Python); [] when it does
    not parse."""
    try:
        tree = ast.parse(text)
    except SyntaxError:
        return []
    lines = []
    for node in tree.body:
        if isinstance(node, ast.ClassDef) and not node.name.startswith("_"):
            lines.append(_class_line(node))
        elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and \
                not node.name.startswith("_"):
            lines.append(_signature(node, method=False))
        elif isinstance(node, ast.Assign) and len(node.targets) == 1 and \
                isinstance(node.targets[0], ast.Name) and isinstance(node.value, ast.Call) \
                and not node.targets[0].id.startswith("_"):
            lines.append(f"{node.targets[0].id} = {ast.unparse(node.value)}")  # an instance
    return [line if len(line) <= LINE_CHARS else line[:LINE_CHARS - 3] + "..."
            for line in lines]


def _class_line(node: ast.ClassDef) -> str:
    bases = ", ".join(ast.unparse(b) for b in node.bases)
    head = f"class {node.name}" + (f"({bases})" if bases else "")
    parts = []
    for item in node.body:
        if isinstance(item, ast.AnnAssign) and isinstance(item.target, ast.Name):
            value = f" = {ast.unparse(item.value)}" if item.value is not None else ""
            parts.append(f"{item.target.id}: {ast.unparse(item.annotation)}{value}")
        elif isinstance(item, (ast.FunctionDef, ast.AsyncFunctionDef)) and \
                (not item.name.startswith("_") or _takes_arguments(item)):
            parts.append(_signature(item, method=True))
    return f"{head}: " + "; ".join(parts) if parts else head


def _signature(node: ast.FunctionDef | ast.AsyncFunctionDef, *, method: bool) -> str:
    arguments = node.args
    if method and arguments.args and not _is_static(node):
        arguments = ast.arguments(posonlyargs=arguments.posonlyargs,
                                  args=arguments.args[1:], vararg=arguments.vararg,
                                  kwonlyargs=arguments.kwonlyargs,
                                  kw_defaults=arguments.kw_defaults, kwarg=arguments.kwarg,
                                  defaults=arguments.defaults[1:]
                                  if len(arguments.defaults) == len(arguments.args)
                                  else arguments.defaults)
    returns = f" -> {ast.unparse(node.returns)}" if node.returns is not None else ""
    prefix = "" if method else "def "
    return f"{prefix}{node.name}({ast.unparse(arguments)}){returns}"


def _takes_arguments(node: ast.FunctionDef | ast.AsyncFunctionDef) -> bool:
    """`__init__` beyond `self` (how the class is made); other dunders are left out."""
    arguments = node.args
    return node.name == "__init__" and (len(arguments.args) > 1 or bool(
        arguments.vararg or arguments.kwonlyargs or arguments.kwarg))


def _is_static(node: ast.FunctionDef | ast.AsyncFunctionDef) -> bool:
    return any(isinstance(d, ast.Name) and d.id == "staticmethod" for d in node.decorator_list)
