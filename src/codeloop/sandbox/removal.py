"""Remove a directory tree with bounded resources: no recursion, one directory fd at a time,
no path longer than one name, no symlink followed.

shutil.rmtree recurses once per level and joins paths: a tree 2,100 directories deep (which a
sandboxed program can make in a second) ended in ENAMETOOLONG and RecursionError and left the
tree behind. Here each subdirectory is first renamed up into the tree's root under a short
fresh name, so the tree becomes flat and every directory is emptied from the root's fd.
"""

from __future__ import annotations

import errno
import itertools
import os
import stat

from codeloop.sandbox.fdpaths import DIR_FLAGS


def remove_tree(path: str | os.PathLike) -> None:
    """Delete path (a file, a symlink or a whole directory tree); missing is fine."""
    try:
        st = os.lstat(path)
    except FileNotFoundError:
        return
    if not stat.S_ISDIR(st.st_mode):
        os.unlink(path)
        return
    _make_usable(path)
    root_fd = os.open(path, DIR_FLAGS)
    try:
        _empty_flattened(root_fd)
    finally:
        os.close(root_fd)
    os.rmdir(path)


def _make_usable(path, dir_fd: int | None = None) -> None:
    """Owner rights on a directory the program may have chmod-ed to 0 (needed as non-root)."""
    try:
        os.chmod(path, 0o700, dir_fd=dir_fd)
    except OSError:
        pass  # not ours (root needs no rights) or already gone: the next step says so


def _empty_flattened(root_fd: int) -> None:
    fresh = (f".rm{n}" for n in itertools.count())
    pending = []
    for entry in os.scandir(root_fd):
        if entry.is_dir(follow_symlinks=False):
            pending.append(entry.name)
        else:
            os.unlink(entry.name, dir_fd=root_fd)
    while pending:
        name = pending.pop()
        _make_usable(name, root_fd)
        fd = os.open(name, DIR_FLAGS, dir_fd=root_fd)
        try:
            for entry in os.scandir(fd):
                if entry.is_dir(follow_symlinks=False):
                    _make_usable(entry.name, fd)
                    pending.append(_move_up(fd, entry.name, root_fd, fresh))
                else:
                    os.unlink(entry.name, dir_fd=fd)
        finally:
            os.close(fd)
        os.rmdir(name, dir_fd=root_fd)


def _move_up(parent_fd: int, name: str, root_fd: int, fresh) -> str:
    """Rename parent/name to a fresh name directly in the root; the new name."""
    while True:
        new = next(fresh)
        try:
            os.lstat(new, dir_fd=root_fd)
            continue  # taken (rename would replace an empty directory silently)
        except FileNotFoundError:
            pass
        try:
            os.rename(name, new, src_dir_fd=parent_fd, dst_dir_fd=root_fd)
            return new
        except OSError as exc:
            if exc.errno not in (errno.EEXIST, errno.ENOTEMPTY, errno.ENOTDIR):
                raise
