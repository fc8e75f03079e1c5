"""Say what differs between what a candidate returned and what the example expects.

"list_to_float([('3', '4')]) returned [[3.0, 4.0]], expected [(3.0, 4.0)]" is plain to a
reader and invisible to a 1.5B model: told it, samples returned lists of lists again. The
difference named in words ("the right values, but expected list of tuple, got list of list")
goes into the prompt after the failure. Only values that are Python literals are read
(`ast.literal_eval`, on at most MAX_CHARS characters: the returned value's text comes from
the candidate); anything else gets no remark.
"""

from __future__ import annotations

import ast
from collections import Counter
from typing import Any

MAX_CHARS = 2000
MAX_SPLITS = 16  # ways of reading a line tried at most
SHOWN = 3  # items named at most, per kind of difference
ITEM_CHARS = 40  # an item's text is cut there: the remark must stay short
_RETURNED, _EXPECTED = " returned ", ", expected "
_NOT_READ = object()


def _literal(text: str) -> Any:
    if len(text) > MAX_CHARS:
        return _NOT_READ
    try:
        return ast.literal_eval(text.strip())
    except (ValueError, SyntaxError, TypeError, MemoryError, RecursionError):
        return _NOT_READ


def _split(line: str) -> tuple[Any, Any] | None:
    """(returned, expected) from "CALL returned A, expected B", trying the splits in turn,
    at most MAX_SPLITS of them: the returned text can hold the separators any number of
    times, and the host's work on it stays bounded."""
    tries = 0
    start = line.find(_RETURNED)
    while start != -1:
        rest = line[start + len(_RETURNED):]
        end = rest.rfind(_EXPECTED)
        while end != -1:
            tries += 1
            if tries > MAX_SPLITS:
                return None
            got, want = _literal(rest[:end]), _literal(rest[end + len(_EXPECTED):])
            if got is not _NOT_READ and want is not _NOT_READ:
                return got, want
            end = rest.rfind(_EXPECTED, 0, end)
        start = line.find(_RETURNED, start + 1)
    return None


def _number(value: Any) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def _kind(value: Any) -> str:
    """`list of tuple`, `dict`, `str`, `None`: the shape a reader compares."""
    if value is None:
        return "None"
    name = type(value).__name__
    if isinstance(value, (list, tuple, set, frozenset)) and value:
        inner = sorted({_kind(item).split(" of ")[0] for item in value})
        return f"{name} of {'/'.join(inner)}"
    return name


def _plain(value: Any) -> Any:
    """The value with its container types forgotten: what "the right values" means."""
    if isinstance(value, (list, tuple)):
        return ("seq", tuple(_plain(v) for v in value))
    if isinstance(value, (set, frozenset)):
        return ("set", tuple(sorted(repr(_plain(v)) for v in value)))
    if isinstance(value, dict):
        return ("dict", tuple(sorted((repr(_plain(k)), repr(_plain(v))) for k, v in value.items())))
    if _number(value):
        return float(value)
    return value


def _shown(texts: list[str]) -> str:
    text = ", ".join(t if len(t) <= ITEM_CHARS else t[:ITEM_CHARS - 3] + "..."
                     for t in texts[:SHOWN])
    return text + (", ..." if len(texts) > SHOWN else "")


def _items_note(got: list[Any] | tuple | set, want: list[Any] | tuple | set) -> str | None:
    have, need = Counter(map(repr, got)), Counter(map(repr, want))
    if have == need:
        return "the right items, in another order"
    missing = list((need - have).elements())
    extra = list((have - need).elements())
    parts = [f"missing {_shown(missing)}" if missing else "",
             f"not expected {_shown(extra)}" if extra else ""]
    return "; ".join(p for p in parts if p) or None


def _rounding_note(got: float, want: float) -> str | None:
    for places in range(7):
        if round(got, places) == want:
            return f"the expected value is this one rounded to {places} decimal places"
    return None


def _string_note(got: str, want: str) -> str | None:
    at = next((i for i, (a, b) in enumerate(zip(got, want, strict=False)) if a != b), None)
    if at is None:
        return f"expected {len(want)} characters, got {len(got)}"
    if at == 0:  # nothing in common at the start: the two values say it all
        return None
    return f"the first difference is at index {at}: expected {want[at]!r}, got {got[at]!r}"


def explain(got: Any, want: Any) -> str | None:
    """A short remark on how `got` differs from `want`, or None when there is none to make."""
    if got == want:
        return None
    if _number(got) and _number(want):
        return _rounding_note(got, want)
    if _plain(got) == _plain(want):
        return f"the right values, but expected {_kind(want)}, got {_kind(got)}"
    if type(got) is not type(want):
        return f"expected {_kind(want)}, got {_kind(got)}"
    if isinstance(got, (list, tuple, set, frozenset)):
        return _items_note(got, want)
    if isinstance(got, dict):
        keys = _items_note(list(got), list(want))
        if keys and keys != "the right items, in another order":
            return keys.replace("missing", "missing keys").replace("not expected", "keys not expected")
        wrong = [repr(k) for k in want if k in got and got[k] != want[k]]
        return f"wrong values for keys {_shown(wrong)}" if wrong else None
    if isinstance(got, str):
        return _string_note(got, want)
    return None


def with_remark(line: str) -> str:
    """The failure line, with the difference named when it is "... returned A, expected B"."""
    values = _split(line)
    remark = explain(*values) if values else None
    return f"{line} ({remark})" if remark else line
