"""The security findings on lines a change wrote: the model's own code carries no insecure
pattern bandit rates MEDIUM (HIGH blocks anywhere), and a line it rewrote does not keep a
pattern bandit reported there before, whatever its severity. A MEDIUM finding on a line the change left
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
# bandit ids that flag the safe form or a mere import (B404 `import subprocess`, B603/B607 a
# subprocess without a shell, the fix for B602), or asserts: never a problem to fix by
# themselves (the 1.5B, told of B404 and B603 on shell_injection, broke the working call)
NOT_A_PROBLEM = frozenset({"B101", "B404", "B603", "B607"})


def is_noise(finding: dict[str, Any]) -> bool:
    return finding["message"].split(" ", 1)[0] in NOT_A_PROBLEM


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


def _test_id(finding: dict[str, Any]) -> str:
    return finding["message"].split(" ", 1)[0]


def written_line_problems(findings: Iterable[dict[str, Any]], before: str | None,
                          after: str) -> list[str]:
    """A problem line for each finding of one file's `findings` (bandit's, outside test
    files) on a line the change wrote: a MEDIUM one, or one of any severity that bandit
    also reported on the file before the change (the change rewrote the flagged line and
    kept its pattern: measured on the 1.5B, weak_token's `random.choice` re-written with
    another alphabet, LOW B311, was approved)."""
    findings = [f for f in findings if f.get("tool") == "bandit"
                and not is_test_path(f["file_path"]) and not is_noise(f)]
    if not findings:
        return []
    lines = written_lines(before, after)
    flagged_before = {_test_id(f) for f in _bandit_findings(findings[0]["file_path"], before)}
    out = []
    for finding in findings:
        if finding["line"] not in lines:
            continue
        if finding["severity"] in BLOCKING_ON_WRITTEN_LINES:
            out.append(f"MEDIUM security finding on a line this change wrote, "
                       f"{finding['file_path']} line {finding['line']}: {finding['message']}: "
                       "write it without that pattern")
        elif _test_id(finding) in flagged_before:
            out.append(f"{finding['severity'].upper()} security finding the review reported "
                       f"before the change is still on a line this change wrote, "
                       f"{finding['file_path']} line {finding['line']}: {finding['message']}: "
                       "write it without that pattern")
    return out


def _bandit_findings(path: str, before: str | None) -> list[dict[str, Any]]:
    from codeloop.review.checks import security_findings

    if before is None or not path.endswith(".py"):
        return []
    return [f for f in security_findings(path, before) if f.get("tool") == "bandit"]
