"""Finding files and text in the workspace."""

from __future__ import annotations

import fnmatch
import re

from codeloop.tools.base import ToolError, tool
from codeloop.tools.workspace import Workspace

MAX_LISTED = 200
MAX_MATCHES = 50
MAX_LINE_CHARS = 200
MAX_SEARCH_BYTES = 1_000_000  # larger files are skipped: generated or data, not code


@tool
def list_files(ws: Workspace, path: str = ".", pattern: str = "*") -> str:
    """List the files under a directory (recursively), optionally only names matching a glob.

    Args:
        path: directory relative to the workspace ("." for the whole workspace)
        pattern: glob on the file name or relative path, such as "*.py" or "tests/*"
    """
    files = ws.walk_files(path)
    matched = [f for f in files if _glob(f, pattern)]
    if not matched:
        where = ws.rel(path)
        if files:
            return f"No files matching {pattern!r} under {where}."
        return f"{where} has no files yet; create files with write_file."
    shown = matched[:MAX_LISTED]
    text = "\n".join(shown)
    if len(matched) > len(shown):
        text += (f"\n... capped: showing {len(shown)} of {len(matched)} files; "
                 "narrow path or pattern")
    return text


def _glob(relpath: str, pattern: str) -> bool:
    name = relpath.rsplit("/", 1)[-1]
    return fnmatch.fnmatch(name, pattern) or fnmatch.fnmatch(relpath, pattern)


@tool
def grep_search(ws: Workspace, pattern: str, file_pattern: str = "*.py",
                case_sensitive: bool = False) -> str:
    """Search file contents for a regular expression (or plain text) and show each match as
    path:line: text.

    Args:
        pattern: regular expression or plain text to look for
        file_pattern: glob choosing which files to search, such as "*.py" or "*"
        case_sensitive: true to match letter case exactly
    """
    if not pattern:
        raise ToolError("pattern is empty")
    flags = 0 if case_sensitive else re.IGNORECASE
    try:
        regex = re.compile(pattern, flags)
    except re.error:  # a model often passes code like "foo(" : search it literally
        regex = re.compile(re.escape(pattern), flags)
    results: list[str] = []
    total = 0
    for relpath in ws.walk_files("."):
        if not _glob(relpath, file_pattern):
            continue
        text = ws.read_text_for_search(relpath, MAX_SEARCH_BYTES)
        if text is None:
            continue
        for number, line in enumerate(text.splitlines(), start=1):
            if regex.search(line):
                total += 1
                if len(results) < MAX_MATCHES:
                    results.append(f"{relpath}:{number}: {line.strip()[:MAX_LINE_CHARS]}")
    if not results:
        return f"No matches for {pattern!r} in files matching {file_pattern!r}."
    text = "\n".join(results)
    if total > len(results):
        text += f"\n... capped: showing {len(results)} of {total} matches; narrow the pattern"
    return text
