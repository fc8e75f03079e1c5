"""The directory a sandboxed program sees as /workspace: a throw-away one, or a staged copy of
the user's workspace whose changes are written back afterwards.

Why a copy, in both recipes: the copy-back is the one gate every file the program wrote passes
through (host policy, links, caps, all or nothing), and as root the program's unprivileged uid
could not write root-owned files anyway. "cow" uses the same copy and throws it away. The
pieces: staging.py (copy + snapshot, git secrets scrubbed), copyback.py (sync_back),
tempdirs.py (the size-capped, crash-swept per-run dir), removal.py (bounded tree removal).
"""

from __future__ import annotations

import os
from pathlib import Path

from codeloop.sandbox.copyback import CopyBackError, SyncReport, sync_back
from codeloop.sandbox.removal import remove_tree
from codeloop.sandbox.staging import MAX_STAGED_BYTES, Snapshot, measure, stage_copy
from codeloop.sandbox.tempdirs import mount_workspace, private_run_dir
from codeloop.sandbox.types import Limits

_PAGE = 4096  # tmpfs keeps each non-empty file in whole pages


def make_throwaway(uid: int | None, parent: Path, caps: dict[str, int] | None = None) -> Path:
    """A fresh directory `workspace` inside `parent`, owned by `uid` when given; with caps
    (run_dir_caps) a size-capped tmpfs where we may mount one (as root). As an ordinary user
    it stays on the host disk: then only the copy-back caps and RLIMIT_FSIZE bound it."""
    path = parent / "workspace"
    path.mkdir(mode=0o700)
    if caps is not None:
        mount_workspace(path, caps["size_bytes"], caps["inodes"])
    if uid is not None:
        os.chown(path, uid, uid)
    return path


def run_dir_caps(source: Path | None, limits: Limits) -> dict[str, int]:
    """make_throwaway's tmpfs size and inode count for a run staging `source` (None: a
    throw-away workspace): the copy, plus what the run may add (the copy-back caps), plus
    some slack. SandboxError when `source` is too large to stage."""
    mb = 1024 * 1024
    staged = measure(source) if source is not None else None
    size = limits.copyback_mb * mb + 16 * mb
    inodes = limits.copyback_files + 64
    if staged is not None:
        size += staged.bytes + staged.entries * _PAGE
        inodes += staged.entries
    return {"size_bytes": size, "inodes": inodes}


__all__ = ["MAX_STAGED_BYTES", "CopyBackError", "Snapshot", "SyncReport", "make_throwaway",
           "measure", "private_run_dir", "remove_tree", "run_dir_caps", "stage_copy",
           "sync_back"]
