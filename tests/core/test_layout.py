"""The package tree keeps names a newcomer cannot confuse (issue 17): one folder per job, no
module name shared by two folders where it would mislead, and no shims of the old names."""

from __future__ import annotations

import importlib.util
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
