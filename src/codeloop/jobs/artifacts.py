"""A file as jobs hold it before it is written: `{file_path, content, language}` (review's
artifacts, the agent's context-first edits), and the language named from its extension."""

from __future__ import annotations

from typing import TypedDict

LANGUAGES = {".py": "python", ".md": "markdown", ".toml": "toml", ".json": "json",
             ".yaml": "yaml", ".yml": "yaml", ".txt": "text", ".cfg": "ini", ".sh": "shell",
             ".js": "javascript", ".ts": "typescript", ".go": "go"}


class Artifact(TypedDict):
    file_path: str  # relative to the workspace, as the path guard spells it
    content: str
    language: str


def language_of(path: str) -> str:
    dot = path.rfind(".")
    return LANGUAGES.get(path[dot:].lower(), "text") if dot >= 0 else "text"


def artifact(path: str, content: str) -> Artifact:
    return Artifact(file_path=path, content=content, language=language_of(path))
