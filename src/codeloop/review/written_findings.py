"""The security findings on lines a change wrote: the model's own code carries no insecure
pattern bandit rates MEDIUM (HIGH blocks anywhere). A MEDIUM finding on a line the change left
as it was is the workspace's, shown to the reviewer but not blocking: a request about
something else is not failed for it. Test files and the secrets scan's MEDIUM guesses
(`password = "hunter2"` in a test) are left to the reviewer and the person. Measured on the 1.5B (unsafe_yaml): the reviewer approved a change that
re-wrote `yaml.load(text, Loader=yaml.Loader)` inside a new try block."""

from __future__ import annotations

import difflib
from collections.abc import Iterable
from typing import Any

from codeloop.jobs.request_files import is_test_path

BLOCKING_ON_WRITTEN_LINES = ("medium",)


def written_lines(before: str | None, after: str) -> set[int]:
    """1-based numbers of the lines of `after` the change inserted or replaced (a
    re-indented line counts: it was written again); every line of a new file."""
    new = after.splitlines()
    if before is None:
        return set(range(1, len(new) + 1))
    matcher = difflib.SequenceMatcher(None, before.splitlines(), new, autojunk=False)
    out: set[int] = set()
    for tag, _i1, _i2, j1, j2 in matcher.get_opcodes():
        if tag in ("replace", "insert"):
            out.update(range(j1 + 1, j2 + 1))
    return out


def written_line_problems(findings: Iterable[dict[str, Any]], before: str | None,
                          after: str) -> list[str]:
    """A problem line for each MEDIUM finding of one file's `findings` on a line the change
    wrote (bandit's, outside test files)."""
    findings = [f for f in findings if f.get("tool") == "bandit"
                and not is_test_path(f["file_path"])]
    if not findings:
        return []
    lines = written_lines(before, after)
    return [f"MEDIUM security finding on a line this change wrote, {f['file_path']} line "
            f"{f['line']}: {f['message']}: write it without that pattern"
            for f in findings
            if f["severity"] in BLOCKING_ON_WRITTEN_LINES and f["line"] in lines]
