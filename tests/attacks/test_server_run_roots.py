"""The server's --root binds every run it shows, not only the requests that start one: a
review recorded by the CLI (`codeloop review --no-input`) in a workspace outside the roots
shares the server's store, and no route may read it (its pending diff holds the whole file),
stream it, approve it (a write outside the roots), reject, cancel or resume it, or list it.
Each answer is the 404 of a run that does not exist. A run inside the roots whose workspace
was later swapped for a link out is hidden the same way (judged by where it resolves now)."""

from __future__ import annotations

import sys
from pathlib import Path

from typer.testing import CliRunner

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "server"))
from server_kit import FIXED, REVIEW_SCRIPT, review_workspace, served, sse_messages, write_script

from codeloop.cli import app as cli


def _cli_review(workspace: Path, script_dir: Path, store: Path) -> str:
    """A review run as a terminal user starts it, left waiting for approval; its run id."""
    spec = write_script(script_dir, REVIEW_SCRIPT, f"{workspace.name}-script.yaml")
    result = CliRunner().invoke(cli, ["review", "calc.py", "-w", str(workspace), "--no-input",
                                      "--json", "--model", spec, "--store", str(store)])
    assert result.exit_code == 0, result.output
    from codeloop.store import RunStore

    with RunStore(store) as runs:
        [record] = [r for r in runs.list_runs("review", 100)
                    if r.input.get("workspace") == str(workspace.resolve())]
    assert record.status == "awaiting_approval", record
    return record.id


class _Answer:
    """What a route said: its status and body (a stream is left as soon as it answers)."""

    def __init__(self, status_code: int, text: str) -> None:
        self.status_code, self.text = status_code, text

    def json(self):
        import json

        return json.loads(self.text)


def _opened(client, url: str) -> _Answer:
    with client.stream("GET", url) as response:  # a waiting run's stream stays open
        if response.status_code == 200:
            return _Answer(200, "(a stream)")
        return _Answer(response.status_code, response.read().decode())


def _every_route(client, run_id: str) -> dict[str, object]:
    return {
        "read": client.get(f"/api/runs/{run_id}"),
        "events": _opened(client, f"/api/runs/{run_id}/events"),
        "events after": _opened(client, f"/api/runs/{run_id}/events?after=0"),
        "approve": client.post(f"/api/runs/{run_id}/approve", json={"message": "ok"}),
        "reject": client.post(f"/api/runs/{run_id}/reject", json={"message": "no"}),
        "resume": client.post(f"/api/runs/{run_id}/resume"),
        "cancel": client.delete(f"/api/runs/{run_id}"),
    }


def test_a_cli_run_outside_the_roots_is_not_there_for_the_api(tmp_path):
    store = tmp_path / "runs.sqlite"
    root = tmp_path / "root"
    root.mkdir()
    outside = review_workspace(tmp_path, "outside")
    inside = review_workspace(root, "inside")
    hidden = _cli_review(outside, tmp_path, store)
    shown = _cli_review(inside, tmp_path, store)
    original = (outside / "calc.py").read_text()
    with served(root, store=store) as client:
        # the run exists in the store and its diff would reveal the whole file
        assert client.app_state.store.get_run(hidden).result["pending_diffs"]
        for route, answer in _every_route(client, hidden).items():
            assert answer.status_code == 404, (route, answer.text)
            assert answer.json()["error"] == "not found", route
            assert FIXED not in answer.text and str(outside) not in answer.text, route
        listed = client.get("/api/runs").json()
        assert [r["id"] for r in listed["runs"]] == [shown] and listed["total"] == 1
        for query in ("?job=review", "?status=awaiting_approval", "?status=running",
                      "?offset=0&limit=1"):
            ids = [r["id"] for r in client.get(f"/api/runs{query}").json()["runs"]]
            assert hidden not in ids, query
        # the all-runs stream replays the visible run's events and none of the hidden one's
        count = client.get(f"/api/runs/{shown}").json()["events"]
        replay = sse_messages(client, "/api/workflow/stream?after=0", limit=count)
        assert {m["data"]["run_id"] for m in replay} == {shown}
        # nothing happened to it: still waiting, the file outside untouched
        assert client.app_state.store.get_run(hidden).status == "awaiting_approval"
    assert (outside / "calc.py").read_text() == original


def test_a_workspace_swapped_for_a_link_out_hides_its_run(tmp_path):
    store = tmp_path / "runs.sqlite"
    root = tmp_path / "root"
    root.mkdir()
    inside = review_workspace(root, "inside")
    run_id = _cli_review(inside, tmp_path, store)
    outside = review_workspace(tmp_path, "outside")
    inside.rename(tmp_path / "moved")
    inside.symlink_to(outside, target_is_directory=True)  # the recorded path now leads out
    with served(root, store=store) as client:
        for route, answer in _every_route(client, run_id).items():
            assert answer.status_code == 404, (route, answer.text)
        assert client.get("/api/runs").json()["total"] == 0
    assert (outside / "calc.py").read_text() != FIXED
