"""The five stages in the classic order (`solve --plan-first`: analysis and planning before
any code) on the scripted model: order, no-code rules, verdicts, refinement. The default,
draft-first order is in test_draft_first.py."""

from __future__ import annotations

import functools

import pytest
from solve_replies import ANALYSIS, HALF_WRONG, PLAN, RIGHT, WRONG

from codeloop.jobs.prompts import load_prompt
from codeloop.llm.base import BackendUnreachable, LLMError
from codeloop.solve.rounds import STUCK_TEMPERATURE
from codeloop.solve.stage import PROMPTS
from codeloop.solve.state import CORRECT, HAS_ISSUES


@pytest.fixture
def run(run):
    return functools.partial(run, draft_first=False)


def test_stage_order_and_early_exit_when_correct(add_task, run):
    r = run(add_task, [ANALYSIS, PLAN, RIGHT])
    assert r.stages() == ["analysis", "planning", "generation", "review"]
    assert r.result.verdict == CORRECT and r.result.passed
    assert r.result.refinement_count == 0
    assert r.result.exec_result["passed"] == 3  # two examples + one docstring example
    assert r.llm.remaining == 0 and len(r.llm.calls) == 3
    assert r.result.analysis == ANALYSIS and r.result.plan == PLAN
    # Planning sees the analysis; generation sees the plan, in the EvalPlus prompt.
    assert ANALYSIS in r.prompts()[1]
    assert r.prompts()[2].startswith("Please provide a self-contained Python script")
    assert PLAN in r.prompts()[2]


def test_analysis_with_code_is_asked_once_more(add_task, run):
    coded = "You can do:\n```python\ndef add(a, b):\n    return a + b\n```"
    r = run(add_task, [coded, ANALYSIS, PLAN, RIGHT])
    assert r.result.analysis == ANALYSIS
    assert "plain English" in r.prompts()[1] and "plain English" not in r.prompts()[0]
    assert r.result.stages["analysis"].calls == 2
    assert r.result.verdict == CORRECT


def test_planning_with_pseudocode_is_asked_once_more_then_stripped(add_task, run):
    pseudo = "Plan:\n1. total = a + b\n2. return total"
    r = run(add_task, [ANALYSIS, pseudo, "Steps: add them.\n```python\nreturn a + b\n```", RIGHT])
    assert r.result.stages["planning"].calls == 2
    assert r.result.plan == "Steps: add them."
    assert "```" not in r.prompts()[3].split("A plan you may follow")[1]


def test_a_failing_test_is_never_correct_and_refinement_is_capped_at_three(add_task, run):
    r = run(add_task, [ANALYSIS, PLAN] + [WRONG] * 6)
    assert r.result.verdict == HAS_ISSUES and not r.result.passed
    assert r.result.refinement_count == 3
    # Three rounds; they repeat one failure (stuck), so the third draws more samples
    # within the budget (rounds.py), never a fourth round.
    assert [a["round"] for a in r.result.attempts] == [0, 1, 2, 3, 3, 3]
    assert r.stages() == ["analysis", "planning", "generation", "review"] + [
        "refinement", "review"] * 5
    assert len(r.llm.calls) == 8 and r.llm.remaining == 0
    assert "add(2, 2) returned 5, expected 4" in r.result.review["issues"]


def test_first_refinement_is_the_greedy_plain_prompt_then_samples_with_the_failures(
        add_task, run):
    r = run(add_task, [ANALYSIS, PLAN, WRONG, WRONG, RIGHT])
    resample, sample = r.llm.calls[3], r.llm.calls[4]
    # Round 1: the plain one-shot prompt, greedy, without the plan or the failing code.
    assert "A plan you may follow" not in resample[-1].content
    assert "earlier attempt" not in resample[-1].content
    assert r.llm.temperatures[3] == 0.0
    # Round 2: one fresh user message (not a growing chat) with the task and the concrete
    # failure, sampled; the wrong code itself is not shown (small models copy it).
    assert len(sample) == 1
    text = sample[0].content
    assert "def add(a: int, b: int) -> int" in text
    assert "add(0, 0) returned 1, expected 0" in text
    assert "a + b + 1" not in text
    assert r.llm.temperatures[4] > 0.0
    assert [a["strategy"] for a in r.result.attempts] == ["generation", "resample", "sample"]
    assert r.result.verdict == CORRECT and r.result.refinement_count == 2
    assert "return a + b\n" in r.result.code


