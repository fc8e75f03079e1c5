"""Typed workspace tools for agents. Each tool's schema comes from its signature and
docstring (tools/base.py); `toolset(name)` gives the tools of one agent role."""

from __future__ import annotations

from codeloop.tools.base import Tool, ToolError
from codeloop.tools.file_tools import edit_file, read_file, write_file
from codeloop.tools.git_tools import git_diff, git_status
from codeloop.tools.quality_tools import lint_file
from codeloop.tools.search_tools import grep_search, list_files
from codeloop.tools.shell_tools import run_bash_command
from codeloop.tools.toolbox import Toolbox, ToolOutcome
from codeloop.tools.workspace import Workspace

ALL_TOOLS: tuple[Tool, ...] = (
    read_file, write_file, edit_file, list_files, grep_search, lint_file,
    git_diff, git_status, run_bash_command,
)

# The tools each agent role may use (multi-agent mode gives each its own set).
TOOLSETS: dict[str, tuple[Tool, ...]] = {
    "agent": ALL_TOOLS,
    "planner": (read_file, list_files, grep_search, run_bash_command),
    "implementer": (read_file, write_file, edit_file, list_files, grep_search, lint_file,
                    run_bash_command),
    "validator": (git_diff, git_status, lint_file, read_file),
}


def toolset(role: str) -> list[Tool]:
    if role not in TOOLSETS:
        raise KeyError(f"unknown tool set {role!r}; known: {', '.join(TOOLSETS)}")
    return list(TOOLSETS[role])


__all__ = [
    "ALL_TOOLS", "TOOLSETS", "Tool", "ToolError", "ToolOutcome", "Toolbox", "Workspace",
    "edit_file", "git_diff", "git_status", "grep_search", "lint_file", "list_files",
    "read_file", "run_bash_command", "toolset", "write_file",
]
