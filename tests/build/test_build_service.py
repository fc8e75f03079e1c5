"""The service the HTTP server calls: start_build returns at once with the run id, the build
runs in the background, build_status follows it to the end; project files are read through
the path guard."""

from __future__ import annotations

import time

import pytest
from build_replies import func_task, no_wiring, tasks

from codeloop.build.models import scripted_agents
from codeloop.build.service import (
    BuildInputError,
    build_status,
    project_file,
    project_files,
    start_build,
)


def test_start_build_then_follow_its_status(tmp_path, store):
    agents = {"task:A": func_task("a", "1"), "task:B": func_task("b", "2"),
              "integration": no_wiring()}
    run_id = start_build(store, tasks(("A",), ("B", "A")), out_dir=str(tmp_path / "p"),
                         llm_for=scripted_agents(agents))
    seen = []
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        status = build_status(store, run_id)
        seen.append(status["status"])
        if status["status"] in ("COMPLETE", "FAILED"):
            break
        time.sleep(0.05)
    assert status["status"] == "COMPLETE", status
    assert status["progress"] == 100 and status["completed_tasks"] == ["A", "B"]
    assert status["total_tasks"] == 2 and status["failed_tasks"] == {}
    assert seen[0] in ("PENDING", "SCAFFOLDING", "GENERATING")
    assert "app/b.py" in [f["path"] for f in project_files(store, run_id)]
    assert project_file(store, run_id, "app/b.py").startswith("def b():")


def test_bad_input_and_unknown_runs(tmp_path, store):
    with pytest.raises(BuildInputError, match="unknown task 'Z'"):
        start_build(store, {"tasks": [{"id": "A", "description": "a", "depends_on": ["Z"]}]},
                    out_dir=str(tmp_path / "p"), llm_for=scripted_agents({}))
    assert not (tmp_path / "p").exists()
    assert store.list_runs("build") == []
    with pytest.raises(KeyError):
        build_status(store, "build-nope")


def test_project_files_stay_inside_the_project(tmp_path, build):
    built = build(tasks(("A",)), {"task:A": func_task("a", "1"),
                                  "integration": no_wiring()})
    (tmp_path / "secret.txt").write_text("outside")
    (built.out / "link.txt").symlink_to(tmp_path / "secret.txt")
    for path in ("../secret.txt", "/etc/passwd", "link.txt", ".git/config", "app/../../x"):
        with pytest.raises(KeyError):
            project_file(built.store, built.run_id, path)
    assert "link.txt" not in [f["path"] for f in project_files(built.store, built.run_id)]
