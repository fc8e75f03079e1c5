"""The task agent's tools: the agent job's file tools (reused from the kit's tools/, with the
tolerant edit matcher), where every change is committed on the task's branch at once, and
`finish` (done) with a summary; lint_file because the kit loop's progress note asks for it
after a Python file changes; and, where the stack says how, run_bash_command to run the
tests (the loop's progress note tracks that run too).

A commit takes exactly the path the tool changed (repo.commit_paths), so the model's own
.gitignore cannot make git pick up anything else.
"""

from __future__ import annotations

import dataclasses
from typing import Any

from codeloop.build.repo import commit_paths
from codeloop.events import EventBus
from codeloop.tools import (
    edit_file,
    grep_search,
    lint_file,
    list_files,
    read_file,
    run_bash_command,
    write_file,
)
from codeloop.tools.base import Tool
from codeloop.tools.toolbox import Toolbox
from codeloop.tools.workspace import Workspace

DONE_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {"summary": {"type": "string", "maxLength": 600}},
    "required": ["summary"],
    "additionalProperties": False,
}


def committing(tool: Tool, label: str) -> Tool:
    """`tool` (a file-changing one) that commits the changed path after it succeeds."""
    def run(ws: Workspace, **args: Any) -> str:
        out = tool.func(ws, **args)
        path = ws.rel(str(args.get("path", "")))
        commit_paths(ws.root, [path], f"{label}: {tool.name} {path}")
        return out

    return dataclasses.replace(tool, func=run)


def task_toolbox(workspace: Workspace, label: str, bus: EventBus | None, stage: str, *,
                 shell: bool = False) -> Toolbox:
    """The tools; `shell`: run_bash_command too, sandboxed on a throw-away copy of the
    worktree (mode "cow": what a command writes never lands in the branch)."""
    tools = [read_file, committing(write_file, label), committing(edit_file, label),
             list_files, grep_search, lint_file]
    if shell:
        tools.append(run_bash_command)
        workspace = workspace.with_shell_mode("cow")
    return Toolbox(workspace, tools, bus=bus, stage=stage)
