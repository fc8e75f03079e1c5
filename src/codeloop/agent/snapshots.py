"""Workspace snapshots as git trees, for the changed-files summary of a turn and /undo.

A snapshot is `git add -A` into a throw-away index file plus `git write-tree`: it records
every file (respecting .gitignore) without touching the user's index, HEAD, branches or
working tree. Undo writes the old contents back through the path guard, and refuses when a
file was changed again after the turn.
"""

from __future__ import annotations

import shutil
import subprocess
import tempfile
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Literal

from codeloop import gitutil
from codeloop.gitutil import git_env
from codeloop.sandbox.pathguard import PathGuard
from codeloop.tools.workspace import Workspace

# A planted hook or fsmonitor in the workspace must never run (ARCHITECTURE.md). The
# environment is gitutil's; this module adds GIT_INDEX_FILE, which gitutil.git cannot pass.
_HARDENING = ["-c", "core.fsmonitor=false", "-c", "core.hooksPath=/dev/null",
              "-c", "core.autocrlf=false", "-c", "commit.gpgSign=false", "-c", "gc.auto=0"]
_STATUS = {"A": "added", "M": "modified", "D": "deleted", "T": "modified"}


class SnapshotError(Exception):
    pass


@dataclass(frozen=True)
class FileChange:
    path: str
    status: Literal["added", "modified", "deleted"]
    added_lines: int = 0
    removed_lines: int = 0

    def as_dict(self) -> dict:
        return asdict(self)

    def describe(self) -> str:
        return f"{self.status:<8} {self.path} (+{self.added_lines} -{self.removed_lines})"


def run_git(args: list[str], cwd: Path, env: dict[str, str] | None = None,
            binary: bool = False) -> str | bytes:
    full_env = {**git_env(), **(env or {})}
    try:
        proc = subprocess.run(["git", *_HARDENING, *args], cwd=cwd, env=full_env,
                              capture_output=True, timeout=60, check=False)
    except (OSError, subprocess.TimeoutExpired) as exc:
        raise SnapshotError(f"git {args[0]} could not run: {exc}") from exc
    if proc.returncode != 0:
        raise SnapshotError(f"git {' '.join(args[:2])} failed: "
                            f"{proc.stderr.decode(errors='replace').strip()[:300]}")
    return proc.stdout if binary else proc.stdout.decode("utf-8", errors="replace")


def is_git_repo(root: Path) -> bool:
    return (root / ".git").exists()


def init_repo(root: Path) -> str | None:
    """`git init` and a first commit of what is there (so diffs have a base)."""
    gitutil.init_repo(root)
    return gitutil.commit_all(root, "codeloop: initial snapshot of the workspace")


class Snapshots:
    def __init__(self, workspace: Workspace) -> None:
        if not is_git_repo(workspace.root):
            raise SnapshotError(f"{workspace.root} is not a git repository")
        self.workspace = workspace
        self.root = workspace.root

    def take(self) -> str:
        """The tree id of the workspace as it is now."""
        scratch = Path(tempfile.mkdtemp(prefix="codeloop-index-"))
        try:
            index = scratch / "index"
            real_index = self.root / ".git" / "index"
            if real_index.is_file():  # start from it: git then re-hashes only changed files
                shutil.copyfile(real_index, index)
            env = {"GIT_INDEX_FILE": str(index)}
            run_git(["add", "-A"], self.root, env)
            return str(run_git(["write-tree"], self.root, env)).strip()
        finally:
            shutil.rmtree(scratch, ignore_errors=True)

    def changes(self, before: str, after: str) -> list[FileChange]:
        if before == after:
            return []
        status_text = str(run_git(["diff-tree", "-r", "--no-renames", "--name-status",
                                   before, after], self.root))
        counts: dict[str, tuple[int, int]] = {}
        for line in str(run_git(["diff-tree", "-r", "--no-renames", "--numstat", before,
                                 after], self.root)).splitlines():
            added, removed, path = line.split("\t", 2)
            counts[path] = (int(added) if added.isdigit() else 0,
                            int(removed) if removed.isdigit() else 0)
        out = []
        for line in status_text.splitlines():
            code, path = line.split("\t", 1)
            plus, minus = counts.get(path, (0, 0))
            out.append(FileChange(path, _STATUS.get(code[0], "modified"), plus, minus))  # type: ignore[arg-type]
        return out

    def _blob(self, tree: str, path: str) -> bytes:
        return bytes(run_git(["cat-file", "blob", f"{tree}:{path}"], self.root, binary=True))

    def restore(self, before: str, after: str) -> list[str]:
        """Put back every file the turn (before -> after) changed. Raises SnapshotError,
        changing nothing, when one of them was changed again since."""
        changes = self.changes(before, after)
        current = self.changes(after, self.take())
        touched_since = {c.path for c in current} & {c.path for c in changes}
        if touched_since:
            raise SnapshotError("not undoing: these files changed after that turn: "
                                + ", ".join(sorted(touched_since)))
        reverted = []
        for change in changes:
            if change.status == "added":
                self.workspace.delete(change.path)
                reverted.append(f"deleted {change.path}")
            else:
                content = self._blob(before, change.path)
                guard_write(self.workspace, change.path, content)
                reverted.append(f"restored {change.path}")
        return reverted


def guard_write(workspace: Workspace, path: str, content: bytes) -> None:
    PathGuard(workspace.root).write_bytes(path, content)
