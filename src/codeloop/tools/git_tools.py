"""git status and diff of the workspace, through the hardened git helper."""

from __future__ import annotations

from codeloop import gitutil
from codeloop.tools.base import ToolError, tool
from codeloop.tools.workspace import Workspace

MAX_DIFF_CHARS = 10_000


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
    text = _git(ws, ["status", "--short", "--untracked-files=all"])
    return text.rstrip() or "Nothing changed: the working tree is clean."


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
    if not parts:
        return "No changes" + (f" in {ws.rel(path)}." if path else ".")
    text = "\n".join(parts)
    if len(text) > MAX_DIFF_CHARS:
        text = text[:MAX_DIFF_CHARS] + "\n... (diff cut; ask for one path at a time)"
    return text
