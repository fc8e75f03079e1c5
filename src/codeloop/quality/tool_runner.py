"""Run an analysis tool (ruff, pylint, bandit) on a throw-away copy of model-written code.

The code is never imported, and nothing from the workspace runs: codeloop's own venv may lie
inside the workspace (a project working on itself), and `python -I` still runs that venv's
`.pth` files and `sitecustomize`. So ruff runs as its binary (`--isolated`: no config file is
read), and the Python tools as `python -S -I -B -c <bootstrap>`: no `site` (no .pth, no
sitecustomize), no PYTHONPATH or user site, and only the library directories set explicitly
by the bootstrap. pylint itself then puts the linted file's directory first on `sys.path`
(and, for an `__init__.py`, that directory's parent: the system temp directory) and goes on
importing stdlib modules, so the copy is staged under a name no import can ask for
(`calendar.py` becomes `calendar_<random>.py`) and never as a package's `__init__.py`.
The working directory is the private temp directory; HOME points into it so no user or planted
config (a pylintrc `init-hook` runs code) is picked up.
"""

from __future__ import annotations

import importlib.util
import json
import os
import re
import secrets
import subprocess
import sys
import tempfile
from collections.abc import Container, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

DEFAULT_TIMEOUT_S = 60.0
# Run a module as `python -m` would, with sys.path extended by the JSON list in argv[1]:
# with -S the library directories are not known, and nothing else should be on the path.
_BOOTSTRAP = ("import json, runpy, sys; sys.path.extend(json.loads(sys.argv[1])); "
              "module = sys.argv[2]; sys.argv = [module, *sys.argv[3:]]; "
              "runpy.run_module(module, run_name='__main__', alter_sys=True)")


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
    """A plain `<identifier>_<random>.py` name built from `filename`'s last component: it
    reads like the file in findings, and no module any tool imports can have it."""
    stem = Path(filename.replace("\\", "/")).name.removesuffix(".py")
    stem = re.sub(r"\W", "_", stem).strip("_") or "solution"
    if stem[0].isdigit():
        stem = f"m_{stem}"
    return f"{stem}_{secrets.token_hex(6)}.py"


def tool_command(module: str, args: list[str]) -> list[str]:
    """The command that runs `module` (ruff, pylint, bandit) without running anything from
    the workspace or the environment's startup hooks."""
    if module == "ruff":
        from ruff import find_ruff_bin  # only locates the binary

        try:
            return [os.fspath(find_ruff_bin()), *args]
        except FileNotFoundError as exc:
            raise ToolRunError(f"ruff could not start: {exc}") from exc
    return [sys.executable, "-S", "-I", "-B", "-c", _BOOTSTRAP,
            json.dumps(library_paths(module)), module, *args]


def library_paths(module: str) -> list[str]:
    """The directories the tool's imports need: this interpreter's site-packages directories
    and the one holding `module`; never other entries (.pth files can add a project's own
    source directory, from which the tool could import model-written code)."""
    paths = [p for p in sys.path if p and os.path.basename(p) in ("site-packages",
                                                                  "dist-packages")]
    spec = importlib.util.find_spec(module)
    if spec is not None and spec.origin:
        paths.append(os.path.dirname(os.path.dirname(spec.origin)))
    return list(dict.fromkeys(paths))


def run_tool(module: str, args: list[str], staged: StagedFile,
             timeout_s: float = DEFAULT_TIMEOUT_S) -> ToolRun:
    """Run the tool `module` with `args` in the staged directory (see tool_command); raise
    ToolRunError when it cannot start or exceeds `timeout_s`."""
    command = tool_command(module, args)
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


def run_json_tool(module: str, args: list[str], staged: StagedFile,
                  timeout_s: float = DEFAULT_TIMEOUT_S, *,
                  ok_exits: Container[int] = (0,)) -> Any:
    """Run a tool that reports in JSON on stdout: its report, or ToolRunError when it exits
    with a code not in `ok_exits` or prints something that is not JSON."""
    run = run_tool(module, args, staged, timeout_s)
    if run.returncode not in ok_exits:
        raise ToolRunError(f"{module} failed (exit {run.returncode}): {last_line(run.stderr)}")
    try:
        return json.loads(run.stdout)
    except json.JSONDecodeError as exc:
        raise ToolRunError(f"{module} gave unreadable output: "
                           f"{last_line(run.stderr or run.stdout)}") from exc


def last_line(text: str) -> str:
    """The last non-blank line of a tool's stderr, for a short failure message."""
    lines = [line for line in text.strip().splitlines() if line.strip()]
    return lines[-1][:300] if lines else "no output"
