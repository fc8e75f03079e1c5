"""The vote (solve/vote.py): code that passes its examples only after a failed draft meets
an independent sample on calls made from the examples; it is replaced only when a second
sample sides with the first against it. All candidates run in the real sandbox."""

from __future__ import annotations

import pytest

from codeloop.solve.edges import boundary_calls
from codeloop.solve.state import CORRECT
from codeloop.solve.tasks import Task
from codeloop.solve.vote import VOTE_BUDGET, disputed, needs_vote, sides_with, vote_calls


@pytest.fixture
def top_task() -> Task:
    return Task(task_id="top", signature="def top(nums: list, k: int) -> list",
                docstring="Return the k largest numbers of nums, in ascending order.",
                examples="top([3, 1, 2], 2) == [2, 3]\ntop([5, 4], 1) == [5]")


def _code(body: str) -> str:
    return f"```python\ndef top(nums: list, k: int) -> list:\n{body}\n```"


PLAN = "1. Sort the numbers.\n2. Keep the last k."
DRAFT = _code("    return sorted(nums)[:k]")  # fails top([3, 1, 2], 2)
# Passes both examples; wrong where they do not look: top(x, 0) gives all of x.
REFINED = _code("    return sorted(nums)[-k:]")
RIGHT = _code("    return sorted(nums)[len(nums) - k:]")
RIGHT_TOO = _code("    ordered = sorted(nums)\n    return ordered[len(ordered) - k:] if k else []")
LIKE_REFINED = _code("    ordered = sorted(nums)\n    return ordered[-k:]")
STAGES = ["generation", "review", "planning", "generation", "review", "vote"]


def test_two_samples_that_agree_against_refined_code_replace_it(top_task, run):
    r = run(top_task, [DRAFT, PLAN, REFINED, RIGHT, RIGHT_TOO], vote=True)
    assert r.stages() == STAGES
    result = r.result
    assert result.verdict == CORRECT
    assert "len(nums) - k" in result.function_code
    assert [(a["strategy"], a["accepted"]) for a in result.attempts] == [
        ("draft", True), ("generation", True), ("vote", True), ("vote", False)]
    assert all(a["tokens"] > 0 for a in result.attempts)
    [note] = [n for n in result.review["notes"] if n.startswith("vote:")]
    assert "two independent samples agree against the code" in note
    assert "top([3, 1, 2], 0): value [], the code value [1, 2, 3]" in note


def test_the_votes_sample_is_told_the_drafts_failure_and_the_vote_is_off_by_default(
        top_task, run):
    r = run(top_task, [DRAFT, PLAN, REFINED, LIKE_REFINED], vote=True)
    prompt = r.prompts()[3]
    assert "top([3, 1, 2], 2) returned [1, 2]" in prompt
    assert "[-k:]" not in prompt and "[:k]" not in prompt  # no code is shown to copy
    from codeloop.llm.scripted import ScriptedLLM
    from codeloop.solve.runner import solve_task
    llm = ScriptedLLM([DRAFT, PLAN, REFINED])
    default = solve_task(top_task, llm)
    # Off by default: it changed no answer in a full HumanEval run (solve/vote.py).
    assert [a["strategy"] for a in default.attempts] == ["draft", "generation"]


def test_a_sample_that_agrees_keeps_the_code_for_one_more_call(top_task, run):
    r = run(top_task, [DRAFT, PLAN, REFINED, LIKE_REFINED], vote=True)
    assert r.stages() == STAGES and len(r.llm.calls) == 4
    assert "[-k:]" in r.result.function_code and "ordered" not in r.result.function_code
    assert any("does the same on the" in n for n in r.result.review["notes"])
    assert [a["accepted"] for a in r.result.attempts][-1] is False


def test_a_second_sample_that_sides_with_the_code_keeps_it(top_task, run):
    r = run(top_task, [DRAFT, PLAN, REFINED, RIGHT, LIKE_REFINED], vote=True)
    assert len(r.llm.calls) == 5
    assert "[-k:]" in r.result.function_code and "len(nums)" not in r.result.function_code
    assert any("a second does not side with it; kept the code" in n for n in r.result.review["notes"])
    assert not any(a["accepted"] for a in r.result.attempts if a["strategy"] == "vote")


