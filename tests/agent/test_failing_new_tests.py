"""A request for tests of existing code whose new tests still fail after the rounds: the
failing test functions are left out, when a test is left, and the answer names them
(jobs/edit_engine/failing_new_tests.py). On the scripted model, the real sandbox and pytest, a git
workspace."""

from __future__ import annotations

from agent_replies import scripted

from codeloop.agent.factory import agent_spec
from codeloop.agent.session import AgentSession
from codeloop.jobs.edit_engine.failing_new_tests import pruned_new_tests
from codeloop.jobs.react.state import AgentLimits

TEXT = "def shout(s):\n    \"\"\"s upper-cased with a '!': shout('a') == 'A!'.\"\"\"\n    return s.upper() + '!'\n"
REQUEST = "Write tests for shout in text.py in a new file test_text.py."
GOOD = "def test_shout():\n    assert shout('a') == 'A!'\n"
WRONG = "def test_shout_twice():\n    assert shout('ab') == 'AB!!'\n"


def _tests(*bodies: str) -> str:
    return "from text import shout\n\n\n" + "\n\n".join(bodies)


def _reply(text: str) -> str:
    return f"FILE: test_text.py\n```python\n{text}```\n"


def _ask(repo, store, snapshots, replies):
    (repo.root / "text.py").write_text(TEXT)
    spec = agent_spec("single", repo, limits=AgentLimits(after_direct_budget=0))
    session = AgentSession(scripted(*replies), spec, checkpointer=store.checkpointer(),
                           snapshots=snapshots, thread="t")
    return session.ask(REQUEST)


def test_a_new_test_that_keeps_failing_is_left_out_and_named(repo, store, snapshots):
    written = _tests(GOOD, WRONG)
    result = _ask(repo, store, snapshots, [_reply(written)] * 3)
    assert result.status == "finished"
    assert (repo.root / "test_text.py").read_text() == _tests(GOOD)
    assert "the tests pass" in result.answer
    assert "Left out test_text.py::test_shout_twice" in result.answer


def test_nothing_is_left_out_when_every_new_test_fails(repo, store, snapshots):
    written = _tests(WRONG)
    result = _ask(repo, store, snapshots, [_reply(written)] * 3)
    assert result.status != "finished" or "Left out" not in result.answer
    assert (repo.root / "test_text.py").read_text() == written


def test_only_files_the_turn_created_and_real_failures_count():
    output = ("FAILED test_text.py::test_b - AssertionError\n"
              "FAILED test_old.py::test_x - AssertionError\n1 failed, 1 passed")
    created = {"test_text.py": _tests(GOOD,
                                      "def test_b():\n    assert False\n")}
    texts, dropped = pruned_new_tests(output, created)
    assert dropped == ["test_text.py::test_b"] and "test_b" not in texts["test_text.py"]
    assert pruned_new_tests("1 failed", created) == ({}, [])  # no summary line, nothing
