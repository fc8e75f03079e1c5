"""The per-run private temp dir (`codeloop-sbx-*`): output files and the directory the program
sees as /workspace (make_throwaway: empty, or filled by staging.stage_copy).

* Size-capped: as root its `workspace` dir is a tmpfs mounted with `size=` and `nr_inodes=`,
  so a program that fills /workspace gets ENOSPC instead of filling the host disk; it is
  unmounted in cleanup. An ordinary user may not mount; there the dir stays on the host disk and only the
  copy-back caps (Limits.copyback_*) and RLIMIT_FSIZE bound what a run leaves behind.
* Swept after a crash: the dir holds an `owner` file with the creating process's pid and start
  time. Every new run first removes (and unmounts) `codeloop-sbx-*` dirs of ours whose owner
  is gone, so even a `kill -9` leaves nothing past the next sandbox start. A live run's dir is
  never touched (the start time guards against pid reuse).
"""

from __future__ import annotations

import contextlib
import ctypes
import os
import stat
import tempfile
import time
from pathlib import Path

from codeloop.sandbox.removal import remove_tree
from codeloop.sandbox.staging import measure
from codeloop.sandbox.types import Limits

PREFIX = "codeloop-sbx-"
OWNER_FILE = "owner"
WORKSPACE_DIR = "workspace"  # inside the run dir; the only place a tmpfs is mounted
_PAGE = 4096  # tmpfs keeps each non-empty file in whole pages
_ORPHAN_GRACE_SECONDS = 3600  # a dir with no owner file yet may be a run being created
_MS_NOSUID, _MS_NODEV, _MNT_DETACH = 0x2, 0x4, 0x2


def _start_time(pid: int) -> str | None:
    """The process's start time in clock ticks since boot (field 22 of /proc/PID/stat)."""
    try:
        with open(f"/proc/{pid}/stat", "rb") as fh:
            data = fh.read()
    except OSError:
        return None
    return data[data.rfind(b")") + 2:].split()[19].decode()


def _owner_line() -> str:
    return f"{os.getpid()} {_start_time(os.getpid())}\n"


def _owner_alive(text: str) -> bool:
    try:
        pid, started = text.split()
        return _start_time(int(pid)) == started
    except ValueError:
        return False


def _libc():
    return ctypes.CDLL(None, use_errno=True)


def mount_tmpfs(path: Path, size_bytes: int, inodes: int) -> bool:
    """Mount a size-capped tmpfs on path (root only); False when the kernel refuses."""
    opts = f"size={size_bytes},nr_inodes={inodes},mode=0700".encode()
    try:
        libc = _libc()
        rc = libc.mount(b"tmpfs", os.fsencode(path), b"tmpfs", _MS_NOSUID | _MS_NODEV, opts)
    except (OSError, AttributeError):
        return False
    return rc == 0


def unmount(path: Path) -> None:
    with contextlib.suppress(OSError, AttributeError):
        _libc().umount2(os.fsencode(path), _MNT_DETACH)


def sweep_stale(parent: Path | None = None) -> list[Path]:
    """Remove our `codeloop-sbx-*` dirs whose owning process is gone; the ones removed."""
    parent = Path(parent or tempfile.gettempdir())
    removed = []
    try:
        entries = list(os.scandir(parent))
    except OSError:
        return removed
    for entry in entries:
        if not entry.name.startswith(PREFIX):
            continue
        path = Path(entry.path)
        try:
            st = os.lstat(path)
            if not stat.S_ISDIR(st.st_mode) or st.st_uid != os.geteuid():
                continue  # not a dir we made (never follow someone else's planted link)
            if _is_live(path, st):
                continue
            _unmount_inside(path)
            remove_tree(path)
            removed.append(path)
        except OSError:
            continue  # best effort: a later start tries again
    return removed


def _is_live(path: Path, st: os.stat_result) -> bool:
    try:
        with open(path / OWNER_FILE, encoding="ascii", errors="replace") as fh:
            return _owner_alive(fh.read(200))
    except FileNotFoundError:
        return time.time() - st.st_mtime < _ORPHAN_GRACE_SECONDS
    except OSError:
        return True  # unreadable: leave it alone


@contextlib.contextmanager
def private_run_dir(parent: Path | None = None):
    """A fresh 0700 `codeloop-sbx-*` dir for one run (stale ones swept first); on exit a
    tmpfs mounted inside it (mount_workspace) is unmounted and the dir removed."""
    sweep_stale(parent)
    path = Path(tempfile.mkdtemp(prefix=PREFIX, dir=parent))
    try:
        # Written whole, then renamed: a concurrent sweep must never read it half-written
        # (an empty owner file looked like a dead owner, and a live run's dir was removed).
        (path / "owner.tmp").write_text(_owner_line(), encoding="ascii")
        os.rename(path / "owner.tmp", path / OWNER_FILE)
        yield path
    finally:
        _unmount_inside(path)
        remove_tree(path)


def mount_workspace(path: Path, size_bytes: int, inodes: int) -> bool:
    """Make the (new, empty) dir `path` a size-capped tmpfs when we may mount (root); whether
    it is one. Output files stay outside it, so a full workspace cannot silence the run."""
    return os.geteuid() == 0 and mount_tmpfs(path, size_bytes, inodes)


def make_throwaway(uid: int | None, parent: Path, caps: dict[str, int] | None = None) -> Path:
    """A fresh directory `workspace` inside `parent`, owned by `uid` when given; with caps
    (run_dir_caps) a size-capped tmpfs where we may mount one (as root). As an ordinary user
    it stays on the host disk: then only the copy-back caps and RLIMIT_FSIZE bound it."""
    path = parent / WORKSPACE_DIR
    path.mkdir(mode=0o700)
    if caps is not None:
        mount_workspace(path, caps["size_bytes"], caps["inodes"])
    if uid is not None:
        os.chown(path, uid, uid)
    return path


def run_dir_caps(source: Path | None, limits: Limits,
                 skip: frozenset[str] = frozenset()) -> dict[str, int]:
    """make_throwaway's tmpfs size and inode count for a run staging `source` (None: a
    throw-away workspace) less the top-level directories in `skip`: the copy, plus what the
    run may add (the copy-back caps), plus some slack. SandboxError when `source` is too
    large to stage."""
    mb = 1024 * 1024
    staged = measure(source, skip) if source is not None else None
    size = limits.copyback_mb * mb + 16 * mb
    inodes = limits.copyback_files + 64
    if staged is not None:
        size += staged.bytes + staged.entries * _PAGE
        inodes += staged.entries
    return {"size_bytes": size, "inodes": inodes}


def _unmount_inside(path: Path) -> None:
    child = path / WORKSPACE_DIR
    if os.path.ismount(child):
        unmount(child)
