"""A different framing after an echo (the model sent a file back unchanged).

Measured on held-out single-file repairs (1.5B): in every failed case the first attempt sent
the function back unchanged and the next two sent the whole file back unchanged again; the
same prompt gets the same answer. So after an echo the next prompt points at the failure
itself: the failing assertion worked through (what was called, what came back, what was
expected) and the suspicious lines (the lines of the files to edit that the failure names,
numbered), and asks for those lines changed. A second echo gets the same framing sampled at
a temperature (the caller's part).
"""

from __future__ import annotations

import ast
import re

from codeloop.jobs.edit_engine.missing_field import missing_field_reading
from codeloop.jobs.edit_engine.operand_types import operand_reading

MAX_LINES = 6
LINES_NOTE = "The lines the failure points at:"
_ASSERT = re.compile(r"^E\s+(?:AssertionError: )?assert (.+?) == (.+?)\s*$", re.MULTILINE)
_SOURCE = re.compile(r"^>\s+assert (.+?) == (.+?)\s*$", re.MULTILINE)  # the test's own line
_WHERE = re.compile(r"^E\s+\+\s+where (.+?) = (.+?)\s*$", re.MULTILINE)
_E_LINE = re.compile(r"^E\s+(\S.*)$", re.MULTILINE)
# path:line (pytest's short traceback), "path line N" (review findings), File "path", line N
_REFS = (re.compile(r"([\w./-]+\.py):(\d+)\b"),
         re.compile(r"([\w./-]+\.py)(?:,| at)? line (\d+)\b"),
         re.compile(r'File "([^"]+\.py)", line (\d+)'))
_CALL = re.compile(r"\b([A-Za-z_][\w.]*)\(")


def worked_through(output: str) -> str:
    """The first failing assertion said in words: `f(3)` gave 3.0, the test expects 2."""
    match = _ASSERT.search(output)
    if match is None:
        errors = [m.group(1) for m in _E_LINE.finditer(output)][:3]
        return ("The check fails with: " + " / ".join(errors)) if errors else ""
    got, expected = match.group(1), match.group(2)
    where = _WHERE.search(output, match.end())
    source = _SOURCE.search(output)
    call = where.group(2) if where is not None and where.group(1) == got else \
        source.group(1) if source is not None and "(" in source.group(1) else None
    if call is not None:
        return (f"The failing assertion, worked through: {call} returns {got}, but "
                f"the test expects {expected}. The code must be changed so that "
                f"{call} gives {expected}.")
    return (f"The failing assertion, worked through: the code gives {got}, but the test "
            f"expects {expected}.")


def suspicious_lines(output: str, files: dict[str, str], paths: list[str]) -> list[str]:
    """`path line N: text` for the lines of `paths` (files to edit, their text in `files`)
    that the failure output names; else the lines that call what the failure names."""
    out = []
    for path, number in pointed_lines(output, paths):
        lines = files.get(path, "").splitlines()
        if 1 <= number <= len(lines) and lines[number - 1].strip():
            out.append(f"{path} line {number}: {lines[number - 1].strip()}")
    if out:
        return out[:MAX_LINES]
    names = called_names(output)
    for path in paths:
        for number, line in enumerate(files.get(path, "").splitlines(), 1):
            text = line.strip()
            if text.startswith(("def ", "class ", "#")) or not text:
                continue
            if any(re.search(rf"\b{re.escape(name)}\b", text) for name in names):
                out.append(f"{path} line {number}: {text}")
    if not out:  # the body of the function the failure calls, where the bug must be
        for path in paths:
            out += _bodies(path, files.get(path, ""), names)
    return out[:MAX_LINES]


def pointed_lines(output: str, paths: list[str]) -> list[tuple[str, int]]:
    """(path, line number) of each line of `paths` the failure output names, in order."""
    found: list[tuple[str, int]] = []
    for pattern in _REFS:
        for match in pattern.finditer(output):
            path = path_among(match.group(1), paths)
            if path is not None and (path, int(match.group(2))) not in found:
                found.append((path, int(match.group(2))))
    return found


def called_names(output: str) -> set[str]:
    """The names the failure output calls (`slugify(...)`, `self.store.add(...)`: `add`)."""
    return {n.rsplit(".", 1)[-1] for n in _CALL.findall(output)} - {"assert", "print"}


def _bodies(path: str, source: str, names: set[str]) -> list[str]:
    """`path line N: text` for the code lines (no docstring) of the functions `names`."""
    try:
        tree = ast.parse(source)
    except (SyntaxError, ValueError, RecursionError):
        return []
    lines = source.splitlines()
    out = []
    for node in ast.walk(tree):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and node.name in names:
            body = node.body[1:] if ast.get_docstring(node) is not None else node.body
            for stmt in body:
                for number in range(stmt.lineno, (stmt.end_lineno or stmt.lineno) + 1):
                    if lines[number - 1].strip():
                        out.append(f"{path} line {number}: {lines[number - 1].strip()}")
    return out


def path_among(name: str, paths: list[str]) -> str | None:
    """The one of `paths` a traceback's file name means (relative, ./, /workspace/)."""
    name = name.removeprefix("./").removeprefix("/workspace/")
    if name in paths:
        return name
    ends = [p for p in paths if p.endswith("/" + name) or name.endswith("/" + p)]
    return ends[0] if len(ends) == 1 else None


def echo_focus(output: str, files: dict[str, str], paths: list[str], echoed: list[str],
               tests_only: list[str] | None = None) -> list[str]:
    """The notes for the prompt after an echo of `echoed` (or a reply that only rewrote the
    tests in `tests_only`): the assertion worked through and the suspicious lines, then
    what to do with them."""
    if echoed:
        notes = [(f"You sent {', '.join(echoed)} back unchanged, and unchanged it fails as "
                  "shown. Do not send it back as it is.")]
    else:
        notes = [(f"You rewrote only {', '.join(tests_only or [])}: the tests are the "
                  f"specification and stay as they are. Change {', '.join(paths)} instead.")]
    said = missing_field_reading(output) or operand_reading(output) \
        or worked_through(output)
    if said:
        notes.append(said)
    lines = suspicious_lines(output, files, paths)
    if lines:
        notes.append(LINES_NOTE + "\n" + "\n".join(lines)
                     + "\nChange these lines (or the code they call) so the failure goes away.")
    return notes
