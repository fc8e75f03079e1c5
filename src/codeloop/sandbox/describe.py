"""What isolates and limits a sandboxed run on this machine (`codeloop sandbox info`)."""

from __future__ import annotations

from codeloop.sandbox import bwrap, cgroup, seccomp
from codeloop.sandbox.types import Limits


def describe() -> list[tuple[str, str]]:
    """(what, how) pairs; raises SandboxUnavailable when the sandbox cannot run here."""
    as_root = bwrap.runs_as_root()
    tools = bwrap.check_tools(as_root)
    seccomp.program()
    limits = Limits()
    recipe = ("root: privileged bwrap, program dropped to a per-run uid by setpriv"
              if as_root else "user: bwrap in a user namespace (--disable-userns)")
    return [
        ("bubblewrap", tools.bwrap),
        ("recipe", recipe),
        ("syscall filter", (f"libseccomp: {len(seccomp.DENIED)} calls denied, clone with "
                            "CLONE_NEW* denied, clone3 -> ENOSYS")),
        ("memory and processes", cgroup.mechanism()),
        ("default limits", (f"{limits.memory_mb} MB memory, {limits.processes} processes, "
                            f"{limits.cpu_seconds} s CPU, {limits.file_size_mb} MB per file, "
                            f"{limits.open_files} open files")),
    ]
