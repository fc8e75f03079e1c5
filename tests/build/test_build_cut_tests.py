"""A test file cut off at the reply's length limit is kept up to the cut (build/cut_tests.py):
the 1.5B's notes N1 spent five calls on test files that ran to the limit and were refused as
"does not parse". Real build: git, sandbox, pytest, scripted task agents."""

from __future__ import annotations

from build_replies import file_reply, no_wiring, tasks

from codeloop.build.cut_tests import whole_part

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
