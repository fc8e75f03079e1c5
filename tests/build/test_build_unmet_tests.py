"""A task's own tests that its code does not meet, after the code rounds are spent (or the
code was sent back unchanged): the few failing ones are dropped and named, before any test
repair round, and the task merges (the
1.5B's B1 on the bookmarks graph: 2 of 3 tests passed, the retry's new tests reached outside
the task, and the whole graph was blocked). Most tests failing, or a failure outside the
task's file, drops nothing. Real build: git, sandbox, pytest, scripted task agents."""

from __future__ import annotations

from build_replies import file_reply, no_wiring, reply_with_tests, tasks

CODE = "def a():\n    return 1\n"
GOOD = "def test_one():\n    assert a() == 1\n\n\ndef test_int():\n    assert isinstance(a(), int)\n"
WRONG = "\n\ndef test_two():\n    assert a() == 2\n"
HEAD = "from app.a import a\n\n\n"


def _script(test_text: str) -> list[str]:
    echo = file_reply(("app/a.py", CODE))
    return [reply_with_tests(test_text), echo, *[echo] * 8]


def test_a_minority_of_failing_task_tests_is_dropped_and_named(build):
    # (the 1.5B's notes N1 and todo T1: one of two own tests failing, the same rule)
    built = build(tasks(("A",)), {"task:A": _script(HEAD + GOOD + WRONG),
                                  "integration": no_wiring()})
    assert built.final["status"] == "COMPLETE", built.final
    kept = (built.out / "tests" / "test_a.py").read_text()
    assert "def test_one" in kept and "def test_int" in kept and "test_two" not in kept
    assert "dropped 1 of 3 tests in tests/test_a.py" in "\n".join(built.progress())
    assert "test_two" in "\n".join(built.progress())
    # dropped before any test repair round: the 1.5B's repairs never once passed
    assert "one round to fix" not in "\n".join(built.progress())
    prompts = [c[-1].content for c in built.llm_for("task:A").calls]
    assert not any("may be the one that is wrong" in p for p in prompts)


def test_half_of_the_task_tests_failing_are_dropped_too(build):
    half = HEAD + "def test_one():\n    assert a() == 1\n" + WRONG
    built = build(tasks(("A",)), {"task:A": _script(half), "integration": no_wiring()})
    assert built.final["status"] == "COMPLETE", built.final
    assert "dropped 1 of 2 tests in tests/test_a.py" in "\n".join(built.progress())


def test_most_task_tests_failing_drops_nothing(build):
    wrong_two = HEAD + "def test_one():\n    assert a() == 1\n" + WRONG + \
        "\n\ndef test_three():\n    assert a() == 3\n"
    built = build(tasks(("A",)), {"task:A": _script(wrong_two) * 2,
                                  "integration": no_wiring()})
    assert built.final["status"] != "COMPLETE"
    assert "A" in built.final["failed_tasks"]
    assert "dropped" not in "\n".join(built.progress())


def test_tests_still_failing_when_the_code_rounds_are_spent_are_dropped_too(build):
    # no echo: each round changes the code (the 1.5B's inventory I2 ended its rounds so)
    varied = [file_reply(("app/a.py", f"def a():\n    return {n} - {n - 1}\n"))
              for n in range(2, 12)]
    built = build(tasks(("A",)), {"task:A": [reply_with_tests(HEAD + GOOD + WRONG), *varied],
                                  "integration": no_wiring()})
    assert built.final["status"] == "COMPLETE", built.final
    progress = "\n".join(built.progress())
    assert "dropped 1 of 3 tests in tests/test_a.py that" in progress
    assert "rounds of code did not meet: test_two" in progress
    assert "one round to fix" not in progress  # no echo, no test repair round


def test_rounds_that_end_worse_are_undone_before_the_tests_are_judged(build):
    # the 1.5B's S1 on the shortener graph: 1 of 2 own tests passing after two rounds, then a
    # module that did not import, and the task was blocked on a collection error
    worse = [file_reply(("app/a.py", f"raise RuntimeError({n})\ndef a():\n    return 1\n"))
             for n in range(8)]
    built = build(tasks(("A",)), {"task:A": [reply_with_tests(HEAD + GOOD + WRONG),
                                             file_reply(("app/a.py", CODE)), *worse],
                                  "integration": no_wiring()})
    assert built.final["status"] == "COMPLETE", built.final
    progress = "\n".join(built.progress())
    assert "the last round left fewer tests passing: back to the round where" in progress
    assert "dropped 1 of 3 tests in tests/test_a.py" in progress
    assert (built.out / "app" / "a.py").read_text() == CODE


def test_the_test_functions_of_a_file_are_its_top_level_tests():
    from codeloop.build.unmet_tests import test_functions

    assert test_functions(HEAD + GOOD + WRONG) == ["test_one", "test_int", "test_two"]
    assert test_functions("def test_x(:\n") == []


def test_after_a_test_repair_that_changed_nothing_the_build_skips_the_next(build):
    # the 1.5B never turned a test file into a passing one in 18 repair rounds: once this
    # build's model has sent its tests back unchanged, later tasks do not wait on another
    wrong_two = HEAD + "def test_one():\n    assert a() == 1\n" + WRONG + \
        "\n\ndef test_three():\n    assert a() == 3\n"
    echo = file_reply(("app/a.py", CODE))
    same_tests = file_reply(("tests/test_a.py", wrong_two))
    script = [reply_with_tests(wrong_two), echo, echo, echo, same_tests, *[echo] * 4]
    b_script = [s.replace("app/a.py", "app/b.py").replace("app.a", "app.b")
                .replace("tests/test_a.py", "tests/test_b.py") for s in script]
    built = build(tasks(("A",), ("B",)), {"task:A": script, "task:B": b_script,
                                         "integration": no_wiring()}, max_parallel=1)
    progress = "\n".join(built.progress())
    assert progress.count("one round to fix tests/test_") == 1  # the first task's only
    assert ("no round to fix tests/test_b.py: 1 test repair(s) of this build changed "
            "nothing") in progress or ("no round to fix tests/test_a.py: 1 test repair(s) "
                                       "of this build changed nothing") in progress
    assert set(built.final["failed_tasks"]) == {"A", "B"}
