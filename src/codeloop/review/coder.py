"""coder (implementation only): writes the requested files as artifacts held in state, never
on disk. Files the request names (that exist) are shown whole: context first."""

from __future__ import annotations

from codeloop.jobs.artifacts import language_of
from codeloop.jobs.edits import whole_files
from codeloop.jobs.stage import StageOutput
from codeloop.jobs.usage import UsageRecord
from codeloop.llm.base import Message
from codeloop.review.context import ReviewContext, prompt, workspace_guard
from codeloop.review.debug import DebugTrail
from codeloop.review.state import Artifact, ReviewState
from codeloop.sandbox.pathguard import PathGuard, PathRefused

MAX_SHOWN_FILES = 3
MAX_SHOWN_CHARS = 6000


def named_files(guard: PathGuard, request: str, repo_map: str) -> list[dict]:
    """Existing workspace files the request mentions by path, with their content."""
    shown = []
    for line in repo_map.splitlines():
        path = line.split(":", 1)[0]
        if path and (path in request or path.rsplit("/", 1)[-1] in request.split()):
            try:
                content = guard.read_bytes(path)[:MAX_SHOWN_CHARS].decode("utf-8", "replace")
            except (OSError, PathRefused):
                continue
            shown.append({"path": path, "content": content, "language": language_of(path)})
            if len(shown) == MAX_SHOWN_FILES:
                break
    return shown


def write_code(state: ReviewState, ctx: ReviewContext, usage: UsageRecord,
               trail: DebugTrail) -> StageOutput:
    spec = prompt("coder")
    shown = named_files(workspace_guard(state), state["request"], state["repo_map"])
    messages = spec.messages(request=state["request"], repo_map=state["repo_map"], shown=shown)
    reply = ctx.ask_logged(usage, trail, "coder", spec, messages)
    default = shown[0]["path"] if len(shown) == 1 else None
    files = whole_files(reply.text, default)
    if not files:  # one reflected retry: the format, said again
        retry = [*messages[:-1], Message("user", f"{messages[-1].content}\n\n"
                                                 f"{spec.retry_note.strip()}")]
        files = whole_files(ctx.ask_logged(usage, trail, "coder", spec, retry).text, default)
    if not files:
        error = "The coder wrote no file in the required form (FILE: path + code block)"
        return StageOutput({"workflow_status": "failed", "error_log": [error]}, error, ok=False)
    artifacts = [Artifact(file_path=path, content=content, language=language_of(path))
                 for path, content in files.items()]
    return StageOutput({"artifacts": artifacts},
                       f"{len(artifacts)} file(s): {', '.join(files)}")
