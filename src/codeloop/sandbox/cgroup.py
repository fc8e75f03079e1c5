"""A control group per sandboxed run: memory and process limits for the whole process tree.

RLIMIT_AS is per process: with 64 processes allowed, 4 children of 700 MB each held 2.8 GB
under a "1 GB" limit. A cgroup counts the whole tree. Where the machine lets codeloop make
one (as root on cgroup v1: the memory and pids hierarchies; on cgroup v2: a cgroup whose
parent has the memory and pids controllers enabled), each run gets its own, a child of
codeloop's own cgroup. The program joins it before it starts: a tiny /bin/sh wrapper writes
its own pid into cgroup.procs and then execs bwrap, so every process of the run is born
inside it (no window in which a fork could escape). Without one, runner.py falls back to a
tree-wide RSS watchdog (watchdog.py).
"""

from __future__ import annotations

import functools
import os
import secrets
import signal
import time
from dataclasses import dataclass
from pathlib import Path

ROOT = Path("/sys/fs/cgroup")
_PREFIX = "codeloop-"
# $1.. up to "--" are cgroup.procs files; the rest is the command. Exit 125: could not join.
_JOIN = 'while [ "$1" != -- ]; do echo $$ > "$1" || exit 125; shift; done; shift; exec "$@"'
JOIN_FAILED = 125


@dataclass(frozen=True)
class Hierarchy:
    version: int  # 1 or 2
    parents: tuple[Path, ...]  # where run cgroups are made: v1 memory + pids; v2 one


def _own_paths() -> dict[str, str]:
    """controller (v1) or "" (v2) -> this process's cgroup path, from /proc/self/cgroup."""
    out: dict[str, str] = {}
    try:
        lines = Path("/proc/self/cgroup").read_text().splitlines()
    except OSError:
        return out
    for line in lines:
        _id, controllers, path = line.split(":", 2)
        for name in controllers.split(",") if controllers else [""]:
            out[name] = path
    return out


def _writable_dir(path: Path) -> bool:
    return path.is_dir() and os.access(path, os.W_OK)


def _v1() -> Hierarchy | None:
    own = _own_paths()
    parents = []
    for controller in ("memory", "pids"):
        if controller not in own:
            return None
        parent = ROOT / controller / own[controller].lstrip("/")
        if not _writable_dir(parent) or not (parent / "cgroup.procs").exists():
            return None
        parents.append(parent)
    return Hierarchy(1, tuple(parents))


def _v2() -> Hierarchy | None:
    own = _own_paths().get("")
    if own is None:
        return None
    for mount in (ROOT, ROOT / "unified"):
        parent = mount / own.lstrip("/")
        if not (parent / "cgroup.subtree_control").exists() or not _writable_dir(parent):
            continue
        enabled = set((parent / "cgroup.subtree_control").read_text().split())
        if not {"memory", "pids"} <= enabled:
            try:  # fails (EBUSY) when the parent holds processes itself: v2's no-internal rule
                (parent / "cgroup.subtree_control").write_text("+memory +pids")
            except OSError:
                continue
        return Hierarchy(2, (parent,))
    return None


@functools.lru_cache(maxsize=1)
def hierarchy() -> Hierarchy | None:
    """Where run cgroups can be made here, probed once (a real mkdir + rmdir); None: nowhere."""
    for found in (_v1(), _v2()):
        if found is None:
            continue
        try:
            probe = RunCgroup.create(found, memory_bytes=64 << 20, processes=8)
        except OSError:
            continue
        probe.remove()
        return found
    return None


def mechanism() -> str:
    """One line for `codeloop sandbox info` and the README: what limits the process tree."""
    found = hierarchy()
    if found is None:
        return ("per-process rlimits + a tree-wide RSS watchdog (no writable cgroup with the "
                "memory and pids controllers here)")
    return f"cgroup v{found.version} (memory + pids for the whole process tree)"


@dataclass
class RunCgroup:
    version: int
    dirs: tuple[Path, ...]

    @classmethod
    def create(cls, where: Hierarchy, *, memory_bytes: int, processes: int) -> RunCgroup:
        name = f"{_PREFIX}{os.getpid()}-{secrets.token_hex(6)}"
        made: list[Path] = []
        try:
            for parent in where.parents:
                (parent / name).mkdir(mode=0o755)
                made.append(parent / name)
            group = cls(where.version, tuple(made))
            group._limit(memory_bytes, processes)
        except OSError:
            for path in made:
                _rmdir(path)
            raise
        return group

    def _limit(self, memory_bytes: int, processes: int) -> None:
        if self.version == 1:
            memory, pids = self.dirs
            _write(memory / "memory.limit_in_bytes", memory_bytes)
            _write(memory / "memory.memsw.limit_in_bytes", memory_bytes, optional=True)
            _write(pids / "pids.max", processes)
        else:
            (group,) = self.dirs
            _write(group / "memory.max", memory_bytes)
            _write(group / "memory.swap.max", 0, optional=True)
            _write(group / "pids.max", processes)

    def join_argv(self, argv: list[str]) -> list[str]:
        """argv, started by a shell that first moves itself into this cgroup."""
        procs = [str(d / "cgroup.procs") for d in self.dirs]
        return ["/bin/sh", "-c", _JOIN, "codeloop-cgroup-join", *procs, "--", *argv]

    def oom_killed(self) -> bool:
        name = "memory.oom_control" if self.version == 1 else "memory.events"
        return _counter(self.dirs[0] / name, "oom_kill") > 0

    def hit_process_limit(self) -> bool:
        return _counter(self.dirs[-1] / "pids.events", "max") > 0

    def kill_all(self, timeout: float = 5.0) -> None:
        """SIGKILL every process in the cgroup and wait until it is empty."""
        kill_file = self.dirs[0] / "cgroup.kill"
        if self.version == 2 and kill_file.exists():
            _write(kill_file, 1, optional=True)
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            pids = self.pids()
            if not pids:
                return
            for pid in pids:
                try:
                    os.kill(pid, signal.SIGKILL)
                except ProcessLookupError:
                    pass
            time.sleep(0.005)

    def pids(self) -> list[int]:
        found: set[int] = set()
        for path in self.dirs:
            try:
                found |= {int(p) for p in (path / "cgroup.procs").read_text().split()}
            except (OSError, ValueError):
                continue
        return sorted(found)

    def remove(self) -> None:
        self.kill_all()
        for path in self.dirs:
            _rmdir(path)


def sweep_stale(where: Hierarchy) -> None:
    """Remove run cgroups left by codeloop processes that died before cleaning up."""
    for parent in where.parents:
        for entry in parent.glob(f"{_PREFIX}*"):
            owner = entry.name[len(_PREFIX):].split("-", 1)[0]
            stale = RunCgroup(where.version, (entry,))
            # Only empty ones: another pid namespace sharing this hierarchy could own a live
            # run whose codeloop pid merely looks dead from here.
            if owner.isdigit() and not Path(f"/proc/{owner}").exists() and not stale.pids():
                _rmdir(entry)


def _write(path: Path, value: int, *, optional: bool = False) -> None:
    try:
        path.write_text(str(value))
    except OSError:
        if not optional:
            raise


def _counter(path: Path, key: str) -> int:
    try:
        for line in path.read_text().splitlines():
            name, _, value = line.partition(" ")
            if name == key:
                return int(value)
    except (OSError, ValueError):
        pass
    return 0


def _rmdir(path: Path) -> None:
    for _ in range(50):  # a killed process leaves the cgroup a moment after it dies
        try:
            path.rmdir()
            return
        except FileNotFoundError:
            return
        except OSError:
            time.sleep(0.01)
