"""The dependency step: the stack's install command, on the host, in the project directory,
with network, before any test runs. Lifecycle scripts stay off (npm --ignore-scripts, pip
wheels only), so nothing a package ships runs here; tests later run in the sandbox without
network. Skipped when the stack's `installed_check` already passes.
"""

from __future__ import annotations

import os
import subprocess
from dataclasses import dataclass
from pathlib import Path

from codeloop.build.stacks import Stack

INSTALL_TIMEOUT = 900.0


@dataclass
class InstallResult:
    ok: bool
    skipped: bool
    message: str  # one line


def _env(project: Path) -> dict[str, str]:
    keep = ("PATH", "HOME", "LANG", "TMPDIR", "http_proxy", "https_proxy", "HTTP_PROXY",
            "HTTPS_PROXY", "no_proxy", "NO_PROXY", "PIP_INDEX_URL", "npm_config_registry",
            "npm_config_cache")
    env = {k: v for k, v in os.environ.items() if k in keep}
    env.update({"npm_config_ignore_scripts": "true", "npm_config_update_notifier": "false",
                "PIP_DISABLE_PIP_VERSION_CHECK": "1", "PYTHONDONTWRITEBYTECODE": "1"})
    return env


def _run(argv: list[str], project: Path, timeout: float) -> subprocess.CompletedProcess[str]:
    return subprocess.run(argv, cwd=project, env=_env(project), capture_output=True, text=True,
                          errors="replace", timeout=timeout, stdin=subprocess.DEVNULL,
                          check=False, start_new_session=True)


def install_dependencies(stack: Stack, project: Path,
                         timeout: float = INSTALL_TIMEOUT) -> InstallResult:
    if stack.installed_check:
        try:
            if _run(stack.commands(stack.installed_check), project, 60).returncode == 0:
                return InstallResult(True, True, "dependencies already installed")
        except (OSError, subprocess.TimeoutExpired):
            pass
    if not stack.install_command:
        return InstallResult(True, True, "no install step")
    argv = stack.commands(stack.install_command)
    try:
        proc = _run(argv, project, timeout)
    except subprocess.TimeoutExpired:
        return InstallResult(False, False, f"`{' '.join(argv[:3])}` took more than "
                                           f"{int(timeout)} s")
    except OSError as exc:
        return InstallResult(False, False, f"cannot run {argv[0]!r}: {exc.strerror or exc}")
    if proc.returncode != 0:
        tail = " ".join((proc.stderr or proc.stdout).split())[-300:]
        return InstallResult(False, False, f"`{' '.join(argv[:3])} ...` failed "
                                           f"(exit {proc.returncode}): {tail}")
    return InstallResult(True, False, "dependencies installed")
