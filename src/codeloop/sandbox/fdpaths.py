"""Directory-fd helpers for touching a tree without following any symlink on the way.

The copy-back reads a tree the sandboxed program wrote and writes the user's workspace; a
directory swapped for a symlink between a check and a use must not redirect either. So every
path is walked component by component with O_NOFOLLOW from an open root, and the last
component is used relative to its parent's fd (never as a joined path, which could also grow
past PATH_MAX).
"""

from __future__ import annotations

import os

DIR_FLAGS = os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC


def open_root(path: str | os.PathLike) -> int:
    return os.open(path, DIR_FLAGS)


def open_dir_beneath(root_fd: int, parts: tuple[str, ...] | list[str]) -> int:
    """An fd of root/parts..., each component a real directory (ELOOP/ENOTDIR otherwise)."""
    fd = os.dup(root_fd)
    try:
        for part in parts:
            child = os.open(part, DIR_FLAGS, dir_fd=fd)
            os.close(fd)
            fd = child
    except BaseException:
        os.close(fd)
        raise
    return fd


class DirCache:
    """Open parent-directory fds by their parts, closed together at the end."""

    def __init__(self, root_fd: int) -> None:
        self.root_fd = root_fd
        self._fds: dict[tuple[str, ...], int] = {}

    def get(self, parts: tuple[str, ...]) -> int:
        if not parts:
            return self.root_fd
        fd = self._fds.get(parts)
        if fd is None:
            fd = open_dir_beneath(self.root_fd, parts)
            self._fds[parts] = fd
        return fd

    def forget(self, parts: tuple[str, ...]) -> None:
        """Drop cached fds at or under parts (the directory is being moved or removed)."""
        for key in [k for k in self._fds if k[: len(parts)] == parts]:
            os.close(self._fds.pop(key))

    def close(self) -> None:
        for fd in self._fds.values():
            os.close(fd)
        self._fds.clear()
