"""A small map of the workspace for prompts: its Python files and their top-level
definitions, and which of them are pytest files. Walked without following links; caches,
virtual environments and hidden directories are skipped, and the walk is capped."""

from __future__ import annotations

import ast
import os
from dataclasses import dataclass, field
from pathlib import Path

from codeloop.sandbox.pathguard import PathGuard, PathRefused

_SKIPPED_DIRS = {"__pycache__", "node_modules", "venv", ".venv", "env", "build", "dist",
                 "site-packages"}
MAX_FILES = 300
MAX_MAP_LINES = 60
MAX_PARSED_BYTES = 200_000


@dataclass
class RepoMap:
    python_files: list[str] = field(default_factory=list)
    test_files: list[str] = field(default_factory=list)
    lines: list[str] = field(default_factory=list)

    def text(self) -> str:
        shown = self.lines[:MAX_MAP_LINES]
        more = len(self.lines) - len(shown)
        return "\n".join(shown + ([f"... and {more} more file(s)"] if more > 0 else []))


def is_test_file(path: str) -> bool:
    name = path.rsplit("/", 1)[-1]
    return name.endswith(".py") and (name.startswith("test_") or name.endswith("_test.py"))


def _python_files(root: Path) -> list[str]:
    found: list[str] = []
    for current, dirs, files in os.walk(root, followlinks=False):
        dirs[:] = sorted(d for d in dirs if not d.startswith(".") and d not in _SKIPPED_DIRS
                         and not os.path.exists(os.path.join(current, d, "pyvenv.cfg")))
        for name in sorted(files):
            path = os.path.join(current, name)
            if name.endswith(".py") and not os.path.islink(path):
                found.append(os.path.relpath(path, root).replace(os.sep, "/"))
                if len(found) >= MAX_FILES:
                    return found
    return found


def _definitions(source: str) -> list[str]:
    try:
        tree = ast.parse(source)
    except (SyntaxError, ValueError, RecursionError):
        return ["(does not parse)"]
    names = []
    for node in tree.body:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            names.append(f"def {node.name}")
        elif isinstance(node, ast.ClassDef):
            names.append(f"class {node.name}")
    return names


def build_repo_map(guard: PathGuard) -> RepoMap:
    out = RepoMap()
    for rel in _python_files(guard.root):
        out.python_files.append(rel)
        if is_test_file(rel):
            out.test_files.append(rel)
        try:
            data = guard.read_bytes(rel)[:MAX_PARSED_BYTES]
        except (OSError, PathRefused):
            continue
        defs = _definitions(data.decode("utf-8", errors="replace"))
        out.lines.append(f"{rel}: {', '.join(defs[:12]) or '(no definitions)'}")
    return out
