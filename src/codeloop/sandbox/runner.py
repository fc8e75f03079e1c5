"""run_command / run_python: start a program in the sandbox, wait with a wall-clock limit, kill
its whole tree, and classify how it ended.

Output goes to files (never pipes: a surviving grandchild could hold a pipe open and hang the
reader); RLIMIT_FSIZE caps how much reaches the disk and only Limits.output_bytes is read back.
The wait uses a pidfd, so a short run is noticed the moment it exits (Popen.wait(timeout) polls
with growing sleeps and would add milliseconds to every run).
"""

from __future__ import annotations

import json
import os
import random
import select
import signal
import subprocess
import sys
import tempfile
import time
from contextlib import ExitStack
from pathlib import Path

from codeloop.sandbox import bwrap, seccomp
from codeloop.sandbox.classify import classify
from codeloop.sandbox.types import Limits, Mode, SandboxError, SandboxResult
from codeloop.sandbox.unsafe import unsafe_argv
from codeloop.sandbox.workspace import make_throwaway, remove_tree, stage_copy, sync_back

# Per-run uids (as root) keep concurrent sandboxes from sharing one RLIMIT_NPROC budget.
_UID_BASE, _UID_SPAN = 1_900_000_000, 1_000_000
_SECCOMP_PROGRAM = seccomp.no_namespaces_filter() if seccomp.supported() else b""


def _settings_default(name: str, fallback):
    try:
        from codeloop.config import load_config

        return getattr(load_config().settings, name)
    except Exception:  # noqa: BLE001 - a broken config file must not stop a sandboxed run
        return fallback


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


def _wait(proc: subprocess.Popen, timeout: float) -> bool:
    """Wait for exit; True if the wall-clock limit ran out first."""
    deadline = time.monotonic() + timeout
    try:
        fd = os.pidfd_open(proc.pid)
    except (AttributeError, OSError):
        try:
            proc.wait(timeout=timeout)
            return False
        except subprocess.TimeoutExpired:
            return True
    try:
        poller = select.poll()
        poller.register(fd, select.POLLIN)
        while True:
            left = deadline - time.monotonic()
            if left <= 0:
                return proc.poll() is None
            if poller.poll(left * 1000):
                proc.wait()
                return False
    finally:
        os.close(fd)


