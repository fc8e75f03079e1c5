"""Text from sandboxed programs and models, made safe to print on a terminal.

Escape sequences in such output would reach the user's terminal raw: OSC 52 writes the
clipboard, others retitle the window, move the cursor over earlier lines or hide text. Every
place that prints sandbox or model output live passes it through printable() first.
"""

from __future__ import annotations

import re

# C0 controls except tab and newline, DEL, C1 controls (0x9b is a one-byte CSI), and the
# bidirectional overrides that make text read differently from what it is.
_UNSAFE = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069]")


def _escaped(match: re.Match[str]) -> str:
    code = ord(match.group())
    return f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}"


def printable(text: str) -> str:
    """`text` with every control character shown as \\xNN (\\uNNNN), newlines and tabs kept."""
    return _UNSAFE.sub(_escaped, text)
