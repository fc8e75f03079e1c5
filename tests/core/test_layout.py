"""The package tree keeps names a newcomer cannot confuse (issue 17): one folder per job, no
module name shared by two folders where it would mislead, and no shims of the old names."""

from __future__ import annotations

import ast
import importlib.util
import re
from pathlib import Path

import codeloop

SRC = Path(codeloop.__file__).resolve().parent


def test_old_names_are_gone_and_no_shim_imports():
    for old in ("codeloop.pipeline", "codeloop.sandbox.workspace", "codeloop.solve.review"):
        assert importlib.util.find_spec(old) is None, f"{old} still imports"


def test_one_workspace_module_and_solve_has_no_review_module():
    assert [p.relative_to(SRC).as_posix() for p in SRC.rglob("workspace.py")] == [
        "tools/workspace.py"]
    assert (SRC / "solve" / "verify.py").is_file()
    assert not (SRC / "solve" / "review.py").exists()


# The jobs (and the CLI that runs them): the kit under jobs/ may name none of them (principle 12).
_JOB_MODULE = re.compile(r"codeloop\.(agent|solve|bench|commands)(\..+)?")


def _named_modules(path: Path) -> list[str]:
    """Every module `path` imports (relative imports resolved), and every string in it that
    is a module name (importlib.import_module, prompt_file's package)."""
    package = ".".join(("codeloop", *path.relative_to(SRC).parent.parts))
    names = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"), str(path))):
        if isinstance(node, ast.Import):
            names += [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                base = importlib.util.resolve_name("." * node.level + base, package)
            names += [base] + [f"{base}.{alias.name}" for alias in node.names]
        elif isinstance(node, ast.Constant) and isinstance(node.value, str):
            names.append(node.value)
    return names


def test_the_kit_imports_no_job():
    modules = sorted((SRC / "jobs").rglob("*.py"))
    assert {SRC / "jobs" / "agent_run.py", SRC / "jobs" / "react" / "react.py"} <= set(modules)
    offending = {f"{path.relative_to(SRC)}: {name}" for path in modules
                 for name in _named_modules(path) if _JOB_MODULE.fullmatch(name)}
    assert not offending, f"the kit names a job: {sorted(offending)}"
