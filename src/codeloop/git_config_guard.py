"""Before host git runs in a workspace: every config file it would read there, and every file
that config makes git open by itself, is a regular file or absent.

git opens its repository's config (and what `include.path` / `includeIf.*.path` name, at any
depth, and a `core.excludesFile`) with a plain blocking open: a FIFO there made
`review --git` hang until the time bound, a device could be read forever. A workspace is
written by a model or a stranger, so these files are data to check, never to trust. The
repository is found as git finds it (the nearest `.git` directory or `gitdir:` file upward,
its `commondir`), each config is listed with `git config --file F --no-includes` (a regular
file: nothing blocks), and each named file is judged by where it resolves. What git would
ignore (a missing include) is fine; anything else that is not a regular file, or that lies
in /proc, /sys or /dev, is refused in one line naming it.

A file could still be swapped after the check: every host git call is also time-bounded.
"""

from __future__ import annotations

import functools
import os
import stat
import subprocess
from pathlib import Path

# git stops at include depth 10 as well ("exceeded maximum include depth").
MAX_INCLUDE_DEPTH = 10
# Config keys (lower-case) whose value is a file git opens on its own in common commands.
_FILE_KEYS = frozenset({"core.excludesfile", "commit.template", "mailmap.file",
                        "blame.ignorerevsfile"})
_PSEUDO_ROOTS = ("/proc", "/sys", "/dev")
_CONFIG_NAMES = ("config", "config.worktree")
_LIST_TIMEOUT = 10


class UnsafeGitConfig(OSError):
    """git would open a special file named by the workspace's git config; one line. An
    OSError: callers that run git themselves already treat "git could not run" so."""


def check_repository(cwd: os.PathLike | str, env: dict[str, str]) -> None:
    """UnsafeGitConfig when git run in `cwd` would open a non-regular config-named file."""
    git_dir = _find_git_dir(Path(os.path.abspath(cwd)))
    if git_dir is None:
        return
    dirs = [git_dir]
    common = _read_small(git_dir / "commondir")
    if common:
        dirs.append(git_dir / common)
    for where in dirs:
        _check_file(where / "HEAD", "HEAD")
        for name in _CONFIG_NAMES:
            _check_config(where / name, env, depth=0)


def _find_git_dir(start: Path) -> Path | None:
    """The git directory git would use in `start`: the nearest `.git` upward (a directory, or
    a `gitdir:` file), or `start` itself when it is one (bare)."""
    for here in (start, *start.parents):
        dot_git = here / ".git"
        try:
            st = os.stat(dot_git)
        except OSError:
            if here == start and (here / "HEAD").exists() and (here / "objects").is_dir():
                return here
            continue
        if stat.S_ISDIR(st.st_mode):
            return dot_git
        if not stat.S_ISREG(st.st_mode):
            raise UnsafeGitConfig(_refusal(dot_git, "the repository's .git", st))
        target = _read_small(dot_git)
        if not target.startswith("gitdir:"):
            return None  # git refuses such a file itself, quickly
        return here / target.removeprefix("gitdir:").strip()
    return None


def _read_small(path: Path) -> str:
    """The first line of a small regular file ('' when absent); a special file is refused."""
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | os.O_CLOEXEC)
    except OSError:
        return ""
    try:
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode):
            raise UnsafeGitConfig(_refusal(path, "git metadata", st))
        return os.read(fd, 4096).decode("utf-8", "replace").strip().split("\n")[0]
    finally:
        os.close(fd)


def _check_file(path: Path, what: str) -> bool:
    """True when `path` resolves to a regular file, False when absent; else refused."""
    try:
        st = os.stat(path)
    except OSError:
        return False  # missing or unreachable: git skips it (or fails at once)
    real = os.path.realpath(path)
    if not stat.S_ISREG(st.st_mode) or any(
            real == root or real.startswith(root + "/") for root in _PSEUDO_ROOTS):
        raise UnsafeGitConfig(_refusal(path, what, st, real))
    return True


def _check_config(path: Path, env: dict[str, str], depth: int) -> None:
    if depth > MAX_INCLUDE_DEPTH or not _check_file(path, "a git config file"):
        return
    for key, value in _entries(path, env):
        if key == "include.path" or (key.startswith("includeif.") and key.endswith(".path")):
            _check_config(_resolve(value, path, env), env, depth + 1)
        elif key in _FILE_KEYS and value:
            _check_file(_resolve(value, path, env), f"{key} in {path}")


def _entries(path: Path, env: dict[str, str]) -> tuple[tuple[str, str], ...]:
    """The file's (key, value) pairs, listed again only when the file changed (its identity,
    size or times): a git command costs one stat per config file, not one more git run."""
    st = os.stat(path)
    return _listed(str(path), env.get("HOME", ""), (st.st_dev, st.st_ino, st.st_size,
                                                     st.st_mtime_ns, st.st_ctime_ns))


@functools.lru_cache(maxsize=256)
def _listed(path: str, home: str, _identity: tuple[int, ...]) -> tuple[tuple[str, str], ...]:
    env = {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "HOME": home,
           "GIT_CONFIG_NOSYSTEM": "1", "GIT_CONFIG_GLOBAL": os.devnull, "LC_ALL": "C"}
    try:
        proc = subprocess.run(["git", "config", "--file", path, "--no-includes", "--null",
                               "--list"], env=env, cwd="/", capture_output=True, check=False,
                              timeout=_LIST_TIMEOUT, stdin=subprocess.DEVNULL)
    except subprocess.TimeoutExpired:
        raise UnsafeGitConfig(f"{path}: git could not read it within {_LIST_TIMEOUT} s") \
            from None
    except OSError:
        return ()
    out = []
    for item in proc.stdout.decode("utf-8", "surrogateescape").split("\0"):
        key, _, value = item.partition("\n")
        if key:
            out.append((key.lower(), value))
    return tuple(out)


def _resolve(value: str, config: Path, env: dict[str, str]) -> Path:
    """Where git looks for a path-valued setting: `~/` is HOME, `%(prefix)/` git's install
    prefix (/usr here), a relative include is beside the file naming it."""
    if value.startswith("~/"):
        return Path(env.get("HOME", os.path.expanduser("~"))) / value[2:]
    if value.startswith("~"):
        return Path(os.path.expanduser(value))
    if value.startswith("%(prefix)/"):
        return Path("/usr") / value.removeprefix("%(prefix)/")
    return config.parent / value


def _refusal(path: Path, what: str, st: os.stat_result, real: str | None = None) -> str:
    kind = _KINDS.get(stat.S_IFMT(st.st_mode), "special file")
    where = f" (resolves to {real})" if real and real != str(path) else ""
    return (f"{path}{where}, {what}, is not a regular file ({kind}): git would block or "
            "read it forever; refusing to run git in this repository")


_KINDS = {stat.S_IFIFO: "a FIFO", stat.S_IFCHR: "a character device",
          stat.S_IFBLK: "a block device", stat.S_IFSOCK: "a socket", stat.S_IFDIR: "a directory",
          stat.S_IFREG: "a pseudo-file of the kernel"}
