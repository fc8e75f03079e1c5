"""Secrets out of text that leaves the process or persists: what the secrets scanner
(quality/secret_patterns) recognises is replaced by `[REDACTED <rule>]` before a tool's
output goes to the model and before an event is stored.

The same rules as the security scan, so what a review would flag is what is hidden. A PEM
private key is hidden from its BEGIN line to its END line.
"""

from __future__ import annotations

import re

from codeloop.quality.secret_patterns import scan

_PEM_END = re.compile(r"-----END (?:[A-Z0-9]+ )*PRIVATE KEY(?: BLOCK)?-----")


def secret_spans(text: str) -> list[tuple[int, int, str]]:
    """(start, end, rule id) of each secret in text, without overlaps, in order."""
    kept: list[tuple[int, int, str]] = []
    for match in scan(text):
        end = match.end
        if match.rule.rule_id == "SECRET-PRIVATE-KEY":  # hide the whole block, not its header
            block_end = _PEM_END.search(text, end)
            end = block_end.end() if block_end else len(text)
        if kept and match.start < kept[-1][1]:
            continue  # inside one already hidden
        kept.append((match.start, end, match.rule.rule_id))
    return kept


def redact_secrets(text: str) -> str:
    """text with every recognised secret replaced by a marker naming its rule."""
    if not text:
        return text
    out, last = [], 0
    for start, end, rule_id in secret_spans(text):
        out += [text[last:start], f"[REDACTED {rule_id}]"]
        last = end
    return "".join(out) + text[last:] if out else text


def redact_value(value):
    """Strings inside a JSON-like value (dicts, lists) redacted; other values as they are."""
    if isinstance(value, str):
        return redact_secrets(value)
    if isinstance(value, dict):
        return {key: redact_value(item) for key, item in value.items()}
    if isinstance(value, (list, tuple)):
        return [redact_value(item) for item in value]
    return value
