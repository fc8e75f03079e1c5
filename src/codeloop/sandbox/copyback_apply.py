"""Apply a copy-back plan to the user's workspace all or nothing.

1. Prepare: every new file and link is first written into a private area inside the workspace
   (`.codeloop-<random>`, short random names: no collision with a planted file, no name over
   NAME_MAX), so reading the staged copy cannot fail halfway through the real changes.
2. Apply: directories made, prepared entries renamed into place; whatever a replace or a
   delete removes is renamed into the area's trash, never destroyed, and every step journaled.
3. Check: the links written must resolve inside the workspace in the final tree.
4. Commit (drop the area) or, on any failure, undo the journal in reverse and raise one
   CopyBackError: the workspace is left as it was.

Every path is reached through directory fds with O_NOFOLLOW (fdpaths.py).
"""

from __future__ import annotations

import os
import secrets
import stat
from pathlib import Path

from codeloop.sandbox.copyback_plan import Change, CopyBackError, Plan
from codeloop.sandbox.fdpaths import DirCache, open_dir_beneath, open_root
from codeloop.sandbox.links import link_refusal
from codeloop.sandbox.removal import remove_tree

_READ = os.O_RDONLY | os.O_NOFOLLOW | os.O_CLOEXEC
_CREATE = os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_CLOEXEC
AREA_PREFIX = ".codeloop-"