def test_every_round_after_the_resample_is_a_new_sample(add_task, run):
    r = run(add_task, [ANALYSIS, PLAN, WRONG, WRONG, WRONG, RIGHT])
    assert [a["strategy"] for a in r.result.attempts] == [
        "generation", "resample", "sample", "sample"]
    labels = [e.output.splitlines()[0] for e in r.recorder.of_type("stage_end")
              if e.stage == "refinement"]
    sampled = f"[sample at temperature {load_prompt(PROMPTS, 'refinement').temperature}]"
    # The first sample failed exactly as the code before it: the next one is drawn hotter.
    assert labels == ["[resample]", sampled, f"[sample at temperature {STUCK_TEMPERATURE}]"]
    assert r.result.verdict == CORRECT and r.result.refinement_count == 3


def test_a_sample_sees_the_failures_of_the_best_code_so_far(add_task, run):
    wrong_for_two = ("```python\ndef add(a: int, b: int) -> int:\n"
                     "    return 5 if a == 2 else a + b\n```")
    r = run(add_task, [ANALYSIS, PLAN, WRONG, WRONG, wrong_for_two, RIGHT])
    assert "add(0, 0) returned 1, expected 0" in r.prompts()[4]
    # wrong_for_two passed two of the three checks and became the code: the next round is
    # told what still fails, not the older failure.
    assert "add(2, 2) returned 5, expected 4" in r.prompts()[5]
    assert "add(0, 0) returned 1" not in r.prompts()[5]
    assert r.result.verdict == CORRECT


def test_a_worse_candidate_never_replaces_the_better_code(add_task, run):
    broken = "```python\ndef add(a, b):\n    return 1 / 0\n```"
    r = run(add_task, [ANALYSIS, PLAN, HALF_WRONG] + [broken] * 5)
    assert r.result.exec_result["passed"] == 2  # only add(0, 0) == 0 fails for HALF_WRONG
    assert "a + b + 1" in r.result.code and "1 / 0" not in r.result.code
    # Three rounds, then (the samples repeat one crash: stuck) two more samples in the third.
    assert [a["accepted"] for a in r.result.attempts] == [True] + [False] * 5


def test_quality_metrics_never_flip_the_verdict(add_task, run):
    ugly = ("```python\ndef add(a, b):\n" + "".join(
        f"    if a == {i}:\n        if b == {i}:\n            return {2 * i}\n" for i in range(12))
        + "    return a + b\n```")
    r = run(add_task, [ANALYSIS, PLAN, ugly])
    assert r.result.quality_metrics["max_complexity"] > 10  # Complex
    assert r.result.verdict == CORRECT and r.result.refinement_count == 0
    simple_but_wrong = run(add_task, [ANALYSIS, PLAN, WRONG], max_refinements=0)
    assert simple_but_wrong.result.quality_metrics["functions"][0]["grade"] == "Simple"
    assert simple_but_wrong.result.verdict == HAS_ISSUES


def test_reply_without_code_is_a_failed_generation_that_goes_to_refinement(add_task, run):
    # A reply with no fence may have been cut at an opening fence: asked once more, then
    # it is a failed generation.
    prose = "I would add the numbers."
    r = run(add_task, [ANALYSIS, PLAN, prose, prose, RIGHT])
    assert r.result.stages["generation"].calls == 2
    assert r.stages()[3:] == ["review", "refinement", "review"]
    assert r.result.attempts[0]["code"] is None
    assert "no usable Python code" in r.result.attempts[0]["feedback"]
    assert r.result.verdict == CORRECT


