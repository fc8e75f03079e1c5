"""One guarded walk of a repository: which files the ask job may read, and their text.

Every listing and read goes through the sandbox's PathGuard, so nothing outside the
repository is touched: a symlink (file or directory) is never followed, a hardlink is
refused, `..` cannot escape. Skipped, and counted so the report can say so:
- what `.gitignore` files hide (the root one and nested ones, git's matching rules);
- hidden entries (`.git`, `.env`, `.venv` ...: credentials and machinery, not the project)
  and the usual caches and environments (tools.workspace.SKIPPED_DIRS);
- binary files (a NUL byte, or not UTF-8) and huge ones (over MAX_FILE_BYTES);
- past MAX_FILES files or MAX_TOTAL_BYTES of text, the rest of the tree.
The repository is data: a `.gitignore` can only hide files from the walk, never add any.
"""

from __future__ import annotations

import os
import stat
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath
from typing import Any

from codeloop.sandbox.pathguard import PathGuard, PathRefused
from codeloop.tools.workspace import SKIPPED_DIRS

MAX_FILE_BYTES = 256_000  # a hand-written source file is far smaller; data dumps are not read
MAX_FILES = 4_000
MAX_TOTAL_BYTES = 48_000_000  # what the index holds in memory, all files together
MAX_DEPTH = 12
_SNIFF = 8192


class RepoError(ValueError):
    """The repository cannot be analysed (missing, not a directory, nothing readable)."""


def as_index(repo: RepoIndex | str | Path) -> RepoIndex:
    """What every tool takes as its first argument: a RepoIndex (the ask job walks once and
    shares it), or a repository's path, walked now (RepoError when it cannot be)."""
    return repo if isinstance(repo, RepoIndex) else RepoIndex.open(repo)


@dataclass
class RepoIndex:
    """The readable text files of one repository, read once, through the guard."""

    root: Path
    files: list[str] = field(default_factory=list)  # relative POSIX paths, sorted
    dirs: list[str] = field(default_factory=list)
    skipped: Counter = field(default_factory=Counter)
    _texts: dict[str, str] = field(default_factory=dict, repr=False)
    # What tools derive from the files and keep with the index (retrieval's BM25 index):
    # the walk itself knows none of them, so no tool module is imported from here.
    memo: dict[str, Any] = field(default_factory=dict, repr=False)
    _bytes: int = field(default=0, repr=False)

    @classmethod
    def open(cls, root: str | Path) -> RepoIndex:
        path = Path(root).expanduser()
        if not path.exists():
            raise RepoError(f"the repository {root} does not exist")
        if not path.is_dir():
            raise RepoError(f"the repository {root} is not a directory")
        index = cls(path.resolve())
        index._walk()
        return index

    @property
    def guard(self) -> PathGuard:
        return PathGuard(self.root)

    def text(self, rel: str) -> str:
        """The file's text (already read by the walk); KeyError for a file not in the index."""
        return self._texts[rel]

    def lines(self, rel: str) -> list[str]:
        return self._texts[rel].splitlines()

    def has(self, rel: str) -> bool:
        return rel in self._texts

    # ---------------------------------------------------------------- the walk
    def _walk(self) -> None:
        guard = self.guard
        stack: list[tuple[str, list]] = [("", [])]  # (directory, the .gitignore specs above it)
        while stack:
            directory, specs = stack.pop()
            if directory.count("/") >= MAX_DEPTH:
                self.skipped["too deep"] += 1
                continue
            try:
                names = guard.list_dir(directory or ".")
            except (PathRefused, OSError):
                self.skipped["unreadable"] += 1
                continue
            specs = specs + self._gitignore(guard, directory, names)
            subdirs = []
            for name in names:
                is_dir, is_link = name.endswith("/"), name.endswith("@")
                bare = name.rstrip("/@")
                rel = f"{directory}/{bare}" if directory else bare
                if is_link:
                    self.skipped["symlinks"] += 1
                    continue
                if bare.startswith(".") or (is_dir and bare in SKIPPED_DIRS):
                    self.skipped["hidden or cache"] += 1
                    continue
                if _ignored(specs, rel, is_dir):
                    self.skipped["gitignored"] += 1
                    continue
                if is_dir:
                    subdirs.append(rel)
                else:
                    self._add_file(guard, rel)
            self.dirs += subdirs
            stack += [(d, specs) for d in sorted(subdirs, reverse=True)]
        self.files.sort()
        self.dirs.sort()

    def _add_file(self, guard: PathGuard, rel: str) -> None:
        if len(self.files) >= MAX_FILES:
            self.skipped["over the file limit"] += 1
            return
        try:
            st = os.lstat(guard.resolve(rel))
            if not stat.S_ISREG(st.st_mode):
                self.skipped["not a regular file"] += 1
                return
            if st.st_size > MAX_FILE_BYTES:
                self.skipped["huge"] += 1
                return
            data = guard.read_bytes(rel)  # judged again on the opened descriptor
        except (PathRefused, OSError):
            self.skipped["refused"] += 1
            return
        if len(data) > MAX_FILE_BYTES:
            self.skipped["huge"] += 1
            return
        if self._bytes + len(data) > MAX_TOTAL_BYTES:
            self.skipped["over the size budget"] += 1
            return
        if b"\x00" in data[:_SNIFF]:
            self.skipped["binary"] += 1
            return
        try:
            text = data.decode("utf-8")
        except UnicodeDecodeError:
            self.skipped["binary"] += 1
            return
        self.files.append(rel)
        self._texts[rel] = text
        self._bytes += len(data)

    @staticmethod
    def _gitignore(guard: PathGuard, directory: str, names: list[str]) -> list:
        if ".gitignore" not in names:
            return []
        import pathspec

        try:
            text = guard.read_text(f"{directory}/.gitignore" if directory else ".gitignore")
        except (PathRefused, OSError):
            return []
        return [(directory, pathspec.GitIgnoreSpec.from_lines(text.splitlines()[:2000]))]


def _ignored(specs: list, rel: str, is_dir: bool) -> bool:
    for base, spec in specs:
        sub = str(PurePosixPath(rel).relative_to(base)) if base else rel
        if spec.match_file(sub + "/" if is_dir else sub):
            return True
    return False
