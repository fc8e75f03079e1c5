"""Tool 1, `analyze_directory_structure(path, max_depth=3)`: the tree as the walk saw it."""

from __future__ import annotations

from collections import Counter, defaultdict
from pathlib import Path, PurePosixPath
from typing import Any

from codeloop.ask.tools.walk import RepoIndex, as_index

MAX_ENTRIES_PER_DIR = 25  # a directory with hundreds of files shows the first ones and a count


def analyze_directory_structure(path: str | Path | RepoIndex, max_depth: int = 3
                                ) -> dict[str, Any]:
    """{root, tree (indented text, directories end with '/'), files, dirs, by_extension,
    skipped (why files were left out, counted)}. Deeper than `max_depth` only counts.
    `path`: the repository's directory, or its RepoIndex."""
    index = as_index(path)
    children: dict[str, list[str]] = defaultdict(list)
    for rel in index.dirs:
        children[_parent(rel)].append(rel + "/")
    for rel in index.files:
        children[_parent(rel)].append(rel)
    lines = [f"{index.root.name}/"]
    _render(children, "", 1, max_depth, lines)
    extensions = Counter(PurePosixPath(f).suffix or PurePosixPath(f).name for f in index.files)
    return {
        "root": index.root.name,
        "tree": "\n".join(lines),
        "files": len(index.files),
        "dirs": len(index.dirs),
        "by_extension": dict(extensions.most_common(12)),
        "skipped": dict(index.skipped),
    }


def _parent(rel: str) -> str:
    return rel.rsplit("/", 1)[0] if "/" in rel else ""


def _render(children: dict[str, list[str]], directory: str, depth: int, max_depth: int,
            lines: list[str]) -> None:
    entries = sorted(children.get(directory, []), key=lambda e: (not e.endswith("/"), e))
    for entry in entries[:MAX_ENTRIES_PER_DIR]:
        name = entry.rstrip("/").rsplit("/", 1)[-1]
        if entry.endswith("/"):
            sub = entry.rstrip("/")
            inside = _count_files(children, sub)
            if depth >= max_depth:
                lines.append(f"{'  ' * depth}{name}/ ({inside} files)")
            else:
                lines.append(f"{'  ' * depth}{name}/")
                _render(children, sub, depth + 1, max_depth, lines)
        else:
            lines.append(f"{'  ' * depth}{name}")
    if len(entries) > MAX_ENTRIES_PER_DIR:
        lines.append(f"{'  ' * depth}... ({len(entries) - MAX_ENTRIES_PER_DIR} more)")


def _count_files(children: dict[str, list[str]], directory: str) -> int:
    total = 0
    for entry in children.get(directory, []):
        total += _count_files(children, entry.rstrip("/")) if entry.endswith("/") else 1
    return total
