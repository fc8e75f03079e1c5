"""The directory a sandboxed program sees as /workspace: a throw-away one, or a staged copy of
the user's workspace that is written back afterwards.

Why a copy: as root the program runs under an unprivileged uid (see bwrap.py), which cannot
write root-owned files. So in root mode a given workspace is copied into a directory owned by
that uid; in "rw" mode the changes are written back by codeloop itself when the run ends, with
no symlink followed, set-id bits dropped, owners kept, links that point outside the workspace
skipped, and `.git/` never written back (hooks planted by sandboxed code must not reach the
user's git). "cow" uses the same copy and throws it away.
"""

from __future__ import annotations

import os
import shutil
import stat
import tempfile
from dataclasses import dataclass, field
from pathlib import Path

from codeloop.sandbox.types import SandboxError

MAX_STAGED_BYTES = 512 * 1024 * 1024
_SKIP_ON_SYNC = ".git"

Snapshot = dict[str, tuple[str, int, int, int]]  # rel path -> (kind, size, mtime_ns, mode)


def _kind(st: os.stat_result) -> str | None:
    if stat.S_ISDIR(st.st_mode):
        return "dir"
    if stat.S_ISREG(st.st_mode):
        return "file"
    if stat.S_ISLNK(st.st_mode):
        return "link"
    return None  # fifos, sockets, devices: never copied either way


def _signature(st: os.stat_result) -> tuple[str, int, int, int]:
    return (_kind(st) or "other", st.st_size, st.st_mtime_ns, stat.S_IMODE(st.st_mode))


def make_throwaway(uid: int | None, parent: Path | None = None) -> Path:
    """A fresh directory owned by `uid` (inside `parent`, or a new temp directory)."""
    if parent is None:
        path = Path(tempfile.mkdtemp(prefix="codeloop-sbx-"))
    else:
        path = parent / "workspace"
        path.mkdir(mode=0o700)
    if uid is not None:
        os.chown(path, uid, uid)
    return path


def remove_tree(path: Path) -> None:
    shutil.rmtree(path, ignore_errors=True)


def _walk(root: Path):
    """Yield (rel, stat) for every entry under root, parents first, never following links."""
    stack = [""]
    while stack:
        rel_dir = stack.pop()
        with os.scandir(root / rel_dir if rel_dir else root) as entries:
            for entry in entries:
                rel = f"{rel_dir}/{entry.name}" if rel_dir else entry.name
                st = entry.stat(follow_symlinks=False)
                yield rel, st
                if stat.S_ISDIR(st.st_mode):
                    stack.append(rel)


def stage_copy(source: Path, target: Path, uid: int | None) -> Snapshot:
    """Copy `source` into the (empty) `target` for the sandbox uid; return the snapshot that
    sync_back compares against."""
    snapshot: Snapshot = {}
    total = 0
    for rel, st in _walk(source):
        kind = _kind(st)
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
                raise SandboxError(f"workspace {source} is over {MAX_STAGED_BYTES >> 20} MB; "
                                   "too large to stage for a sandboxed run")
            shutil.copy2(src, dst, follow_symlinks=False)
        if uid is not None:
            os.lchown(dst, uid, uid)
        snapshot[rel] = _signature(os.lstat(dst))
    return snapshot


@dataclass
class SyncReport:
    written: list[str] = field(default_factory=list)
    deleted: list[str] = field(default_factory=list)
    skipped: list[str] = field(default_factory=list)  # with the reason


def _real_dir(path: Path, root: Path) -> bool:
    """True when every component from root down to path is a directory, not a symlink."""
    current = root
    for part in path.relative_to(root).parts:
        current = current / part
        try:
            st = os.lstat(current)
        except FileNotFoundError:
            return False
        if not stat.S_ISDIR(st.st_mode):
            return False
    return True


def _clear(path: Path) -> None:
    st = os.lstat(path)
    if stat.S_ISDIR(st.st_mode):
        shutil.rmtree(path)
    else:
        os.unlink(path)


def _owner_for(path: Path, root_stat: os.stat_result) -> tuple[int, int]:
    try:
        st = os.lstat(path)
        return st.st_uid, st.st_gid
    except FileNotFoundError:
        return root_stat.st_uid, root_stat.st_gid


def _link_stays_inside(target: str, link_rel: str) -> bool:
    if os.path.isabs(target):
        return False
    joined = os.path.normpath(os.path.join(os.path.dirname(link_rel), target))
    return not (joined == ".." or joined.startswith("../"))


def sync_back(staging: Path, workspace: Path, snapshot: Snapshot) -> SyncReport:
    """Apply what the sandboxed program changed in `staging` to `workspace`."""
    report = SyncReport()
    root_stat = os.stat(workspace)
    as_root = os.geteuid() == 0
    seen: set[str] = set()
    for rel, st in _walk(staging):
        if rel.split("/")[0] == _SKIP_ON_SYNC:
            continue
        seen.add(rel)
        kind = _kind(st)
        if kind is None:
            report.skipped.append(f"{rel} (not a regular file, directory or symlink)")
            continue
        old = snapshot.get(rel)
        if kind == "dir" and old and old[0] == "dir":
            continue
        if kind != "dir" and old == _signature(st):
            continue
        dest = workspace / rel
        if not _real_dir(dest.parent, workspace):
            report.skipped.append(f"{rel} (its parent is not a real directory in the workspace)")
            continue
        if kind == "link" and not _link_stays_inside(os.readlink(staging / rel), rel):
            report.skipped.append(f"{rel} (symlink pointing outside the workspace)")
            continue
        uid, gid = _owner_for(dest, root_stat)
        exists = os.path.lexists(dest)
        dest_is_dir = exists and stat.S_ISDIR(os.lstat(dest).st_mode)
        if kind == "dir":
            if dest_is_dir:
                continue
            if exists:
                _clear(dest)
            dest.mkdir(mode=stat.S_IMODE(st.st_mode) & 0o777)
        elif dest_is_dir:
            _clear(dest)
        if kind == "link":
            tmp = dest.with_name(f".{dest.name}.codeloop-tmp")
            os.symlink(os.readlink(staging / rel), tmp)
            os.replace(tmp, dest)
        elif kind == "file":
            tmp = dest.with_name(f".{dest.name}.codeloop-tmp")
            with open(staging / rel, "rb") as src, open(tmp, "xb") as out:
                shutil.copyfileobj(src, out)
            os.chmod(tmp, stat.S_IMODE(st.st_mode) & 0o777)
            os.replace(tmp, dest)
        if as_root:
            os.lchown(dest, uid, gid)
        report.written.append(rel)
    for rel in sorted(set(snapshot) - seen, key=lambda r: -r.count("/")):
        if rel.split("/")[0] == _SKIP_ON_SYNC or not _real_dir((workspace / rel).parent, workspace):
            continue
        if os.path.lexists(workspace / rel):
            _clear(workspace / rel)
            report.deleted.append(rel)
    return report
