"""What a review's request points at: the workspace files it names (the files that hold the
problem, which the security gate scans and the refiner may change whatever the model
proposed), and whether a new file has a reason to exist.

A new file needs a reason in the request (measured on held-out requests: a refiner created
`relative/path.py`, the prompt's example path, and left the real problem): the request names
it, or, for a request that names no file at all, the coder makes what it asks for. A path
shaped like a placeholder (relative/path.py, path/to/..., your_module.py) never has one."""

from __future__ import annotations

import re

from codeloop.jobs.request_files import named_files
from codeloop.review.repomap import build_repo_map
from codeloop.review.state import ReviewState
from codeloop.sandbox.pathguard import PathGuard, PathRefused

MAX_TARGET_BYTES = 200_000
_PLACEHOLDER = re.compile(
    r"(^|/)(relative|path/to|your[_-]?\w*|some[_-]?\w*|example|filename|file_?name|"
    r"module_?name|my[_-]?module|foo|bar)(/|\.|$)", re.IGNORECASE)


def workspace_python_files(guard: PathGuard) -> list[str]:
    return build_repo_map(guard).python_files


def request_targets(state: ReviewState, guard: PathGuard) -> dict[str, str]:
    """{path: text} of the existing workspace files the request names (read through the
    guard; one that cannot be read is left out)."""
    if not state["request"]:
        return {}
    existing, _ = named_files(state["request"], workspace_python_files(guard))
    out: dict[str, str] = {}
    for path in existing:
        try:
            out[path] = guard.read_bytes(path)[:MAX_TARGET_BYTES].decode("utf-8")
        except (OSError, PathRefused, UnicodeDecodeError):
            continue
    return out


def requested_new_files(request: str, files: list[str]) -> list[str]:
    """The files the request names that do not exist yet (files to create)."""
    _, new = named_files(request, files)
    return [n for n in new if "." in n.rsplit("/", 1)[-1]]


def no_reason_to_create(path: str, state: ReviewState, files: list[str]) -> str | None:
    """Why `path` (a file that does not exist) must not be created; None when the request
    gives a reason for it."""
    request = state["request"]
    if path in requested_new_files(request, files):
        return None
    if _PLACEHOLDER.search(path):
        return (f"{path} looks like a placeholder path, not a file of this project: put the "
                "change in the file it belongs to")
    existing, new = named_files(request, files) if request else ([], [])
    if state["workflow_type"] == "implementation" and not existing and not new:
        return None  # the request names no file: the coder decides where the code goes
    shown = ", ".join(state["files"] or existing or new) or "the files under review"
    return (f"the request gave no reason to create {path}: change {shown} instead")
