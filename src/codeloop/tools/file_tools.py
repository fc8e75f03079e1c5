"""Reading, writing and editing workspace files (all through the workspace's path guard)."""

from __future__ import annotations

from codeloop.quality.syntax import find_syntax_error
from codeloop.tools.base import ToolError, tool
from codeloop.tools.matcher import apply_edit, format_candidates, without_line_numbers
from codeloop.tools.workspace import Workspace

MAX_READ_LINES = 400
MAX_READ_CHARS = 24_000


def _number(lines: list[str], first: int) -> str:
    return "\n".join(f"{n:>5}| {line}" for n, line in enumerate(lines, start=first))


def _check_range(start_line: int | None, end_line: int | None, total: int) -> tuple[int, int]:
    start = 1 if start_line is None else start_line
    end = total if end_line is None else end_line
    if start < 1:
        raise ToolError(f"start_line must be 1 or more (got {start})")
    if total and start > total:
        raise ToolError(f"start_line {start} is past the end of the file ({total} lines)")
    if end < start:
        raise ToolError(f"end_line ({end}) is before start_line ({start})")
    return start, min(end, total)


@tool
def read_file(ws: Workspace, path: str, start_line: int | None = None,
              end_line: int | None = None) -> str:
    """Read a text file and show its lines with line numbers.

    Args:
        path: file path relative to the workspace
        start_line: first line to show (1-based); null for the start of the file
        end_line: last line to show; null for the end of the file
    """
    text = ws.read_text(path)
    lines = text.splitlines()
    if not lines:
        return f"{ws.rel(path)} is empty."
    start, end = _check_range(start_line, end_line, len(lines))
    shown = lines[start - 1:end]
    if len(shown) > MAX_READ_LINES:
        shown = shown[:MAX_READ_LINES]
    body = _number(shown, start)
    if len(body) > MAX_READ_CHARS:
        body = body[:MAX_READ_CHARS].rsplit("\n", 1)[0]
        shown = body.splitlines()
    last = start + len(shown) - 1
    header = f"{ws.rel(path)} (lines {start}-{last} of {len(lines)})"
    if last < end:
        header += f"; output capped, read from start_line={last + 1} for more"
    return header + "\n" + body


def _python_note(ws: Workspace, path: str, content: str) -> str:
    if not path.endswith(".py"):
        return ""
    problem = find_syntax_error(content, ws.rel(path))
    if problem is None:
        return ""
    return f"\nWARNING: the file does not compile: {problem.describe()}. Fix it."


def _refuse_no_change(ws: Workspace, path: str, new_text: str) -> None:
    # A write that changes nothing is not a change: reported as such, it does not count as
    # one for the turn's progress (a small model rewrote a finished file in a loop).
    try:
        old_text = ws.read_text(path) if ws.is_file(path) else None
    except ToolError:  # not text: whatever new_text is, writing it changes the file
        return
    if old_text is not None and old_text.replace("\r\n", "\n") == new_text:
        raise ToolError(f"Nothing changed: {ws.rel(path)} already holds exactly this text.")


def _refuse_path_list(ws: Workspace, path: str) -> None:
    # A new file named like "main.py,shop.py,test_shop.py" is a list of existing files, not
    # a name: the 1.5B, told to rename across files, wrote one such file holding grep's output.
    parts = [part.strip() for part in path.split(",")]
    existing = [part for part in parts if part and ws.is_file(part)]
    if len(parts) > 1 and existing and not ws.is_file(path):
        raise ToolError(f"Not done: {path[:120]!r} is a list of paths ({', '.join(existing[:5])} "
                        "exist), not one file. write_file changes one file per call: call it "
                        "once for each file.")


