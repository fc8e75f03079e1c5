"""run_command / run_python: start a program in the sandbox, wait with a wall-clock limit, kill
its whole tree, and classify how it ended.

Output goes to files (never pipes: a surviving grandchild could hold a pipe open and hang the
reader); RLIMIT_FSIZE caps how much reaches the disk and only Limits.output_bytes is read back.
The wait uses a pidfd, so a short run is noticed the moment it exits (Popen.wait(timeout) polls
with growing sleeps and would add milliseconds to every run).
"""

from __future__ import annotations

import functools
import json
import os
import random
import select
import signal
import subprocess
import sys
import time
from contextlib import ExitStack
from dataclasses import replace
from pathlib import Path

from codeloop.sandbox import bwrap, cgroup, seccomp, watchdog
from codeloop.sandbox.classify import classify
from codeloop.sandbox.copyback import sync_back
from codeloop.sandbox.host_tmp import private_tmp_env
from codeloop.sandbox.project_venv import find_project_venv, venv_env
from codeloop.sandbox.staging import stage_copy
from codeloop.sandbox.tempdirs import make_throwaway, private_run_dir, run_dir_caps
from codeloop.sandbox.types import Limits, Mode, SandboxError, SandboxResult
from codeloop.sandbox.unsafe import unsafe_argv

# Per-run uids (as root) keep concurrent sandboxes from sharing one RLIMIT_NPROC budget.
_UID_BASE, _UID_SPAN = 1_900_000_000, 1_000_000
# Without a cgroup the memory limit holds per process only: allow fewer processes.
_PROCESSES_WITHOUT_CGROUP = 16
# run_command(channel=True): argv items equal to this become the channel fd's number.
CHANNEL_FD_ARG = "{channel_fd}"
_CHANNEL_CAP = 4_000_000


def _base_env(extra: dict | None) -> dict[str, str]:
    env = {
        "PATH": f"{Path(sys.prefix) / 'bin'}:/usr/local/bin:/usr/bin:/bin",
        "HOME": "/tmp", "TMPDIR": "/tmp", "LANG": "C.UTF-8", "USER": "sandbox",
        "LOGNAME": "sandbox", "PYTHONDONTWRITEBYTECODE": "1", "PYTHONUNBUFFERED": "1",
    }
    env.update({str(k): str(v) for k, v in (extra or {}).items()})
    return env


def _write_files(root: Path, files: dict[str, str] | None) -> None:
    """Write the extra files through the path guard; as root, give them to root's owner."""
    if not files:
        return
    from codeloop.sandbox.pathguard import PathGuard

    guard, owner = PathGuard(root), os.stat(root)
    for rel, content in files.items():
        path = guard.write_text(rel, content)
        while os.geteuid() == 0 and path != root:
            os.lchown(path, owner.st_uid, owner.st_gid)
            path = path.parent


def _collect(root: Path, names: list[str], cap: int = 4_000_000) -> dict[str, str]:
    """Read files the program left, refusing symlinks (it could plant one to a host file)."""
    from codeloop.sandbox.pathguard import PathGuard, PathRefused

    guard, out = PathGuard(root), {}
    for name in names:
        try:
            out[name] = guard.read_bytes(name)[:cap].decode("utf-8", errors="replace")
        except (OSError, PathRefused):
            continue
    return out


def _read_capped(fh, cap: int) -> tuple[str, bool]:
    fh.seek(0)
    data = fh.read(cap + 1)
    return data[:cap].decode("utf-8", errors="replace"), len(data) > cap


def _wait(proc: subprocess.Popen, timeout: float, over_memory=None) -> str | None:
    """Wait for exit; "timeout" if the wall-clock limit ran out first, "memory" if
    over_memory() (the no-cgroup watchdog, asked every WATCH_INTERVAL) said so first."""
    deadline = time.monotonic() + timeout
    if over_memory is not None:
        while proc.poll() is None:
            if over_memory():
                return "memory"
            if time.monotonic() >= deadline:
                return "timeout"
            try:
                proc.wait(timeout=min(watchdog.WATCH_INTERVAL, deadline - time.monotonic()))
            except subprocess.TimeoutExpired:
                continue
        return None
    try:
        fd = os.pidfd_open(proc.pid)
    except (AttributeError, OSError):
        try:
            proc.wait(timeout=timeout)
            return None
        except subprocess.TimeoutExpired:
            return "timeout"
    try:
        poller = select.poll()
        poller.register(fd, select.POLLIN)
        while True:
            left = deadline - time.monotonic()
            if left <= 0:
                return "timeout" if proc.poll() is None else None
            if poller.poll(left * 1000):
                proc.wait()
                return None
    finally:
        os.close(fd)


