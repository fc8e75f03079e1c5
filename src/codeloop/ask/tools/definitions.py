"""Where a name is defined and which modules import a name, by parsing the repository's
Python files (ast, never importing them): each hit is a `path:line` that exists, so an answer
built on it can cite it.

A definition is a `def`, `async def` or `class` at any depth (its dotted place in the file:
`Outer.method`), or a module-level assignment to the name. Files that do not parse are skipped.
Tests and examples come after the package's own files, as a reader would look for them.
"""

from __future__ import annotations

import ast
from typing import Any

from codeloop.ask.tools.walk import RepoIndex

MAX_HITS = 12
_TEST_PARTS = ("test", "tests", "testing", "examples", "example", "docs", "benchmarks")


def python_files(index: RepoIndex) -> list[str]:
    """The index's Python files, the package's own first, then tests, examples and docs."""
    files = [rel for rel in index.files if rel.endswith(".py")]
    return sorted(files, key=lambda rel: (is_aside(rel), rel.count("/"), rel))


def is_aside(rel: str) -> bool:
    """A test, example, docs or benchmark file: not the code a user's question is about."""
    parts = rel.lower().split("/")
    name = parts[-1]
    return (any(p in _TEST_PARTS for p in parts[:-1]) or name.startswith("test_")
            or name.endswith("_test.py") or name in ("conftest.py", "setup.py"))


def parse(index: RepoIndex, rel: str) -> ast.Module | None:
    try:
        return ast.parse(index.text(rel), rel)
    except (SyntaxError, ValueError):
        return None


def find_definitions(index: RepoIndex, name: str, limit: int = MAX_HITS) -> list[dict[str, Any]]:
    """[{path, line, end, kind ("function", "class", "variable"), qualname, top_level}]."""
    hits: list[dict[str, Any]] = []
    for rel in python_files(index):
        tree = parse(index, rel)
        if tree is None:
            continue
        hits += _defined_in(tree, rel, name)
        if len(hits) >= limit:
            break
    # The implementation before its typing Protocol (store_run.RunStore is the interface
    # of store.RunStore: the 1.5B named the Protocol's file when it came first).
    hits.sort(key=lambda h: (is_aside(h["path"]), h.get("protocol", False),
                             not h["top_level"], h["kind"] == "variable"))
    return hits[:limit]


def _defined_in(tree: ast.Module, rel: str, name: str) -> list[dict[str, Any]]:
    out = []

    def visit(body: list[ast.stmt], prefix: str, top: bool) -> None:
        for node in body:
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                qual = f"{prefix}{node.name}"
                if node.name == name:
                    kind = "class" if isinstance(node, ast.ClassDef) else "function"
                    line = node.decorator_list[0].lineno if node.decorator_list else node.lineno
                    out.append({"path": rel, "line": node.lineno, "start": line,
                                "end": node.end_lineno or node.lineno, "kind": kind,
                                "qualname": qual, "top_level": top,
                                "protocol": _is_protocol(node)})
                visit(node.body, qual + ".", False)
            elif top and isinstance(node, (ast.Assign, ast.AnnAssign)):
                targets = node.targets if isinstance(node, ast.Assign) else [node.target]
                if any(isinstance(t, ast.Name) and t.id == name for t in targets):
                    out.append({"path": rel, "line": node.lineno, "start": node.lineno,
                                "end": node.end_lineno or node.lineno, "kind": "variable",
                                "qualname": name, "top_level": True})
            elif isinstance(node, (ast.If, ast.Try)) and top:
                for block in (node.body, getattr(node, "orelse", []),
                              getattr(node, "finalbody", [])):
                    visit(block, prefix, top)

    visit(tree.body, "", True)
    return out


def find_imports(index: RepoIndex, name: str, limit: int = MAX_HITS) -> list[dict[str, Any]]:
    """[{path, line, statement}]: the import statements that name `name` (a top-level
    package, a dotted module or an imported name), the package's own files first."""
    wanted = name.strip().lower()
    hits: list[dict[str, Any]] = []
    for rel in python_files(index):
        tree = parse(index, rel)
        if tree is None:
            continue
        for node in ast.walk(tree):
            if isinstance(node, (ast.Import, ast.ImportFrom)) and _names(node, wanted):
                hits.append({"path": rel, "line": node.lineno,
                             "statement": ast.unparse(node)[:160]})
        if len(hits) >= limit:
            break
    return hits[:limit]


def _names(node: ast.Import | ast.ImportFrom, wanted: str) -> bool:
    mods = [a.name for a in node.names] if isinstance(node, ast.Import) else (
        [node.module or ""] + [f"{node.module}.{a.name}" for a in node.names])
    for mod in mods:
        low = mod.lower()
        if low == wanted or low.startswith(wanted + ".") or low.split(".")[-1] == wanted:
            return True
    return False


def _is_protocol(node: ast.AST) -> bool:
    """A class declared as a typing Protocol (`class X(Protocol)`, `typing.Protocol[T]`)."""
    if not isinstance(node, ast.ClassDef):
        return False
    for base in node.bases:
        target = base.value if isinstance(base, ast.Subscript) else base
        name = target.attr if isinstance(target, ast.Attribute) else getattr(target, "id", "")
        if name == "Protocol":
            return True
    return False
