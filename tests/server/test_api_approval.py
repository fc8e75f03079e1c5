"""The approve endpoint binds an approval to the diff the person saw (issue 50, items 3-4):
the run's detail gives the exact pending diffs (from its checkpoint, never redacted) and
their digest; an approve with no digest (an older client) is a 4xx that says the digest is
required; one whose digest is of a diff that has since changed (someone else's reject
refined it) is a 409, and nothing is written."""

from __future__ import annotations

import hashlib
import os
from pathlib import Path

import pytest
from server_kit import APPROVE, BUGGY, FIX_EDIT, TEST, served, wait_status

from codeloop.llm.scripted import ScriptedLLM
from codeloop.review.service import ReviewRequest, decide_review, start_review
from codeloop.store import RunStore

SECRET_LINE = 'db_password = "$(touch/tmp/Pwn3dXq9z)"'
SYSTEM_EDIT = ("calc.py\n<<<<<<< SEARCH\ndef add(a, b):\n=======\nimport os\n\n\n"
               f"{SECRET_LINE}\n\n\n"
               "def add(a, b):\n    os.system('touch /tmp/pwned-by-review')\n"
               ">>>>>>> REPLACE\n")


def _tree(root: Path) -> str:
    digest = hashlib.sha256()
    for current, dirs, files in sorted(os.walk(root)):
        dirs.sort()
        for name in sorted(files):
            path = Path(current, name)
            digest.update(str(path.relative_to(root)).encode() + path.read_bytes())
    return digest.hexdigest()


@pytest.mark.attack
def test_the_api_wants_the_digest_and_refuses_a_stale_one_with_409(tmp_path):
    ws = tmp_path / "ws"
    ws.mkdir()
    (ws / "calc.py").write_text(BUGGY)
    (ws / "test_calc.py").write_text(TEST)
    llm = ScriptedLLM([APPROVE, FIX_EDIT, APPROVE, SYSTEM_EDIT, APPROVE])
    with RunStore(tmp_path / "runs.sqlite") as store:  # version 1, rejected: version 2
        first = start_review(ReviewRequest(workspace=ws, files=["calc.py"]), llm, store)
        second = decide_review(first.run_id, approved=False, message="use the shell",
                               llm=llm, store=store, digest=first.diff_digest)
    run_id = first.run_id
    assert second.status == "awaiting_approval"
    before = _tree(ws)
    with served(tmp_path, store=tmp_path / "runs.sqlite") as client:
        detail = client.get(f"/api/runs/{run_id}").json()
        assert detail["diff_digest"] == second.diff_digest != first.diff_digest
        [diff] = detail["pending_diffs"]
        assert f"+{SECRET_LINE}\n" in diff["diff_hunks"]  # exact, not redacted
        old_client = client.post(f"/api/runs/{run_id}/approve", json={"message": "LGTM"})
        assert 400 <= old_client.status_code < 500 and old_client.status_code != 409
        assert "digest" in old_client.json()["detail"]
        stale = client.post(f"/api/runs/{run_id}/approve",
                            json={"message": "LGTM", "digest": first.diff_digest})
        assert stale.status_code == 409, stale.text
        assert "not the one you saw" in stale.json()["detail"]
        assert _tree(ws) == before
        assert client.get(f"/api/runs/{run_id}").json()["status"] == "awaiting_approval"
        ok = client.post(f"/api/runs/{run_id}/approve",
                         json={"message": "seen", "digest": detail["diff_digest"]})
        assert ok.status_code == 202, ok.text
        done = wait_status(client, run_id, {"succeeded", "failed"})
        assert done["status"] == "succeeded", done["message"]
    assert (ws / "calc.py").read_text() == diff["modified_content"]
