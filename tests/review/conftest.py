"""Fixtures for the review engine's tests: a small workspace with a bug and its failing test,
and a run store."""

from __future__ import annotations

from pathlib import Path

import pytest
from review_helpers import BUGGY, TEST

from codeloop.store import RunStore


@pytest.fixture
def workspace(tmp_path) -> Path:
    ws = tmp_path / "ws"
    ws.mkdir()
    (ws / "calc.py").write_text(BUGGY)
    (ws / "test_calc.py").write_text(TEST)
    return ws


@pytest.fixture
def store(tmp_path):
    with RunStore(tmp_path / "runs.db") as s:
        yield s
