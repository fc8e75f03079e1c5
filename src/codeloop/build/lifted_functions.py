"""Functions the task promises, written as methods of a class that never uses its instance,
are also given at module level.

Measured on the 1.5B (build benchmark at 48067b3, inventory I2): the task asked for "plain
functions" line_total and apply_discount in app.pricing; a reply wrote them as methods of a
`class Pricing` none of whose methods read `self`, and every test errored at collection
("cannot import name 'apply_discount'"), three rounds running. A promised name the module
does not define at its top level, found as a method that reads nothing of its instance
(no `self`, no `cls`), is added after its class as a function with the same body; the class
stays as it was, so nothing that used it breaks.
"""

from __future__ import annotations

import ast
import copy


def with_promised_functions(path: str, text: str,
                            promised: list[str]) -> tuple[str, list[str]]:
    """(`text` with the promised functions found only as instance-free methods added at
    module level; a note per function)."""
    try:
        tree = ast.parse(text)
    except (SyntaxError, ValueError, RecursionError):
        return text, []
    top = {n.name for n in tree.body if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef,
                                                       ast.ClassDef))}
    top |= {t.id for n in tree.body if isinstance(n, ast.Assign) for t in n.targets
            if isinstance(t, ast.Name)}
    top |= {(a.asname or a.name) for n in tree.body if isinstance(n, (ast.Import,
                                                                      ast.ImportFrom))
            for a in n.names}
    missing = [name for name in promised if name not in top]
    lines = text.splitlines(keepends=True)
    if lines and not lines[-1].endswith("\n"):
        lines[-1] += "\n"
    notes: list[str] = []
    for cls in sorted((n for n in tree.body if isinstance(n, ast.ClassDef)),
                      key=lambda n: n.lineno, reverse=True):
        lifted = [fn for method in cls.body if isinstance(method, (ast.FunctionDef,
                                                                   ast.AsyncFunctionDef))
                  and method.name in missing and (fn := _as_function(method)) is not None]
        if not lifted:
            continue
        code = "".join("\n\n" + ast.unparse(fn) + "\n" for fn in lifted)
        lines.insert(cls.end_lineno or cls.lineno, code)
        missing = [m for m in missing if m not in {fn.name for fn in lifted}]
        notes += [f"{path}: {fn.name} is promised as a function of the module; it was a "
                  f"method of {cls.name} that never uses its instance: the harness added "
                  f"it at the module's top level too" for fn in lifted]
    return "".join(lines), sorted(notes)


def _as_function(method: ast.FunctionDef | ast.AsyncFunctionDef
                 ) -> ast.FunctionDef | ast.AsyncFunctionDef | None:
    """`method` as a module-level function, or None when it reads its instance or class (or
    is a property, or has decorators other than staticmethod/classmethod)."""
    decorators = {getattr(d, "id", "") for d in method.decorator_list}
    if decorators - {"staticmethod", "classmethod"} or len(decorators) != len(
            method.decorator_list):
        return None
    function = copy.deepcopy(method)
    function.decorator_list = []
    if "staticmethod" not in decorators:
        if not function.args.args:
            return None
        first = function.args.args[0].arg
        if any(isinstance(n, ast.Name) and n.id == first for n in ast.walk(function)):
            return None
        function.args.args = function.args.args[1:]
    return function
