"""Finding files and text in the workspace."""

from __future__ import annotations

import fnmatch

from codeloop.tools.base import ToolError, tool
from codeloop.tools.regex_search import compile_search_pattern
from codeloop.tools.workspace import Workspace

MAX_LISTED = 200
MAX_MATCHES = 50
MAX_COUNTED_MATCHES = 1_000  # past this the count says "more than"; the search stops
MAX_LINE_CHARS = 200
MAX_SEARCH_BYTES = 1_000_000  # larger files are skipped: generated or data, not code
MAX_TOTAL_SEARCH_BYTES = 32_000_000  # one search reads at most this much in all
MAX_GLOB_CHARS = 200


@tool
def list_files(ws: Workspace, path: str = ".", pattern: str = "*") -> str:
    """List the files under a directory (recursively), optionally only names matching a glob.

    Args:
        path: directory relative to the workspace ("." for the whole workspace)
        pattern: glob on the file name or relative path, such as "*.py" or "tests/*"
    """
    _check_glob(pattern)
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


def _check_glob(pattern: str) -> None:
    if len(pattern) > MAX_GLOB_CHARS:
        raise ToolError(f"the file pattern is {len(pattern)} characters long; the limit is "
                        f"{MAX_GLOB_CHARS}")


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
    _check_glob(file_pattern)
    regex = compile_search_pattern(pattern, case_sensitive)  # RE2: linear time, no hang
    results: list[str] = []
    total = searched = 0
    stopped = ""
    for relpath in ws.walk_files("."):
        if not _glob(relpath, file_pattern):
            continue
        text = ws.read_text_for_search(relpath, MAX_SEARCH_BYTES)
        if text is None:
            continue
        searched += len(text)
        if searched > MAX_TOTAL_SEARCH_BYTES:
            stopped = (f"\n... stopped after searching {MAX_TOTAL_SEARCH_BYTES // 1_000_000} MB;"
                       " narrow file_pattern")
            break
        for number, line in enumerate(text.splitlines(), start=1):
            if regex.search(line):
                total += 1
                if len(results) < MAX_MATCHES:
                    results.append(f"{relpath}:{number}: {line.strip()[:MAX_LINE_CHARS]}")
                if total >= MAX_COUNTED_MATCHES:
                    stopped = (f"\n... stopped at {MAX_COUNTED_MATCHES} matches; narrow the "
                               "pattern")
                    break
        if total >= MAX_COUNTED_MATCHES:
            break
    if not results:
        return f"No matches for {pattern!r} in files matching {file_pattern!r}.{stopped}"
    text = "\n".join(results)
    if total > len(results) and not stopped:
        text += f"\n... capped: showing {len(results)} of {total} matches; narrow the pattern"
    elif stopped:
        text += f"\n... showing {len(results)} of {total}+ matches" + stopped
    return text
