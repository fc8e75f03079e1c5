"""The project's venv is the `python` of sandboxed commands (sandbox/project_venv.py): bound
read-only in place, not staged, and without one the interpreter that runs codeloop (with
pytest, a run-time dependency) answers `python -m pytest`."""

from __future__ import annotations

import subprocess
import sys

from codeloop.sandbox import run_command
from codeloop.sandbox.project_venv import find_project_venv

WHO = "command -v python; python -c 'import sys; print(sys.prefix)'"


def _venv(root, name=".venv"):
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(root / name)],
                   check=True, capture_output=True)
    return root / name


def test_without_a_project_venv_python_has_pytest(tmp_path):
    result = run_command(["bash", "-c", "python -m pytest --version"], workspace=tmp_path,
                         mode="cow", timeout=60)
    assert result.exit_code == 0, result.stderr
    assert "pytest" in (result.stdout + result.stderr)


def test_the_workspace_venv_is_the_python_read_only_and_not_copied(tmp_path):
    venv = _venv(tmp_path)
    (venv / "marker.txt").write_text("user's venv\n")
    before = sorted(p.relative_to(venv) for p in venv.rglob("*"))
    script = (WHO + "; echo \"$VIRTUAL_ENV\"; echo x > .venv/new.txt; "
              "echo y > .venv/marker.txt; echo ok > out.txt")
    result = run_command(["bash", "-c", script], workspace=tmp_path, mode="rw", timeout=60)
    lines = result.stdout.splitlines()
    assert lines[:3] == ["/workspace/.venv/bin/python", "/workspace/.venv", "/workspace/.venv"]
    assert "Read-only file system" in result.stderr
    assert (tmp_path / "out.txt").read_text() == "ok\n"  # the rest of the workspace is rw
    assert (venv / "marker.txt").read_text() == "user's venv\n"
    assert not (venv / "new.txt").exists()
    assert sorted(p.relative_to(venv) for p in venv.rglob("*")) == before


def test_only_a_real_venv_directory_counts(tmp_path):
    assert find_project_venv(tmp_path) is None
    (tmp_path / "venv").mkdir()
    assert find_project_venv(tmp_path) is None  # no pyvenv.cfg
    (tmp_path / "venv" / "pyvenv.cfg").write_text("home = /usr/bin\n")
    (tmp_path / "venv" / "bin").mkdir()
    assert find_project_venv(tmp_path) == "venv"
    other = tmp_path / "elsewhere"
    other.mkdir()
    (other / "pyvenv.cfg").write_text("home = /usr/bin\n")
    (other / "bin").mkdir()
    (tmp_path / ".venv").symlink_to(other)  # a link is never taken for the venv
    assert find_project_venv(tmp_path) == "venv"
