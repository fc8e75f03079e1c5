"""The build job's endpoints on the bundled scripted example (examples/build/todo): generate,
status until complete, the project's files and one file's text; bad requests are 400 before
any run. (Traversal on the files endpoint: tests/attacks/test_server_files.py.)"""

from __future__ import annotations

import json
import shutil
import time
from pathlib import Path

import pytest
from server_kit import served

from codeloop.store import RunStore

EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "build" / "todo"


@pytest.fixture
def todo(tmp_path):
    shutil.copy(EXAMPLE / "scripted.yaml", tmp_path / "todo-script.yaml")
    return json.loads((EXAMPLE / "tasks.json").read_text()), \
        f"scripted:{tmp_path / 'todo-script.yaml'}"


def wait_build(client, project: str, timeout: float = 240) -> dict:
    deadline = time.monotonic() + timeout
    while True:
        status = client.get(f"/api/codegen/projects/{project}/generate/status").json()
        if status["run_status"] not in ("running", "queued"):
            return status
        assert time.monotonic() < deadline, status
        time.sleep(0.2)


def test_generate_a_project_follow_it_and_read_its_files(tmp_path, todo):
    request, model = todo
    with served(tmp_path) as client:
        started = client.post("/api/codegen/projects/todo-api/generate",
                              json={"request": request, "model": model, "max_parallel": 2})
        assert started.status_code == 202, started.text
        run_id = started.json()["run_id"]
        first = client.get("/api/codegen/projects/todo-api/generate/status").json()
        assert first["run_id"] == run_id and first["total_tasks"] == 3
        status = wait_build(client, "todo-api")
        assert status["status"] == "COMPLETE", status
        assert status["progress"] == 100 and sorted(status["completed_tasks"]) == [
            "T1", "T2", "T3"]
        assert status["failed_tasks"] == {} and status["blocked_tasks"] == []
        listed = {f["path"] for f in client.get("/api/codegen/projects/todo-api/files").json()}
        assert {"app/models.py", "app/storage.py", "app/routes.py"} <= listed
        assert not any(p.startswith(".git/") for p in listed)
        text = client.get("/api/codegen/projects/todo-api/files/app/models.py")
        assert text.status_code == 200 and "class TodoIn" in text.text
        assert text.headers["content-type"].startswith("text/plain")
        run = client.get(f"/api/runs/{run_id}").json()
        assert run["job"] == "build" and run["tokens"] > 0
        assert run["model"] == model  # the runs list names the model of every job's runs


def test_bad_builds_are_refused_before_any_run(tmp_path, todo):
    request, model = todo
    (tmp_path / "taken").mkdir()
    (tmp_path / "taken" / "file.txt").write_text("x")
    with served(tmp_path) as client:
        cycle = {"tasks": [{"id": "A", "description": "a", "depends_on": ["B"]},
                           {"id": "B", "description": "b", "depends_on": ["A"]}]}
        answer = client.post("/api/codegen/projects/p1/generate", json={"request": cycle})
        assert answer.status_code == 400 and "cycle" in answer.json()["detail"].lower()
        taken = client.post("/api/codegen/projects/taken/generate",
                            json={"request": request, "model": model})
        assert taken.status_code == 400 and "not empty" in taken.json()["detail"]
        outside = client.post("/api/runs", json={"job": "build", "params": {
            "request": request, "model": model, "out_dir": str(tmp_path.parent / "x")}})
        assert outside.status_code == 403
        assert client.get("/api/codegen/projects/p1/generate/status").status_code == 404
        assert client.get("/api/codegen/projects/p1/files").status_code == 404
        assert client.post("/api/codegen/projects/..%2Fx/generate",
                           json={"request": request}).status_code in (404, 422)
        assert client.get("/api/runs").json()["total"] == 0


def test_a_file_the_system_cannot_read_is_a_404_not_a_server_error(tmp_path):
    store_path = tmp_path / "runs.sqlite"
    (tmp_path / "proj").mkdir()
    (tmp_path / "proj" / "main.py").write_text("print('hi')\n")
    with RunStore(store_path) as store, store.run("build", {
            "request": {"tasks": []}, "out_dir": str(tmp_path.resolve() / "proj")}) as run:
        run.finish("complete", {"status": "COMPLETE"})
    with served(tmp_path, store=store_path) as client:
        ok = client.get("/api/codegen/projects/proj/files/main.py")
        assert ok.status_code == 200 and ok.text == "print('hi')\n"
        # a name longer than the file system takes: OSError (ENAMETOOLONG), not a 500
        answer = client.get("/api/codegen/projects/proj/files/" + "a" * 300)
        assert answer.status_code == 404, answer.text
        assert answer.json()["error"] == "not found" and "too long" in answer.json()["detail"]
