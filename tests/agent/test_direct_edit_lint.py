"""The context-first edit lints what it changed (jobs/react/changed_lint.py): on the scripted
model, with the real sandbox, real pytest, real ruff and a real git workspace. An error the
edit brought in (a name that is not defined) goes back like a failing test even when the
tests pass; a warning is shown; a finding the file had before the turn is not the edit's."""

from __future__ import annotations

from agent_replies import scripted

from codeloop.agent.factory import agent_spec
from codeloop.agent.session import AgentSession
from codeloop.jobs.react.state import AgentLimits

BUGGY = "def add(a, b):\n    return a - b\n"
FIXED = "def add(a, b):\n    return a + b\n"
# Right for the tests, but `twice` calls a helper that is nowhere.
UNDEFINED = FIXED + "\n\ndef twice(a):\n    return doubled(a)\n"
CLEAN = FIXED + "\n\ndef twice(a):\n    return add(a, a)\n"
TESTS = "from mathx import add\n\n\ndef test_add():\n    assert add(2, 3) == 5\n"
REQUEST = "The test in test_mathx.py fails. Fix add in mathx.py and add twice(a)."


def _ask(llm, repo, store, snapshots, events, request=REQUEST, tests=True):
    (repo.root / "mathx.py").write_text(BUGGY)
    if tests:
        (repo.root / "test_mathx.py").write_text(TESTS)
    spec = agent_spec("single", repo, limits=AgentLimits(), bus=events[0])
    session = AgentSession(llm, spec, checkpointer=store.checkpointer(), snapshots=snapshots,
                           thread="lint", bus=events[0])
    return session.ask(request)


def _whole(text: str) -> str:
    return f"FILE: mathx.py\n```python\n{text}```\n"


def _said(events) -> str:
    return "\n".join(e.message for e in events[1].of_type("progress"))


def test_an_undefined_name_goes_back_like_a_failing_test_while_the_tests_pass(
        repo, store, snapshots, events):
    llm = scripted(_whole(UNDEFINED), _whole(CLEAN))
    result = _ask(llm, repo, store, snapshots, events)
    assert result.status == "finished" and "the tests pass" in result.answer
    assert (repo.root / "mathx.py").read_text() == CLEAN
    assert len(llm.calls) == 2
    second = llm.calls[1][-1].content
    assert "mathx.py:6: F821 Undefined name `doubled`" in second
    # Shown to the user as it happened.
    assert "mathx.py:6: F821 Undefined name `doubled`" in _said(events)


def test_without_tests_a_lint_error_is_the_failure(repo, store, snapshots, events):
    llm = scripted(_whole(UNDEFINED), _whole(CLEAN))
    result = _ask(llm, repo, store, snapshots, events, tests=False,
                  request="Fix add in mathx.py and add twice(a).")
    assert result.status == "finished"
    assert (repo.root / "mathx.py").read_text() == CLEAN
    second = llm.calls[1][-1].content
    assert "mathx.py:6: F821 Undefined name `doubled`" in second
    assert "tests ()" not in second


def test_a_warning_is_shown_in_the_answer_and_does_not_cost_a_round(repo, store, snapshots,
                                                                     events):
    unused = "import os\n\n\n" + CLEAN
    llm = scripted(_whole(unused))
    result = _ask(llm, repo, store, snapshots, events)
    assert result.status == "finished" and len(llm.calls) == 1
    assert "mathx.py:1: F401 `os` imported but unused" in result.answer
    assert "F401" in _said(events)


def test_a_finding_the_file_had_before_the_turn_is_not_the_edits(repo, store, snapshots,
                                                                  events):
    legacy = "\n\ndef legacy(text):\n    return unicode(text)\n"  # there before: not ours
    (repo.root / "mathx.py").write_text(BUGGY + legacy)
    (repo.root / "test_mathx.py").write_text(TESTS)
    spec = agent_spec("single", repo, limits=AgentLimits(), bus=events[0])
    session = AgentSession(scripted(_whole(FIXED + legacy)), spec,
                           checkpointer=store.checkpointer(), snapshots=snapshots,
                           thread="lint", bus=events[0])
    result = session.ask("The test in test_mathx.py fails. Fix add in mathx.py.")
    assert result.status == "finished" and "the tests pass" in result.answer
    assert "F821" not in result.answer and "F821" not in _said(events)
