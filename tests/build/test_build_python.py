"""The build job end to end on python-api: scripted task agents write real files with real
tests that pass under the real pytest, in the sandbox, on real git branches and worktrees;
dispatch order and the parallel cap are read from the run's events."""

from __future__ import annotations

from build_replies import func_task, no_wiring, tasks

from codeloop.build.repo import merged_tasks
from codeloop.build.service import build_status, project_file, project_files
from codeloop.gitutil import git

SLOW = "import time\n\ntime.sleep(1.5)\n"  # a test module that takes 1.5 s to import


def integration():
    return no_wiring()


def test_tasks_dispatch_on_merges_within_the_cap(build):
    # A is slow; C needs only B; D and E are free. With two slots, C starts as soon as B is
    # merged, while A still runs (not level by level), and never more than two run at once.
    agents = {"task:A": func_task("a", "1", test_extra=SLOW), "task:B": func_task("b", "2"),
              "task:C": func_task("c", "3"), "task:D": func_task("d", "4"),
              "task:E": func_task("e", "5"), "integration": integration()}
    built = build(tasks(("A",), ("B",), ("C", "B"), ("D",), ("E",)), agents, max_parallel=2)

    assert built.final["status"] == "COMPLETE", built.final
    assert sorted(built.final["completed_tasks"]) == ["A", "B", "C", "D", "E"]
    order = built.task_events()
    running, peak = set(), 0
    for kind, task_id, _ts in order:
        if kind == "start":
            running.add(task_id)
            peak = max(peak, len(running))
        else:
            running.discard(task_id)
    assert peak == 2
    seq = [(kind, task_id) for kind, task_id, _ in order]
    assert seq[:2] == [("start", "A"), ("start", "B")]
    assert seq.index(("start", "C")) > seq.index(("end", "B"))
    assert seq.index(("start", "C")) < seq.index(("end", "A"))  # not level by level
    # Every task is one squash commit on main, in merge order, and no branch is left.
    assert merged_tasks(built.out) == built.final["completed_tasks"]
    assert git(["branch", "--format=%(refname:short)"], built.out).stdout.split() == ["main"]
    for name in "abcde":
        assert (built.out / "app" / f"{name}.py").is_file()
        assert (built.out / "tests" / f"test_{name}.py").is_file()
    assert git(["status", "--porcelain"], built.out).stdout == ""
    # The whole suite ran once more at the end: the scaffold's test and the five tasks'.
    results = [e for e in built.events if e.type == "test_result"]
    assert (results[-1].passed, results[-1].failed) == (6, 0)


def test_status_and_files_for_the_server(build):
    agents = {"task:A": func_task("a", "1"), "integration": integration()}
    built = build(tasks(("A",)), agents)
    status = build_status(built.store, built.run_id)
    assert status["status"] == "COMPLETE" and status["progress"] == 100
    assert status["completed_tasks"] == ["A"] and status["total_tasks"] == 1
    assert status["current_tasks"] == [] and status["failed_tasks"] == {}
    assert status["run_status"] == "succeeded" and status["tech_stack"] == "python-api"
    paths = [f["path"] for f in project_files(built.store, built.run_id)]
    assert "app/a.py" in paths and "tests/test_a.py" in paths
    assert not any(p.startswith(".git/") for p in paths)
    assert project_file(built.store, built.run_id, "app/a.py") == "def a():\n    return 1\n"
    # The events say each step: started, tests written, tests pass, merged.
    progress = built.progress()
    assert "A: writing tests (tests/test_a.py)" in progress
    assert any(m.startswith("A: tests pass (") for m in progress)
    assert "A: merged into main" in progress
