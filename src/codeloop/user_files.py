"""Files a user names on the command line or in a request (a task file, a test file, a
dataset, a run's records): their text or JSON, or one line saying why it cannot be had,
raised as the caller's own error type so each command reports it as it reports the rest."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from codeloop.jsonsafe import loads


def read_text(path: Path, error: type[Exception], what: str = "file") -> str:
    try:
        return path.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise error(f"{what} not found: {path}") from None
    except (OSError, UnicodeDecodeError) as exc:
        raise error(f"cannot read {what} {path}: {exc}") from None


def read_json(path: Path, error: type[Exception], what: str = "file") -> Any:
    text = read_text(path, error, what)
    try:
        return loads(text)
    except json.JSONDecodeError as exc:
        raise error(f"{path}: not valid JSON (line {exc.lineno}: {exc.msg})") from None
