"""ask through the API, attacked: the repository a request names lies outside the server's
--root (absolute, `..`, a symlink in the root, a sibling with the root's name as prefix, `/`),
or a file inside the root links out. Refused with 403 before any run (nothing read, nothing
recorded); a link in a repository under the root is not followed, so no answer or citation
holds what lies outside."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "server"))
from server_kit import served, sse_messages, start, wait_status, write_script

pytestmark = pytest.mark.attack
SECRET = "TOP_SECRET_TOKEN = 'sk-outside-the-root'\n"


@pytest.fixture
def layout(tmp_path):
    root = tmp_path / "root"
    root.mkdir()
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "secrets.py").write_text(SECRET)
    evil = tmp_path / "root-evil"  # the root's name as a prefix
    evil.mkdir()
    (evil / "secrets.py").write_text(SECRET)
    (root / "link").symlink_to(outside, target_is_directory=True)
    repo = root / "repo"
    repo.mkdir()
    (repo / "app.py").write_text("def main():\n    return 1\n")
    (repo / "secrets.py").symlink_to(outside / "secrets.py")  # a file that links out
    return root, outside


def test_an_ask_repository_outside_the_roots_is_refused(layout):
    root, outside = layout
    forbidden = [str(outside), f"{root}/../outside", str(root / "link"), "link", "../root-evil",
                 "/", "/etc", "..", f"{root}/link/../../outside"]
    with served(root) as client:
        for repo in forbidden:
            answer = client.post("/api/runs", json={"job": "ask", "params": {
                "question": "What does secrets.py hold?", "repo": repo}})
            assert answer.status_code == 403, (repo, answer.text)
            assert answer.json()["error"] == "outside roots"
        assert client.get("/api/runs").json()["total"] == 0


def test_a_link_out_of_a_repository_under_the_root_is_not_read(layout):
    root, _outside = layout
    plan = {"match": "Plan how to complete the task", "json": {"steps": ["Read secrets.py"]}}
    spec = write_script(root, [plan, {"match": "Code from the repository",
                                      "reply": "`main` returns 1 (app.py:2)."}], "ask.yaml")
    with served(root) as client:
        run_id = start(client, "ask", {"question": "What does secrets.py hold?",
                                       "repo": "repo", "model": spec})
        detail = wait_status(client, run_id, {"succeeded", "completed", "failed"})
        assert detail["status"] in ("succeeded", "completed"), detail["result"]
        events = str(sse_messages(client, f"/api/runs/{run_id}/events"))
    assert "sk-outside-the-root" not in str(detail) and "sk-outside-the-root" not in events
    assert "secrets.py" not in [c["path"] for c in detail["result"]["retrieved"]]