class Transaction:
    def __init__(self, workspace: Path, check_time) -> None:
        self.workspace, self.check_time = workspace, check_time
        self.root_fd = open_root(workspace)
        self.dirs = DirCache(self.root_fd)
        self.area = self._make_area()
        self.area_fd = os.open(self.area, os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW,
                               dir_fd=self.root_fd)
        self.prepared: dict[str, str] = {}  # rel -> name in the area
        self.journal: list[tuple] = []
        self.counter = 0
        self.made: set[str] = set()
        self.root_stat = os.fstat(self.root_fd)

    def _make_area(self) -> str:
        while True:
            name = AREA_PREFIX + secrets.token_hex(6)
            try:
                os.mkdir(name, 0o700, dir_fd=self.root_fd)
                return name
            except FileExistsError:
                continue

    def _fresh(self, tag: str) -> str:
        self.counter += 1
        return f"{tag}{self.counter}"

    # 1. prepare
    def prepare(self, staging_fd: int, change: Change) -> None:
        self.check_time()
        parts = tuple(change.rel.split("/"))
        name = self._fresh("n")
        src_dir = open_dir_beneath(staging_fd, parts[:-1])
        try:
            if change.kind == "link":
                os.symlink(os.readlink(parts[-1], dir_fd=src_dir), name, dir_fd=self.area_fd)
            else:
                self._copy_file(src_dir, parts[-1], name, change)
        finally:
            os.close(src_dir)
        self.prepared[change.rel] = name

    def _copy_file(self, src_dir: int, src_name: str, name: str, change: Change) -> None:
        src = os.open(src_name, _READ, dir_fd=src_dir)
        try:
            if not stat.S_ISREG(os.fstat(src).st_mode):
                raise CopyBackError(f"{change.rel} changed while being copied back")
            out = os.open(name, _CREATE, 0o600, dir_fd=self.area_fd)
            try:
                left = change.size + 1  # never more than was measured and capped
                while left > 0:
                    chunk = os.read(src, min(left, 1 << 20))
                    if not chunk:
                        break
                    left -= len(chunk)
                    os.write(out, chunk)
                if left <= 0:
                    raise CopyBackError(f"{change.rel} grew while being copied back")
                os.fchmod(out, change.mode)
            finally:
                os.close(out)
        finally:
            os.close(src)

    # 2. apply
    def write(self, change: Change, owner: tuple[int, int] | None) -> None:
        self.check_time()
        parts = tuple(change.rel.split("/"))
        parent = self.dirs.get(parts[:-1])
        old = _lstat(parts[-1], parent)
        if old is not None and change.kind == "dir" and stat.S_ISDIR(old.st_mode):
            return
        owner = owner or (None if old is None else (old.st_uid, old.st_gid))
        if old is not None:
            self._to_trash(parts)
        if change.kind == "dir":
            os.mkdir(parts[-1], 0o700, dir_fd=parent)
            self.journal.append(("made", parts))
            self.made.add(change.rel)
        else:
            os.rename(self.prepared[change.rel], parts[-1], src_dir_fd=self.area_fd,
                      dst_dir_fd=parent)
            self.journal.append(("placed", parts, self.prepared[change.rel]))
        if os.geteuid() == 0:
            uid, gid = owner or (self.root_stat.st_uid, self.root_stat.st_gid)
            os.chown(parts[-1], uid, gid, dir_fd=parent, follow_symlinks=False)

    def delete(self, rel: str) -> bool:
        self.check_time()
        parts = tuple(rel.split("/"))
        if _lstat(parts[-1], self.dirs.get(parts[:-1])) is None:
            return False
        self._to_trash(parts)
        return True

    def _to_trash(self, parts: tuple[str, ...]) -> None:
        trash = self._fresh("t")
        self.dirs.forget(parts)
        os.rename(parts[-1], trash, src_dir_fd=self.dirs.get(parts[:-1]),
                  dst_dir_fd=self.area_fd)
        self.journal.append(("trashed", parts, trash))

    def finish_dirs(self, changes: list[Change]) -> None:
        """New directories get their modes last (0700 until then, so writes inside work)."""
        for change in reversed(changes):
            if change.rel in self.made:
                parts = tuple(change.rel.split("/"))
                os.chmod(parts[-1], change.mode, dir_fd=self.dirs.get(parts[:-1]))

    # 3. check
    def check_links(self, changes: list[Change]) -> None:
        real = os.path.realpath(self.workspace)
        for change in changes:
            if change.kind == "link":
                reason = link_refusal(real, change.rel)
                if reason:
                    raise CopyBackError(f"{change.rel}: {reason} in the workspace")

    # 4. commit / roll back
    def commit(self) -> None:
        self.close()
        remove_tree(self.workspace / self.area)

    def roll_back(self) -> str | None:
        """Undo the journal; None, or why something could not be restored (the area is
        then kept so nothing is lost)."""
        self.dirs.close()
        problem = None
        for step in reversed(self.journal):
            try:
                self._undo(step)
            except OSError as exc:
                problem = problem or f"{'/'.join(step[1])}: {exc.strerror}"
        self.close()
        if problem is None:
            remove_tree(self.workspace / self.area)
        return problem

    def _undo(self, step: tuple) -> None:
        op, parts = step[0], step[1]
        parent = open_dir_beneath(self.root_fd, parts[:-1])
        try:
            if op == "made":
                os.rmdir(parts[-1], dir_fd=parent)
            elif op == "placed":
                os.rename(parts[-1], step[2], src_dir_fd=parent, dst_dir_fd=self.area_fd)
            else:  # trashed
                os.rename(step[2], parts[-1], src_dir_fd=self.area_fd, dst_dir_fd=parent)
        finally:
            os.close(parent)

    def close(self) -> None:
        self.dirs.close()
        for fd in (self.area_fd, self.root_fd):
            try:
                os.close(fd)
            except OSError:
                pass


def _lstat(name: str, dir_fd: int) -> os.stat_result | None:
    try:
        return os.stat(name, dir_fd=dir_fd, follow_symlinks=False)
    except FileNotFoundError:
        return None


def apply_plan(plan: Plan, staging: Path, workspace: Path, check_time) -> tuple[list, list]:
    """Run the transaction; (written, deleted). CopyBackError, workspace unchanged, on failure."""
    tx = Transaction(workspace, check_time)
    written, deleted = [], []
    try:
        staging_fd = open_root(staging)
        try:
            for change in plan.writes:
                if change.kind != "dir":
                    tx.prepare(staging_fd, change)
        finally:
            os.close(staging_fd)
        for change in plan.writes:
            tx.write(change, None)
            written.append(change.rel)
        for rel in plan.deletions:
            if tx.delete(rel):
                deleted.append(rel)
        tx.finish_dirs(plan.writes)
        tx.check_links(plan.writes)
    except (OSError, CopyBackError) as exc:
        problem = tx.roll_back()
        why = str(exc)
        tail = ("the workspace is unchanged" if problem is None else
                f"could not restore {problem}; the previous versions are in "
                f"{workspace / tx.area}")
        raise CopyBackError(f"copy-back failed ({why}); {tail}") from None
    tx.commit()
    return written, deleted
