"""Which of a repository's manifests are the project's own.

A manifest at the repository's root is the project's (and requirements/*.txt beside it); so
is one in a directory the root declares a workspace member: package.json `workspaces`,
pnpm-workspace.yaml `packages`, pyproject.toml `[tool.uv.workspace]` `members` (less its
`exclude`), go.work `use`. Any other manifest belongs to a nested project (a test fixture,
an example, a vendored tool): its dependencies are not the project's. Measured: on codeloop
itself, its test fixtures' package.json, go.mod and pyproject.toml made express, gorilla/mux
and numpy read as codeloop's dependencies.

The manifests are repository data: read, never run; the member patterns are matched segment
by segment (`*` within one directory name, `**` across any number), with bounded work.
"""

from __future__ import annotations

import re
import tomllib
from fnmatch import fnmatchcase
from pathlib import PurePosixPath

import yaml

from codeloop import jsonsafe
from codeloop.ask.tools.walk import RepoIndex

MAX_PATTERNS = 200
MAX_PATTERN_CHARS = 200
_GO_USE = re.compile(r"^\s*use\s*(?:\((.*?)\)|(\S+))", re.MULTILINE | re.DOTALL)


def is_requirements(rel: str) -> bool:
    name = PurePosixPath(rel).name
    return name.endswith(".txt") and (name.startswith("requirements")
                                      or "/requirements/" in f"/{rel}")


def project_dir(rel: str) -> str:
    """The directory of the project a manifest describes ("" for the root's);
    requirements/dev.txt describes the directory above requirements/."""
    parent = PurePosixPath(rel).parent
    if is_requirements(rel) and parent.name == "requirements":
        parent = parent.parent
    return "" if str(parent) == "." else str(parent)


class ManifestScope:
    """The root's workspace declarations, read once; `is_own(rel)` for each manifest."""

    def __init__(self, index: RepoIndex) -> None:
        self.members, self.excluded = _workspace_patterns(index)

    def is_own(self, rel: str) -> bool:
        directory = project_dir(rel)
        if not directory:
            return True
        return (any(_glob(p, directory) for p in self.members)
                and not any(_glob(p, directory) for p in self.excluded))


def _workspace_patterns(index: RepoIndex) -> tuple[list[str], list[str]]:
    """(member patterns, excluded patterns) the root's manifests declare."""
    members: list[str] = []
    excluded: list[str] = []
    for name, read in (("package.json", _node_workspaces), ("pnpm-workspace.yaml", _pnpm),
                       ("pyproject.toml", _uv_workspace), ("go.work", _go_work)):
        if not index.has(name):
            continue
        try:
            found, less = read(index.text(name))
        except (ValueError, TypeError, AttributeError, yaml.YAMLError):
            continue  # extract_dependencies reports a root manifest that does not parse
        for pattern in _strings(found):  # npm and pnpm: "!dir" leaves a directory out
            (excluded if pattern.startswith("!") else members).append(pattern.lstrip("!"))
        excluded += [pattern.lstrip("!") for pattern in _strings(less)]
    return members[:MAX_PATTERNS], excluded[:MAX_PATTERNS]


def _strings(value) -> list[str]:
    if not isinstance(value, list):
        return []
    return [v.strip() for v in value if isinstance(v, str) and v.strip()]


def _node_workspaces(text: str):
    data = jsonsafe.loads(text)
    found = data.get("workspaces") if isinstance(data, dict) else None
    if isinstance(found, dict):  # yarn's {"packages": [...], "nohoist": [...]}
        found = found.get("packages")
    return found, []


def _pnpm(text: str):
    data = yaml.safe_load(text)
    return (data.get("packages") if isinstance(data, dict) else None), []


def _uv_workspace(text: str):
    workspace = ((tomllib.loads(text).get("tool") or {}).get("uv") or {}).get("workspace") or {}
    return workspace.get("members"), workspace.get("exclude")


def _go_work(text: str):
    found: list[str] = []
    for block, single in _GO_USE.findall(text):
        found += (block.split() if block else [single])
    return [f for f in found if not f.startswith("//")], []


def _glob(pattern: str, directory: str) -> bool:
    """Whether `directory` (a relative POSIX path) is matched by a workspace pattern."""
    if len(pattern) > MAX_PATTERN_CHARS:
        return False
    wanted = [p for p in pattern.strip().strip("/").split("/") if p not in ("", ".")]
    parts = directory.split("/")
    seen: dict[tuple[int, int], bool] = {}  # memo: at most len(wanted) * len(parts) states

    def match(i: int, j: int) -> bool:
        if (i, j) not in seen:
            if i == len(wanted):
                seen[i, j] = j == len(parts)
            elif wanted[i] == "**":
                seen[i, j] = match(i + 1, j) or (j < len(parts) and match(i, j + 1))
            else:
                seen[i, j] = (j < len(parts) and fnmatchcase(parts[j], wanted[i])
                              and match(i + 1, j + 1))
        return seen[i, j]

    return match(0, 0)