def test_signature_mismatch_is_an_issue_even_when_tests_pass(add_task, run):
    renamed = "```python\ndef add(x, y):\n    return x + y\n```"
    r = run(add_task, [ANALYSIS, PLAN, renamed, renamed, RIGHT])
    first = r.result.attempts[0]
    assert first["passed"] == 3 and "signature mismatch" in first["feedback"]
    assert "'add' takes (x, y), the task says (a, b)" in r.prompts()[4]  # the sampled round
    assert r.result.verdict == CORRECT and r.result.refinement_count == 2


def test_the_failure_note_names_a_failing_case_before_a_signature_problem(add_task, run):
    renamed_and_wrong = "```python\ndef add(x, y):\n    return x + y + 1\n```"
    r = run(add_task, [ANALYSIS, PLAN, renamed_and_wrong, renamed_and_wrong, RIGHT])
    assert "signature mismatch" in r.result.attempts[0]["feedback"]
    assert "earlier attempt got this wrong: add(0, 0) returned 1, expected 0" in r.prompts()[4]


def test_external_test_file_failures_count(add_task, run, tmp_path):
    tests = tmp_path / "add-tests.py"
    tests.write_text("def test_add_big():\n    from solution import add\n"
                     "    assert add(10**6, 1) == 1000002\n"
                     "def test_other_thing():\n    assert False\n")
    r = run(add_task, [ANALYSIS, PLAN] + [RIGHT] * 6, test_file=tests)
    # Only this task's tests run (test_add_*); the intentionally wrong one says 1000002.
    assert r.result.exec_result["total"] == 4
    assert r.result.verdict == HAS_ISSUES
    assert any("1000001" in f for f in r.result.exec_result["failures"])


def test_usage_and_events_per_stage(add_task, run):
    r = run(add_task, [ANALYSIS, PLAN, WRONG, RIGHT])
    assert set(r.result.stages) == {"analysis", "planning", "generation", "review", "refinement"}
    assert r.result.stages["review"].calls == 0
    assert r.result.totals.calls == 4
    assert r.result.totals.completion_tokens == sum(
        e.completion_tokens for e in r.recorder.of_type("llm_call"))
    assert [e.stage for e in r.recorder.of_type("llm_call")] == [
        "analysis", "planning", "generation", "refinement"]
    assert len(r.recorder.of_type("test_result")) == 2


def test_context_precedes_the_function_in_the_program(run):
    from codeloop.solve.tasks import Task

    task = Task(task_id="total", signature="def total(xs: List[int]) -> int",
                docstring="Sum.\n>>> total([1, 2])\n3", context="from typing import List")
    r = run(task, [ANALYSIS, PLAN,
                   "```python\ndef total(xs: List[int]) -> int:\n    return sum(xs)\n```"])
    assert r.result.code.startswith("from typing import List\n")
    assert r.result.verdict == CORRECT


def test_unreachable_backend_propagates_with_an_error_event(add_task, run):
    with pytest.raises(LLMError, match="cannot reach http://127.0.0.1:9"):
        run(add_task, [{"raise": "BackendUnreachable",
                        "message": "cannot reach http://127.0.0.1:9: refused"}])
    assert issubclass(BackendUnreachable, LLMError)


def test_without_the_plan_generation_gets_the_plain_one_shot_prompt(add_task, run):
    r = run(add_task, [ANALYSIS, PLAN, RIGHT], plan_in_generation=False)
    assert PLAN not in r.prompts()[2] and "A plan you may follow" not in r.prompts()[2]
    assert r.result.plan == PLAN and r.result.verdict == CORRECT


def test_state_is_checkpointed_per_run(add_task, tmp_path):
    from codeloop.events import EventBus
    from codeloop.llm.scripted import ScriptedLLM
    from codeloop.solve.runner import solve_task
    from codeloop.store import RunStore

    with RunStore(tmp_path / "runs.sqlite") as store:
        saver = store.checkpointer()
        solve_task(add_task, ScriptedLLM([ANALYSIS, PLAN, RIGHT]), bus=EventBus("r1"),
                   checkpointer=saver, thread_id="r1", draft_first=False)
        saved = saver.get_tuple({"configurable": {"thread_id": "r1"}})
        assert saved.checkpoint["channel_values"]["review"]["verdict"] == CORRECT
        assert saved.checkpoint["channel_values"]["plan"] == PLAN
