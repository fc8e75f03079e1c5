"""Which workspace files a snapshot records: every file, ignored by .gitignore or not, except
what the tools and the sandbox's copy-back never write (`.git` at any depth, `__pycache__`,
virtual environments = directories holding pyvenv.cfg), within caps on count and size.

A model can write `.gitignore` containing `*` first; the change summary and /undo must still
see what it did after, so .gitignore is not consulted. Nested `.git` entries (directories,
or `gitdir:` files) are skipped, never followed. The caps keep a huge ignored directory
(a dataset, node_modules) from stalling each turn; what they leave out is reported.
"""

from __future__ import annotations

import os
import stat
from dataclasses import dataclass, field

from codeloop.sandbox.host_policy import GIT_DIR, VENV_MARKER

MAX_FILES = 20_000
MAX_FILE_BYTES = 20 * 1024 * 1024
MAX_TOTAL_BYTES = 512 * 1024 * 1024
_SKIPPED_DIRS = frozenset({GIT_DIR, "__pycache__"})


@dataclass(frozen=True)
class Entry:
    path: str  # relative, "/"-separated
    mode: str  # git mode: 100644, 100755 or 120000
    key: tuple[int, ...]  # what changes when the file does (size, mtime, ctime, inode)


@dataclass
class Walk:
    entries: list[Entry] = field(default_factory=list)
    too_big: list[str] = field(default_factory=list)
    beyond_cap: int = 0
    unnamed: list[str] = field(default_factory=list)  # names git cannot take (a newline)
    total_bytes: int = 0

    def omitted(self) -> str:
        """What was left out and why, for the user; "" when nothing was."""
        parts = []
        if self.too_big:
            parts.append(f"{len(self.too_big)} file(s) over {MAX_FILE_BYTES // 2**20} MiB "
                         f"({_few(self.too_big)})")
        if self.beyond_cap:
            parts.append(f"{self.beyond_cap} file(s) beyond the cap of {MAX_FILES} files or "
                         f"{MAX_TOTAL_BYTES // 2**20} MiB")
        if self.unnamed:
            parts.append(f"{len(self.unnamed)} file(s) with a newline in the name")
        return ("left out of the change tracking: " + "; ".join(parts)) if parts else ""


def _few(names: list[str], count: int = 3) -> str:
    return ", ".join(names[:count]) + (", ..." if len(names) > count else "")


def walk_workspace(root: str | os.PathLike) -> Walk:
    """The files to snapshot, in a stable order (a stack, not recursion: depth is free)."""
    walk, root = Walk(), os.fspath(root)
    pending = [""]
    while pending:
        rel_dir, subdirs = pending.pop(), []
        for rel, st in _listing(root, rel_dir):
            if stat.S_ISDIR(st.st_mode):
                subdirs.append(rel)
            elif stat.S_ISREG(st.st_mode) or stat.S_ISLNK(st.st_mode):
                _add(walk, rel, st)
        pending.extend(reversed(subdirs))  # popped in name order
    return walk


def _listing(root: str, rel_dir: str) -> list[tuple[str, os.stat_result]]:
    """A directory's entries, sorted, minus the skipped names; none for a venv."""
    try:
        with os.scandir(os.path.join(root, rel_dir) if rel_dir else root) as it:
            items = sorted(it, key=lambda e: e.name)
    except OSError:
        return []
    if any(e.name == VENV_MARKER for e in items):
        return []  # a virtual environment: never written by the model, never tracked
    out = []
    for item in items:
        if item.name.lower() in _SKIPPED_DIRS:
            continue
        try:
            out.append((f"{rel_dir}/{item.name}" if rel_dir else item.name,
                        item.stat(follow_symlinks=False)))
        except OSError:
            continue
    return out


def _add(walk: Walk, rel: str, st: os.stat_result) -> None:
    if "\n" in rel:
        walk.unnamed.append(rel)
        return
    if stat.S_ISLNK(st.st_mode):
        mode = "120000"
    else:
        if st.st_size > MAX_FILE_BYTES:
            walk.too_big.append(rel)
            return
        mode = "100755" if st.st_mode & stat.S_IXUSR else "100644"
    if len(walk.entries) >= MAX_FILES or walk.total_bytes + st.st_size > MAX_TOTAL_BYTES:
        walk.beyond_cap += 1
        return
    walk.total_bytes += st.st_size
    walk.entries.append(Entry(rel, mode, (st.st_size, st.st_mtime_ns, st.st_ctime_ns,
                                          st.st_ino, st.st_mode)))
