"""After the draft, solve's calls end at the end of the reply's first code block: what a
small model writes after it (a demo, an explanation, a second version) is a third of a
sample's tokens and never part of the answer. The draft stays the one-shot call."""

from __future__ import annotations

from solve_replies import PLAN, WRONG

from codeloop.solve.state import CORRECT, HAS_ISSUES

RIGHT_THEN_TALK = ("```python\ndef add(a: int, b: int) -> int:\n    return a + b\n```\n\n"
                   "This adds the numbers. A shorter version:\n```python\n"
                   "def add(a: int, b: int) -> int:\n    return a - b\n```\n")
BARE_FENCE = "Here it is:\n```\ndef add(a: int, b: int) -> int:\n    return a + b\n```\n"


def test_the_planned_generation_ends_at_its_first_block(add_task, run):
    r = run(add_task, [WRONG, PLAN, RIGHT_THEN_TALK])
    # Without the stop the last block (a - b) would be the answer.
    assert r.result.verdict == CORRECT and "a + b" in r.result.code
    assert r.result.stages["generation"].calls == 2


def test_refinement_samples_end_at_their_first_block(add_task, run):
    r = run(add_task, [WRONG, PLAN, WRONG, RIGHT_THEN_TALK])
    assert [a["strategy"] for a in r.result.attempts] == ["draft", "generation", "sample"]
    assert r.result.verdict == CORRECT and "a - b" not in r.result.code
    # The tokens counted are those of the text up to the stop.
    assert r.result.stages["refinement"].completion_tokens < len(RIGHT_THEN_TALK) // 8


def test_the_draft_is_not_stopped(add_task, run):
    # The draft is the one-shot call, parameters included: its reply is taken whole, and
    # extraction keeps the last block defining the function.
    r = run(add_task, [RIGHT_THEN_TALK, PLAN, RIGHT_THEN_TALK], max_refinements=0)
    assert [a["strategy"] for a in r.result.attempts] == ["draft", "generation"]
    assert r.result.attempts[0]["code"] and "a - b" in r.result.attempts[0]["code"]
    assert r.result.verdict == CORRECT


def test_a_stop_at_an_opening_fence_without_language_is_asked_again(add_task, run):
    # "\n```\n" also matches a bare opening fence after prose; the reply is then only the
    # prose, and the call is made once more without the stop.
    r = run(add_task, [WRONG, PLAN, BARE_FENCE, BARE_FENCE])
    assert r.result.stages["generation"].calls == 3
    assert r.result.verdict == CORRECT


def test_no_code_twice_is_a_failed_round(add_task, run):
    r = run(add_task, [WRONG, PLAN, "Add them.", "Add them."], max_refinements=0)
    assert r.result.attempts[-1]["code"] is None
    assert r.result.verdict == HAS_ISSUES
