"""The opt-out path (`--unsafe-no-sandbox`): no namespaces, only rlimits and the wall clock.

Used only when the user asked for it; every result of such a run has sandboxed=False. The
program sees the host filesystem and network, and a setsid() grandchild can outlive the
timeout (there is no pid namespace to tear down)."""

from __future__ import annotations

import shutil

from codeloop.sandbox.types import Limits, SandboxError

# The one line every command prints (terminal, events, --json) when its runs are unsandboxed.
UNSANDBOXED_NOTICE = ("WARNING: the sandbox is OFF (unsafe_no_sandbox): model-written code runs "
                      "on the host with your user's rights")


def unsafe_argv(argv: list[str], limits: Limits) -> list[str]:
    prlimit = shutil.which("prlimit")
    if not prlimit:
        raise SandboxError("unsafe_no_sandbox still needs `prlimit` (util-linux) for limits")
    mb = 1024 * 1024
    return [prlimit, f"--cpu={limits.cpu_seconds}:{limits.cpu_seconds + 1}",
            f"--as={limits.address_space_bytes}", f"--fsize={limits.file_size_mb * mb}",
            f"--nofile={limits.open_files}", f"--nproc={limits.processes}", "--core=0", "--",
            *argv]
