"""Safe file access inside a workspace root for the agents' file tools.

Every path is checked as text first (NUL bytes, `~`, `$VAR`, `..` escapes, absolute paths
outside the root, `/ws` vs `/ws-evil` via is_relative_to, never startswith), then walked one
component at a time with O_NOFOLLOW directory descriptors, so a symlinked directory, a symlink
at the target or a hardlinked file is refused even if it appears between the check and the use.
The target itself is judged on the descriptor that was opened (fstat: a regular file with one
link), so a file swapped for a hardlink to an outside file after a check is still refused.
Writes go to a temp file in the same directory and are renamed over the target. Reads under
`.git/` (tokens in its config) are refused; writes and deletes of anything the host would run
or read as settings (host_policy: `.git/`, `.pth`, a venv, `codeloop.toml`...) are refused, and
paths are capped in depth and length so a tool cannot build a tree nothing else can walk.
"""

from __future__ import annotations

import errno
import os
import re
import secrets
import shutil
import stat
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path, PurePosixPath

from codeloop.path_limits import too_long
from codeloop.sandbox.host_policy import GIT_DIR, refusal

_VAR = re.compile(r"\$(\{|\(|[A-Za-z_])")
_DIR_FLAGS = os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC
# O_NONBLOCK: a fifo swapped in after a check must not hang the reader.
_READ_FLAGS = os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC
# O_PATH: look at what is there (fstat) without opening it for reading or writing.
_LOOK_FLAGS = getattr(os, "O_PATH", os.O_RDONLY | os.O_NONBLOCK) | os.O_NOFOLLOW | os.O_CLOEXEC
# Deeper or longer paths broke every later sandbox run on the workspace (copying and walking
# it); no real project comes near these.
MAX_DEPTH = 32
MAX_PATH_CHARS = 1024


class PathRefused(ValueError):
    """A path the guard will not touch; `reason` says why."""

    def __init__(self, path: str, reason: str) -> None:
        super().__init__(f"refused {path!r}: {reason}")
        self.path = path
        self.reason = reason


class PathTooLong(PathRefused):
    """A path past the depth or length limit."""


class HostFileRefused(PathRefused):
    """A path inside the workspace that the host would run or read as settings (host_policy),
    or git metadata: the file tools leave it alone."""


def _name_gone(fd: int, dir_fd: int) -> bool:
    """Whether the name the descriptor was opened through has been removed. A stat can count
    an outside file's links after its workspace name was swapped away (a rename drops the
    count before it unhashes the name); but a removed name never comes back. So a count of 1
    read before this name is seen to exist means the only link is this one. The lookup of a
    fresh missing name waits on the directory's lock, so a rename in flight ends first."""
    try:
        os.stat(f".codeloop-{secrets.token_hex(8)}", dir_fd=dir_fd)
    except OSError:
        pass
    try:
        return os.readlink(f"/proc/self/fd/{fd}").endswith(" (deleted)")
    except OSError:  # no /proc: the looks before stay the check
        return False


class WorkspaceReplaced(PathRefused):
    """The root is no longer the directory it was (moved, or swapped for a symlink)."""


def directory_identity(path: Path | str) -> tuple[int, int]:
    """(st_dev, st_ino) of the directory at `path`, opened without following a final
    symlink: what a guard pinned to it compares on every later open."""
    fd = os.open(path, _DIR_FLAGS)
    try:
        st = os.fstat(fd)
        return st.st_dev, st.st_ino
    finally:
        os.close(fd)


