"""A task whose tests keep failing: the fix loop is told the concrete failure, the attempt is
retried with exponential backoff (the sleep is injected: nothing waits), then the task is
blocked, its dependents too, and more than half blocked fails the build with the merged
work kept on main."""

from __future__ import annotations

from build_replies import file_reply, func_task, no_wiring, task_script, tasks

from codeloop.build.repo import branch_exists, merged_tasks

WRONG_TEST = "from app.a import a\n\n\ndef test_a():\n    assert a() == 42\n"


def failing_attempt(n: int) -> list:
    """Tests expect 42; the code returns n, and the fix returns n + 100: still wrong."""
    return task_script("tests/test_a.py", WRONG_TEST, "app/a.py", f"def a():\n    return {n}\n",
                       fixes=[("app/a.py", f"def a():\n    return {n + 100}\n")])


def test_failing_task_is_fixed_retried_then_blocked_with_its_dependents(build):
    agents = {"task:A": failing_attempt(1) + failing_attempt(2) + failing_attempt(3),
              "task:D": func_task("d", "4")}
    built = build(tasks(("A",), ("B", "A"), ("C", "B"), ("D",)), agents, retries=2,
                  fix_rounds=1, backoff_seconds=1.0)

    final = built.final
    assert final["status"] == "FAILED"
    assert "3 of 4 tasks were not merged" in final["error"]
    assert final["completed_tasks"] == ["D"]
    assert final["blocked_tasks"] == ["A", "B", "C"]
    assert "tests fail" in final["failed_tasks"]["A"]
    assert "(after 3 attempt(s))" in final["failed_tasks"]["A"]
    assert final["failed_tasks"]["B"] == "blocked: depends on A, which was not merged"
    assert "depends on A" in final["failed_tasks"]["C"]
    # Exponential backoff between the three attempts, through the injected sleep.
    assert built.sleeps == [1.0, 2.0]
    progress = built.progress()
    assert sum(m.startswith("A: tests failed (") and m.endswith("fix 1/1") for m in progress) == 3, progress
    assert any(m.startswith("A: retry 2/2 in 2 s") for m in progress)
    assert any(m.startswith("A: blocked (") and "blocked too: B, C" in m for m in progress)
    # B and C never started; D's work is kept on main, A's branch is kept for a look.
    started = [t for kind, t, _ in built.task_events() if kind == "start"]
    assert sorted(started) == ["A", "D"]
    assert merged_tasks(built.out) == ["D"]
    assert (built.out / "app" / "d.py").is_file() and not (built.out / "app" / "a.py").exists()
    assert branch_exists(built.out, "task/A")
    # No integration for a failed build.
    assert not any(e.type == "stage_start" and e.stage == "integration" for e in built.events)
    record = built.store.get_run(built.run_id)
    assert (record.status, record.outcome) == ("failed", "1 of 4 tasks merged, 3 blocked")


def test_the_fix_request_holds_the_concrete_failure(build):
    fixed = task_script("tests/test_a.py", WRONG_TEST, "app/a.py", "def a():\n    return 1\n",
                        fixes=[("app/a.py", "def a():\n    return 42\n")])
    agents = {"task:A": fixed, "integration": no_wiring()}
    built = build(tasks(("A",)), agents, fix_rounds=3)
    assert built.final["status"] == "COMPLETE"
    assert built.sleeps == []
    progress = built.progress()
    # pytest's own summary, and the failing assertion itself went to the next round.
    assert any(m.startswith("A: tests failed (1 passed, 1 failed") for m in progress), progress
    calls = [call[-1].content for call in built.llm_for("task:A").calls]
    assert len(calls) == 3  # the tests, the code, one fix
    assert "assert 1 == 42" not in calls[1] and "assert 1 == 42" in calls[2]


def test_a_task_that_writes_no_tests_is_not_accepted(build):
    # Tests come first: a reply of code alone is asked for again, told it holds no test;
    # the same reply again ends the asking (an echo), and the attempt fails before any code
    # is asked for.
    code_only = [file_reply(("app/a.py", "def a():\n    return 1\n"))] * 3
    built = build(tasks(("A",), ("B",), ("C",)), {"task:A": code_only,
                                                   "task:B": func_task("b", "2"),
                                                   "task:C": func_task("c", "3"),
                                                   "integration": no_wiring()})
    assert built.final["failed_tasks"]["A"].startswith(
        "blocked: the tests stay outside the task: the file holds no test"), built.final
    prompts = [call[-1].content for call in built.llm_for("task:A").calls]
    assert len(prompts) == 2 and all("Write tests/test_a.py" in p for p in prompts)
    assert "the file holds no test (a function named test_...)" in prompts[1]
    # One of three not merged is not more than half: the build completes without it.
    assert built.final["status"] == "COMPLETE"
    assert sorted(built.final["completed_tasks"]) == ["B", "C"]
