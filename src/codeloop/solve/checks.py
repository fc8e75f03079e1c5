"""Static review checks with `ast`: unexpected I/O, globals, and other constraint
violations a pure function should not have. Findings are warnings: they go into the
review and the refinement prompt, and never decide the verdict."""

from __future__ import annotations

import ast

_IO_CALLS = {
    "print": "prints to stdout",
    "input": "reads from stdin",
    "open": "opens files",
    "exit": "exits the interpreter",
    "quit": "exits the interpreter",
    "breakpoint": "starts the debugger",
    "eval": "evaluates strings as code",
    "exec": "executes strings as code",
}
_IO_MODULES = {
    "os": "the operating system", "sys": "the interpreter", "subprocess": "processes",
    "socket": "the network", "requests": "the network", "urllib": "the network",
    "http": "the network", "shutil": "files", "pathlib": "files", "tempfile": "files",
    "pickle": "files", "threading": "threads", "multiprocessing": "processes",
}


def static_findings(code: str, context: str = "") -> list[str]:
    """One line per finding, with its line number. `context` imports are the task's own
    and not flagged."""
    try:
        tree = ast.parse(code)
    except SyntaxError as exc:
        return [f"line {exc.lineno}: syntax error: {exc.msg}"]
    allowed_modules = _imported_modules(context)
    findings: list[str] = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) \
                and node.func.id in _IO_CALLS:
            findings.append(f"line {node.lineno}: calls {node.func.id}() - {_IO_CALLS[node.func.id]}")
        elif isinstance(node, (ast.Global, ast.Nonlocal)):
            kind = "global" if isinstance(node, ast.Global) else "nonlocal"
            findings.append(f"line {node.lineno}: uses {kind} state ({', '.join(node.names)})")
        elif isinstance(node, (ast.Import, ast.ImportFrom)):
            for module in _modules_of(node):
                if module in _IO_MODULES and module not in allowed_modules:
                    findings.append(f"line {node.lineno}: imports {module} "
                                    f"(reaches {_IO_MODULES[module]})")
    findings += _mutable_globals(tree)
    return findings


def _modules_of(node: ast.Import | ast.ImportFrom) -> list[str]:
    if isinstance(node, ast.ImportFrom):
        return [(node.module or "").split(".")[0]]
    return [alias.name.split(".")[0] for alias in node.names]


def _imported_modules(code: str) -> set[str]:
    try:
        tree = ast.parse(code)
    except SyntaxError:
        return set()
    return {m for n in ast.walk(tree) if isinstance(n, (ast.Import, ast.ImportFrom))
            for m in _modules_of(n)}


def _mutable_globals(tree: ast.Module) -> list[str]:
    """Module-level lists/dicts/sets a function may mutate between calls."""
    found = []
    for node in tree.body:
        if isinstance(node, ast.Assign) and isinstance(node.value, (ast.List, ast.Dict, ast.Set)):
            names = [t.id for t in node.targets if isinstance(t, ast.Name)]
            if names and not all(n.isupper() for n in names):
                found.append(f"line {node.lineno}: module-level mutable state ({', '.join(names)})")
    return found
