"""An exception class a module raises or catches but never defines, defined by the harness.

Measured on the 1.5B (build benchmark, inventory I3 at 17b486d): the task asks for "exception
class OutOfStock in app.storage"; the code wrote `raise OutOfStock` in `take` and never
defined the class, its tests' `from app.storage import OutOfStock` failed at collection, and
the attempts that followed sent the same module back. A name used only as an exception,
bound nowhere in the module, not a builtin and not imported, and one the task's text names
as what it builds, is the module's own exception class: `class Name(Exception)` is added
after the imports (a library's `HTTPException` used without its import is not). Run after
the import repairs (import_homes.py), so a class that lives in another module is imported
from there instead.
"""

from __future__ import annotations

import ast
import builtins

from codeloop.build.source_spans import if_it_parses, parsed_python
from codeloop.jobs.edit_engine.keep_content import after_imports
from codeloop.jobs.forgotten_imports import names_of


def defined_exceptions(path: str, source: str,
                       promised: list[str]) -> tuple[str, list[str]]:
    """(`source` with a class for each exception it raises or catches and never defines,
    of the names the task promises (`promised`: an `HTTPException` not imported is not
    the module's own), one note each); unchanged when there is none or the module does not
    parse."""
    tree = parsed_python(path, source)
    if tree is None:
        return source, []
    bound, _, _ = names_of(tree)
    if any(isinstance(n, ast.ImportFrom) and any(a.name == "*" for a in n.names)
           for n in ast.walk(tree)):
        return source, []  # a star import may bring it
    missing = [n for n in _exception_names(tree)
               if n in promised and n not in bound and not hasattr(builtins, n)]
    if not missing:
        return source, []
    lines = source.splitlines(keepends=True)
    at = after_imports(tree)
    added = "".join(f"\n\nclass {name}(Exception):\n    \"\"\"{_doc(name)}\"\"\"\n"
                    for name in missing)
    head = "".join(lines[:at])
    result = head + added + ("\n\n" if at < len(lines) else "") + \
        "".join(lines[at:]).lstrip("\n")
    return if_it_parses(source, result, [f"{path}: {name} is raised but was never defined: the harness added "
                    f"`class {name}(Exception)` to it" for name in missing])


def _exception_names(tree: ast.Module) -> list[str]:
    """The bare names a module raises (`raise X`, `raise X(...)`) or catches (`except X`,
    `except (X, Y)`), in order."""
    found: list[tuple[int, str]] = []
    for node in ast.walk(tree):
        targets: list[ast.expr] = []
        if isinstance(node, ast.Raise) and node.exc is not None:
            exc = node.exc.func if isinstance(node.exc, ast.Call) else node.exc
            targets = [exc]
        elif isinstance(node, ast.ExceptHandler) and node.type is not None:
            targets = list(node.type.elts) if isinstance(node.type, ast.Tuple) else [node.type]
        found += [(t.lineno, t.id) for t in targets if isinstance(t, ast.Name)]
    return list(dict.fromkeys(name for _, name in sorted(found)))


def _doc(name: str) -> str:
    return f"{name}: raised by this module (defined by codeloop's harness)."
