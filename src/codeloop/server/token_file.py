"""The server's token, kept in the user's config directory (Jupyter Server's rule: a token
always, made on the first start, reused after).

The file is the credential to every run of the user's, so it is read only when nobody else
could have read or replaced it: a regular file (not a link: opened with O_NOFOLLOW), owned by
the user, mode 0600, in a directory owned by the user that no one else can write. It is made
without a window: written in full to a fresh private file (O_CREAT|O_EXCL|O_NOFOLLOW, 0600),
then linked into place, which fails when another start made it first (that one is read).
"""

from __future__ import annotations

import errno
import os
import secrets
import stat
from pathlib import Path

FILE_NAME = "server-token"
_MIN_LENGTH, _MAX_LENGTH = 16, 512


class TokenFileError(Exception):
    """A token file (or its directory) that cannot be trusted or read: one line, why."""


def token_path() -> Path:
    from codeloop.paths import config_dir

    return config_dir() / FILE_NAME


def load_or_create(path: Path | None = None) -> tuple[str, bool]:
    """(the token, whether it was made now)."""
    path = path or token_path()
    _private_directory(path.parent)
    token = _read(path)
    if token is not None:
        return token, False
    made = _create(path)
    return (made, True) if made is not None else (_read_existing(path), False)


def _private_directory(directory: Path) -> None:
    try:
        directory.mkdir(mode=0o700, parents=True, exist_ok=True)
        info = directory.stat()
    except OSError as exc:
        raise TokenFileError(f"the token's directory {directory}: "
                             f"{exc.strerror or exc}") from None
    if not stat.S_ISDIR(info.st_mode):
        raise TokenFileError(f"the token's directory {directory} is not a directory")
    if info.st_uid != os.geteuid():
        raise TokenFileError(f"the token's directory {directory} is owned by uid "
                             f"{info.st_uid}, not by you: another account could swap the "
                             "token file")
    if info.st_mode & (stat.S_IWGRP | stat.S_IWOTH):
        raise TokenFileError(f"the token's directory {directory} is writable by others "
                             f"(mode {stat.S_IMODE(info.st_mode):o}): chmod go-w it")


def _read(path: Path) -> str | None:
    """The token in `path`; None when there is no file yet."""
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_CLOEXEC | os.O_NONBLOCK)
    except FileNotFoundError:
        if os.path.islink(path):  # a dangling link: where a token would be made elsewhere
            raise TokenFileError(f"the token file {path} is a symbolic link: remove it "
                                 "(codeloop makes the file itself)") from None
        return None
    except OSError as exc:
        if exc.errno == errno.ELOOP:
            raise TokenFileError(f"the token file {path} is a symbolic link: remove it "
                                 "(codeloop makes the file itself)") from None
        raise TokenFileError(f"the token file {path}: {exc.strerror or exc}") from None
    try:
        info = os.fstat(fd)
        _check_file(path, info)
        data = os.read(fd, _MAX_LENGTH + 2)
    finally:
        os.close(fd)
    return _parse(path, data)


def _read_existing(path: Path) -> str:
    token = _read(path)
    if token is None:
        raise TokenFileError(f"the token file {path} vanished while it was read: start again")
    return token


def _check_file(path: Path, info: os.stat_result) -> None:
    if not stat.S_ISREG(info.st_mode):
        raise TokenFileError(f"the token file {path} is not a regular file")
    if info.st_uid != os.geteuid():
        raise TokenFileError(f"the token file {path} is owned by uid {info.st_uid}, not by "
                             "you: delete it, a new one is made at the next start")
    if stat.S_IMODE(info.st_mode) != 0o600:
        raise TokenFileError(f"the token file {path} has mode "
                             f"{stat.S_IMODE(info.st_mode):o}, not 0600: others may have "
                             "read it; delete it (a new token is made) or chmod 600 it")


def _parse(path: Path, data: bytes) -> str:
    try:
        token = data.decode("ascii").strip()
    except UnicodeDecodeError:
        token = ""
    if not (_MIN_LENGTH <= len(token) <= _MAX_LENGTH and token.isprintable()
            and not any(c.isspace() for c in token)):
        raise TokenFileError(f"the token file {path} holds no usable token (16 to "
                             f"{_MAX_LENGTH} printable characters, no spaces): delete it, a "
                             "new one is made at the next start")
    return token


def _create(path: Path) -> str | None:
    """A new token written to `path`; None when another start made the file first."""
    token = secrets.token_urlsafe(32)
    scratch = path.with_name(f".{FILE_NAME}.{os.getpid()}.{secrets.token_hex(4)}")
    flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_CLOEXEC
    try:
        fd = os.open(scratch, flags, 0o600)
        try:
            os.fchmod(fd, 0o600)  # whatever the umask
            os.write(fd, (token + "\n").encode())
            os.fsync(fd)
        finally:
            os.close(fd)
        try:
            os.link(scratch, path, follow_symlinks=False)
        except FileExistsError:
            return None
    except OSError as exc:
        raise TokenFileError(f"cannot make the token file {path}: "
                             f"{exc.strerror or exc}") from None
    finally:
        try:
            os.unlink(scratch)
        except FileNotFoundError:
            pass
    return token
