"""The kernel's limits on a path's length (Linux: a name of at most NAME_MAX bytes, a path
under PATH_MAX bytes), checked before a path from the user or an API request is used: past
them every call fails with ENAMETOOLONG, which is bad input to answer in one line, never a
traceback or an HTTP 500. Bytes count, not characters: `é` is two."""

from __future__ import annotations

import errno
import os
from pathlib import Path

NAME_MAX = 255
PATH_MAX = 4096  # with its terminating NUL


def too_long(path: str | Path) -> str | None:
    """Why `path` is too long for the kernel (one phrase, starting "too long"), or None."""
    data = os.fsencode(path)
    if len(data) >= PATH_MAX:
        return f"too long: {len(data)} bytes, over the {PATH_MAX - 1}-byte limit of a path"
    for name in data.split(b"/"):
        if len(name) > NAME_MAX:
            shown = os.fsdecode(name)[:24]
            return (f"too long: the name {shown}... is {len(name)} bytes, over the "
                    f"{NAME_MAX}-byte limit of a file name")
    return None


def is_too_long(exc: BaseException) -> bool:
    """An OSError the kernel raised for a path's length."""
    return isinstance(exc, OSError) and exc.errno == errno.ENAMETOOLONG


def too_long_line(exc: OSError) -> str:
    """The one line for an ENAMETOOLONG that reached the top (a path no check looked at)."""
    name = str(exc.filename or "")
    shown = f" ({name[:60]}...)" if len(name) > 60 else f" ({name})" if name else ""
    return (f"a path is too long{shown}: a file name is limited to {NAME_MAX} bytes and a "
            f"path to {PATH_MAX - 1}")
