"""A job started through the API never makes a directory a git repository unless the request
says so: an agent on a plain directory is a 400 ("not a git repository; pass init_git") before
any run, and `init_git: true` is the one way to have it initialise one; a review works on a
plain directory without git; a build only makes its own new project a repository (its
directory must be new or empty), never an existing directory with files in it."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest
from server_kit import (
    REVIEW_SCRIPT,
    review_workspace,
    served,
    start,
    wait_status,
    write_script,
)
from test_api_build import EXAMPLE

AGENT_REPLIES = [json.dumps({"thought": "look", "tool": "read_file"}),
                 json.dumps({"path": "calc.py", "start_line": None, "end_line": None}),
                 json.dumps({"thought": "done", "tool": "finish"}),
                 json.dumps({"answer": "add() subtracts: it is a bug"})]


def _tree(directory: Path) -> list[tuple[str, int]]:
    """Every file under `directory` with its size, the server's own run store left out."""
    return sorted((str(p.relative_to(directory)), p.lstat().st_size)
                  for p in directory.rglob("*") if not p.name.startswith("runs.sqlite"))


@pytest.mark.attack
def test_an_agent_on_a_plain_directory_is_refused_and_no_git_is_made(tmp_path):
    ws = review_workspace(tmp_path)
    (tmp_path / "notes.txt").write_text("the server's root holds files too\n")
    model = write_script(tmp_path, AGENT_REPLIES, "agent.yaml")
    with served(tmp_path) as client:
        before = _tree(tmp_path)
        for workspace in (str(ws), ".", str(tmp_path)):  # the root itself: the audit's click
            for extra in ({}, {"init_git": False}):
                answer = client.post("/api/runs", json={"job": "agent", "params": {
                    "workspace": workspace, "request": "What is wrong?", "model": model,
                    **extra}})
                assert answer.status_code == 400, (workspace, answer.text)
                detail = answer.json()["detail"]
                assert "not a git repository" in detail and "init_git" in detail, detail
                assert "\n" not in detail
        assert client.get("/api/runs").json()["total"] == 0
    assert not (ws / ".git").exists() and not (tmp_path / ".git").exists()
    assert _tree(tmp_path) == before


def test_init_git_true_initialises_the_workspace_and_the_agent_runs(tmp_path):
    ws = review_workspace(tmp_path)
    model = write_script(tmp_path, AGENT_REPLIES, "agent.yaml")
    with served(tmp_path) as client:
        run_id = start(client, "agent", {"workspace": str(ws), "request": "What is wrong?",
                                         "model": model, "init_git": True})
        detail = wait_status(client, run_id, {"succeeded", "failed"})
        assert detail["status"] == "succeeded", detail["result"]
    assert (ws / ".git").is_dir()
    assert not (tmp_path / ".git").exists()  # only the workspace named


def test_an_agent_on_an_existing_repository_needs_no_flag(tmp_path):
    ws = review_workspace(tmp_path)
    subprocess.run(["git", "init", "-q", str(ws)], check=True)
    model = write_script(tmp_path, AGENT_REPLIES, "agent.yaml")
    with served(tmp_path) as client:
        run_id = start(client, "agent", {"workspace": str(ws), "request": "What is wrong?",
                                         "model": model})
        detail = wait_status(client, run_id, {"succeeded", "failed"})
        assert detail["status"] == "succeeded", detail["result"]


def test_a_review_on_a_plain_directory_writes_its_fix_without_making_a_repository(tmp_path):
    ws = review_workspace(tmp_path)
    model = write_script(tmp_path, REVIEW_SCRIPT, "review.yaml")
    with served(tmp_path) as client:
        run_id = start(client, "review", {"workspace": str(ws), "files": ["calc.py"],
                                          "model": model, "approve": True})
        detail = wait_status(client, run_id, {"succeeded", "failed"},
                             timeout=120)
        assert detail["status"] == "succeeded", detail
    assert not (ws / ".git").exists() and not (tmp_path / ".git").exists()


def test_a_build_into_a_directory_with_files_is_refused_and_makes_no_repository(tmp_path):
    request = json.loads((EXAMPLE / "tasks.json").read_text())
    (tmp_path / "notes.txt").write_text("a file of the user's\n")
    with served(tmp_path) as client:
        for out_dir in (".", str(tmp_path)):
            answer = client.post("/api/runs", json={"job": "build", "params": {
                "out_dir": out_dir, "request": request}})
            assert answer.status_code == 400, answer.text
            assert "not empty" in answer.json()["detail"]
        assert client.get("/api/runs").json()["total"] == 0
    assert not (tmp_path / ".git").exists()
