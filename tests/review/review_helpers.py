"""Shared pieces for the review engine's tests: the buggy file, its test and its fix, scripted
replies, and a hash of a whole tree (nothing written before approval)."""

from __future__ import annotations

import hashlib
import os
from pathlib import Path

BUGGY = "def add(a, b):\n    return a - b\n"
FIXED = "def add(a, b):\n    return a + b\n"
TEST = "from calc import add\n\n\ndef test_add():\n    assert add(1, 2) == 3\n"
FIX_EDIT = ("calc.py\n<<<<<<< SEARCH\n    return a - b\n=======\n    return a + b\n"
            ">>>>>>> REPLACE\n")


# the reviewer's first call on a change request: the request as a test (request_test.py);
# this reply holds none, so the review goes on without one (both rounds answer it)
NO_REQUEST_TEST = {"match": "Before anyone changes the code", "reply": "I cannot test that."}


def approve(*suggestions: str) -> dict:
    return {"json": {"approved": True, "issues": [], "suggestions": list(suggestions)}}


def disapprove(*issues: str) -> dict:
    return {"json": {"approved": False, "issues": list(issues), "suggestions": []}}


def tree_hash(root: Path) -> str:
    """Every path, mode and byte under root (links not followed)."""
    digest = hashlib.sha256()
    for current, dirs, files in sorted(os.walk(root)):
        dirs.sort()
        for name in sorted(dirs + files):
            path = Path(current, name)
            st = path.lstat()
            digest.update(f"{path.relative_to(root)}|{st.st_mode}|".encode())
            if path.is_file() and not path.is_symlink():
                digest.update(path.read_bytes())
    return digest.hexdigest()
