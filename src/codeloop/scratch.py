"""Private scratch space for a run: a fresh 0700 directory under the user's own scratch root
(paths.scratch_dir(), in the user's cache dir), removed without following any symlink and
only when it is still the directory that was made.

Why not `$TMPDIR/codeloop-build`: a fixed name in a shared directory can be made first by
another local user, who then owns it and may swap what is inside for symlinks; a cleanup
running as root deleted every sub-directory of a directory of her choice. So the root and
each of its ancestors must belong to us (or root) and be writable by nobody else (a sticky
dir like /tmp is fine: no one can rename what we put there), the run's directory is made by
mkdtemp, and its identity (st_dev, st_ino) is checked before it is removed.
"""

from __future__ import annotations

import os
import stat
import tempfile
from dataclasses import dataclass
from pathlib import Path

from codeloop.paths import scratch_dir
from codeloop.sandbox.removal import remove_tree


class UnsafeScratch(OSError):
    """The scratch root is not private to this user; one line for the user."""


def private_root(purpose: str) -> Path:
    """`scratch_dir()/purpose`, made 0700 when missing; UnsafeScratch when it (or a directory
    above it) is not ours alone."""
    root = scratch_dir() / purpose
    made = not os.path.lexists(root)
    try:
        root.mkdir(mode=0o700, parents=True, exist_ok=True)
    except OSError as exc:
        raise UnsafeScratch(f"cannot make the scratch directory {root}: "
                            f"{exc.strerror or exc}") from None
    if made:
        os.chmod(root, 0o700)  # mkdir's mode is cut by the umask only; be exact
    _check_private(root)
    for parent in root.parents:
        _check_not_shared(parent, root)
    return root


def _check_private(path: Path) -> os.stat_result:
    st = os.lstat(path)
    if stat.S_ISLNK(st.st_mode) or not stat.S_ISDIR(st.st_mode):
        raise UnsafeScratch(f"scratch directory {path} is not a directory (a symlink?): "
                            "remove it, or set CODELOOP_SCRATCH_DIR")
    if st.st_uid != os.geteuid():
        raise UnsafeScratch(f"scratch directory {path} belongs to uid {st.st_uid}, not to "
                            "you: remove it, or set CODELOOP_SCRATCH_DIR")
    if st.st_mode & 0o077:
        raise UnsafeScratch(f"scratch directory {path} is readable or writable by others "
                            f"(mode {stat.S_IMODE(st.st_mode):o}): chmod 700 it")
    return st


def _check_not_shared(parent: Path, root: Path) -> None:
    """An ancestor someone else could rename our directory out of is refused."""
    st = os.stat(parent)
    foreign = st.st_uid not in (0, os.geteuid())
    open_to_others = bool(st.st_mode & 0o022) and not st.st_mode & stat.S_ISVTX
    if foreign or open_to_others:
        who = f"belongs to uid {st.st_uid}" if foreign else "is writable by others"
        raise UnsafeScratch(f"scratch directory {root} lies in {parent}, which {who}: "
                            "set CODELOOP_SCRATCH_DIR to a directory of your own")


@dataclass(frozen=True)
class ScratchDir:
    """One run's private directory, and its identity when it was made."""

    path: Path
    dev: int
    ino: int

    def intact(self) -> bool:
        """Still the directory that was made: same device and inode, not a symlink, ours."""
        try:
            st = os.lstat(self.path)
        except OSError:
            return False
        return (stat.S_ISDIR(st.st_mode) and (st.st_dev, st.st_ino) == (self.dev, self.ino)
                and st.st_uid == os.geteuid())

    def remove(self) -> bool:
        """Delete it (no symlink inside is followed); False, touching nothing, when the path
        no longer is the directory that was made."""
        if not self.intact():
            return False
        remove_tree(self.path)
        return True


def make_scratch(purpose: str, prefix: str) -> ScratchDir:
    """A fresh 0700 directory `<prefix>*` in the private root of `purpose`."""
    path = Path(tempfile.mkdtemp(prefix=prefix, dir=private_root(purpose)))
    st = os.lstat(path)
    return ScratchDir(path, st.st_dev, st.st_ino)


def stale_scratch(purpose: str, prefix: str) -> list[Path]:
    """Directories `<prefix>*` left in the private root by a run that was killed."""
    root = private_root(purpose)
    found = []
    for entry in os.scandir(root):
        if entry.name.startswith(prefix) and entry.is_dir(follow_symlinks=False):
            found.append(Path(entry.path))
    return found


def check_private_dir(path: Path) -> None:
    """UnsafeScratch unless `path` is a real directory of ours that no one else may use."""
    _check_private(path)
