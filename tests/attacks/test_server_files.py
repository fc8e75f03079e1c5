"""The build's files endpoint, attacked: `..` (plain and encoded), absolute paths, .git, a
symlink planted in the project pointing out of it, NUL. Every one is refused (400/404) and
no byte of a file outside the project is served."""

from __future__ import annotations

import json
import shutil
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "server"))
from server_kit import served
from test_api_build import EXAMPLE, wait_build

SECRET = "TOP-SECRET-outside-the-project"


def test_the_files_endpoint_never_serves_a_file_outside_the_project(tmp_path):
    shutil.copy(EXAMPLE / "scripted.yaml", tmp_path / "todo-script.yaml")
    request = json.loads((EXAMPLE / "tasks.json").read_text())
    (tmp_path / "outside.txt").write_text(SECRET)
    with served(tmp_path) as client:
        started = client.post("/api/codegen/projects/todo/generate", json={
            "request": request, "model": f"scripted:{tmp_path / 'todo-script.yaml'}"})
        assert started.status_code == 202, started.text
        assert wait_build(client, "todo")["status"] == "COMPLETE"
        project = tmp_path / "todo"
        (project / "app" / "leak.txt").symlink_to(tmp_path / "outside.txt")
        (project / "linkdir").symlink_to(tmp_path, target_is_directory=True)
        assert client.get("/api/codegen/projects/todo/files/app/models.py").status_code == 200
        for bad in ("../outside.txt", "..%2Foutside.txt", "%2e%2e/outside.txt",
                    "%2e%2e%2foutside.txt", "app/../../outside.txt", "app/..%2f..%2foutside.txt",
                    "/etc/passwd", "%2Fetc%2Fpasswd", str(tmp_path / "outside.txt"),
                    "app/leak.txt", "linkdir/outside.txt", ".git/config", ".GIT/HEAD",
                    "app/%00", "~/.bashrc"):
            answer = client.get(f"/api/codegen/projects/todo/files/{bad}")
            assert answer.status_code in (400, 404), (bad, answer.status_code)
            assert SECRET not in answer.text and "root:x:" not in answer.text, bad
        listed = [f["path"] for f in client.get("/api/codegen/projects/todo/files").json()]
        assert "app/leak.txt" not in listed and not any(p.startswith("linkdir") for p in listed)
