"""The files of the workspace, told to the single agent with each request.

Why: without it the 1.5B guessed paths in 7 of 24 benchmark runs (`path/to/your/project`,
`workspace/wordcount.py`) and wrote there instead of listing the files first. Sent as a
message of its own kind ("context"), so it is not part of the request that the finish checks
read, nor of the history shown to the user, and earlier turns' listings are not resent.
"""

from __future__ import annotations

from codeloop.agent.prompts import context_text
from codeloop.tools.base import ToolError
from codeloop.tools.workspace import Workspace

MAX_OVERVIEW_FILES = 40


def workspace_overview(workspace: Workspace, limit: int = MAX_OVERVIEW_FILES) -> str:
    """One line naming the workspace's files (paths as the tools take them), capped."""
    try:
        files = workspace.walk_files(".")
    except ToolError:
        return ""
    if not files:
        return context_text("workspace_empty")
    return context_text("workspace_files", count=len(files), shown=", ".join(files[:limit]),
                     more=max(len(files) - limit, 0))
