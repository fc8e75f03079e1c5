"""Safe file access inside a workspace root for the agents' file tools.

Every path is checked as text first (NUL bytes, `~`, `$VAR`, `..` escapes, absolute paths
outside the root, `/ws` vs `/ws-evil` via is_relative_to, never startswith), then walked one
component at a time with O_NOFOLLOW directory descriptors, so a symlinked directory, a symlink
at the target or a hardlinked file is refused even if it appears between the check and the use.
Writes go to a temp file in the same directory and are renamed over the target; writes and
deletes under `.git/` are refused.
"""

from __future__ import annotations

import errno
import os
import re
import shutil
import stat
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path, PurePosixPath

_VAR = re.compile(r"\$(\{|\(|[A-Za-z_])")
_DIR_FLAGS = os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC


class PathRefused(ValueError):
    """A path the guard will not touch; `reason` says why."""

    def __init__(self, path: str, reason: str) -> None:
        super().__init__(f"refused {path!r}: {reason}")
        self.path = path
        self.reason = reason


class PathGuard:
    def __init__(self, root: Path | str) -> None:
        self.root = Path(root).resolve()
        if not self.root.is_dir():
            raise NotADirectoryError(f"workspace root {self.root} is not a directory")

    # ---- checks -------------------------------------------------------------------------
    def parts(self, path: str | Path) -> tuple[str, ...]:
        """The path's components relative to the root, after the textual checks."""
        text = str(path)
        if "\x00" in text:
            raise PathRefused(text, "it contains a NUL byte")
        if not text.strip():
            raise PathRefused(text, "the path is empty")
        if text.startswith("~"):
            raise PathRefused(text, "`~` (home directory) paths are not expanded here")
        if _VAR.search(text):
            raise PathRefused(text, "`$VAR` environment references are not expanded here")
        pure = PurePosixPath(text)
        if pure.is_absolute():
            if not pure.is_relative_to(self.root):
                raise PathRefused(text, f"absolute path outside the workspace {self.root}")
            pure = pure.relative_to(self.root)
        stack: list[str] = []
        for part in pure.parts:
            if part == "..":
                if not stack:
                    raise PathRefused(text, "`..` leads outside the workspace")
                stack.pop()
            elif part not in (".", ""):
                stack.append(part)
        return tuple(stack)

    def rel(self, path: str | Path) -> str:
        return "/".join(self.parts(path)) or "."

    def resolve(self, path: str | Path) -> Path:
        """The host path for `path`, after every check (the target need not exist)."""
        parts = self.parts(path)
        try:
            with self._parent(str(path), parts, create=False) as (dir_fd, name):
                if name is not None:
                    self._check_target(str(path), dir_fd, name)
        except FileNotFoundError:
            pass  # a missing directory on the way: nothing there to follow
        return self.root.joinpath(*parts)

    def _refuse_git(self, text: str, parts: tuple[str, ...]) -> None:
        if any(p.lower() == ".git" for p in parts):
            raise PathRefused(text, "writing inside .git/ is not allowed (use the git tools)")

    @contextmanager
    def _parent(self, text: str, parts: tuple[str, ...], *, create: bool
                ) -> Iterator[tuple[int, str | None]]:
        """Yield an O_NOFOLLOW fd of the target's parent directory and the target's name."""
        fd = os.open(self.root, _DIR_FLAGS)
        try:
            for i, part in enumerate(parts[:-1]):
                try:
                    new = os.open(part, _DIR_FLAGS, dir_fd=fd)
                except FileNotFoundError:
                    if not create:
                        raise FileNotFoundError(
                            errno.ENOENT, "no such directory", "/".join(parts[: i + 1])
                        ) from None
                    os.mkdir(part, 0o755, dir_fd=fd)
                    new = os.open(part, _DIR_FLAGS, dir_fd=fd)
                except OSError as exc:
                    if exc.errno in (errno.ELOOP, errno.ENOTDIR):
                        st = os.lstat(part, dir_fd=fd)
                        what = ("a symlinked directory" if stat.S_ISLNK(st.st_mode)
                                else "not a directory")
                        raise PathRefused(text, f"{'/'.join(parts[: i + 1])} is {what}") from None
                    raise
                os.close(fd)
                fd = new
            yield fd, (parts[-1] if parts else None)
        finally:
            os.close(fd)

    def _check_target(self, text: str, dir_fd: int, name: str) -> os.stat_result | None:
        try:
            st = os.lstat(name, dir_fd=dir_fd)
        except FileNotFoundError:
            return None
        if stat.S_ISLNK(st.st_mode):
            raise PathRefused(text, "the target is a symlink")
        if stat.S_ISREG(st.st_mode) and st.st_nlink > 1:
            raise PathRefused(text, "the target is a hardlink (it may be a file outside)")
        return st

    # ---- operations ---------------------------------------------------------------------
    def read_bytes(self, path: str | Path) -> bytes:
        text, parts = str(path), self.parts(path)
        if not parts:
            raise IsADirectoryError(f"{text} is the workspace root, not a file")
        with self._parent(text, parts, create=False) as (dir_fd, name):
            st = self._check_target(text, dir_fd, name)
            if st is None:
                raise FileNotFoundError(errno.ENOENT, "no such file", self.rel(path))
            if not stat.S_ISREG(st.st_mode):
                raise IsADirectoryError(f"{self.rel(path)} is not a regular file")
            # O_NONBLOCK: a fifo swapped in after the check must not hang the reader.
            fd = os.open(name, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC,
                         dir_fd=dir_fd)
            with os.fdopen(fd, "rb") as fh:
                if not stat.S_ISREG(os.fstat(fh.fileno()).st_mode):
                    raise IsADirectoryError(f"{self.rel(path)} is not a regular file")
                return fh.read()

    def read_text(self, path: str | Path, encoding: str = "utf-8") -> str:
        return self.read_bytes(path).decode(encoding, errors="replace")

    def write_bytes(self, path: str | Path, data: bytes) -> Path:
        """Create or replace a file (temp file + rename); missing directories are created."""
        text, parts = str(path), self.parts(path)
        if not parts:
            raise PathRefused(text, "cannot write to the workspace root itself")
        self._refuse_git(text, parts)
        with self._parent(text, parts, create=True) as (dir_fd, name):
            old = self._check_target(text, dir_fd, name)
            if old is not None and not stat.S_ISREG(old.st_mode):
                raise PathRefused(text, "the target exists and is not a regular file")
            tmp = f".{name}.{os.getpid()}.codeloop-tmp"
            fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_CLOEXEC,
                         stat.S_IMODE(old.st_mode) if old else 0o644, dir_fd=dir_fd)
            try:
                with os.fdopen(fd, "wb") as fh:
                    fh.write(data)
                os.replace(tmp, name, src_dir_fd=dir_fd, dst_dir_fd=dir_fd)
            except BaseException:
                try:
                    os.unlink(tmp, dir_fd=dir_fd)
                except FileNotFoundError:
                    pass
                raise
        return self.root.joinpath(*parts)

    def write_text(self, path: str | Path, text: str, encoding: str = "utf-8") -> Path:
        return self.write_bytes(path, text.encode(encoding))

    def list_dir(self, path: str | Path = ".") -> list[str]:
        """Sorted names in a directory; directories end with '/', symlinks with '@'."""
        text, parts = str(path), self.parts(path)
        with self._parent(text, parts + ("",), create=False) as (dir_fd, _):
            out = []
            for name in os.listdir(dir_fd):
                st = os.lstat(name, dir_fd=dir_fd)
                suffix = "/" if stat.S_ISDIR(st.st_mode) else "@" if stat.S_ISLNK(st.st_mode) else ""
                out.append(name + suffix)
        return sorted(out)

    def exists(self, path: str | Path) -> bool:
        return os.path.lexists(self.resolve(path))

    def delete(self, path: str | Path, *, recursive: bool = False) -> None:
        """Remove a file, or a directory (empty unless recursive=True)."""
        text, parts = str(path), self.parts(path)
        if not parts:
            raise PathRefused(text, "cannot delete the workspace root")
        self._refuse_git(text, parts)
        with self._parent(text, parts, create=False) as (dir_fd, name):
            st = self._check_target(text, dir_fd, name)
            if st is None:
                raise FileNotFoundError(errno.ENOENT, "no such file", self.rel(path))
            if not stat.S_ISDIR(st.st_mode):
                os.unlink(name, dir_fd=dir_fd)
            elif recursive:
                shutil.rmtree(name, dir_fd=dir_fd)  # fd-based: never follows symlinks
            else:
                os.rmdir(name, dir_fd=dir_fd)
