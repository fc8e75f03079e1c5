"""Run an analysis tool (ruff, pylint, bandit) on a throw-away copy of model-written code.

The code is never imported. The tools run as `python -I -m <tool>` from this interpreter's
environment: `-I` keeps the temp directory and PYTHONPATH off `sys.path`, so a file named like
a module the tool imports (`re.py`, `ast.py`) cannot shadow it and run. HOME points into the
temp directory so no user or planted config (a pylintrc `init-hook` runs code) is picked up.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

DEFAULT_TIMEOUT_S = 60.0


@dataclass(frozen=True)
class ToolRun:
    returncode: int
    stdout: str
    stderr: str


class ToolRunError(Exception):
    """The tool could not run or gave no usable output; the message says why."""


@dataclass(frozen=True)
class StagedFile:
    directory: Path  # the tools' working directory; holds only the copy
    path: Path


@contextmanager
def staged_copy(code: str, filename: str = "solution.py") -> Iterator[StagedFile]:
    """Write `code` to a fresh private directory; removed on exit."""
    with tempfile.TemporaryDirectory(prefix="codeloop-quality-") as tmp:
        directory = Path(tmp)
        path = directory / safe_module_filename(filename)
        path.write_text(code, encoding="utf-8")
        yield StagedFile(directory, path)


def safe_module_filename(filename: str) -> str:
    """A plain `<identifier>.py` name built from `filename`'s last component."""
    stem = Path(filename.replace("\\", "/")).name.removesuffix(".py")
    stem = re.sub(r"\W", "_", stem) or "solution"
    if stem[0].isdigit():
        stem = f"m_{stem}"
    return f"{stem}.py"


def run_tool(module: str, args: list[str], staged: StagedFile,
             timeout_s: float = DEFAULT_TIMEOUT_S) -> ToolRun:
    """Run `python -I -m <module> <args>` in the staged directory; raise ToolRunError when it
    cannot start or exceeds `timeout_s`."""
    command = [sys.executable, "-I", "-m", module, *args]
    env = {
        "PATH": os.environ.get("PATH", "/usr/bin:/bin"),
        "HOME": str(staged.directory),
        "XDG_CONFIG_HOME": str(staged.directory / ".config"),
        "XDG_CACHE_HOME": str(staged.directory / ".cache"),
        "PYLINTHOME": str(staged.directory / ".cache"),
        "LANG": "C.UTF-8",
    }
    try:
        done = subprocess.run(
            command, cwd=staged.directory, env=env, capture_output=True, text=True,
            encoding="utf-8", errors="replace", timeout=timeout_s, check=False,
            stdin=subprocess.DEVNULL,
        )
    except subprocess.TimeoutExpired as exc:
        raise ToolRunError(f"{module} timed out after {timeout_s:.0f}s") from exc
    except OSError as exc:
        raise ToolRunError(f"{module} could not start: {exc}") from exc
    return ToolRun(done.returncode, done.stdout, done.stderr)


def last_line(text: str) -> str:
    """The last non-blank line of a tool's stderr, for a short failure message."""
    lines = [line for line in text.strip().splitlines() if line.strip()]
    return lines[-1][:300] if lines else "no output"
