"""pylint runs on the host, and while it lints a file it puts that file's directory first on
`sys.path` (for an `__init__.py`, the directory's parent too: the system temp directory) and
goes on importing stdlib modules. The copy it lints used to be staged under the workspace
file's own name, so a model-written `calendar.py` was imported by the host's pylint and ran
there (an outside audit, 2026-11-27). Each test failed before the fix."""

from __future__ import annotations

import tempfile

import pytest

from codeloop.quality.lint import lint_code
from codeloop.quality.security import scan_code
from codeloop.tools import ALL_TOOLS, Toolbox, Workspace

# Modules pylint or astroid import while linting (seen in the audit), and a package's
# __init__.py, which made pylint put the temp directory itself on sys.path.
SHADOWED = ["calendar", "csv", "difflib", "email", "isort", "zipfile"]


def _payload(marker) -> str:
    return f"import os\nopen({str(marker)!r}, 'w').write(str(os.getpid()))\n"


@pytest.mark.parametrize("name", SHADOWED)
def test_linting_a_file_named_like_a_module_pylint_imports_runs_nothing(tmp_path, name):
    marker = tmp_path / "ran.txt"
    report = lint_code(_payload(marker), f"pkg/{name}.py")
    assert not marker.exists(), f"the host's pylint imported the model's {name}.py"
    assert report.pylint_score is not None and not report.tool_errors, report.tool_errors


def test_the_lint_tool_on_a_workspace_calendar_py_runs_nothing(tmp_path):
    # The audit's path: the agent's own lint_file tool on a file the model wrote.
    ws = tmp_path / "ws"
    ws.mkdir()
    marker = tmp_path / "ran.txt"
    box = Toolbox(Workspace.at(ws), list(ALL_TOOLS))
    assert box.run("write_file", {"path": "lib/calendar.py", "content": _payload(marker)}).ok
    outcome = box.run("lint_file", {"path": "lib/calendar.py"})
    assert not marker.exists(), "lint_file ran the workspace's calendar.py on the host"
    assert "Pylint Score:" in outcome.output and "Tool errors" not in outcome.output


def test_an_init_py_never_puts_the_temp_directory_on_pylints_path(tmp_path, monkeypatch):
    # Anyone who can write to /tmp plants csv.py there; linting a package's __init__.py
    # made pylint put /tmp first on sys.path.
    shared_tmp = tmp_path / "tmp"
    shared_tmp.mkdir()
    marker = tmp_path / "ran.txt"
    for name in SHADOWED:
        (shared_tmp / f"{name}.py").write_text(_payload(marker))
    monkeypatch.setattr(tempfile, "tempdir", str(shared_tmp))
    report = lint_code("x = 1\n", "pkg/__init__.py")
    scan_code("x = 1\n", "pkg/__init__.py")
    assert not marker.exists(), "pylint imported a module planted in the temp directory"
    assert report.pylint_score is not None and not report.tool_errors, report.tool_errors
