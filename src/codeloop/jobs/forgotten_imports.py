"""The imports a model's file forgot, added by the harness: a module the file uses as
`name.attr` (`pytest.raises`, `os.getenv`) that nothing in it binds, and that it can import
(the standard library; pytest and the stack's packages for build's tests). Measured on the
1.5B: build's tests used `pytest.raises` without `import pytest`, caught as "undefined name"
three times, and the task was blocked with right code never asked for (bookmarks B1); a
review fix read `os.getenv` without `import os`, and two refinements of three rounds each
sent the file back without it (hardcoded_secret). Used by build's tests first and by the
edit engine on every Python file a reply writes (jobs/edit_engine/rounds.py).

The typing generics a file uses bare (`Optional[int]`, `List[Todo]`) with nothing binding
them get `from typing import ...` the same way: the 1.5B's route tests for the todo example
were refused three times for an undefined `Optional` and `List`, and the task was built
against its contract instead of its own tests. So do a few standard library names with one
home (`Decimal`, `defaultdict`: STDLIB_NAMES), and the names of pydantic and fastapi a file
uses bare where it already imports from that library (LIBRARY_NAMES)."""

from __future__ import annotations

import ast
import sys
from collections.abc import Iterable

# what a module of the project may import without installing anything ("this" and
# "antigravity" print or open a browser on import: never added)
STANDARD_LIBRARY = frozenset(sys.stdlib_module_names) - {"this", "antigravity"}
# typing's names a file uses bare; only these (a `Text` or `IO` the file never bound is more
# likely meant from somewhere else)
TYPING_NAMES = frozenset({"Any", "Callable", "DefaultDict", "Dict", "FrozenSet", "Iterable",
                          "Iterator", "List", "Literal", "Mapping", "Optional", "Sequence",
                          "Set", "Tuple", "Type", "Union"})
# the standard library's names a file uses bare, each with one home (not `Path`, `datetime`,
# `field`: another module has one of that name too): the 1.5B's inventory I4 typed its
# report `Decimal` with no import, a NameError at import in every round
STDLIB_NAMES = {
    "collections": frozenset({"Counter", "OrderedDict", "defaultdict", "deque",
                              "namedtuple"}),
    "dataclasses": frozenset({"asdict", "dataclass"}),
    "decimal": frozenset({"Decimal", "ROUND_HALF_UP"}),
    "enum": frozenset({"Enum", "IntEnum"}),
    "fractions": frozenset({"Fraction"}),
    "functools": frozenset({"lru_cache", "partial", "reduce", "wraps"}),
    "uuid": frozenset({"uuid4"}),
}
# a library's names a file uses bare, added only when the file already imports from that
# library (so nothing is added that the project does not use): the 1.5B's bookmarks B1
# wrote `from pydantic import BaseModel, Field, validator` over an `@field_validator`
LIBRARY_NAMES = {
    "pydantic": frozenset({"BaseModel", "ConfigDict", "Field", "ValidationError",
                           "field_validator", "model_validator"}),
    "fastapi": frozenset({"APIRouter", "Body", "Depends", "FastAPI", "HTTPException",
                          "Query"}),
}


def importable_modules(packages: Iterable[str]) -> frozenset[str]:
    """pytest, the standard library and the stack's packages, as import names."""
    names = {p.lower().replace("-", "_") for p in packages}
    return frozenset({"pytest", *sys.stdlib_module_names, *names})


def add_forgotten_imports(text: str, importable: frozenset[str]) -> tuple[str, list[str]]:
    """(`text` with an `import X` line for each forgotten module X and one `from typing
    import ...` line for the forgotten TYPING_NAMES, the names added)."""
    try:
        tree = ast.parse(text)
    except SyntaxError:
        return text, []  # the scope check reports it
    bound, bare, used = names_of(tree)
    missing = sorted(name for name in used - bound if name in importable)
    generics = sorted((bare - bound) & TYPING_NAMES) if "typing" in importable else []
    imported_from = {node.module for node in tree.body if isinstance(node, ast.ImportFrom)}
    library = {lib: sorted((bare - bound) & names) for lib, names in LIBRARY_NAMES.items()
               if lib in imported_from and (bare - bound) & names}
    library.update({lib: sorted((bare - bound) & names) for lib, names in STDLIB_NAMES.items()
                    if lib in importable and (bare - bound) & names})
    if not missing and not generics and not library:
        return text, []
    lines = text.splitlines(keepends=True)
    at = _insert_line(tree)
    added = "".join(f"import {name}\n" for name in missing)
    if generics:
        added += f"from typing import {', '.join(generics)}\n"
    added += "".join(f"from {lib} import {', '.join(names)}\n" for lib, names in library.items())
    return ("".join([*lines[:at], added, *lines[at:]]),
            missing + generics + [n for names in library.values() for n in names])


def names_of(tree: ast.Module) -> tuple[set[str], set[str], set[str]]:
    """(every name the module binds anywhere, every name it reads on its own, every name it
    reads an attribute of: `os` in `os.getenv`)."""
    bound: set[str] = set()
    bare: set[str] = set()
    used: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, (ast.Import, ast.ImportFrom)):
            bound.update((a.asname or a.name).split(".")[0] for a in node.names)
        elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            bound.add(node.name)
        elif isinstance(node, ast.arg):
            bound.add(node.arg)
        elif isinstance(node, ast.ExceptHandler) and node.name:
            bound.add(node.name)
        elif isinstance(node, (ast.Global, ast.Nonlocal)):
            bound.update(node.names)
        elif isinstance(node, ast.Name):
            (bare if isinstance(node.ctx, ast.Load) else bound).add(node.id)
        if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name):
            used.add(node.value.id)
    return bound, bare, used


def _insert_line(tree: ast.Module) -> int:
    """After the module docstring and `from __future__` imports (0-based line index)."""
    at = 0
    for node in tree.body:
        docstring = (isinstance(node, ast.Expr) and isinstance(node.value, ast.Constant)
                     and isinstance(node.value.value, str) and at == 0 and node is tree.body[0])
        future = isinstance(node, ast.ImportFrom) and node.module == "__future__"
        if not (docstring or future):
            break
        at = node.end_lineno or node.lineno
    return at
