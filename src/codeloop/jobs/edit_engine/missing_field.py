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

from codeloop.jobs.request_files import is_test_path

_MISSING = re.compile(
    r"validation errors? for (\w+)\s*\n(?:E\s+)?([A-Za-z_][\w.]*)\s*\n(?:E\s+)?\s*Field "
    r"required \[type=missing, input_value=(.*?), input_type=(\w+)\]")
_KEY = re.compile(r"'([A-Za-z_]\w*)':")
_SHORT_FRAME = re.compile(r"^([\w./-]+\.py):\d+: in ", re.MULTILINE)  # --tb=short, before
_LONG_FRAME = re.compile(r"^([\w./-]+\.py):\d+: \w", re.MULTILINE)  # --tb=long, after
_SECTION = re.compile(r"^_{3,} .* _{3,}$", re.MULTILINE)


def missing_field_reading(output: str, *, in_tests: bool = False) -> str:
    """One sentence for the first "Field required" error of `output` raised in the code
    (in a test when `in_tests`), or "": the code cannot change a test's call, nor a test
    the code's."""
    match = _MISSING.search(output)
    if match is None:
        return ""
    where = raising_file(output, match.start(), match.end())
    if is_test_path(where) != in_tests:
        return ""
    model, field, given, kind = match.groups()
    held = list(dict.fromkeys(_KEY.findall(given))) if kind == "dict" else []
    data = f"the data it was given held only {', '.join(held)}" if held else \
        "the data it was given did not hold it"
    if in_tests:
        return (f"pydantic refused to build {model} in {where}: {model} requires `{field}` "
                f"and {data}. A test that builds {model} passes {field}; a test of the "
                f"refusal expects it: with pytest.raises(ValidationError): {model}(...).")
    return (f"pydantic refused to build {model}: {model} requires `{field}` and {data}. "
            f"The call that builds {model} must pass {field} itself "
            f"({model}(**data, {field}=...)), with the value the task says it has; "
            f"setting {field} after building {model} is too late.")


def raising_file(output: str, start: int, end: int) -> str:
    """The file whose line raised the error at output[start:end]: the last frame before it
    in its section (short tracebacks), else the location line after it (long ones)."""
    sections = [m.start() for m in _SECTION.finditer(output, 0, start)]
    frames = list(_SHORT_FRAME.finditer(output, sections[-1] if sections else 0, start))
    if frames:
        return frames[-1].group(1)
    after = _LONG_FRAME.search(output, end)
    return after.group(1) if after else ""

