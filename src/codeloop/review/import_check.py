"""Does every changed Python module compile and import? A review never approves code that
does not (measured: a held-out run approved a rewrite importing `passlib`, which is not
installed, because the workspace had no test that imports the module).

Compiling is checked on the host (ast, no execution: checks.syntax_error). Importing runs
the module's top-level code, so it runs in the sandbox, on a throw-away copy of the
workspace with the artifacts laid over it, one process per module: the verdict is that
process's exit status, never text the module could print."""

from __future__ import annotations

import sys
from pathlib import Path

from codeloop.review.state import Artifact

MAX_MODULES = 8
_IMPORT = ("import importlib, sys; sys.path.insert(0, '.'); "
           "importlib.import_module(sys.argv[1])")


def module_name(path: str) -> str | None:
    """The dotted module a workspace-relative .py path is imported as; None when it cannot
    be (a name that is no identifier: a script, not a module)."""
    if not path.endswith(".py"):
        return None
    parts = path[:-3].split("/")
    if parts[-1] == "__init__":
        parts = parts[:-1]
    if not parts or not all(p.isidentifier() for p in parts):
        return None
    return ".".join(parts)


def import_problems(workspace: str, artifacts: list[Artifact], paths: list[str], *,
                    timeout: float, unsafe_no_sandbox: bool = False) -> list[str]:
    """One line per module of `paths` that does not import with the artifacts in place."""
    from codeloop.sandbox.runner import run_command

    files = {a["file_path"]: a["content"] for a in artifacts}
    problems = []
    for path in [p for p in paths if module_name(p)][:MAX_MODULES]:
        result = run_command([sys.executable, "-c", _IMPORT, str(module_name(path))],
                             workspace=Path(workspace), mode="cow", files=files,
                             timeout=timeout, unsafe_no_sandbox=unsafe_no_sandbox,
                             env={"PYTHONDONTWRITEBYTECODE": "1"})
        if result.ok:
            continue
        lines = [line for line in result.stderr.strip().splitlines() if line.strip()]
        why = lines[-1][:300] if lines else f"exit {result.exit_code}"
        if result.limit_hit:
            why = f"importing it hit the {result.limit_hit} limit"
        problems.append(f"{path} does not import: {why}")
    return problems
