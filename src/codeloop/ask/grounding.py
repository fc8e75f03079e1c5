"""Grounding: does each `file:line` an answer cites exist, and hold what the answer quotes?

A citation is `path:N` or `path:N-M` (a path with an extension, relative to the repository;
a bare file name counts when exactly one file in the repository has it), or the same in
prose ("`path` on line N", "path, lines N-M", "line N of path"). It EXISTS when the
file is one the walk admitted and the lines are within it. It is GROUNDED when it exists and,
the code the answer quotes in backticks next to it (`name`, `x = 1`; a quoted file name is
not code; see find_citations for which quotes belong to which citation) is found in the
cited lines, at least one quote, give or take QUOTE_SLACK lines (models count loosely).
An invented file, a line past the end, or a quote that is not there: not grounded.

The rate (grounded / cited) is reported beside the evaluator's score, never folded into it.
"""

from __future__ import annotations

import re
from typing import Any

from codeloop.ask.tools.walk import RepoIndex

QUOTE_SLACK = 3
_CITATION = re.compile(
    r"(?<![\w/.-])((?:[\w.-]+/)*[\w.-]*\w\.[A-Za-z0-9]{1,8}):(\d{1,6})(?:\s?[-–]\s?(\d{1,6}))?")
_PATH = r"((?:[\w.-]+/)*[\w.-]*\w\.[A-Za-z0-9]{1,8})"
# The same citation in prose, as small models write it: "`a/b.py` on line 12", "a/b.py,
# lines 3-5", "in the `a/b.py` file, line 7"; and "line 12 of `a/b.py`".
_PROSE_PATH_LINE = re.compile(
    rf"(?<![\w/.-])`?{_PATH}`?(?:\s+file)?,?\s+(?:on\s+|at\s+)?lines?\s+(\d{{1,6}})"
    r"(?:\s*(?:-|–|to)\s*(\d{1,6}))?", re.IGNORECASE)
_PROSE_LINE_PATH = re.compile(
    rf"\blines?\s+(\d{{1,6}})(?:\s*(?:-|–|to)\s*(\d{{1,6}}))?\s+(?:of|in)\s+(?:the\s+)?"
    rf"(?:file\s+)?`?{_PATH}`?", re.IGNORECASE)
_QUOTE = re.compile(r"`([^`\n]{2,120})`")
# A quoted file name (`src/app/core.py`) names the file; it is not code to find in the lines.
_FILE_NAME = re.compile(r"[\w./-]+\.(?:py|pyi|js|jsx|ts|tsx|go|rs|md|rst|txt|toml|cfg|ini|json"
                        r"|ya?ml|mod|sh)")


def find_citations(text: str) -> list[dict[str, Any]]:
    """[{text, path, start, end, quotes, line}] in the order they appear. A citation's quotes
    are the backticked code between the previous citation on its line and itself ("`f` is at
    a.py:3"), or, when there is none, between itself and the next ("a.py:3 defines `f`")."""
    out = []
    for number, line in enumerate(text.splitlines(), start=1):
        matches = _matches(line)
        for i, (lo, hi, path, start, end) in enumerate(matches):
            before = line[matches[i - 1][1] if i else 0:lo]
            after = line[hi:matches[i + 1][0] if i + 1 < len(matches) else None]
            out.append({"text": line[lo:hi], "path": path, "start": start,
                        "end": max(start, end), "quotes": _quotes(before) or _quotes(after),
                        "line": number})
    return out


def _matches(line: str) -> list[tuple[int, int, str, int, int]]:
    """(begin, end, path, first line, last line) of each citation on one line of the answer,
    in order; where two forms overlap, the first (then the longer) wins."""
    found = []
    for m in _CITATION.finditer(line):
        found.append((m.start(), m.end(), m.group(1), int(m.group(2)),
                      int(m.group(3) or m.group(2))))
    for m in _PROSE_PATH_LINE.finditer(line):
        found.append((m.start(), m.end(), m.group(1), int(m.group(2)),
                      int(m.group(3) or m.group(2))))
    for m in _PROSE_LINE_PATH.finditer(line):
        found.append((m.start(), m.end(), m.group(3), int(m.group(1)),
                      int(m.group(2) or m.group(1))))
    kept: list[tuple[int, int, str, int, int]] = []
    for item in sorted(found, key=lambda f: (f[0], -f[1])):
        if not kept or item[0] >= kept[-1][1]:
            kept.append(item)
    return kept


def _quotes(segment: str) -> list[str]:
    return [q.strip() for q in _QUOTE.findall(segment)
            if not _CITATION.fullmatch(q.strip()) and not _FILE_NAME.fullmatch(q.strip())]


def resolve_path(index: RepoIndex, cited: str) -> str | None:
    """The repository file a cited path names: exact, or the only file ending with it."""
    while cited.startswith("./"):
        cited = cited[2:]
    if index.has(cited):
        return cited
    matches = [rel for rel in index.files if rel.endswith("/" + cited)]
    return matches[0] if len(matches) == 1 else None


def check_grounding(text: str, index: RepoIndex | None) -> dict[str, Any]:
    """{cited, existing, grounded, rate (None without citations), citations: [... exists,
    grounded, why]}."""
    citations = find_citations(text)
    for cite in citations:
        cite.update(_judge(cite, index))
    cited = len(citations)
    existing = sum(c["exists"] for c in citations)
    grounded = sum(c["grounded"] for c in citations)
    return {"cited": cited, "existing": existing, "grounded": grounded,
            "rate": round(grounded / cited, 3) if cited else None,
            "invented": [c["text"] for c in citations if not c["exists"]],
            "citations": citations}


def _judge(cite: dict[str, Any], index: RepoIndex | None) -> dict[str, Any]:
    if index is None:
        return {"exists": False, "grounded": False, "resolved": None,
                "why": "no repository to check against"}
    rel = resolve_path(index, cite["path"])
    if rel is None:
        return {"exists": False, "grounded": False, "resolved": None,
                "why": "no such file in the repository"}
    lines = index.lines(rel)
    if not 1 <= cite["start"] <= len(lines) or cite["end"] > len(lines):
        return {"exists": False, "grounded": False, "resolved": rel,
                "why": f"line out of range (the file has {len(lines)} lines)"}
    if not cite["quotes"]:
        return {"exists": True, "grounded": True, "resolved": rel, "why": "the lines exist"}
    low = max(0, cite["start"] - 1 - QUOTE_SLACK)
    span = _squash("\n".join(lines[low:cite["end"] + QUOTE_SLACK]))
    found = [q for q in cite["quotes"] if _squash(q) and _squash(q) in span]
    if found:
        return {"exists": True, "grounded": True, "resolved": rel,
                "why": f"quoted `{found[0]}` is there"}
    return {"exists": True, "grounded": False, "resolved": rel,
            "why": "the quoted code is not in the cited lines"}


def _squash(text: str) -> str:
    """Whitespace-insensitive: `f(a, b)` and `f(a,b)` are the same quote; a trailing `()`
    on a name is a call written the model's way."""
    text = re.sub(r"\s+", "", text)
    return text.removesuffix("()")
