"""The digest that binds an approval to the pending change (approval.py says why): the
one definition that approval, persistence and the outcome a front end shows all use."""

from __future__ import annotations

import hashlib
import json
from typing import Any


def diff_digest(diffs: list[dict[str, Any]]) -> str:
    """sha256 of the pending diffs: each one's path, original text and new text, in order."""
    canonical = json.dumps([[d["file_path"], d["original_content"], d["modified_content"]]
                            for d in diffs], ensure_ascii=True, separators=(",", ":"))
    return hashlib.sha256(canonical.encode("ascii")).hexdigest()
