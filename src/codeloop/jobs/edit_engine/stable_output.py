"""Test output with what changes from run to run taken out, before a prompt shows it.

Pytest's output holds object addresses (`<inventory.Inventory object at 0x7fe57c867010>`),
its numbered temporary directories (`/tmp/pytest-of-me/pytest-12/`) and the run's duration
(`2 failed in 0.04s`). None of them helps the model, and each makes the same code give a
different prompt: a greedy run then goes another way on the same task (measured on
fix_inventory_state: a replay and a run of the same code parted at the first prompt).
"""

from __future__ import annotations

import re

_ADDRESS = re.compile(r"\bat 0x[0-9a-fA-F]{4,16}\b")
_PYTEST_TMP = re.compile(r"(/pytest-of-[^/\s]+/pytest-)\d+(/)")
_DURATION = re.compile(r"(\b(?:passed|failed|errors?|skipped|xfailed|xpassed|warnings?|"
                       r"deselected|no tests ran)) in \d+(?:\.\d+)?s\b")


def stable_output(text: str) -> str:
    """`text` with object addresses, pytest's temp-dir numbers and durations masked."""
    text = _ADDRESS.sub("at 0x...", text)
    text = _PYTEST_TMP.sub(r"\g<1>N\g<2>", text)
    return _DURATION.sub(r"\g<1>", text)