class PathGuard:
    def __init__(self, root: Path | str, *, identity: tuple[int, int] | None = None) -> None:
        """`identity`: the root's (st_dev, st_ino) as recorded earlier (a run's start); every
        operation then refuses a root that is another directory now (a workspace swapped for
        a symlink while a review waited for approval), instead of following it."""
        self.root = Path(root).resolve()
        if not self.root.is_dir():
            raise NotADirectoryError(f"workspace root {self.root} is not a directory")
        self.identity = tuple(identity) if identity is not None else None

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
        if len(stack) > MAX_DEPTH:
            raise PathTooLong(text, f"it is {len(stack)} directories deep; the limit is "
                                    f"{MAX_DEPTH}")
        if len("/".join(stack).encode("utf-8", "surrogateescape")) > MAX_PATH_CHARS:
            raise PathTooLong(text, f"it is longer than {MAX_PATH_CHARS} bytes")
        if (why := too_long("/".join(stack))) is not None:  # a name over NAME_MAX bytes
            raise PathTooLong(text, f"it is {why}")
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

    def _refuse_host_files(self, text: str, parts: tuple[str, ...]) -> None:
        """Refuse writing or deleting what the host would run or read as settings."""
        why = refusal(self.root, parts)
        if why is not None:
            if any(p.lower() == GIT_DIR for p in parts):
                why += " (use the git tools)"
            raise HostFileRefused(text, why)

    def _refuse_git_read(self, text: str, parts: tuple[str, ...]) -> None:
        # .git/config can hold remote URLs with tokens and http.extraheader credentials.
        if any(p.lower() == GIT_DIR for p in parts):
            raise HostFileRefused(text, "reading inside .git/ is not allowed (it can hold "
                                    "credentials); use the git tools")

    @contextmanager
    def _parent(self, text: str, parts: tuple[str, ...], *, create: bool
                ) -> Iterator[tuple[int, str | None]]:
        """Yield an O_NOFOLLOW fd of the target's parent directory and the target's name."""
        fd = self._open_root()
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

    @contextmanager
    def _existing(self, text: str, parts: tuple[str, ...]
                  ) -> Iterator[tuple[int, str, os.stat_result]]:
        """`_parent` for a target that must be there: also its name and checked lstat;
        FileNotFoundError when it is missing."""
        with self._parent(text, parts, create=False) as (dir_fd, name):
            st = None if name is None else self._check_target(text, dir_fd, name)
            if name is None or st is None:
                raise FileNotFoundError(errno.ENOENT, "no such file", self.rel(text))
            yield dir_fd, name, st

    def _open_root(self) -> int:
        replaced = "the workspace is not the directory the run started in (it was moved or " \
                   "replaced)"
        try:
            fd = os.open(self.root, _DIR_FLAGS)
        except OSError as exc:
            if self.identity is not None and exc.errno in (errno.ELOOP, errno.ENOTDIR,
                                                           errno.ENOENT):
                raise WorkspaceReplaced(str(self.root), replaced) from None
            raise
        if self.identity is not None:
            st = os.fstat(fd)
            if (st.st_dev, st.st_ino) != self.identity:
                os.close(fd)
                raise WorkspaceReplaced(str(self.root), replaced)
        return fd

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

    def _check_opened(self, text: str, fd: int) -> os.stat_result:
        """Judge what was really opened: the name may have been swapped after any check."""
        st = os.fstat(fd)
        if stat.S_ISLNK(st.st_mode):  # O_PATH | O_NOFOLLOW opens a symlink itself
            raise PathRefused(text, "the target is a symlink")
        if stat.S_ISDIR(st.st_mode):
            raise IsADirectoryError(f"{self.rel(text)} is not a regular file")
        if not stat.S_ISREG(st.st_mode):
            raise PathRefused(text, "the target is not a regular file")
        if st.st_nlink != 1:
            raise PathRefused(text, "the target is a hardlink (it may be a file outside)")
        return st

    def _open_checked(self, text: str, dir_fd: int, name: str, flags: int) -> int:
        """Open `name` without following a symlink and check the descriptor; the caller
        closes it."""
        try:
            fd = os.open(name, flags, dir_fd=dir_fd)
        except OSError as exc:
            if exc.errno == errno.ELOOP:
                raise PathRefused(text, "the target is a symlink") from None
            raise
        try:
            self._check_opened(text, fd)
        except BaseException:
            os.close(fd)
            raise
        return fd

    # ---- operations ---------------------------------------------------------------------
    def read_bytes(self, path: str | Path) -> bytes:
        text, parts = str(path), self.parts(path)
        if not parts:
            raise IsADirectoryError(f"{text} is the workspace root, not a file")
        self._refuse_git_read(text, parts)
        with self._existing(text, parts) as (dir_fd, name, st):
            if not stat.S_ISREG(st.st_mode):
                raise IsADirectoryError(f"{self.rel(path)} is not a regular file")
            try:
                fd = self._open_checked(text, dir_fd, name, _READ_FLAGS)
            except FileNotFoundError:
                raise FileNotFoundError(errno.ENOENT, "no such file", self.rel(path)) from None
            with os.fdopen(fd, "rb") as fh:
                data = fh.read()
                self._still_the_same_file(text, dir_fd, name, fh.fileno())
                return data

    def _still_the_same_file(self, text: str, dir_fd: int, name: str, fd: int) -> None:
        """After reading: the opened file still has one link and the name still names it.
        A name that was a hardlink to an outside file when it was opened, then swapped away,
        leaves the outside file with one link: only the name's identity catches that.

        The order matters: the name first, the link count after it. Counted first, a swapper
        could put the hardlink back between the two looks (seen once in ~100k reads under
        load): the count said 1 (name away), then the name named the outside file again.
        Now the name naming the opened file means two links at that moment, so a count of 1
        after it needs the name swapped away once more in the one syscall between, on top
        of the swap already needed between the open and its own check (_check_opened)."""
        try:
            named = os.lstat(name, dir_fd=dir_fd)
        except FileNotFoundError:
            named = None
        opened = os.fstat(fd)
        if (opened.st_nlink != 1 or named is None
                or (named.st_dev, named.st_ino) != (opened.st_dev, opened.st_ino)
                or _name_gone(fd, dir_fd)):
            raise PathRefused(text, "the file changed while it was read (it may be a link to "
                              "a file outside the workspace)")

    def read_text(self, path: str | Path, encoding: str = "utf-8") -> str:
        return self.read_bytes(path).decode(encoding, errors="replace")

    def write_bytes(self, path: str | Path, data: bytes) -> Path:
        """Create or replace a file (temp file + rename); missing directories are created."""
        text, parts = str(path), self.parts(path)
        if not parts:
            raise PathRefused(text, "cannot write to the workspace root itself")
        self._refuse_host_files(text, parts)  # before any directory is created for it
        with self._parent(text, parts, create=True) as (dir_fd, name):
            old = self._existing_file(text, dir_fd, name)
            # Never carry setuid/setgid/sticky over: we may be root, the old file's owner not.
            mode = stat.S_IMODE(old.st_mode) & 0o777 if old else 0o644
            tmp = f".{name}.{os.getpid()}.codeloop-tmp"
            fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_CLOEXEC,
                         mode, dir_fd=dir_fd)
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

    def _existing_file(self, text: str, dir_fd: int, name: str) -> os.stat_result | None:
        """The stat of the file a write replaces, judged on an opened descriptor, or None."""
        old = self._check_target(text, dir_fd, name)
        if old is None:
            return None
        if not stat.S_ISREG(old.st_mode):
            raise PathRefused(text, "the target exists and is not a regular file")
        try:
            fd = self._open_checked(text, dir_fd, name, _LOOK_FLAGS)
        except FileNotFoundError:
            return None  # removed since the check: the write creates it
        except IsADirectoryError:
            raise PathRefused(text, "the target exists and is not a regular file") from None
        try:
            return os.fstat(fd)
        finally:
            os.close(fd)

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
        self._refuse_host_files(text, parts)
        with self._existing(text, parts) as (dir_fd, name, st):
            if not stat.S_ISDIR(st.st_mode):
                os.unlink(name, dir_fd=dir_fd)
            elif recursive:
                shutil.rmtree(name, dir_fd=dir_fd)  # fd-based: never follows symlinks
            else:
                os.rmdir(name, dir_fd=dir_fd)
