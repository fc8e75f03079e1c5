"""A test file cut off at the reply's length limit is kept up to the cut (build/cut_tests.py):
the 1.5B's notes N1 spent five calls on test files that ran to the limit and were refused as
"does not parse". Real build: git, sandbox, pytest, scripted task agents."""

from __future__ import annotations

from build_replies import file_reply, no_wiring, reply_with_tests, tasks
from test_build_test_scope import MODELS, todo_request

from codeloop.build.cut_tests import whole_part
from codeloop.build.repo import merged_tasks

HEAD = "from app.a import a\n\n\n"
GOOD = "def test_one():\n    assert a() == 1\n\n\ndef test_int():\n    assert isinstance(a(), int)\n"
RUNAWAY = "\n\ndef test_more():\n" + "    assert a() == 1\n" * 40 + "    assert a() == 'uncut"


def test_a_cut_test_file_is_kept_to_its_last_whole_line():
    kept = whole_part(HEAD + GOOD + RUNAWAY)
    assert kept is not None and kept.startswith(HEAD + GOOD)
    assert kept.count("    assert a() == 1\n") == 2  # the repeated line kept once
    assert "uncut" not in kept
    assert whole_part("import pytest\nx = 'uncut") is None  # no test function: nothing
    assert whole_part("def helper():\n    return 1\n\n\ndef test_x(:\n") is None


def test_a_task_whose_tests_were_cut_off_merges_on_the_part_before_the_cut(build):
    cut = {"reply": f"```python\n{HEAD}{GOOD}{RUNAWAY}", "finish": "length"}
    built = build(tasks(("A",)), {"task:A": [cut, file_reply(("app/a.py", ("def a():\n"
                                                                           "    return 1\n")))],
                                  "integration": no_wiring()})
    assert built.final["status"] == "COMPLETE", built.final
    written = (built.out / "tests" / "test_a.py").read_text()
    assert "def test_one" in written and "def test_more" in written and "uncut" not in written


# The 1.5B's loop (notes N1 at 4c7423d: one assert per line, one more literal each time, to
# the 1,024-token limit): stopped once eight lines have one shape (jobs/runaway.py).
LOOP_HEAD = "import pytest\nfrom app.models import TodoIn\n\n\ndef test_title():\n"
LOOP = "".join(f"    assert TodoIn(title='a{'!' * n}').title == 'a{'!' * n}'\n"
               for n in range(1, 40))


def test_a_looping_test_reply_is_stopped_and_kept_to_the_loop(build):
    tests = LOOP_HEAD + LOOP + "\n\ndef test_never_reached():\n    assert False\n"
    agents = {"task:T1": [reply_with_tests(tests), file_reply(("app/models.py", MODELS))],
              "integration": no_wiring()}
    built = build({**todo_request(), "tasks": todo_request()["tasks"][:1]}, agents)

    assert merged_tasks(built.out) == ["T1"]
    kept = (built.out / "tests" / "test_models.py").read_text()
    assert kept.count("assert TodoIn(") == 8 and "test_never_reached" not in kept
