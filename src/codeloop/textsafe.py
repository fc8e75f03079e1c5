"""Text from sandboxed programs and models, made safe to show.

One rule says which characters are hidden or act on the display instead of showing: every
Unicode control (category Cc) but tab and newline, every format character (Cf: the bidi
embeddings, overrides and isolates U+202A-202E / U+2066-2069, the marks U+200E/200F/061C,
zero-width characters U+200B-200D, U+2060, the BOM U+FEFF, ...), and the line and paragraph
separators U+2028/2029 (JavaScript ends a line there, the eye does not). The web UI's
DiffViewer applies the same categories (static/hidden_chars.js).

- `printable(text)`: for a terminal, each one escaped as \\xNN / \\uNNNN (escape sequences
  in such output would write the clipboard, retitle the window or hide text).
- `marked_segments(text)`: for what a person approves, each one as a visible `⟪U+202E⟫`
  marker the view styles: a diff reads as what it is (Trojan Source).
- `bidi_controls(text)`: where a text holds bidi controls, for the review's security gate.
"""

from __future__ import annotations

import re
import sys
import unicodedata
from functools import cache

HIDDEN_CATEGORIES = ("Cc", "Cf", "Zl", "Zp")
KEPT = "\t\n"
# The embeddings, overrides and isolates of Trojan Source (CVE-2021-42574): text after one
# is laid out in another order than it is read by a compiler.
BIDI_OVERRIDES = frozenset("\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069")
BIDI_MARKS = frozenset("\u200e\u200f\u061c")


@cache
def hidden_pattern() -> re.Pattern[str]:
    """A character class of every hidden character (built once, from unicodedata)."""
    ranges: list[tuple[int, int]] = []
    for code in range(sys.maxunicode + 1):
        if chr(code) in KEPT or unicodedata.category(chr(code)) not in HIDDEN_CATEGORIES:
            continue
        if ranges and ranges[-1][1] == code - 1:
            ranges[-1] = (ranges[-1][0], code)
        else:
            ranges.append((code, code))
    parts = (re.escape(chr(a)) if a == b else f"{re.escape(chr(a))}-{re.escape(chr(b))}"
             for a, b in ranges)
    return re.compile(f"[{''.join(parts)}]")


def is_hidden(char: str) -> bool:
    return char not in KEPT and unicodedata.category(char) in HIDDEN_CATEGORIES


def _escaped(match: re.Match[str]) -> str:
    code = ord(match.group())
    if code < 0x100:
        return f"\\x{code:02x}"
    return f"\\u{code:04x}" if code < 0x10000 else f"\\U{code:08x}"


def printable(text: str) -> str:
    """`text` with every hidden character shown as \\xNN (\\uNNNN), newlines and tabs kept."""
    return hidden_pattern().sub(_escaped, text)


def marker(char: str) -> str:
    return f"⟪U+{ord(char):04X}⟫"


def marked_segments(text: str) -> list[tuple[str, bool]]:
    """`text` as (piece, is_marker) pairs: each hidden character becomes its `⟪U+XXXX⟫`
    marker piece, the text between stays as it is."""
    out: list[tuple[str, bool]] = []
    last = 0
    for match in hidden_pattern().finditer(text):
        if match.start() > last:
            out.append((text[last:match.start()], False))
        out.append((marker(match.group()), True))
        last = match.end()
    if last < len(text) or not out:
        out.append((text[last:], False))
    return out


def marked(text: str) -> str:
    """`text` with each hidden character replaced by its visible marker."""
    return "".join(piece for piece, _ in marked_segments(text))


def bidi_controls(text: str) -> list[tuple[int, str]]:
    """(1-based line, character) of every bidi override, isolate or mark in `text`; lines
    are counted at newlines only (as a compiler counts them)."""
    found = []
    if not any(c in text for c in BIDI_OVERRIDES | BIDI_MARKS):
        return found
    for number, line in enumerate(text.split("\n"), start=1):
        found += [(number, c) for c in line if c in BIDI_OVERRIDES or c in BIDI_MARKS]
    return found