def test_a_sample_that_fails_an_example_ends_the_vote(top_task, run):
    r = run(top_task, [DRAFT, PLAN, REFINED, DRAFT], vote=True)
    assert len(r.llm.calls) == 4
    vote = r.result.attempts[-1]
    assert vote["strategy"] == "vote" and vote["passed"] < vote["total"]
    assert "[-k:]" in r.result.function_code
    assert any("fails an example; kept the code" in n for n in r.result.review["notes"])


def test_no_vote_after_a_right_draft_or_when_switched_off(top_task, run):
    r = run(top_task, [REFINED], vote=True)
    assert r.stages() == ["generation", "review"] and len(r.llm.calls) == 1
    r = run(top_task, [DRAFT, PLAN, REFINED], vote=False)
    assert r.stages() == STAGES[:-1] and len(r.llm.calls) == 3


def test_no_vote_without_literal_example_calls(run):
    task = Task(task_id="top", signature="def top(nums: list, k: int) -> list",
                docstring="Return the k largest numbers of nums, in ascending order.",
                examples="top(list(range(3)), 2) == [1, 2]")
    assert vote_calls(["top(list(range(3)), 2) == [1, 2]"], "top") == []
    draft = _code("    return sorted(nums)[:k]")
    r = run(task, [draft, PLAN, REFINED], vote=True)
    assert "vote" not in r.stages() and len(r.llm.calls) == 3


def test_boundary_calls_zero_one_negative_and_a_duplicate():
    calls = boundary_calls(["f([3, 1], 2) == 1", "f([], 0, True) == 0"], "f")
    assert calls == ["f([3, 1, 3], 2)", "f([3, 1], 0)", "f([3, 1], 1)", "f([3, 1], -2)",
                     "f([], 1, True)"]
    assert boundary_calls(["f(1.5) == 2"], "f") == ["f(0.0)", "f(1.0)", "f(-1.5)"]
    # the vote's calls: the edge calls (empty, one item) first, then the boundaries
    assert vote_calls(["f([3, 1], 2) == 1"], "f")[:2] == ["f([], 2)", "f([3], 2)"]


def test_only_disputed_calls_with_a_value_count_and_the_code_must_get_no_vote():
    code = ("value [1]", "raises TypeError", "value 2", "value 0")
    first = ("value []", "raises ValueError", "value 2", "value 5")
    assert disputed(code, first) == [0, 3]  # two crashes are no dispute about a value
    assert disputed(None, first) == []
    assert sides_with(("value []", "x", "y", "value 9"), first, code, [0, 3])
    assert not sides_with(("value []", "x", "y", "value 0"), first, code, [0, 3])
    assert not sides_with(("value 7", "x", "y", "value 9"), first, code, [0, 3])
    assert not sides_with(None, first, code, [0, 3])


def _state(tokens: list[int], passed: list[int], verdict: str = CORRECT) -> dict:
    attempts = [{"strategy": "draft" if i == 0 else "sample", "passed": p, "total": 2,
                 "tokens": t} for i, (t, p) in enumerate(zip(tokens, passed, strict=True))]
    return {"attempts": attempts, "review": {"verdict": verdict},
            "exec_result": {"total": 2}}


def test_needs_vote_only_within_the_budget_and_once():
    calls = ["f(0)"]
    assert needs_vote(_state([100, 300], [0, 2]), calls)
    assert not needs_vote(_state([100, 300], [0, 2]), [])
    assert not needs_vote(_state([100, 300], [2, 2]), calls)  # the draft passed
    assert not needs_vote(_state([100, 300], [0, 1], verdict="Code has issues"), calls)
    over = int(VOTE_BUDGET * 100)
    assert not needs_vote(_state([100, over], [0, 2]), calls)  # one more sample: over budget
    voted = _state([100, 300], [0, 2])
    voted["attempts"].append({"strategy": "vote", "passed": 2, "total": 2, "tokens": 300})
    assert not needs_vote(voted, calls)
