"""Opening the run store's file: checked before anything is written to it, private to the
user, and every failure one clear StoreError naming the file and what to do.

A store holds requests, tool output and answers: it is created 0600 in a directory created
0700 (an existing store's file is tightened to 0600 when opened; an existing directory is
tightened only when it is codeloop's own data directory, never a user's project directory).
A file that is not a SQLite database, a truncated one, or a directory is refused before the
first write, so it is left byte for byte as it was.
"""

from __future__ import annotations

import os
import sqlite3
import stat
from pathlib import Path

from codeloop.paths import data_dir

SQLITE_MAGIC = b"SQLite format 3\x00"
_SIDECARS = ("-wal", "-shm")
_ELSEWHERE = "choose another file with --store (or `store` in the config)"
_FIX = "move it away, or " + _ELSEWHERE


class StoreError(Exception):
    """The run store cannot be used; the message names the file and what to do."""


def prepare_location(path: Path) -> None:
    """The store's directory exists (created 0700) and the path is not a directory."""
    parent = path.parent
    try:
        if not parent.is_dir():
            parent.mkdir(mode=0o700, parents=True, exist_ok=True)
        elif parent.resolve() == data_dir().resolve():
            os.chmod(parent, 0o700)
    except OSError as exc:
        reason = "a part of it is a file" if isinstance(exc, (FileExistsError,
                                                               NotADirectoryError)) else (
            exc.strerror or str(exc))
        raise StoreError(f"cannot create the run store's directory {parent} ({reason}); "
                         f"{_ELSEWHERE}") from exc
    if path.is_dir():
        raise StoreError(f"the run store {path} is a directory: pass a file path, e.g. "
                         f"{path / 'runs.sqlite'}, with --store")


def check_existing(path: Path) -> None:
    """Refuse a file that is not an intact SQLite database (reads only)."""
    try:
        with path.open("rb") as fh:
            header = fh.read(100)
        size = path.stat().st_size
    except FileNotFoundError:
        return
    except OSError as exc:
        raise StoreError(f"cannot read the run store {path}: {exc.strerror or exc}; "
                         f"check its permissions, or {_FIX}") from exc
    if size == 0:
        return  # a new, empty file: SQLite makes it a database
    if len(header) < 100 or not header.startswith(SQLITE_MAGIC):
        raise StoreError(f"{path} is not a codeloop run store (not a SQLite database: "
                         f"corrupted, or another file); {_FIX}")
    page_size = int.from_bytes(header[16:18], "big")
    page_size = 65536 if page_size == 1 else page_size
    pages = int.from_bytes(header[28:32], "big")
    # The header's page count is valid when its change counter matches (SQLite's rule).
    if pages and header[24:28] == header[92:96] and size < pages * page_size:
        raise StoreError(f"the run store {path} is truncated ({size} of "
                         f"{pages * page_size} bytes); {_FIX}")


def connect(path: Path) -> sqlite3.Connection:
    """A connection to a checked store; nothing has been written yet."""
    try:
        conn = sqlite3.connect(str(path), check_same_thread=False, isolation_level=None)
        conn.execute("SELECT count(*) FROM sqlite_master").fetchone()  # reads; refuses junk
    except sqlite3.DatabaseError as exc:
        raise StoreError(_sqlite_reason(path, exc)) from exc
    return conn


def make_private(path: Path) -> None:
    """The store and its WAL files readable by the user alone."""
    for candidate in (path, *(path.with_name(path.name + s) for s in _SIDECARS)):
        try:
            st = candidate.lstat()
            if stat.S_ISREG(st.st_mode) and stat.S_IMODE(st.st_mode) & 0o077:
                os.chmod(candidate, 0o600)
        except OSError:
            continue


def _sqlite_reason(path: Path, exc: sqlite3.Error) -> str:
    text = str(exc)
    if "not a database" in text or "malformed" in text:
        return f"{path} is not a usable codeloop run store ({text}); {_FIX}"
    if "readonly" in text or "unable to open" in text or "disk I/O" in text:
        return (f"cannot write the run store {path} ({text}): check that its directory is "
                f"writable, or {_FIX}")
    return f"the run store {path} failed: {text}; {_FIX}"


def create_private(path: Path) -> None:
    """A new store file born 0600 (SQLite gives its -wal and -shm the file's mode)."""
    try:
        os.close(os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW, 0o600))
    except FileExistsError:
        return
    except OSError as exc:
        raise StoreError(f"cannot create the run store {path}: {exc.strerror or exc}; "
                         f"check that its directory is writable, or {_FIX}") from exc


def open_store_connection(path: Path, schema: str) -> sqlite3.Connection:
    """Checked, private, in WAL mode, with `schema` applied; StoreError otherwise."""
    prepare_location(path)
    check_existing(path)
    create_private(path)
    make_private(path)
    conn = connect(path)
    try:
        conn.execute("PRAGMA journal_mode=WAL")
        conn.execute("PRAGMA synchronous=NORMAL")
        conn.executescript(schema)
    except sqlite3.Error as exc:
        conn.close()
        raise StoreError(_sqlite_reason(path, exc)) from exc
    make_private(path)
    return conn
