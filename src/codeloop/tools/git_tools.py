"""git status and diff of the workspace, through the hardened git helper.

A model can write a `.gitignore` holding `*` before anything else; git status would then
show none of its new files. Both tools also name the files .gitignore hides (minus caches
and virtual environments, which are noise), so nothing the model made is out of sight.
"""

from __future__ import annotations

from pathlib import PurePosixPath

from codeloop import gitutil
from codeloop.tools.base import ToolError, tool
from codeloop.tools.workspace import Workspace

MAX_DIFF_CHARS = 10_000
MAX_HIDDEN_NAMES = 20
# Ignored entries not worth naming: caches and environments no tool writes.
_NOISE_NAMES = frozenset({"__pycache__", ".pytest_cache", ".mypy_cache", ".ruff_cache",
                          ".venv", "venv", ".tox", ".nox", "node_modules", ".git"})


def _git(ws: Workspace, args: list[str]) -> str:
    try:
        return gitutil.git(args, ws.root).stdout
    except gitutil.GitError as exc:
        if "not a git repository" in exc.stderr:
            raise ToolError("the workspace is not a git repository") from exc
        raise ToolError(f"git {' '.join(args[:2])} failed: {exc}") from exc


@tool
def git_status(ws: Workspace) -> str:
    """Show which files are changed, added or untracked in the workspace (git status)."""
    text = _git(ws, ["status", "--short", "--untracked-files=all"]).rstrip()
    hidden = _hidden_note(ws, "")
    text = text or "Nothing changed: the working tree is clean."
    return f"{text}\n{hidden}" if hidden else text


@tool
def git_diff(ws: Workspace, path: str = "") -> str:
    """Show the changes to tracked files since the last commit (git diff), for one path or
    all; new untracked files are listed by name.

    Args:
        path: a file or directory relative to the workspace; "" for everything
    """
    has_head = gitutil.git(["rev-parse", "--verify", "-q", "HEAD"], ws.root,
                           check=False).returncode == 0
    args = ["diff", "--no-color", "--no-ext-diff", "--no-textconv"] + (["HEAD"] if has_head else [])
    if path:
        args += ["--", ws.rel(path)]
    diff = _git(ws, args).rstrip()
    untracked = _git(ws, ["ls-files", "--others", "--exclude-standard"]
                     + (["--", ws.rel(path)] if path else [])).split()
    parts = [diff] if diff else []
    if untracked:
        parts.append("New untracked files (not in the diff): " + ", ".join(untracked))
    if hidden := _hidden_note(ws, ws.rel(path) if path else ""):
        parts.append(hidden)
    if not parts:
        return "No changes" + (f" in {ws.rel(path)}." if path else ".")
    text = "\n".join(parts)
    if len(text) > MAX_DIFF_CHARS:
        text = text[:MAX_DIFF_CHARS] + "\n... (diff cut; ask for one path at a time)"
    return text


def hidden_by_gitignore(ws: Workspace, path: str = "") -> list[str]:
    """Untracked files and directories .gitignore hides, minus caches and environments."""
    listed = _git(ws, ["ls-files", "--others", "--ignored", "--exclude-standard", "--directory",
                       "--no-empty-directory"] + (["--", path] if path else []))
    return [name for name in listed.splitlines() if name and not _is_noise(ws, name)]


def _is_noise(ws: Workspace, name: str) -> bool:
    # Bytecode outside __pycache__ is not noise: Python never writes it there by itself, and
    # it is imported in place of the source beside it.
    pure = PurePosixPath(name.rstrip("/"))
    if any(part in _NOISE_NAMES for part in pure.parts):
        return True
    return pure.name.endswith(".egg-info") or (ws.root / pure / "pyvenv.cfg").is_file()


def _hidden_note(ws: Workspace, path: str) -> str:
    hidden = hidden_by_gitignore(ws, path)
    if not hidden:
        return ""
    shown = ", ".join(hidden[:MAX_HIDDEN_NAMES])
    more = f" and {len(hidden) - MAX_HIDDEN_NAMES} more" if len(hidden) > MAX_HIDDEN_NAMES else ""
    return f"Hidden by .gitignore ({len(hidden)}; not in the list above): {shown}{more}"
