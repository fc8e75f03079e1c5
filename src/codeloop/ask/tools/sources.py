"""Tool 2, `read_source_files(path, max_files=20)`: the most central source files first.

Central = imported by the most of the repository's own modules (fan-in, from the
architecture map), then declared entry points, then the larger file; never alphabetical
order, which would read `a_helpers.py` before the module everything depends on.
Each file's text is cut at MAX_CHARS_PER_FILE so twenty files stay readable in a prompt.
"""

from __future__ import annotations

from pathlib import Path, PurePosixPath
from typing import Any

from codeloop.ask.tools.architecture import generate_architecture_map
from codeloop.ask.tools.walk import RepoIndex, as_index

SOURCE_SUFFIXES = (".py", ".pyi", ".js", ".jsx", ".ts", ".tsx", ".mjs", ".cjs", ".go", ".rs",
                   ".java", ".kt", ".rb", ".php", ".c", ".h", ".cc", ".cpp", ".hpp", ".cs",
                   ".swift", ".scala", ".sh", ".lua")
MAX_CHARS_PER_FILE = 4000


def is_source(rel: str) -> bool:
    return PurePosixPath(rel).suffix.lower() in SOURCE_SUFFIXES


def rank_sources(index: RepoIndex, architecture: dict[str, Any]) -> list[str]:
    """Every source file, the most central first."""
    fan_in = {m["path"]: m["fan_in"] for m in architecture.get("modules", [])}
    entries = {e["path"] for e in architecture.get("entry_points", [])}
    sources = [rel for rel in index.files if is_source(rel)]
    return sorted(sources, key=lambda rel: (-fan_in.get(rel, 0), rel not in entries,
                                            is_test(rel), -len(index.text(rel)), rel))


def read_source_files(path: str | Path | RepoIndex, max_files: int = 20, *,
                      architecture: dict[str, Any] | None = None,
                      only: list[str] | None = None) -> list[dict[str, Any]]:
    """[{path, lines, fan_in, text, truncated}] for the `max_files` most central source files
    (or for the files in `only`, in that order, that the walk admitted). `path`: the
    repository's directory, or its RepoIndex; `architecture`: its map when the caller has
    it already (generate_architecture_map's result), else it is made here."""
    index = as_index(path)
    if architecture is None:
        architecture = generate_architecture_map(index)
    fan_in = {m["path"]: m["fan_in"] for m in architecture.get("modules", [])}
    chosen = [rel for rel in only if index.has(rel)] if only is not None \
        else rank_sources(index, architecture)
    out = []
    for rel in chosen[:max_files]:
        text = index.text(rel)
        out.append({"path": rel, "lines": text.count("\n") + 1, "fan_in": fan_in.get(rel, 0),
                    "text": text[:MAX_CHARS_PER_FILE],
                    "truncated": len(text) > MAX_CHARS_PER_FILE})
    return out


def is_test(rel: str) -> bool:
    name = PurePosixPath(rel).name
    return name.startswith("test_") or name.endswith("_test.py") or "/tests/" in f"/{rel}"