def _kill_tree(proc: subprocess.Popen, uid: int | None, info_file: Path | None, *,
               signal_group: bool = True) -> None:
    """SIGKILL bwrap's process group (when it may still be running: after a normal exit its
    id may already belong to someone else); --die-with-parent then takes the sandbox's pid
    namespace down, setsid() children included. That teardown is asynchronous, so wait for
    the namespace's init (its pid comes from bwrap's --info-fd) before returning; as root,
    also kill anything still running under the run's uid."""
    if signal_group:
        try:
            os.killpg(proc.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
    proc.wait()
    if info_file is not None:
        _wait_for_pid(_sandbox_init_pid(info_file), 5.0)
    if uid is not None:
        deadline = time.monotonic() + 5.0
        while _kill_uid(uid) and time.monotonic() < deadline:
            time.sleep(0.01)


def _sandbox_init_pid(info_file: Path) -> int | None:
    try:
        return int(json.loads(info_file.read_text() or "{}").get("child-pid"))
    except (OSError, ValueError, TypeError):
        return None


def _wait_for_pid(pid: int | None, timeout: float) -> None:
    if pid is None:
        return
    try:
        fd = os.pidfd_open(pid)
    except (AttributeError, OSError):
        return  # already gone
    try:
        select.select([fd], [], [], timeout)
    finally:
        os.close(fd)


def _kill_uid(uid: int) -> int:
    """SIGKILL every process owned by uid; how many were found."""
    found = 0
    for entry in os.scandir("/proc"):
        if entry.name.isdigit():
            try:
                if entry.stat().st_uid == uid:
                    found += 1
                    os.kill(int(entry.name), signal.SIGKILL)
            except (OSError, ProcessLookupError):
                continue
    return found


def run_command(
    argv: list[str],
    *,
    workspace: Path | str | None = None,
    mode: Mode = "rw",
    timeout: float | None = 10.0,
    limits: Limits | None = None,
    files: dict[str, str] | None = None,
    stdin: str | None = None,
    env: dict | None = None,
    unsafe_no_sandbox: bool = False,
    collect: list[str] | None = None,
    channel: bool = False,
) -> SandboxResult:
    """Run argv inside the sandbox with the workspace at /workspace (the working directory).

    workspace=None: a throw-away directory. mode: "rw" writes to the given workspace, "ro"
    mounts it read-only, "cow" runs on a copy that is thrown away. timeout defaults to 10 s;
    callers pass their command's settings (the runner reads no configuration). collect:
    workspace files to read back after the run (through the path guard), e.g. a harness's
    result file.
    channel: hand the program one extra fd, a file the host opened outside the workspace
    (argv items equal to CHANNEL_FD_ARG name its number); what it wrote comes back as
    SandboxResult.channel. Nothing in the sandbox can reach that file but through the fd.
    """
    if not argv:
        raise ValueError("argv is empty: nothing to run")
    # Started as `../.venv/bin/python`, Python's executable path runs through the host's working
    # directory, which the sandbox does not mount: name the interpreter without the detour.
    if argv[0] == sys.executable:
        argv = [os.path.abspath(argv[0]), *argv[1:]]
    if mode not in ("rw", "ro", "cow"):
        raise ValueError(f"mode must be 'rw', 'ro' or 'cow' (got {mode!r})")
    if files and mode == "ro" and workspace is not None:
        raise ValueError("files cannot be added to a read-only workspace; use mode='cow'")
    limits = limits or Limits()
    # The runner never reads configuration: the command did, once, and passed it down.
    timeout = float(10.0 if timeout is None else timeout)
    if timeout <= 0:
        raise ValueError(f"timeout must be positive (got {timeout})")
    given = Path(workspace).resolve() if workspace is not None else None
    if given is not None and not given.is_dir():
        raise SandboxError(f"workspace {given} is not a directory")

    as_root = bwrap.runs_as_root()
    if not unsafe_no_sandbox:
        tools = bwrap.check_tools(as_root)  # raises SandboxUnavailable with the cause
    uid = _UID_BASE + random.randrange(_UID_SPAN) if as_root and not unsafe_no_sandbox else None

    with ExitStack() as stack:
        # What the program sees as /workspace: a copy of a given workspace unless the program
        # may only read it, so every write comes home through sync_back's one gate.
        copy_needed = given is not None and (uid is not None or mode != "ro" or unsafe_no_sandbox)
        # The project's venv is the `python` there; bound read-only, not copied.
        venv = find_project_venv(given) if given is not None and not unsafe_no_sandbox else None
        skip = frozenset({venv}) if venv and copy_needed else frozenset()
        if venv:
            env = {**venv_env(bwrap.INSIDE_WORKSPACE, venv, _base_env(None)["PATH"]),
                   **(env or {})}
        # One private temp dir per run (swept if we crash): output files, and the workspace
        # copy in a size-capped tmpfs where we may mount one.
        run_dir = stack.enter_context(private_run_dir())
        staging, snapshot = None, None
        if given is None or copy_needed:
            caps = run_dir_caps(given if copy_needed else None, limits, skip)
            mounted = make_throwaway(uid, run_dir, caps)
            if given is not None:
                snapshot = stage_copy(given, mounted, uid, skip)
                staging = mounted if mode == "rw" else None
        else:
            mounted = given
        _write_files(mounted, files)
        writable = not (given is not None and mode == "ro")

        out_dir = run_dir
        stdout_f = stack.enter_context(open(out_dir / "stdout", "w+b"))
        stderr_f = stack.enter_context(open(out_dir / "stderr", "w+b"))
        stdin_f = stack.enter_context(open(out_dir / "stdin", "w+b"))
        if stdin:
            stdin_f.write(stdin.encode())
            stdin_f.seek(0)
        if uid is not None:
            for fh in (stdout_f, stderr_f):
                os.fchown(fh.fileno(), uid, uid)

        pass_fds: tuple[int, ...] = ()
        channel_f = None
        if channel:
            channel_f = stack.enter_context(open(out_dir / "channel", "w+b"))
            pass_fds = (channel_f.fileno(),)
            argv = [str(channel_f.fileno()) if a == CHANNEL_FD_ARG else a for a in argv]
        group = None  # the run's cgroup, where the machine allows one
        if unsafe_no_sandbox:
            full = unsafe_argv(argv, limits)
            cwd = str(mounted)  # the host's /tmp is shared: the run's own dir instead
            run_env = private_tmp_env({**_base_env(env), "HOME": str(mounted)}, run_dir)
        else:
            seccomp_fd = stack.enter_context(_seccomp_file(out_dir)).fileno()
            pass_fds += (seccomp_fd,)
            group = _run_cgroup(limits)
            if group is not None:
                stack.callback(group.remove)
            else:
                limits = replace(limits, processes=min(limits.processes,
                                                       _PROCESSES_WITHOUT_CGROUP))
            info_fh = stack.enter_context(open(out_dir / "info.json", "w+b"))
            pass_fds += (info_fh.fileno(),)
            full = bwrap.base_args(tools, as_root=as_root, seccomp_fd=seccomp_fd)
            full += ["--info-fd", str(info_fh.fileno())]
            bind = "--bind" if writable else "--ro-bind"
            full += [bind, str(mounted), bwrap.INSIDE_WORKSPACE]
            if skip:
                full += ["--ro-bind", str(given / venv), f"{bwrap.INSIDE_WORKSPACE}/{venv}"]
            for key, value in _base_env(env).items():
                full += ["--setenv", key, value]
            full += ["--chdir", bwrap.INSIDE_WORKSPACE]
            full += bwrap.limit_args(tools, limits, uid=uid) + list(argv)
            if group is not None:
                full = group.join_argv(full)  # in the cgroup before bwrap even starts
            cwd, run_env = "/", {}

        started = time.perf_counter()
        try:
            proc = subprocess.Popen(full, stdin=stdin_f, stdout=stdout_f, stderr=stderr_f,
                                    cwd=cwd, env=run_env, pass_fds=pass_fds,
                                    start_new_session=True, close_fds=True)
        except OSError as exc:
            raise SandboxError(f"could not start {argv[0]!r}: {exc}") from exc
        # Without a cgroup the watchdog bounds the tree; opted out of the sandbox, RLIMIT_AS
        # alone did, which a raised address space (address_space_mb) no longer does.
        watched = group is None and (not unsafe_no_sandbox or _address_space_raised(limits))
        watch = _memory_watch(proc, limits) if watched else None
        ended = _wait(proc, timeout, watch)
        timed_out = ended == "timeout"
        # Also after a normal exit: a grandchild may still be alive while the pid namespace is
        # torn down, and nothing of the run may race the copy-back below.
        _kill_tree(proc, uid, None if unsafe_no_sandbox else out_dir / "info.json",
                   signal_group=bool(ended) or unsafe_no_sandbox)
        memory_killed, processes_capped = ended == "memory", False
        if group is not None:
            group.kill_all()  # anything the run left behind, before its files are read
            memory_killed, processes_capped = group.oom_killed(), group.hit_process_limit()
        seconds = time.perf_counter() - started

        stdout, cut_out = _read_capped(stdout_f, limits.output_bytes)
        stderr, cut_err = _read_capped(stderr_f, limits.output_bytes)
        out_size = max(os.fstat(stdout_f.fileno()).st_size, os.fstat(stderr_f.fileno()).st_size)
        collected = _collect(mounted, collect or [])
        channel_text = _read_capped(channel_f, _CHANNEL_CAP)[0] if channel_f else ""
        refused: list[str] = []
        if staging is not None and given is not None and snapshot is not None:
            # The program is gone: nothing races this. CopyBackError leaves `given` unchanged.
            refused = sync_back(staging, given, snapshot, limits).refused
        code = proc.returncode if proc.returncode >= 0 else 128 - proc.returncode
        return SandboxResult(
            exit_code=code, stdout=stdout, stderr=stderr, truncated=cut_out or cut_err,
            seconds=seconds,
            limit_hit=classify(code, stderr, timed_out=timed_out, limits=limits,
                               output_size=out_size,
                               memory_killed=memory_killed, processes_capped=processes_capped),
            sandboxed=not unsafe_no_sandbox, workspace=str(given) if given else None,
            collected=collected, channel=channel_text, refused=refused)


def _run_cgroup(limits: Limits) -> cgroup.RunCgroup | None:
    """A fresh cgroup holding the run's memory and process limits, or None (no cgroup here)."""
    where = cgroup.hierarchy()
    if where is None:
        return None
    _sweep_once(where)
    try:
        return cgroup.RunCgroup.create(where, memory_bytes=limits.memory_mb * 1024 * 1024,
                                       processes=limits.processes)
    except OSError as exc:
        raise SandboxError(f"could not create the run's cgroup: {exc}") from exc


@functools.lru_cache(maxsize=1)
def _sweep_once(where: cgroup.Hierarchy) -> None:
    cgroup.sweep_stale(where)


def _address_space_raised(limits: Limits) -> bool:
    return limits.address_space_bytes > limits.memory_mb * 1024 * 1024


def _memory_watch(proc: subprocess.Popen, limits: Limits):
    """over_memory() for _wait: the whole tree's resident memory against the limit."""
    cap = limits.memory_mb * 1024 * 1024
    return lambda: watchdog.tree_rss(proc.pid) > cap


class _seccomp_file:
    """The seccomp program in an unlinked-on-exit file bwrap reads through an inherited fd."""

    def __init__(self, directory: Path) -> None:
        self.path = directory / "seccomp.bpf"

    def __enter__(self):
        self.path.write_bytes(seccomp.program())
        self.fh = open(self.path, "rb")
        return self.fh

    def __exit__(self, *exc) -> None:
        self.fh.close()


def run_python(source: str, *, files: dict[str, str] | None = None,
               args: list[str] | None = None, **kwargs) -> SandboxResult:
    """Run Python `source` (as main.py in the workspace) with the project's interpreter."""
    all_files = dict(files or {})
    name = "main.py" if "main.py" not in all_files else "_codeloop_main.py"
    all_files[name] = source
    return run_command([sys.executable, name, *(args or [])], files=all_files, **kwargs)
