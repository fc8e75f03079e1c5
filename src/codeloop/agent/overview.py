"""The files of the workspace, told to the single agent with each request.

Why: without it the 1.5B guessed paths in 7 of 24 benchmark runs (`path/to/your/project`,
`workspace/wordcount.py`) and wrote there instead of listing the files first. Sent as a
message of its own kind ("context"), so it is not part of the request that the finish checks
read, nor of the history shown to the user, and earlier turns' listings are not resent.
"""

from __future__ import annotations

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
        return "The workspace has no files yet."
    shown = ", ".join(files[:limit])
    more = (f", and {len(files) - limit} more (list_files shows them)"
            if len(files) > limit else "")
    return f"Files in the workspace ({len(files)}): {shown}{more}."
