"""Fixture repositories for the ask job: hand-written, copied to a temp dir per test, so the
files git would not commit (ignored, binary, huge, symlinks) are made there, at test time."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

FIXTURES = Path(__file__).parent / "fixtures"


@pytest.fixture
def fixture_repo(tmp_path):
    """copy("pyapp") -> a fresh copy of tests/ask/fixtures/pyapp under tmp_path."""

    def copy(name: str) -> Path:
        target = tmp_path / name
        shutil.copytree(FIXTURES / name, target)
        return target

    return copy


@pytest.fixture
def pyapp(fixture_repo) -> Path:
    """The Python package, plus what the walk must skip: a .gitignore'd build/ dir and log,
    a binary file, a huge file, hidden files (.env with a secret, .git/config)."""
    root = fixture_repo("pyapp")
    (root / ".gitignore").write_text("build/\n*.log\n")
    (root / "build").mkdir()
    (root / "build" / "generated.py").write_text("GENERATED = True\n")
    (root / "debug.log").write_text("noise\n")
    (root / "logo.png").write_bytes(b"\x89PNG\r\n\x1a\n\x00\x00binary")
    (root / "dump.sql").write_text("-- data\n" * 40_000)  # ~320 kB: over the size limit
    (root / ".env").write_text("API_KEY=sk-live-secret\n")
    (root / ".git").mkdir()
    (root / ".git" / "config").write_text("[remote]\n url = https://token@example.invalid\n")
    return root
