"""What model-written files may never become on the host: one policy for the file tools
(through the path guard), the sandbox's copy-back, review's targets and build's commits and
merges.

A workspace holds files a model wrote. Some names make the host act on their content without
anyone running them: git reads `.git/` (hooks, config, filters) at any depth; Python loads
native extension modules, bytecode, `.pth` files and `sitecustomize`/`usercustomize` (module
or package) by itself (implicit_code.py judges those by the import system's rules); a virtual
environment (a directory holding `pyvenv.cfg`) is full of all of these; and codeloop reads its
own config file. None of them is written by a tool or copied back out of the sandbox; each
refusal says why, so it can be reported.
"""

from __future__ import annotations

import os
import stat

from codeloop.sandbox.implicit_code import implicit_code_refusal

GIT_DIR = ".git"
CONFIG_NAMES = frozenset({"codeloop.toml"})
VENV_MARKER = "pyvenv.cfg"


def name_refusal(parts: tuple[str, ...] | list[str]) -> str | None:
    """Why a workspace path (its components, relative to the root) may not be written by
    model-controlled code, or None when it may. Judged on the names alone."""
    for i, part in enumerate(parts):
        lower = part.lower()
        last = i == len(parts) - 1
        if lower == GIT_DIR:
            return "git metadata (.git) is never written from model-controlled code"
        why = implicit_code_refusal(part)
        if why:
            return why
        if not last:
            continue
        if lower == VENV_MARKER:
            return "a virtual environment's pyvenv.cfg is never written"
        if lower in CONFIG_NAMES:
            return f"{part} is codeloop's own config file and is never written by the model"
    return None


def venv_refusal(root: str | os.PathLike, parts: tuple[str, ...] | list[str]) -> str | None:
    """Why a path lies inside a virtual environment (the workspace root or a directory on the
    way holding `pyvenv.cfg`), or None."""
    root = os.fspath(root)
    current = root
    for part in ("", *parts[:-1]):
        if part:
            current = os.path.join(current, part)
        try:
            st = os.lstat(os.path.join(current, VENV_MARKER))
        except OSError:
            continue
        if stat.S_ISREG(st.st_mode) or stat.S_ISLNK(st.st_mode):
            where = os.path.relpath(current, root)
            return (f"{where if where != '.' else 'the workspace'} is a virtual environment "
                    "(it holds pyvenv.cfg); nothing inside one is written by the model")
    return None


def refusal(root: str | os.PathLike, parts: tuple[str, ...] | list[str]) -> str | None:
    """name_refusal, then venv_refusal: the one check the tools and the copy-back use."""
    return name_refusal(parts) or venv_refusal(root, parts)
