"""Python's "unsupported operand type(s)" said as what the code must do.

Measured on the 1.5B (build benchmark at 48067b3 and at 4e021a9, inventory I2): the task
said "use round(value, 2)"; the code computed with `Decimal` and the tests passed floats
(`apply_discount(200.0, 15)`), so `float * Decimal` raised TypeError. Four code rounds at
4e021a9 and three at 48067b3 showed Python's one line, two replies came back unchanged,
and the task took 12 minutes of its graph's 12. The reading names the two types, which one
the callers pass, and the two ways out.
"""

from __future__ import annotations

import re

from codeloop.jobs.edit_engine.missing_field import raising_file
from codeloop.jobs.request_files import is_test_path

_UNSUPPORTED = re.compile(
    r"TypeError: unsupported operand type\(s\) for ([^:]+): '([\w.]+)' and '([\w.]+)'")
_NUMBERS = {"int", "float"}


def operand_reading(output: str) -> str:
    """One sentence for the first "unsupported operand type(s)" raised in the code (not in
    a test, whose call the code cannot change), or ""."""
    match = _UNSUPPORTED.search(output)
    if match is None:
        return ""
    where = raising_file(output, match.start(), match.end())
    if not where or is_test_path(where):
        return ""
    operator, left, right = match.groups()
    given = left if left in _NUMBERS else right if right in _NUMBERS else ""
    other = right if given == left else left
    if given and other == "decimal.Decimal":
        return (f"{where} combines a {given} with a Decimal ({operator}), which Python "
                f"refuses: the callers pass plain numbers ({given}). Compute with the "
                f"numbers as given (plain {given} arithmetic, round(value, 2) where the "
                "task says so) and return plain numbers, or turn every argument into a "
                "Decimal first (Decimal(str(x))) and the result back into a float.")
    return (f"{where} applies {operator} to {_a(left)} and {_a(right)}, which Python refuses: "
            f"make both sides the same kind of value before combining them (the types "
            f"the callers pass are fixed by the tests).")


def _a(kind: str) -> str:
    return f"{'an' if kind[:1] in 'aeiou' else 'a'} {kind}"
