"""A task's code that raises in its own module, sent back unchanged twice: the next round is
the first prompt again (the module not shown, the error said), sampled, and no round is spent
on repairing the tests, which no test change mends (the 1.5B's bookmarks B1 sent the same
failing `@validator(..., mode='before')` back through every framing; its B2 and todo T2 set
`.id` on a pydantic model without one, raised inside pydantic). Real build: git, sandbox,
pytest, scripted task agents."""

from __future__ import annotations

from build_replies import file_reply, no_wiring, reply_with_tests, tasks

from codeloop.jobs.edit_engine.rounds import FRESH_TEMPERATURE

TESTS = "from app.a import a\n\n\ndef test_one():\n    assert a() == 1\n"
RAISES = file_reply(("app/a.py", "def a():\n    return int('one')\n"))
RIGHT = file_reply(("app/a.py", "def a():\n    return 1\n"))


def test_code_that_raises_twice_unchanged_gets_the_first_prompt_again(build):
    built = build(tasks(("A",)), {"task:A": [reply_with_tests(TESTS), RAISES, RAISES, RAISES,
                                             RIGHT], "integration": no_wiring()})
    assert built.final["status"] == "COMPLETE", built.final
    progress = "\n".join(built.progress())
    assert "app/a.py raises: the first prompt again" in progress
    llm = built.llm_for("task:A")
    fresh = llm.calls[4][-1].content
    assert "An earlier answer to this request did not work: app/a.py line 2 " in fresh
    assert "ValueError: invalid literal" in fresh and "int('one')" in fresh
    assert "FILE: app/a.py\n" not in fresh  # the module that raises is not shown again
    assert llm.temperatures[4] == FRESH_TEMPERATURE
    assert "one round to fix" not in progress


def test_code_that_still_raises_gets_no_test_repair_round(build):
    built = build(tasks(("A",)), {"task:A": [reply_with_tests(TESTS), *[RAISES] * 8],
                                  "integration": no_wiring()})
    assert built.final["status"] != "COMPLETE"
    progress = "\n".join(built.progress())
    assert "the code came back unchanged twice: it still raises" in progress
    assert "one round to fix" not in progress
    # the tests, then the code: three rounds, the first prompt again, one echo of it
    assert len(built.llm_for("task:A").calls) == 5
