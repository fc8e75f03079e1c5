"""Reading the reviewer's verdict when it did not come back as valid JSON.

The JSON call already asks again with the problem (llm/schema.py); a verdict that still is
not valid JSON (held-out runs: cut off mid-string, prose around a half object) gets one plain
call asking for the object alone, read tolerantly: the JSON when it parses, else the
`approved` value and the issue strings it holds. Nothing readable is never an approval."""

from __future__ import annotations

import re
from typing import Any

from codeloop.llm.base import InvalidStructuredOutput
from codeloop.llm.schema import parse_json_text

RETRY_NOTE = ('Your last answer was not valid JSON. Answer with only this JSON object and '
              'nothing else: {"approved": true or false, "issues": ["..."], '
              '"suggestions": ["..."]}')
_APPROVED = re.compile(r'"?approved"?\s*[:=]\s*"?(true|false)\b', re.IGNORECASE)
_STRING = re.compile(r'"((?:[^"\\\n]|\\.){3,})"')


def tolerant_verdict(text: str) -> dict[str, Any] | None:
    """{approved, issues, suggestions} from a reply, or None when it says neither way."""
    try:
        data = parse_json_text(text, "verdict")
    except InvalidStructuredOutput:
        data = None
    if isinstance(data, dict) and isinstance(data.get("approved"), bool):
        return {"approved": data["approved"], "issues": list(data.get("issues") or []),
                "suggestions": list(data.get("suggestions") or [])}
    match = _APPROVED.search(text)
    if match is None:
        return None
    rest = text[match.end():]
    issues_at = rest.find('"issues"')
    suggestions_at = rest.find('"suggestions"')
    issues: list[str] = []
    if issues_at >= 0:
        end = suggestions_at if suggestions_at > issues_at else len(rest)
        issues = [m.group(1) for m in _STRING.finditer(rest[issues_at + 8:end])]
    return {"approved": match.group(1).lower() == "true", "issues": issues, "suggestions": []}
