"""CodeDiff records: unified hunks (difflib) with +/- counts, and the pending change a
person approves (each artifact against the file on disk when the run started)."""

from __future__ import annotations

import difflib

from codeloop.review.state import Artifact, CodeDiff


def _lines(text: str) -> list[str]:
    """Lines as the file has them: split at newlines only. str.splitlines also splits at
    U+2028, \x0c, \x1c ... so a diff would show line breaks the file does not have."""
    lines = text.split("\n")
    lines = [line + "\n" for line in lines[:-1]] + ([lines[-1]] if lines[-1] else [])
    if lines and not lines[-1].endswith("\n"):
        lines[-1] += "\n\\ No newline at end of file\n"
    return lines


def make_diff(path: str, before: str | None, after: str, description: str) -> CodeDiff:
    old = before or ""
    hunks = "".join(difflib.unified_diff(
        _lines(old), _lines(after),
        fromfile="/dev/null" if before is None else f"a/{path}", tofile=f"b/{path}"))
    body = [line for line in hunks.splitlines() if not line.startswith(("+++", "---"))]
    return CodeDiff(file_path=path, original_content=old, modified_content=after,
                    diff_hunks=hunks, description=description,
                    added=sum(1 for line in body if line.startswith("+")),
                    removed=sum(1 for line in body if line.startswith("-")))


def pending_changes(originals: dict[str, str | None], artifacts: list[Artifact],
                    summary: str = "") -> list[CodeDiff]:
    """One diff per artifact that differs from the file on disk (or is new)."""
    out = []
    for artifact in artifacts:
        path, before = artifact["file_path"], originals.get(artifact["file_path"])
        if before == artifact["content"]:
            continue
        what = "new file" if before is None else "changed"
        out.append(make_diff(path, before, artifact["content"],
                             f"{what}: {summary}" if summary else what))
    return out
