"""MergeAgent: two tasks that started from the same main both create app/registry.py. The
second merge conflicts: its branch is rebased, the model resolves the file, the tests run
again, and it is squash-merged; or the resolution fails and the branch is kept, the task
failed naming the conflicting file."""

from __future__ import annotations

from build_replies import no_wiring, task_script, tasks

from codeloop.build.repo import branch_exists, merged_tasks

ALPHA = "def alpha():\n    return 'a'\n"
BETA = "def beta():\n    return 'b'\n"
BOTH = ALPHA + "\n\n" + BETA


def registry_task(name: str, code: str) -> list:
    test = f"from app.registry import {name}\n\n\ndef test_{name}():\n    assert {name}() == " \
           f"{name[0]!r}\n"
    return task_script(f"tests/test_{name}.py", test, "app/registry.py", code)


def agents(merge: list) -> dict:
    return {"task:A": registry_task("alpha", ALPHA), "task:B": registry_task("beta", BETA),
            "merge": merge, "integration": no_wiring()}


def request():
    data = tasks(("A",), ("B",))
    data["tasks"][0]["keywords"] = ["alpha"]
    data["tasks"][1]["keywords"] = ["beta"]
    return data


def test_a_conflict_is_resolved_by_the_model_and_tested_again(build):
    built = build(request(), agents([f"Both kept:\n```python\n{BOTH}```\n"]), max_parallel=2)

    assert built.final["status"] == "COMPLETE", built.final
    assert sorted(merged_tasks(built.out)) == ["A", "B"]
    assert (built.out / "app" / "registry.py").read_text() == BOTH
    progress = built.progress()
    second = built.final["completed_tasks"][1]
    assert f"{second}: merge conflict in app/registry.py; rebasing" in progress
    assert f"{second}: conflict resolved in app/registry.py; testing" in progress
    prompt = built.llm_for("merge").calls[0][-1].content
    assert "<<<<<<<" in prompt and "app/registry.py" in prompt
    assert not branch_exists(built.out, "task/A") and not branch_exists(built.out, "task/B")
    results = [e for e in built.events if e.type == "test_result"]
    assert (results[-1].passed, results[-1].failed) == (3, 0)  # health, alpha, beta


def test_an_unresolved_conflict_keeps_the_branch_and_names_the_file(build):
    markers = f"```python\n<<<<<<< HEAD\n{ALPHA}=======\n{BETA}>>>>>>> theirs\n```"
    built = build(request(), agents([markers, markers]), max_parallel=2)  # two rounds

    first, = built.final["completed_tasks"]
    second = "B" if first == "A" else "A"
    reason = built.final["failed_tasks"][second]
    # The markers never reach the file: a reply holding them does not parse, twice.
    assert reason.startswith("merge conflict in app/registry.py not resolved: no resolved "
                             "app/registry.py came back (the new app/registry.py does not "
                             "parse as Python"), reason
    assert f"branch task/{second} kept" in reason
    assert branch_exists(built.out, f"task/{second}")
    assert second not in built.final["blocked_tasks"]
    # One of two not merged is not more than half: the build goes on, main holds the first.
    assert built.final["status"] == "COMPLETE"
    assert merged_tasks(built.out) == [first]
    assert "<<<<<<<" not in (built.out / "app" / "registry.py").read_text()