def _kill_tree(proc: subprocess.Popen, uid: int | None, info_file: Path | None) -> None:
    """SIGKILL bwrap's process group; --die-with-parent then takes the sandbox's pid namespace
    down, setsid() children included. That teardown is asynchronous, so wait for the
    namespace's init (its pid comes from bwrap's --info-fd) before returning; as root, also
    kill anything still running under the run's uid."""
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
    timeout: float | None = None,
    limits: Limits | None = None,
    files: dict[str, str] | None = None,
    stdin: str | None = None,
    env: dict | None = None,
    unsafe_no_sandbox: bool | None = None,
    collect: list[str] | None = None,
) -> SandboxResult:
    """Run argv inside the sandbox with the workspace at /workspace (the working directory).

    workspace=None: a throw-away directory. mode: "rw" writes to the given workspace, "ro"
    mounts it read-only, "cow" runs on a copy that is thrown away. timeout defaults to the
    sandbox_timeout setting; unsafe_no_sandbox to the setting of that name. collect: workspace
    files to read back after the run (through the path guard), e.g. a harness's result file.
    """
    if not argv:
        raise ValueError("argv is empty: nothing to run")
    if mode not in ("rw", "ro", "cow"):
        raise ValueError(f"mode must be 'rw', 'ro' or 'cow' (got {mode!r})")
    if files and mode == "ro" and workspace is not None:
        raise ValueError("files cannot be added to a read-only workspace; use mode='cow'")
    limits = limits or Limits()
    timeout = float(_settings_default("sandbox_timeout", 10.0) if timeout is None else timeout)
    if timeout <= 0:
        raise ValueError(f"timeout must be positive (got {timeout})")
    if unsafe_no_sandbox is None:
        unsafe_no_sandbox = bool(_settings_default("unsafe_no_sandbox", False))
    given = Path(workspace).resolve() if workspace is not None else None
    if given is not None and not given.is_dir():
        raise SandboxError(f"workspace {given} is not a directory")

    as_root = bwrap.runs_as_root()
    if not unsafe_no_sandbox:
        tools = bwrap.check_tools(as_root)  # raises SandboxUnavailable with the cause
    uid = _UID_BASE + random.randrange(_UID_SPAN) if as_root and not unsafe_no_sandbox else None

    with ExitStack() as stack:
        # One private temp dir per run: output files, and the workspace copy when there is one.
        run_dir = Path(tempfile.mkdtemp(prefix="codeloop-sbx-"))
        stack.callback(remove_tree, run_dir)
        # What the program sees as /workspace, and whether its changes are written back.
        staging, snapshot = None, None
        copy_needed = uid is not None or mode == "cow" or (unsafe_no_sandbox and mode == "ro")
        if given is None or copy_needed:
            mounted = make_throwaway(uid, run_dir)
            if given is not None:
                snapshot = stage_copy(given, mounted, uid)
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
        if unsafe_no_sandbox:
            full = unsafe_argv(argv, limits)
            cwd, run_env = str(mounted), {**_base_env(env), "HOME": str(mounted)}
        else:
            seccomp_fd = None
            if as_root and seccomp.supported():
                seccomp_fd = stack.enter_context(_seccomp_file(out_dir)).fileno()
                pass_fds = (seccomp_fd,)
            info_fh = stack.enter_context(open(out_dir / "info.json", "w+b"))
            pass_fds += (info_fh.fileno(),)
            full = bwrap.base_args(tools, as_root=as_root, seccomp_fd=seccomp_fd)
            full += ["--info-fd", str(info_fh.fileno())]
            bind = "--bind" if writable else "--ro-bind"
            full += [bind, str(mounted), bwrap.INSIDE_WORKSPACE]
            if mode == "rw" and given is not None and not as_root and (given / ".git").exists():
                # Sandboxed code must not plant hooks or config in the user's repository.
                full += ["--ro-bind", str(given / ".git"), f"{bwrap.INSIDE_WORKSPACE}/.git"]
            for key, value in _base_env(env).items():
                full += ["--setenv", key, value]
            full += ["--chdir", bwrap.INSIDE_WORKSPACE]
            full += bwrap.limit_args(tools, limits, uid=uid) + list(argv)
            cwd, run_env = "/", {}

        started = time.perf_counter()
        try:
            proc = subprocess.Popen(full, stdin=stdin_f, stdout=stdout_f, stderr=stderr_f,
                                    cwd=cwd, env=run_env, pass_fds=pass_fds,
                                    start_new_session=True, close_fds=True)
        except OSError as exc:
            raise SandboxError(f"could not start {argv[0]!r}: {exc}") from exc
        timed_out = _wait(proc, timeout)
        if timed_out:
            _kill_tree(proc, uid, None if unsafe_no_sandbox else out_dir / "info.json")
        elif unsafe_no_sandbox:
            _kill_tree(proc, None, None)  # its process group (no pid namespace to end the rest)
        seconds = time.perf_counter() - started

        stdout, cut_out = _read_capped(stdout_f, limits.output_bytes)
        stderr, cut_err = _read_capped(stderr_f, limits.output_bytes)
        out_size = max(os.fstat(stdout_f.fileno()).st_size, os.fstat(stderr_f.fileno()).st_size)
        collected = _collect(mounted, collect or [])
        if staging is not None and given is not None and snapshot is not None:
            sync_back(staging, given, snapshot)  # the program is gone: nothing races this
        code = proc.returncode if proc.returncode >= 0 else 128 - proc.returncode
        return SandboxResult(
            exit_code=code, stdout=stdout, stderr=stderr, truncated=cut_out or cut_err,
            seconds=seconds,
            limit_hit=classify(code, stderr, timed_out=timed_out, limits=limits,
                               output_size=out_size),
            sandboxed=not unsafe_no_sandbox, workspace=str(given) if given else None,
            collected=collected)


class _seccomp_file:
    """The seccomp program in an unlinked-on-exit file bwrap reads through an inherited fd."""

    def __init__(self, directory: Path) -> None:
        self.path = directory / "seccomp.bpf"

    def __enter__(self):
        self.path.write_bytes(_SECCOMP_PROGRAM)
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
