"""Find the text an edit should replace: exactly, then tolerant of whitespace, and when both
fail, the closest candidates so the model can copy the real text and retry.

Why tolerant: small models often re-type a block with different indentation, trailing
spaces or a dropped blank line. Matching line by line on normalised text (and re-indenting
the replacement by the same offset) turns most of those near-misses into correct edits,
while a unique-match rule keeps it from editing the wrong place.
"""

from __future__ import annotations

import difflib
import re
from dataclasses import dataclass
from typing import Literal

MatchKind = Literal["exact", "whitespace"]
# read_file shows "    2| text"; small models copy that prefix into old_text although they
# are told not to (measured: the 1.5B's fix of is_even failed three times on it).
_LINE_NUMBER = re.compile(r"^ *\d+\| ?")


def without_line_numbers(text: str) -> str | None:
    """`text` with read_file's line-number prefixes removed, when every non-blank line
    carries one; None when it does not look copied from read_file."""
    lines = text.split("\n")
    if not any(line.strip() for line in lines) or not all(
            _LINE_NUMBER.match(line) for line in lines if line.strip()):
        return None
    return "\n".join(_LINE_NUMBER.sub("", line, count=1) for line in lines)


@dataclass(frozen=True)
class Candidate:
    start_line: int  # 1-based, inclusive
    end_line: int
    similarity: float
    text: str


@dataclass(frozen=True)
class EditResult:
    """Either `new_content` (with `kind` and `start_line`/`end_line` of the replaced span in
    the old text) or `problem`, plus candidates when nothing matched."""

    new_content: str | None
    kind: MatchKind | None = None
    start_line: int = 0
    end_line: int = 0
    problem: str = ""
    candidates: tuple[Candidate, ...] = ()

    @property
    def ok(self) -> bool:
        return self.new_content is not None


def apply_edit(content: str, old_text: str, new_text: str) -> EditResult:
    """Replace the one occurrence of `old_text` in `content` with `new_text`."""
    if not old_text.strip():
        return EditResult(None, problem="old_text is empty; give the exact lines to replace")
    if old_text == new_text:
        return EditResult(None, problem="old_text and new_text are the same; nothing to change")

    count = content.count(old_text)
    if count == 1:
        start = content.index(old_text)
        first = content.count("\n", 0, start) + 1
        return EditResult(
            content.replace(old_text, new_text, 1), "exact",
            first, first + old_text.count("\n"),
        )
    if count > 1:
        lines = _occurrence_lines(content, old_text)
        return EditResult(None, problem=_ambiguous(lines))

    return _tolerant_edit(content, old_text, new_text)


def _occurrence_lines(content: str, needle: str) -> list[int]:
    lines, pos = [], content.find(needle)
    while pos >= 0:
        lines.append(content.count("\n", 0, pos) + 1)
        pos = content.find(needle, pos + 1)
    return lines


def _ambiguous(lines: list[int]) -> str:
    where = ", ".join(str(n) for n in lines[:10])
    return (f"old_text occurs {len(lines)} times (starting at lines {where}); include more "
            "surrounding lines so it matches exactly one place")


def _normalise(line: str) -> str:
    return " ".join(line.split())


def _tolerant_edit(content: str, old_text: str, new_text: str) -> EditResult:
    file_lines = content.splitlines(keepends=True)
    # Compare non-blank lines only, each with its whitespace collapsed.
    file_keys = [(i, _normalise(line)) for i, line in enumerate(file_lines) if line.strip()]
    old_keys = [_normalise(line) for line in old_text.splitlines() if line.strip()]
    spans = []
    for k in range(len(file_keys) - len(old_keys) + 1):
        if all(file_keys[k + j][1] == old_keys[j] for j in range(len(old_keys))):
            spans.append((file_keys[k][0], file_keys[k + len(old_keys) - 1][0]))
    if len(spans) > 1:
        return EditResult(None, problem=_ambiguous([s[0] + 1 for s in spans]))
    if not spans:
        return EditResult(
            None,
            problem="old_text was not found, not even ignoring whitespace differences",
            candidates=tuple(closest_candidates(content, old_text)),
        )
    first, last = spans[0]
    replaced = "".join(file_lines[first:last + 1])
    replacement = _reindent(new_text, old_text, replaced)
    if replaced.endswith("\n") and not replacement.endswith("\n"):
        replacement += "\n"
    new_content = "".join(file_lines[:first]) + replacement + "".join(file_lines[last + 1:])
    return EditResult(new_content, "whitespace", first + 1, last + 1)


def _indent_of(text: str) -> str:
    for line in text.splitlines():
        if line.strip():
            return line[: len(line) - len(line.lstrip())]
    return ""


def _reindent(new_text: str, old_text: str, matched: str) -> str:
    """Shift `new_text` by the indentation difference between what the model wrote as
    old_text and what the file really holds, so the replacement lands at the right depth."""
    model_indent, file_indent = _indent_of(old_text), _indent_of(matched)
    lines = new_text.strip("\n").splitlines()
    if model_indent == file_indent:
        return "\n".join(lines)
    out = []
    for line in lines:
        if not line.strip():
            out.append("")
        elif len(file_indent) > len(model_indent):
            out.append(file_indent[len(model_indent):] + line)
        elif line.startswith(model_indent):
            out.append(file_indent + line[len(model_indent):])
        else:
            out.append(line)
    return "\n".join(out)


def closest_candidates(content: str, old_text: str, limit: int = 3,
                       min_similarity: float = 0.5) -> list[Candidate]:
    """The file's blocks most like `old_text` (same number of lines), best first, without
    overlapping each other."""
    file_lines = content.splitlines()
    size = max(1, len(old_text.strip("\n").splitlines()))
    target = "\n".join(_normalise(line) for line in old_text.strip("\n").splitlines())
    scored = []
    matcher = difflib.SequenceMatcher(autojunk=False)
    matcher.set_seq2(target)
    for start in range(max(1, len(file_lines) - size + 1)):
        window = file_lines[start:start + size]
        matcher.set_seq1("\n".join(_normalise(line) for line in window))
        if matcher.real_quick_ratio() < min_similarity or matcher.quick_ratio() < min_similarity:
            continue
        ratio = matcher.ratio()
        if ratio >= min_similarity:
            scored.append((ratio, start, window))
    scored.sort(key=lambda item: (-item[0], item[1]))
    chosen: list[Candidate] = []
    for ratio, start, window in scored:
        end = start + len(window) - 1
        if any(start <= c.end_line - 1 and c.start_line - 1 <= end for c in chosen):
            continue
        chosen.append(Candidate(start + 1, end + 1, round(ratio, 2), "\n".join(window)))
        if len(chosen) == limit:
            break
    return chosen


def format_candidates(candidates: tuple[Candidate, ...] | list[Candidate]) -> str:
    if not candidates:
        return "No similar text was found; read the file again to see its current content."
    parts = ["Closest matches in the file (copy the exact text as old_text and retry):"]
    for c in candidates:
        parts.append(f"--- lines {c.start_line}-{c.end_line} ({c.similarity:.0%} similar):")
        for number, line in enumerate(c.text.splitlines(), start=c.start_line):
            parts.append(f"{number:>5}| {line}")
    return "\n".join(parts)
