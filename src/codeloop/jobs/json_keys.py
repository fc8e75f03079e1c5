"""Keys a rewritten JSON file lost, put back.

Asked to change one value of a config file and to send the file whole, a small model often
sends it without an entry it did not think about. Measured on the agent suite (1.5B,
config_max_retries): a reply that set the timeout and added max_retries dropped `"verbose":
false`, and the settings module, which read the file, fell back to its default. Like a class
sent back with fewer methods (jobs/definitions.restore_dropped_members), a key the request does
not name is taken as forgotten, not as removed; a user who wants it gone names it.
"""

from __future__ import annotations

import json
import re

from codeloop import jsonsafe

_INDENT = re.compile(r"^\n?( +|\t)\S", re.MULTILINE)


def _restored(old, new, request: str) -> tuple[object, list[str]]:
    """`new` with the keys of `old` it lacks and `request` does not name, at any depth of
    objects both have; the names put back."""
    if not isinstance(old, dict) or not isinstance(new, dict):
        return new, []
    out: dict = {}
    back: list[str] = []
    for key, value in old.items():
        if key in new:
            out[key], inner = _restored(value, new[key], request)
            back += inner
        elif not _named(key, request):
            out[key] = value
            back.append(key)
    out.update((k, v) for k, v in new.items() if k not in old)
    return (out, back) if back else (new, [])


def _named(key: str, request: str) -> bool:
    return re.search(rf"(?<![\w-]){re.escape(key)}(?![\w-])", request) is not None


def restore_dropped_keys(old_text: str, new_text: str, request: str) -> tuple[str, list[str]]:
    """(the new JSON text with the lost keys back, their names); the new text unchanged and
    no names when nothing was lost or either text is not JSON."""
    try:
        old, new = jsonsafe.loads(old_text), jsonsafe.loads(new_text)
    except ValueError:
        return new_text, []
    merged, back = _restored(old, new, request)
    if not back:
        return new_text, []
    found = _INDENT.search(new_text)
    indent = found.group(1) if found else 2
    text = json.dumps(merged, indent=indent, ensure_ascii=False)
    return text + ("\n" if new_text.endswith("\n") else ""), back
