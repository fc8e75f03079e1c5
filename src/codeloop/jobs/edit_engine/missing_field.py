"""pydantic's "Field required" said as what the code must do.

Measured on the 1.5B (build benchmark, stop 65): inventory I3's twelve code replies built
`Item(**item.model_dump())` from an `ItemIn`, which has no `id`, and notes N3's four
attempts built `Note(**note_in.dict())`; each round showed pydantic's three lines ("1
validation error for Item / id / Field required [type=missing, input_value={'name': ...}]")
and six replies came back unchanged. The reading names the model, the missing field and
the fields the data did hold, and says where the value must come from.
"""

from __future__ import annotations

import re

_MISSING = re.compile(
    r"validation errors? for (\w+)\s*\n(?:E\s+)?([A-Za-z_][\w.]*)\s*\n(?:E\s+)?\s*Field "
    r"required \[type=missing, input_value=(.*?), input_type=(\w+)\]")
_KEY = re.compile(r"'([A-Za-z_]\w*)':")


def missing_field_reading(output: str) -> str:
    """One sentence for the first "Field required" error of `output`, or ""."""
    match = _MISSING.search(output)
    if match is None:
        return ""
    model, field, given, kind = match.groups()
    held = list(dict.fromkeys(_KEY.findall(given))) if kind == "dict" else []
    data = f"the data it was given held only {', '.join(held)}" if held else \
        "the data it was given did not hold it"
    return (f"pydantic refused to build {model}: {model} requires `{field}` and {data}. "
            f"The call that builds {model} must pass {field} itself "
            f"({model}(**data, {field}=...)), with the value the task says it has; "
            f"setting {field} after building {model} is too late.")
