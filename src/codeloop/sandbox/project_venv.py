"""The project's own virtual environment (`.venv` or `venv` at the workspace root) as the
`python` of sandboxed commands, as the user would have it in their shell.

It is bound read-only at its place in /workspace and left out of the staged copy (a venv is
often hundreds of MB; copying it for every command would cost seconds). Safe to run: a
directory holding `pyvenv.cfg` is never written by model-controlled code (host_policy), so a
workspace venv is the user's; inside the sandbox it runs like any other code, and read-only it
cannot be changed from there. Its interpreter must be one the sandbox can see (/usr, or the
Python that runs codeloop); nothing its `pyvenv.cfg` names is bound in, since a file in the
workspace never decides what the sandbox may read.
"""

from __future__ import annotations

import os
import stat
from pathlib import Path

VENV_DIRS = (".venv", "venv")


def find_project_venv(root: Path) -> str | None:
    """The name of the workspace's venv directory (a real directory, not a link, holding a
    regular `pyvenv.cfg` and a `bin` directory), or None."""
    for name in VENV_DIRS:
        base = root / name
        try:
            kinds = [os.lstat(base).st_mode, os.lstat(base / "pyvenv.cfg").st_mode,
                     os.lstat(base / "bin").st_mode]
        except OSError:
            continue
        if stat.S_ISDIR(kinds[0]) and stat.S_ISREG(kinds[1]) and stat.S_ISDIR(kinds[2]):
            return name
    return None


def venv_env(inside_root: str, name: str, path: str) -> dict[str, str]:
    """The environment that makes the venv's `bin` come first, as `activate` does."""
    prefix = f"{inside_root}/{name}"
    return {"PATH": f"{prefix}/bin:{path}", "VIRTUAL_ENV": prefix}
