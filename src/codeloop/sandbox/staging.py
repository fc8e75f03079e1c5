"""Stage the user's workspace: a copy the sandboxed program may change freely, and the
snapshot the copy-back compares the result against.

Every run on a given workspace that may write (mode "rw" or "cow", and every mode as root) runs
on such a copy, in both recipes, so the copy-back (copyback.py) is the one gate that every file
the program wrote passes through. The copy keeps mtimes and modes; its `.git` configs are
scrubbed of credentials (gitscrub.py), and the snapshot records them as scrubbed.
"""

from __future__ import annotations

import os
import shutil
import stat
from dataclasses import dataclass
from pathlib import Path

from codeloop.sandbox.gitscrub import scrub_git_secrets
from codeloop.sandbox.types import SandboxError

MAX_STAGED_BYTES = 512 * 1024 * 1024
MAX_STAGED_ENTRIES = 200_000

Snapshot = dict[str, tuple[str, int, int, int]]  # rel path -> (kind, size, mtime_ns, mode)


def kind_of(st: os.stat_result) -> str | None:
    if stat.S_ISDIR(st.st_mode):
        return "dir"
    if stat.S_ISREG(st.st_mode):
        return "file"
    if stat.S_ISLNK(st.st_mode):
        return "link"
    return None  # fifos, sockets, devices: never copied either way


def signature(st: os.stat_result) -> tuple[str, int, int, int]:
    return (kind_of(st) or "other", st.st_size, st.st_mtime_ns, stat.S_IMODE(st.st_mode))


def walk(root: Path, skip: frozenset[str] = frozenset()):
    """Yield (rel, stat) for every entry under root, parents first, never following links;
    the top-level directories named in `skip` are yielded but not entered."""
    stack = [""]
    while stack:
        rel_dir = stack.pop()
        with os.scandir(root / rel_dir if rel_dir else root) as entries:
            for entry in entries:
                rel = f"{rel_dir}/{entry.name}" if rel_dir else entry.name
                st = entry.stat(follow_symlinks=False)
                yield rel, st
                if stat.S_ISDIR(st.st_mode) and rel not in skip:
                    stack.append(rel)


@dataclass(frozen=True)
class TreeSize:
    bytes: int
    entries: int


def measure(source: Path, skip: frozenset[str] = frozenset()) -> TreeSize:
    """What staging `source` takes; SandboxError when it is over the staging caps."""
    total = count = 0
    try:
        for _rel, st in walk(source, skip):
            count += 1
            total += st.st_size if stat.S_ISREG(st.st_mode) else 0
            if total > MAX_STAGED_BYTES or count > MAX_STAGED_ENTRIES:
                raise SandboxError(
                    f"workspace {source} is over {MAX_STAGED_BYTES >> 20} MB or "
                    f"{MAX_STAGED_ENTRIES:,} files; too large to stage for a sandboxed run")
    except OSError as exc:
        raise SandboxError(f"could not read workspace {source}: {exc}") from exc
    return TreeSize(total, count)


def stage_copy(source: Path, target: Path, uid: int | None,
               skip: frozenset[str] = frozenset()) -> Snapshot:
    """Copy `source` into the (empty) `target` for the sandbox uid (None: ours); return the
    snapshot that sync_back compares against. SandboxError (never a traceback) on failure.
    A top-level directory in `skip` is copied empty (a mount point: the runner binds the
    original there read-only)."""
    snapshot: Snapshot = {}
    total = 0
    try:
        for rel, st in walk(source, skip):
            kind = kind_of(st)
            if kind is None:
                continue
            src, dst = source / rel, target / rel
            if kind == "dir":
                dst.mkdir(mode=0o700)
                shutil.copystat(src, dst)
            elif kind == "link":
                os.symlink(os.readlink(src), dst)
            else:
                total += st.st_size
                if total > MAX_STAGED_BYTES:
                    raise SandboxError(f"workspace {source} is over {MAX_STAGED_BYTES >> 20} MB;"
                                       " too large to stage for a sandboxed run")
                shutil.copy2(src, dst, follow_symlinks=False)
            if uid is not None:
                os.lchown(dst, uid, uid)
            snapshot[rel] = signature(os.lstat(dst))
        for rel in scrub_git_secrets(target, snapshot):
            if os.path.lexists(target / rel):
                if uid is not None:
                    os.lchown(target / rel, uid, uid)
                snapshot[rel] = signature(os.lstat(target / rel))
            else:
                snapshot.pop(rel, None)  # a dropped credentials file is no deletion to sync
    except OSError as exc:
        raise SandboxError(f"could not stage workspace {source} for the sandbox: {exc}") from exc
    return snapshot