@tool(mutates_files=True, text_args=("content",))
def write_file(ws: Workspace, path: str, content: str, start_line: int | None = None,
               end_line: int | None = None) -> str:
    """Create or overwrite a file with content; or, in an existing file, insert content
    before start_line, or replace the lines start_line..end_line with it. Parent
    directories are created.

    Args:
        path: file path relative to the workspace
        content: the new text (the whole file, or the lines to insert or put in the range)
        start_line: where the content goes (1-based); null to write the whole file
        end_line: last line to replace; null to replace nothing (insert before start_line)
    """
    if start_line is None and end_line is not None:
        raise ToolError("end_line needs start_line too (or leave both null to write the file)")
    _refuse_path_list(ws, path)
    # Small models often give start_line=1 when creating a file: for a new file, lines
    # 1..n are the whole file, so write it rather than fail.
    if start_line == 1 and not ws.is_file(path):
        start_line = end_line = None
    if start_line is None:
        if content and not content.endswith("\n"):
            content += "\n"
        _refuse_no_change(ws, path, content)
        created = ws.write_text(path, content)
        count = len(content.splitlines())
        verb = "Created" if created else "Overwrote"
        return f"{verb} {ws.rel(path)} ({count} lines).{_python_note(ws, path, content)}"
    if not ws.is_file(path):
        raise ToolError(f"{ws.rel(path)} does not exist; to create it, call write_file "
                        "with start_line and end_line null")
    old_lines = ws.read_text(path).splitlines(keepends=True)
    if old_lines and not old_lines[-1].endswith("\n"):
        old_lines[-1] += "\n"
    new_part = content if content.endswith("\n") or not content else content + "\n"
    added = len(new_part.splitlines())
    # Why insert when end_line is null: a small model that gives only start_line means
    # "put this here" (measured: it replaced line 1, a def, and orphaned the body below).
    if end_line is None:
        if not 1 <= start_line <= len(old_lines) + 1:
            raise ToolError(f"start_line {start_line} is outside the file: insert at 1.."
                            f"{len(old_lines) + 1} ({len(old_lines)} lines)")
        new_text = "".join(old_lines[:start_line - 1]) + new_part + "".join(
            old_lines[start_line - 1:])
        done = f"Inserted {added} line(s) before line {start_line} of {ws.rel(path)}"
    else:
        start, end = _check_range(start_line, end_line, max(len(old_lines), 1))
        new_text = "".join(old_lines[:start - 1]) + new_part + "".join(old_lines[end:])
        done = f"Replaced lines {start}-{end} of {ws.rel(path)} with {added} line(s)"
    _refuse_no_change(ws, path, new_text)
    ws.write_text(path, new_text)
    return (f"{done}; the file now has {len(new_text.splitlines())} lines."
            f"{_python_note(ws, path, new_text)}")


@tool(mutates_files=True, text_args=("old_text", "new_text"))
def edit_file(ws: Workspace, path: str, old_text: str, new_text: str) -> str:
    """Replace old_text with new_text in a file. old_text must match one place in the file
    (copy it from read_file's output, without the line numbers).

    Args:
        path: file path relative to the workspace
        old_text: the exact lines to replace
        new_text: the lines to put in their place
    """
    if not ws.is_file(path):
        raise ToolError(f"{ws.rel(path)} does not exist; use write_file to create it")
    content = ws.read_text(path)
    crlf = "\r\n" in content
    if crlf:  # match on \n text, write back the file's own line endings
        content = content.replace("\r\n", "\n")
        old_text, new_text = old_text.replace("\r\n", "\n"), new_text.replace("\r\n", "\n")
    unnumbered = without_line_numbers(old_text) if old_text not in content else None
    if unnumbered is not None:  # copied with read_file's line numbers: drop them
        old_text = unnumbered
        new_text = without_line_numbers(new_text) or new_text
    result = apply_edit(content, old_text, new_text)
    if not result.ok:
        message = f"edit_file: no change made to {ws.rel(path)}: {result.problem}."
        if result.candidates or "not found" in result.problem:
            message += "\n" + format_candidates(result.candidates)
        raise ToolError(message)
    new_content = result.new_content or ""
    if new_content == content:
        raise ToolError(f"Nothing changed: old_text and new_text are the same in {ws.rel(path)}.")
    ws.write_text(path, new_content.replace("\n", "\r\n") if crlf else new_content)
    how = "" if result.kind == "exact" else " (matched ignoring whitespace differences)"
    if unnumbered is not None:
        how += " (the line numbers copied from read_file were left out)"
    return (f"Edited {ws.rel(path)}: replaced lines {result.start_line}-{result.end_line}"
            f"{how}.{_python_note(ws, path, new_content)}")
