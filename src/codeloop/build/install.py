"""The dependency step: the stack's install command, on the host, in the project directory,
with network, before any test runs. Lifecycle scripts stay off (npm --ignore-scripts, pip
wheels only), so nothing a package ships runs here; tests later run in the sandbox without
network. Skipped when the stack's `installed_check` already passes.

The commands run with npm's and pip's caches in a throw-away directory, removed afterwards:
nothing is written into the user's caches (no cache entry a package could plant for a later
install). The user's own configuration (~/.npmrc, pip.conf: registries, mirrors) is still
read, as the user's tools would read it; the environment's lifecycle-script switch overrides
any config file, the project's own .npmrc included.
"""

from __future__ import annotations

import os
import subprocess
import tempfile
from dataclasses import dataclass
from pathlib import Path

from codeloop.build.stacks import Stack

INSTALL_TIMEOUT = 900.0


@dataclass
class InstallResult:
    ok: bool
    skipped: bool
    message: str  # one line


def install_env(home: Path) -> dict[str, str]:
    """The install commands' environment: the npm and pip caches under `home` (a temporary
    directory), lifecycle scripts off."""
    keep = ("PATH", "HOME", "LANG", "TMPDIR", "http_proxy", "https_proxy", "HTTP_PROXY",
            "HTTPS_PROXY", "no_proxy", "NO_PROXY", "PIP_INDEX_URL", "npm_config_registry")
    env = {k: v for k, v in os.environ.items() if k in keep}
    env.update({"npm_config_cache": str(home / "npm-cache"),
                "PIP_CACHE_DIR": str(home / "pip-cache"),
                "npm_config_ignore_scripts": "true", "npm_config_update_notifier": "false",
                "PIP_DISABLE_PIP_VERSION_CHECK": "1", "PYTHONDONTWRITEBYTECODE": "1"})
    return env


def _run(argv: list[str], project: Path, home: Path,
         timeout: float) -> subprocess.CompletedProcess[str]:
    return subprocess.run(argv, cwd=project, env=install_env(home), capture_output=True,
                          text=True, errors="replace", timeout=timeout,
                          stdin=subprocess.DEVNULL, check=False, start_new_session=True)


def install_dependencies(stack: Stack, project: Path,
                         timeout: float = INSTALL_TIMEOUT) -> InstallResult:
    with tempfile.TemporaryDirectory(prefix="codeloop-install-",
                                     ignore_cleanup_errors=True) as home:
        return _install(stack, project, Path(home), timeout)


def _install(stack: Stack, project: Path, home: Path, timeout: float) -> InstallResult:
    if stack.installed_check:
        try:
            if _run(stack.commands(stack.installed_check), project, home, 60).returncode == 0:
                return InstallResult(True, True, "dependencies already installed")
        except (OSError, subprocess.TimeoutExpired):
            pass
    if not stack.install_command:
        return InstallResult(True, True, "no install step")
    argv = stack.commands(stack.install_command)
    try:
        proc = _run(argv, project, home, timeout)
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
