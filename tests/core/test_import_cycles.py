"""The package's import graph has no cycles (issue 52 §6).

Every `import` counts, at module level or inside a function: an import moved into a
function still ties the two modules together, it only hides the cycle from Python.
The graph is read with `ast` (nothing is imported), cycles are its strongly connected
components, and the web UI's ES modules get the same check.
"""

from __future__ import annotations

import ast
import re
from collections.abc import Iterable
from pathlib import Path

import pytest

PACKAGE_ROOT = Path(__file__).resolve().parents[2] / "src" / "codeloop"
STATIC_DIR = PACKAGE_ROOT / "server" / "static"

# Cycles that may stay while someone removes them: an entry names the modules that may
# still import each other in a circle. Every entry must still hold a real cycle, so the
# list can only shrink. Empty: the last three (ask/tools, store <-> store_run and the UI's
# app.js <-> runs.js, issue 52 §6) are gone.
ALLOWED_PY_CYCLES: list[frozenset[str]] = []
ALLOWED_JS_CYCLES: list[frozenset[str]] = []


def module_name(path: Path, root: Path = PACKAGE_ROOT) -> str:
    parts = list(path.relative_to(root.parent).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def _import_targets(
    node: ast.AST, current: str, is_package: bool, modules: set[str]
) -> Iterable[str]:
    """The modules of the package one import statement reaches."""
    if isinstance(node, ast.Import):
        yield from (alias.name for alias in node.names)
    elif isinstance(node, ast.ImportFrom):
        base = node.module or ""
        if node.level:
            package = current.split(".") if is_package else current.split(".")[:-1]
            package = package[: len(package) - (node.level - 1)]
            base = ".".join(package + ([base] if base else []))
        # `from pkg import module` reaches the module; `from mod import name` reaches mod.
        # The package itself counts only when a name is taken from it: importing pkg.sub
        # runs pkg/__init__ first, but that is layout, not a dependency.
        names = [f"{base}.{alias.name}" for alias in node.names]
        yield from (name for name in names if name in modules)
        if any(name not in modules for name in names):
            yield base


def python_import_graph(root: Path = PACKAGE_ROOT) -> dict[str, set[str]]:
    files = {module_name(path, root): path for path in root.rglob("*.py")}
    modules = set(files)
    graph: dict[str, set[str]] = {name: set() for name in files}
    for name, path in files.items():
        tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
        is_package = path.name == "__init__.py"
        for node in ast.walk(tree):
            for target in _import_targets(node, name, is_package, modules):
                if target in modules and target != name:
                    graph[name].add(target)
    return graph


_JS_IMPORT = re.compile(
    r"""(?:\bimport\s*(?:[\w*{}\s,$]+\s*from\s*)?|\bimport\s*\(\s*|\bexport\s*[\w*{}\s,$]+\s*from\s*)"""
    r"""["']\./([\w.-]+\.js)["']"""
)


def js_import_graph(static_dir: Path = STATIC_DIR) -> dict[str, set[str]]:
    graph: dict[str, set[str]] = {}
    for path in static_dir.glob("*.js"):
        targets = set(_JS_IMPORT.findall(path.read_text(encoding="utf-8")))
        graph[path.name] = {t for t in targets if t != path.name}
    return graph


def cycles(graph: dict[str, set[str]]) -> list[frozenset[str]]:
    """Strongly connected components with more than one node (Tarjan, iterative)."""
    index: dict[str, int] = {}
    lowlink: dict[str, int] = {}
    on_stack: set[str] = set()
    stack: list[str] = []
    found: list[frozenset[str]] = []
    counter = 0
    for start in sorted(graph):
        if start in index:
            continue
        work = [(start, iter(sorted(graph[start])))]
        index[start] = lowlink[start] = counter
        counter += 1
        stack.append(start)
        on_stack.add(start)
        while work:
            node, children = work[-1]
            child = next((c for c in children if c in graph), None)
            if child is not None:
                if child not in index:
                    index[child] = lowlink[child] = counter
                    counter += 1
                    stack.append(child)
                    on_stack.add(child)
                    work.append((child, iter(sorted(graph[child]))))
                elif child in on_stack:
                    lowlink[node] = min(lowlink[node], index[child])
                continue
            work.pop()
            if work:
                parent = work[-1][0]
                lowlink[parent] = min(lowlink[parent], lowlink[node])
            if lowlink[node] == index[node]:
                component = set()
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    component.add(member)
                    if member == node:
                        break
                if len(component) > 1:
                    found.append(frozenset(component))
    return found


def _describe(component: frozenset[str]) -> str:
    return " <-> ".join(sorted(component))


def _check(found: list[frozenset[str]], allowed: list[frozenset[str]]) -> None:
    new = [c for c in found if not any(c <= entry for entry in allowed)]
    stale = [entry for entry in allowed if not any(c <= entry for c in found)]
    problems = [f"import cycle: {_describe(c)}" for c in new]
    problems += [f"allow-list entry holds no cycle any more, delete it: {_describe(e)}" for e in stale]
    assert not problems, "\n".join(problems)


def test_python_package_has_no_import_cycles() -> None:
    _check(cycles(python_import_graph()), ALLOWED_PY_CYCLES)


def test_web_ui_modules_have_no_import_cycles() -> None:
    _check(cycles(js_import_graph()), ALLOWED_JS_CYCLES)


# The checker itself: it must see function-level, relative and `from pkg import module`
# imports, or the tests above would pass on a tree full of cycles.


def _write(root: Path, files: dict[str, str]) -> Path:
    package = root / "codeloop"
    for relative, text in files.items():
        path = package / relative
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    return package


def test_checker_finds_function_level_relative_and_submodule_imports(tmp_path: Path) -> None:
    package = _write(tmp_path, {
        "__init__.py": "",
        "a.py": "def f():\n    from codeloop import b\n",
        "b.py": "from .sub.c import thing\n",
        "sub/__init__.py": "",
        "sub/c.py": "from .. import a\nthing = 1\n",
        "d.py": "import codeloop.a\n",
    })
    graph = python_import_graph(package)
    assert cycles(graph) == [frozenset({"codeloop.a", "codeloop.b", "codeloop.sub.c"})]
    assert graph["codeloop.d"] == {"codeloop.a"}


def test_checker_names_new_and_stale_cycles() -> None:
    found = [frozenset({"x", "y"})]
    with pytest.raises(AssertionError, match="import cycle: x <-> y"):
        _check(found, [])
    with pytest.raises(AssertionError, match="no cycle any more, delete it: p <-> q"):
        _check(found, [frozenset({"x", "y"}), frozenset({"p", "q"})])
    with pytest.raises(AssertionError, match="import cycle: x <-> y"):
        _check([frozenset({"x", "y", "z"})], [frozenset({"x", "y"})])
    _check(found, [frozenset({"x", "y", "z"})])


def test_js_checker_reads_static_and_dynamic_imports(tmp_path: Path) -> None:
    (tmp_path / "a.js").write_text('import { b } from "./b.js";\n', encoding="utf-8")
    (tmp_path / "b.js").write_text("const a = await import('./a.js');\n", encoding="utf-8")
    (tmp_path / "c.js").write_text('import "./a.js";\n', encoding="utf-8")
    assert cycles(js_import_graph(tmp_path)) == [frozenset({"a.js", "b.js"})]
