"""Find the text an edit should replace: exactly, then tolerant of whitespace, and when both
fail, the closest candidates so the model can copy the real text and retry.

Why tolerant: small models often re-type a block with different indentation, trailing
spaces or a dropped blank line. Matching line by line on normalised text (and re-indenting
the replacement by the same offset) turns most of those near-misses into correct edits,
while a unique-match rule keeps it from editing the wrong place.

Bounded work: the file and old_text are model-controlled, so every step is linear (str.find
on joined lines, not a window-by-window comparison) or capped (the closest-match scoring
uses rapidfuzz with a budget; a repetitive file once cost ~6 hours of CPU in difflib).
"""

from __future__ import annotations

import bisect
import math
import re
from dataclasses import dataclass
from typing import Literal

from rapidfuzz import fuzz

MatchKind = Literal["exact", "whitespace"]
# read_file shows "    2| text"; small models copy that prefix into old_text although they
# are told not to (measured: the 1.5B's fix of is_even failed three times on it).
_LINE_NUMBER = re.compile(r"^ *\d+\| ?")
MAX_OCCURRENCES_SHOWN = 10
# Closest-match caps: beyond them fewer windows are scored (or none), never more work.
MAX_FUZZY_CONTENT_CHARS = 2_000_000
MAX_FUZZY_TARGET_CHARS = 20_000
MAX_FUZZY_WINDOWS = 100_000
FUZZY_BUDGET_CELLS = 200_000_000  # rapidfuzz's bit-parallel LCS: ~0.4 s at ~500M cells/s


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
        return EditResult(None, problem=_ambiguous(lines, count))

    return _tolerant_edit(content, old_text, new_text)


def _occurrence_lines(content: str, needle: str) -> list[int]:
    """Line numbers of the first occurrences (capped: a repetitive file has thousands)."""
    lines: list[int] = []
    line, counted_to, pos = 1, 0, content.find(needle)
    while pos >= 0 and len(lines) < MAX_OCCURRENCES_SHOWN:
        line += content.count("\n", counted_to, pos)
        counted_to = pos
        lines.append(line)
        pos = content.find(needle, pos + 1)
    return lines


def _ambiguous(lines: list[int], count: int | None = None) -> str:
    where = ", ".join(str(n) for n in lines[:MAX_OCCURRENCES_SHOWN])
    times = f"{count} times" if count is not None else f"at least {len(lines)} times"
    return (f"old_text occurs {times} (starting at lines {where}); include more "
            "surrounding lines so it matches exactly one place")


def _normalise(line: str) -> str:
    return " ".join(line.split())


def _tolerant_edit(content: str, old_text: str, new_text: str) -> EditResult:
    file_lines = content.splitlines(keepends=True)
    # Compare non-blank lines only, each with its whitespace collapsed.
    file_keys = [(i, _normalise(line)) for i, line in enumerate(file_lines) if line.strip()]
    old_keys = [_normalise(line) for line in old_text.splitlines() if line.strip()]
    spans, complete = _key_spans(file_keys, old_keys)
    if len(spans) > 1:
        return EditResult(None, problem=_ambiguous([s[0] + 1 for s in spans],
                                                   len(spans) if complete else None))
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


def _key_spans(file_keys: list[tuple[int, str]], old_keys: list[str]
               ) -> tuple[list[tuple[int, int]], bool]:
    """(first, last) file line indexes where `old_keys` run consecutively in `file_keys`, and
    whether that list is complete (it stops after MAX_OCCURRENCES_SHOWN).

    Keys hold no newline, so the lines joined with "\n" and framed by "\n" match exactly at
    line boundaries: one linear str.find per occurrence instead of comparing every window."""
    haystack = "\n" + "\n".join(key for _, key in file_keys) + "\n"
    needle = "\n" + "\n".join(old_keys) + "\n"
    offsets, pos = [], 0  # offsets[k]: index of the "\n" in front of key k
    for _, key in file_keys:
        offsets.append(pos)
        pos += len(key) + 1
    spans: list[tuple[int, int]] = []
    found = haystack.find(needle)
    while found >= 0:
        if len(spans) == MAX_OCCURRENCES_SHOWN:
            return spans, False
        k = bisect.bisect_left(offsets, found)
        spans.append((file_keys[k][0], file_keys[k + len(old_keys) - 1][0]))
        found = haystack.find(needle, found + 1)
    return spans, True


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
    overlapping each other. The scoring is capped: a huge file or old_text gives none, and
    when scoring every window would cost more than the budget, every n-th window is scored."""
    if len(content) > MAX_FUZZY_CONTENT_CHARS or len(old_text) > MAX_FUZZY_TARGET_CHARS:
        return []
    file_lines = content.splitlines()
    keys = [_normalise(line) for line in file_lines]
    size = max(1, len(old_text.strip("\n").splitlines()))
    target = "\n".join(_normalise(line) for line in old_text.strip("\n").splitlines())
    ends = [0]  # ends[i]: length of keys[:i] joined, one "\n" after each
    for key in keys:
        ends.append(ends[-1] + len(key) + 1)
    windows = max(1, len(file_lines) - size + 1)
    # ratio = 2*common/(len_a+len_b) <= 2*len_b/(len_a+len_b): a window longer than this
    # cannot reach min_similarity, so it is skipped unscored and a scored one costs at most:
    longest = len(target) * (2 / max(min_similarity, 0.1) - 1)
    per_window = (len(target) // 64 + 1) * (longest + 1)
    stride = max(1, math.ceil(windows * per_window / FUZZY_BUDGET_CELLS),
                 math.ceil(windows / MAX_FUZZY_WINDOWS))
    scored = []
    for start in range(0, windows, stride):
        stop = min(start + size, len(keys))
        if ends[stop] - ends[start] - 1 > longest:
            continue
        ratio = fuzz.ratio("\n".join(keys[start:stop]), target,
                           score_cutoff=min_similarity * 100) / 100
        if ratio >= min_similarity and ratio > 0:
            scored.append((ratio, start, file_lines[start:stop]))
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
