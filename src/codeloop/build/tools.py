"""The one tool build's edits go through: the agent job's write_file (reused from the kit's
tools/: path guard, host policy, a ToolCall event), where every change is committed on the
task's branch at once. The edit engine writes through it (edit_site.py).

A commit takes exactly the path the tool changed (repo.commit_paths), so the model's own
.gitignore cannot make git pick up anything else.
"""

from __future__ import annotations

import dataclasses
from typing import Any

from codeloop.build.repo import commit_paths
from codeloop.events import EventBus
from codeloop.tools import write_file
from codeloop.tools.base import Tool
from codeloop.tools.toolbox import Toolbox
from codeloop.tools.workspace import Workspace


def committing(tool: Tool, label: str) -> Tool:
    """`tool` (a file-changing one) that commits the changed path after it succeeds."""
    def run(ws: Workspace, **args: Any) -> str:
        out = tool.func(ws, **args)
        path = ws.rel(str(args.get("path", "")))
        commit_paths(ws.root, [path], f"{label}: {tool.name} {path}")
        return out

    return dataclasses.replace(tool, func=run)


def task_toolbox(workspace: Workspace, label: str, bus: EventBus | None,
                 stage: str) -> Toolbox:
    """write_file, committing each write with `label`."""
    return Toolbox(workspace, [committing(write_file, label)], bus=bus, stage=stage)
