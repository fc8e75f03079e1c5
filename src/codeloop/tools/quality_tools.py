"""Linting a workspace file with the quality toolkit (ruff + pylint score)."""

from __future__ import annotations

from codeloop.tools.base import ToolError, tool
from codeloop.tools.workspace import Workspace

# The last line of a clean report; the agent loop's progress notes look for it.
LINT_CLEAN_LINE = "Nothing to fix."
LINT_FIX_LINE = "Fix the errors and warnings above."


@tool
def lint_file(ws: Workspace, path: str) -> str:
    """Lint a Python file: its pylint score out of 10 and the errors, warnings and info
    findings with line numbers. Fix the errors and warnings it reports.

    Args:
        path: Python file path relative to the workspace
    """
    from codeloop.quality.lint import lint_code  # pylint/ruff wrappers load on first use

    if not path.endswith(".py"):
        raise ToolError(f"lint_file checks Python files only; {ws.rel(path)} is not a .py file")
    # Lint the text read through the path guard, never a path the guard did not check.
    report = lint_code(ws.read_text(path), ws.rel(path))
    verdict = LINT_CLEAN_LINE if report.clean else LINT_FIX_LINE
    return f"{ws.rel(path)}\n{report.format()}\n{verdict}"
