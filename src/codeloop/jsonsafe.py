"""JSON from models, sandboxed programs and repositories, read without crashing the host.

json.loads raises RecursionError, not a ValueError, on input nested past the interpreter's
recursion limit (a few thousand `[` do it), so `except ValueError` around it does not hold:
a model reply, a line printed by the model's code, or a package.json in a repository ended
the turn with a traceback. Every place that parses such text uses loads() here, which turns
that case into the json.JSONDecodeError the callers already handle.
"""

from __future__ import annotations

import json
from typing import Any


def loads(text: str | bytes, **kwargs: Any) -> Any:
    """json.loads, with input nested too deep to parse reported as json.JSONDecodeError."""
    try:
        return json.loads(text, **kwargs)
    except RecursionError:
        doc = text if isinstance(text, str) else ""
        raise json.JSONDecodeError("nested too deep to parse", doc, 0) from None
