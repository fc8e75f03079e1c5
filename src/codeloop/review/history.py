"""`.ai_context.json` in the workspace: the review history (`workflow_history`), read at the
start and appended to after an approved change. Appended, never overwritten; a file that is
not valid history is moved aside (`.ai_context.json.corrupt-<timestamp>`), not lost."""

from __future__ import annotations

import json
import time
from typing import Any

from codeloop import jsonsafe
from codeloop.sandbox.pathguard import PathGuard

CONTEXT_FILE = ".ai_context.json"
MAX_HISTORY_BYTES = 5_000_000


class CorruptHistory(ValueError):
    pass


def _parse(raw: bytes) -> dict[str, Any]:
    try:
        data = jsonsafe.loads(raw.decode("utf-8"))
    except (UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise CorruptHistory(f"{CONTEXT_FILE} is not valid JSON ({exc})") from None
    if not isinstance(data, dict):
        raise CorruptHistory(f"{CONTEXT_FILE} is not a JSON object")
    if not isinstance(data.get("workflow_history", []), list):
        raise CorruptHistory(f"{CONTEXT_FILE}: workflow_history is not a list")
    return data


def read_history(guard: PathGuard) -> tuple[list[dict], str | None]:
    """The workflow history (empty when there is none) and a warning when the file is
    unreadable (it is left as it is here; append_history moves it aside)."""
    if not guard.exists(CONTEXT_FILE):
        return [], None
    try:
        raw = guard.read_bytes(CONTEXT_FILE)
        if len(raw) > MAX_HISTORY_BYTES:
            raise CorruptHistory(f"{CONTEXT_FILE} is larger than {MAX_HISTORY_BYTES} bytes")
        history = _parse(raw).get("workflow_history", [])
    except (OSError, ValueError) as exc:
        return [], str(exc)
    return [h for h in history if isinstance(h, dict)], None


def append_history(guard: PathGuard, entry: dict[str, Any]) -> str | None:
    """Append `entry` to the file's workflow_history (other keys kept); a warning when a
    corrupt file was moved aside first."""
    data: dict[str, Any] = {}
    warning = None
    if guard.exists(CONTEXT_FILE):
        raw = guard.read_bytes(CONTEXT_FILE)
        try:
            data = _parse(raw)
        except CorruptHistory as exc:
            stamp, n = time.strftime("%Y%m%d-%H%M%S"), 1
            aside = f"{CONTEXT_FILE}.corrupt-{stamp}"
            while guard.exists(aside):  # two in one second: never overwrite an earlier one
                n += 1
                aside = f"{CONTEXT_FILE}.corrupt-{stamp}-{n}"
            guard.write_bytes(aside, raw)  # the old bytes kept whole, then replaced
            warning = f"{exc}; moved aside to {aside}"
            data = {}
    history = list(data.get("workflow_history", []))
    history.append(entry)
    data["workflow_history"] = history
    guard.write_text(CONTEXT_FILE, json.dumps(data, indent=2, ensure_ascii=False) + "\n")
    return warning
