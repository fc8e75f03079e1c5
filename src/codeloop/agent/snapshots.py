"""Workspace snapshots as git trees, for the changed-files summary of a turn and /undo.

A snapshot hashes every workspace file (snapshot_walk: .gitignore is NOT consulted, .git,
__pycache__ and virtual environments are left out, within caps) into the repository's object
store with `git hash-object --no-filters` (no filter a .gitattributes names can run), puts
them in a throw-away index with `update-index --index-info` and writes its tree. The user's
index, HEAD, branches and working tree are never touched. Undo writes the old contents back
through the path guard, and refuses when a file was changed again after the turn.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import tempfile
import time
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Literal

from codeloop import gitutil
from codeloop.agent.snapshot_walk import Entry, walk_workspace
from codeloop.git_hardening import git_env, hardened_argv
from codeloop.sandbox.host_policy import refusal
from codeloop.sandbox.pathguard import PathGuard
from codeloop.tools.workspace import Workspace

_STATUS = {"A": "added", "M": "modified", "D": "deleted", "T": "modified"}
# A file changed within this many seconds may change again with the same stat: re-hash it.
_RACY_SECONDS = 2.0


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
            binary: bool = False, input: bytes | None = None) -> str | bytes:
    """git through the one shared hardening (git_hardening), with extra environment."""
    try:
        proc = subprocess.run(hardened_argv(args, cwd), cwd=cwd, env=git_env(env), input=input,
                              capture_output=True, timeout=60, check=False)
    except (OSError, subprocess.TimeoutExpired) as exc:
        raise SnapshotError(f"git {args[0]} could not run: {exc}") from exc
    if proc.returncode != 0:
        raise SnapshotError(f"git {' '.join(args[:2])} failed: "
                            f"{proc.stderr.decode(errors='replace').strip()[:300]}")
    return proc.stdout if binary else proc.stdout.decode("utf-8", errors="replace")


def is_git_repo(root: Path) -> bool:
    return (root / ".git").exists()


def not_a_repository(root: Path) -> str:
    """Why a workspace is refused where only an explicit request may make it a repository."""
    return (f"{root} is not a git repository; pass init_git: true to make it one (git init, "
            "then a first commit of every file there)")


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
        self.omitted = ""  # what the last take() left out, and why ("" when nothing)
        self._blobs: dict[tuple[str, tuple[int, ...]], str] = {}  # (path, stat key) -> sha

    def take(self) -> str:
        """The tree id of the workspace as it is now."""
        walk = walk_workspace(self.root)
        self.omitted = walk.omitted()
        shas = self._hash(walk.entries)
        records = b"".join(f"{e.mode} {shas[e.path]}\t".encode() + os.fsencode(e.path) + b"\0"
                           for e in walk.entries)
        scratch = Path(tempfile.mkdtemp(prefix="codeloop-index-"))
        try:
            env = {"GIT_INDEX_FILE": str(scratch / "index")}
            run_git(["update-index", "-z", "--index-info"], self.root, env, input=records)
            return str(run_git(["write-tree"], self.root, env)).strip()
        finally:
            shutil.rmtree(scratch, ignore_errors=True)

    def _hash(self, entries: list[Entry]) -> dict[str, str]:
        """Blob ids by path; files unchanged since the last take are not read again."""
        shas, todo = {}, []
        for entry in entries:
            sha = self._blobs.get((entry.path, entry.key))
            if sha:
                shas[entry.path] = sha
            else:
                todo.append(entry)
        if not todo:
            return shas
        scratch = Path(tempfile.mkdtemp(prefix="codeloop-links-"))
        try:
            paths = [self._content_path(e, scratch, i) for i, e in enumerate(todo)]
            out = str(run_git(["hash-object", "-w", "--no-filters", "--stdin-paths"], self.root,
                              input=b"".join(p + b"\n" for p in paths))).split()
        finally:
            shutil.rmtree(scratch, ignore_errors=True)
        if len(out) != len(todo):
            raise SnapshotError("git hash-object returned a wrong number of ids")
        settled = time.time() - _RACY_SECONDS
        for entry, sha in zip(todo, out):
            shas[entry.path] = sha
            if entry.key[1] / 1e9 < settled:
                self._blobs[(entry.path, entry.key)] = sha
        return shas

    def _content_path(self, entry: Entry, scratch: Path, i: int) -> bytes:
        """Where hash-object reads the entry's content: the file, or for a symlink a scratch
        file holding its target (git stores a link as its target text)."""
        path = self.root / entry.path
        if entry.mode != "120000":
            return os.fsencode(path)
        target = scratch / str(i)
        target.write_bytes(os.fsencode(os.readlink(path)))
        return os.fsencode(target)

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
        refused = [f"{c.path} ({why})" for c in changes
                   if (why := refusal(self.root, tuple(c.path.split("/"))))]
        if refused:  # checked first, so undo changes all of the turn's files or none
            raise SnapshotError("not undoing: codeloop never writes these files: "
                                + "; ".join(refused))
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
