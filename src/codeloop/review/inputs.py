"""Checking a review request before anything runs: one clear line for bad input, no model,
no writes. Also the git side: which files a commit (or the work tree) changed."""

from __future__ import annotations

import re
from pathlib import Path

from codeloop.sandbox.host_policy import refusal
from codeloop.sandbox.pathguard import PathGuard, PathRefused

WORKTREE = "WORKTREE"
# A revision, never an option: git would read "--output=..." as one.
_REV = re.compile(r"^[A-Za-z0-9_][A-Za-z0-9_./~^@{}:-]*$")


class ReviewInputError(ValueError):
    """Bad input, one line: a path outside the workspace, a missing file, a non-git workspace
    for git_rev, an empty request with no files, a workspace that is not a directory."""


def check_workspace(workspace: Path) -> Path:
    path = Path(workspace).expanduser()
    if not path.exists():
        raise ReviewInputError(f"workspace {path} does not exist")
    if not path.is_dir():
        raise ReviewInputError(f"workspace {path} is not a directory")
    return path.resolve()


def check_file(guard: PathGuard, name: str) -> str:
    """`name` as a workspace-relative path of an existing regular file the review may change."""
    try:
        rel = guard.rel(name)
        target = guard.resolve(name)
    except PathRefused as exc:
        raise ReviewInputError(f"{name}: {exc.reason}") from None
    if rel == ".":
        raise ReviewInputError(f"{name}: the workspace itself is not a file")
    why = refusal(guard.root, guard.parts(name))
    if why is not None:
        raise ReviewInputError(f"{name}: {why}")
    if not target.is_file():
        raise ReviewInputError(f"{name}: no such file in {guard.root}")
    return rel


def _commit_range(workspace: Path, rev: str) -> list[str]:
    """The two trees whose diff is commit `rev`'s own change: its first parent and itself
    (`rev^ rev`); a root commit is compared with the empty tree."""
    from codeloop.gitutil import git

    if git(["rev-parse", "--verify", "--quiet", f"{rev}^1^{{commit}}"], workspace,
           check=False).returncode == 0:
        return [f"{rev}^1", rev]
    empty = git(["hash-object", "-t", "tree", "--stdin"], workspace, input="").stdout.strip()
    return [empty, rev]


def changed_files(workspace: Path, rev: str,
                  skipped: list[str] | None = None) -> tuple[list[str], str]:
    """The files commit `rev` changed (its own change: `rev^ rev`), or with WORKTREE the
    uncommitted changes (tracked and untracked), that still exist, and the diff text.
    ReviewInputError when the workspace is no git repository or rev unknown.
    `skipped` (when given) gets "path: why" for every change left out: files the review may
    not change (the host policy) or that are gone, and with WORKTREE the untracked files a
    .gitignore hides (a model may write one to hide its work), so none is out of sight."""
    from codeloop.gitutil import GitError, git

    if not _REV.match(rev):
        raise ReviewInputError(f"--git {rev!r} is not a revision")
    try:
        inside = git(["rev-parse", "--is-inside-work-tree"], workspace, check=False)
    except OSError as exc:
        raise ReviewInputError(f"git cannot run: {exc}") from None
    except GitError as exc:  # refused (a special file in its config) or timed out
        raise ReviewInputError(str(exc).splitlines()[0]) from None
    if inside.returncode != 0 or inside.stdout.strip() != "true":
        raise ReviewInputError(f"{workspace} is not a git repository (needed for --git)")
    base = "HEAD" if rev == WORKTREE else rev
    try:
        if git(["rev-parse", "--verify", "--quiet", f"{base}^{{commit}}"], workspace,
               check=False).returncode != 0:
            raise ReviewInputError(f"unknown revision {base!r} in {workspace}")
        span = [base] if rev == WORKTREE else _commit_range(workspace, base)
        names = git(["diff", "--name-only", "--no-renames", *span, "--"], workspace).stdout
        diff = git(["diff", "--no-ext-diff", "--no-textconv", "--no-color", *span, "--"],
                   workspace).stdout
        if rev == WORKTREE:
            names += git(["ls-files", "--others", "--exclude-standard"], workspace).stdout
    except GitError as exc:
        raise ReviewInputError(str(exc).splitlines()[0]) from None
    guard = PathGuard(workspace)
    found = []
    for name in dict.fromkeys(n for n in names.splitlines() if n.strip()):
        try:
            found.append(check_file(guard, name))
        except ReviewInputError as exc:  # deleted since, or not a file codeloop may change
            if skipped is not None:
                skipped.append(str(exc))
    if skipped is not None and rev == WORKTREE:
        skipped += _hidden_by_gitignore(workspace)
    return found, diff


def _hidden_by_gitignore(workspace: Path) -> list[str]:
    from codeloop.tools.base import ToolError
    from codeloop.tools.git_tools import hidden_by_gitignore
    from codeloop.tools.workspace import Workspace

    try:
        hidden = hidden_by_gitignore(Workspace.at(workspace))
    except ToolError as exc:
        return [f"(files hidden by .gitignore could not be listed: {exc})"]
    out = []
    for name in hidden:
        why = refusal(workspace, name.rstrip("/").split("/"))
        out.append(f"{name}: hidden by .gitignore" + (f"; {why}" if why else ""))
    return out
